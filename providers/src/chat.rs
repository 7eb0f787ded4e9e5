//! A conversation sent as it is: explicit messages (system, user, assistant)
//! and an optional GBNF grammar, for callers that write their own prompt
//! (`tissc generate`: a language reference, the goal, then its earlier
//! answer and the compiler's diagnostics). PROMPT_AGENT's requests are the
//! layout's two messages (`layout.rs`), four for a repair request, sent
//! through the same path ([`ChatRequest::from_prompt`]), so a provider
//! builds its bodies once.

use crate::{AnswerFormat, PromptRequest, layout};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    /// The role's name in the OpenAI and Ollama message formats.
    pub fn name(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn new(role: Role, content: impl Into<String>) -> Message {
        Message { role, content: content.into() }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChatRequest {
    /// In order; the last is the user's.
    pub messages: Vec<Message>,
    /// A GBNF grammar the answer must follow: sent to llama.cpp (its
    /// `/completion`, and its OpenAI-compatible `/chat/completions`);
    /// refused where the API has no such field (`ollama`, `/completions`).
    pub grammar: Option<String>,
    /// The JSON Schema the answer must follow (a typed PROMPT_AGENT,
    /// book: reference/types.md), sent in each API's own field (`answer_format.rs`); refused
    /// where the API has none (`/completions`), and with a `grammar`.
    pub answer_format: Option<AnswerFormat>,
    /// How many requests the caller allows (retries included); `None`: no cap.
    pub requests_allowed: Option<u64>,
    /// The request's place among its caller's requests, 0 for the first:
    /// `mock --mock-answers` gives the answer at this place.
    pub index: u32,
}

impl ChatRequest {
    /// A PROMPT_AGENT's request: the layout's system and user messages,
    /// and for a repair request the invalid answer (the assistant's) and
    /// the repair message (the user's) after them.
    pub fn from_prompt(request: &PromptRequest) -> ChatRequest {
        let mut messages = Vec::with_capacity(if request.repair.is_some() { 4 } else { 2 });
        messages.push(Message::new(Role::System, layout::SYSTEM));
        messages.push(Message::new(Role::User, layout::user_message(request)));
        if let Some(repair) = &request.repair {
            messages.push(Message::new(Role::Assistant, repair.answer.as_str()));
            messages.push(Message::new(Role::User, layout::repair_message(&repair.errors)));
        }
        ChatRequest {
            messages,
            grammar: request.grammar.clone(),
            answer_format: request.answer_format.clone(),
            requests_allowed: request.requests_allowed,
            index: request.index,
        }
    }

    /// A request may be constrained by a grammar or by an answer format,
    /// not both: every provider refuses such a request (the VM sends none).
    pub fn check_constraints(&self) -> Result<(), String> {
        match (&self.grammar, &self.answer_format) {
            (Some(_), Some(format)) => Err(format!(
                "a request is constrained by a GBNF grammar or by an answer format (the JSON Schema of `{}`), \
                 not both",
                format.name
            )),
            _ => Ok(()),
        }
    }

    /// The text of the last user message (what `mock`'s patterns match).
    pub fn last_user(&self) -> &str {
        self.messages.iter().rev().find(|m| m.role == Role::User).map_or("", |m| m.content.as_str())
    }

    /// The messages as the OpenAI and Ollama APIs take them.
    pub fn messages_json(&self) -> serde_json::Value {
        self.messages
            .iter()
            .map(|m| serde_json::json!({"role": m.role.name(), "content": m.content}))
            .collect()
    }
}

/// The VM's estimate of a request's tokens when the server reports none:
/// characters / 4, rounded up, of the messages sent and of the answer.
pub fn estimate_tokens(messages: &[Message], answer: &str) -> u64 {
    let chars: usize = messages.iter().map(|m| m.content.chars().count()).sum();
    (chars as u64).div_ceil(4) + (answer.chars().count() as u64).div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_is_the_layouts_two_messages() {
        let prompt = PromptRequest {
            query: "q".into(),
            context: vec![("X".into(), "1".into())],
            index: 4,
            grammar: Some("root ::= \"a\"".into()),
            requests_allowed: Some(2),
            occurrence: 0,
            step: "s".into(),
            line: 3,
            answer_format: None,
            repair: None,
        };
        let chat = ChatRequest::from_prompt(&prompt);
        assert_eq!(
            chat.messages,
            [Message::new(Role::System, layout::SYSTEM), Message::new(Role::User, "q\n\n### X\n```\n1\n```")]
        );
        assert_eq!(
            (chat.index, chat.requests_allowed, chat.grammar.as_deref()),
            (4, Some(2), Some("root ::= \"a\""))
        );
        assert_eq!(chat.last_user(), "q\n\n### X\n```\n1\n```");
        assert_eq!(
            chat.messages_json().to_string(),
            format!(
                r#"[{{"role":"system","content":"{}"}},{{"role":"user","content":"q\n\n### X\n```\n1\n```"}}]"#,
                layout::SYSTEM
            )
        );
    }

    #[test]
    fn a_repair_is_four_messages_with_the_same_format() {
        let format = AnswerFormat { name: "Colour".into(), schema: serde_json::json!({"type": "string"}) };
        let prompt = PromptRequest {
            query: "q".into(),
            index: 1,
            answer_format: Some(format.clone()),
            repair: Some(crate::Repair {
                answer: "{\"colour\": 7}".into(),
                errors: "$.colour: not a string".into(),
            }),
            ..Default::default()
        };
        let chat = ChatRequest::from_prompt(&prompt);
        assert_eq!(
            chat.messages,
            [
                Message::new(Role::System, layout::SYSTEM),
                Message::new(Role::User, "q"),
                Message::new(Role::Assistant, "{\"colour\": 7}"),
                Message::new(Role::User, layout::repair_message("$.colour: not a string")),
            ]
        );
        assert_eq!((chat.answer_format.as_ref(), chat.index), (Some(&format), 1));
        assert_eq!(chat.last_user(), layout::repair_message("$.colour: not a string"));
        assert_eq!(chat.check_constraints(), Ok(()));
        let both = ChatRequest { grammar: Some("root ::= \"a\"".into()), ..chat };
        let e = both.check_constraints().unwrap_err();
        assert!(
            e.contains("a GBNF grammar or by an answer format (the JSON Schema of `Colour`), not both"),
            "{e}"
        );
    }

    #[test]
    fn estimates_round_up() {
        let messages =
            |user: &str| [Message::new(Role::System, layout::SYSTEM), Message::new(Role::User, user)];
        let base = (layout::SYSTEM.len() as u64).div_ceil(4);
        assert_eq!(estimate_tokens(&messages(""), ""), base);
        assert_eq!(
            estimate_tokens(&messages("abcd"), "a"),
            (layout::SYSTEM.len() as u64 + 4).div_ceil(4) + 1
        );
    }
}
