//! Prompt templates of the `completion` provider (`--template`): how the
//! layout's system and user messages (`layout.rs`) become the one text a raw
//! completion endpoint takes, in the format each model family was trained on.
//!
//! - `chatml` (OpenAI's ChatML; Qwen, SmolLM2, many fine-tunes): each
//!   message `<|im_start|>ROLE\nTEXT<|im_end|>\n`, then the opening of the
//!   assistant's turn, `<|im_start|>assistant\n`.
//! - `llama2` (Meta's Llama 2 chat, as its reference `chat_completion`
//!   builds it): `[INST] <<SYS>>\nSYSTEM\n<</SYS>>\n\nUSER [/INST]`, the
//!   system block and the user message stripped of surrounding whitespace
//!   together. The leading `<s>` of that format is the BOS *token*, which the
//!   server adds when it tokenizes (llama.cpp does for models that want one);
//!   written as text it would be a second one.
//! - `alpaca` (Stanford Alpaca, its prompt without input): the fixed
//!   preamble, `### Instruction:`, the instruction, `### Response:`. Alpaca
//!   has no system role: the system message opens the instruction, a blank
//!   line before the user message.
//!
//! A conversation (`render_chat`: a system message, then user and assistant
//! turns) follows each family's multi-turn form: ChatML's messages one after
//! the other; Llama 2's `[INST] USER [/INST] ANSWER </s><s>[INST] USER
//! [/INST]` (its reference code's later BOS and EOS tokens, as text, which
//! the server reads as those tokens); Alpaca's instruction and response
//! blocks repeated.
//!
//! Any change to these bytes changes what is sent, like a change of the
//! layout: keep the unit tests below exact.

use crate::chat::{Message, Role};

/// A prompt template, by the name `--template` gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Template {
    ChatMl,
    Llama2,
    Alpaca,
}

/// The names `--template` takes.
pub const NAMES: [&str; 3] = ["chatml", "llama2", "alpaca"];

const ALPACA_PREAMBLE: &str = "Below is an instruction that describes a task. Write a response that appropriately completes the request.";

impl Template {
    pub fn from_name(name: &str) -> Option<Template> {
        match name {
            "chatml" => Some(Template::ChatMl),
            "llama2" => Some(Template::Llama2),
            "alpaca" => Some(Template::Alpaca),
            _ => None,
        }
    }

    /// The name of the template `prompt` was rendered with, told by how it
    /// begins (a recorded request's: replay takes the template from it).
    pub fn name_of_prompt(prompt: &str) -> Option<&'static str> {
        let starts = [("chatml", "<|im_start|>"), ("llama2", "[INST]"), ("alpaca", ALPACA_PREAMBLE)];
        starts.into_iter().find(|(_, start)| prompt.starts_with(start)).map(|(name, _)| name)
    }

    /// The prompt: `system` and `user` in this template's format, ending
    /// where the model's answer begins.
    pub fn render(self, system: &str, user: &str) -> String {
        self.render_chat(&[Message::new(Role::System, system), Message::new(Role::User, user)])
    }

    /// A conversation in this template's format, ending where the model's
    /// answer begins. A system message counts only first; the turns after it
    /// are taken in order as they alternate.
    pub fn render_chat(self, messages: &[Message]) -> String {
        let (system, turns) = match messages.split_first() {
            Some((first, rest)) if first.role == Role::System => (Some(first.content.as_str()), rest),
            _ => (None, messages),
        };
        let mut out = String::new();
        match self {
            Template::ChatMl => {
                for m in messages {
                    out.push_str(&format!("<|im_start|>{}\n{}<|im_end|>\n", m.role.name(), m.content));
                }
                out.push_str("<|im_start|>assistant\n");
            }
            Template::Llama2 => {
                for (i, m) in turns.iter().enumerate() {
                    match m.role {
                        Role::Assistant => out.push_str(&format!(" {} </s>", m.content.trim())),
                        _ => {
                            let content = match system.filter(|_| i == 0) {
                                Some(system) => format!("<<SYS>>\n{system}\n<</SYS>>\n\n{}", m.content),
                                None => m.content.clone(),
                            };
                            let bos = if i == 0 { "" } else { "<s>" };
                            out.push_str(&format!("{bos}[INST] {} [/INST]", content.trim()));
                        }
                    }
                }
            }
            Template::Alpaca => {
                out.push_str(ALPACA_PREAMBLE);
                for (i, m) in turns.iter().enumerate() {
                    match m.role {
                        Role::Assistant => out.push_str(&format!("\n\n### Response:\n{}", m.content)),
                        _ => match system.filter(|_| i == 0) {
                            Some(system) => {
                                out.push_str(&format!("\n\n### Instruction:\n{system}\n\n{}", m.content))
                            }
                            None => out.push_str(&format!("\n\n### Instruction:\n{}", m.content)),
                        },
                    }
                }
                out.push_str("\n\n### Response:");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chatml_is_exact() {
        assert_eq!(
            Template::ChatMl.render("Be brief.", "Say hi."),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nSay hi.<|im_end|>\n<|im_start|>assistant\n"
        );
    }

    #[test]
    fn llama2_is_exact_without_a_textual_bos() {
        assert_eq!(
            Template::Llama2.render("Be brief.", "Say hi.\n"),
            "[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nSay hi. [/INST]"
        );
    }

    #[test]
    fn alpaca_is_exact() {
        assert_eq!(
            Template::Alpaca.render("Be brief.", "Say hi."),
            "Below is an instruction that describes a task. Write a response that appropriately completes the \
             request.\n\n### Instruction:\nBe brief.\n\nSay hi.\n\n### Response:"
        );
    }

    fn conversation() -> Vec<Message> {
        vec![
            Message::new(Role::System, "Be brief."),
            Message::new(Role::User, "Say hi."),
            Message::new(Role::Assistant, "Hi."),
            Message::new(Role::User, "Again."),
        ]
    }

    #[test]
    fn conversations_follow_each_familys_turns() {
        assert_eq!(
            Template::ChatMl.render_chat(&conversation()),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nSay hi.<|im_end|>\n<|im_start|>assistant\n\
             Hi.<|im_end|>\n<|im_start|>user\nAgain.<|im_end|>\n<|im_start|>assistant\n"
        );
        assert_eq!(
            Template::Llama2.render_chat(&conversation()),
            "[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nSay hi. [/INST] Hi. </s><s>[INST] Again. [/INST]"
        );
        assert_eq!(
            Template::Alpaca.render_chat(&conversation()),
            format!(
                "{ALPACA_PREAMBLE}\n\n### Instruction:\nBe brief.\n\nSay hi.\n\n### Response:\nHi.\n\n\
                 ### Instruction:\nAgain.\n\n### Response:"
            )
        );
    }

    #[test]
    fn every_name_is_a_template_and_its_prompts_tell_it() {
        for name in NAMES {
            let template = Template::from_name(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(Template::name_of_prompt(&template.render_chat(&conversation())), Some(name));
            assert_eq!(Template::name_of_prompt(&template.render("", "x")), Some(name));
        }
        assert_eq!(Template::from_name("vicuna"), None);
        assert_eq!(Template::name_of_prompt("USER: hi"), None);
    }
}
