//! `tiss-providers`: TissLang's language-model providers (book: reference/models.md), one file
//! each, behind [`Provider`]. Its own crate so that both the VM (PROMPT_AGENT)
//! and `tissc generate` use it; the VM re-exports it as `tiss_vm::provider`.
//! `settings.rs` holds their settings (flags, environment, `tiss.toml`),
//! `http.rs` the HTTP all live providers share (timeouts, retries, API_CALLS
//! per request), `answer.rs` the streamed answer they fetch through it,
//! `layout.rs` the versioned prompt layout they send, `template.rs` how the
//! `completion` provider renders it as one text, `chat.rs` a request of
//! explicit messages (`tissc generate`), which PROMPT_AGENT's requests are
//! made into. `cassette.rs` is the recorded-answers format that `--record`
//! writes and the `replay` provider (`replay.rs`) answers from.
//! `answer_format.rs` holds what a typed PROMPT_AGENT adds to its request
//! (book: reference/types.md): the JSON Schema of its answer, and its repair request.

pub mod answer;
mod answer_format;
mod backends;
pub mod cassette;
pub mod chat;
pub mod http;
pub mod layout;
pub mod settings;
pub mod template;

/// The providers, one module each, at the crate's top where their users
/// name them (`tiss_providers::mock::MockProvider`).
pub use backends::{completion, mock, ollama, openai, replay};

pub use answer_format::{AnswerFormat, Repair};

/// A question to a language model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptRequest {
    pub query: String,
    /// (name, value) pairs of the context, in order.
    pub context: Vec<(String, String)>,
    /// How many requests what is left of the API_CALLS budget allows
    /// (retries included); `None`: no cap.
    pub requests_allowed: Option<u64>,
    /// The prompt's place in its run, 0 for the first (counted across
    /// resume): `mock --mock-answers` gives the answer at this place.
    pub index: u32,
    /// A GBNF grammar the answer must follow, as [`chat::ChatRequest::grammar`].
    pub grammar: Option<String>,
    /// How many times the run asked this query with this context before
    /// (counted by the machine across resume): a cassette's occurrence.
    pub occurrence: u32,
    /// Where the PROMPT_AGENT stands in the plan, its step path and source
    /// line: what a cassette keeps of it, never sent.
    pub step: String,
    pub line: u32,
    /// A typed PROMPT_AGENT (book: reference/types.md): the answer must be JSON of this
    /// schema, which each provider asks for in its API's own field
    /// (`answer_format.rs`). Never with a `grammar`.
    pub answer_format: Option<AnswerFormat>,
    /// The one repair request of a typed prompt whose answer did not
    /// validate: the layout's two messages, then the invalid answer as the
    /// assistant's and the errors as the user's (`layout::repair_message`).
    /// It has its own `index` (the next prompt place) and the same
    /// `answer_format`.
    pub repair: Option<Repair>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptResponse {
    pub text: String,
    /// Prompt + completion tokens as the provider reported them, or the
    /// VM's estimate when `estimated`.
    pub tokens: u64,
    /// The server reported no usage: `tokens` is an estimate.
    pub estimated: bool,
    /// Requests sent, retries included: each counts one API_CALLS.
    pub requests: u64,
    /// Why the answer ended, in the server's words where it gave one
    /// (`stop`, `length`, ...; llama.cpp's `/completion` mapped to these).
    pub finish_reason: Option<String>,
}

/// What a provider sends for a request: its endpoint's path and the JSON
/// body, exactly as sent (`complete` sends these bytes). A cassette's key is
/// made from them.
#[derive(Debug, Clone, PartialEq)]
pub struct Wire {
    /// The URL's path, `/v1/chat/completions`: the server's address is not
    /// part of what is asked. Empty for `mock`, which sends nothing.
    pub endpoint: String,
    pub body: serde_json::Value,
}

/// Why a prompt got no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptError {
    /// Names the provider, the endpoint, the HTTP status and the server's own
    /// error text where there were some; never the key.
    pub message: String,
    /// Requests sent, retries included.
    pub requests: u64,
    /// A retry was due but the API_CALLS budget allowed no more requests
    /// (a `budget_exceeded`, not a `provider_error`).
    pub out_of_calls: bool,
}

pub trait Provider {
    /// The provider's name as given to `--provider`.
    fn name(&self) -> &str;
    /// Asks the model; `shown` gets each piece of a streamed answer as it
    /// comes (for a terminal). A live provider sends the layout's two
    /// messages as a chat (four for a repair request), with the answer
    /// format in its API's field; `mock` and `replay` answer from their
    /// scripts.
    fn complete(
        &mut self,
        request: &PromptRequest,
        shown: &mut dyn FnMut(&str),
    ) -> Result<PromptResponse, PromptError> {
        self.chat(&chat::ChatRequest::from_prompt(request), shown)
    }
    /// What [`Provider::complete`] sends for `request`, without sending it
    /// (for cassettes); an error where `complete` would refuse the request.
    fn wire(&self, request: &PromptRequest) -> Result<Wire, String>;
    /// Sends a conversation as it is (`tissc generate`).
    fn chat(
        &mut self,
        request: &chat::ChatRequest,
        shown: &mut dyn FnMut(&str),
    ) -> Result<PromptResponse, PromptError>;
}

/// `1 answer`, `2 answers`: a count and its noun, for messages.
pub(crate) fn plural(n: u64, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

/// The provider the settings name.
pub fn build(settings: &settings::ProviderSettings) -> Result<Box<dyn Provider>, String> {
    match settings.provider.as_str() {
        "mock" => Ok(Box::new(mock::MockProvider::new(settings)?)),
        "openai" => Ok(Box::new(openai::OpenAi::new(settings)?)),
        "ollama" => Ok(Box::new(ollama::Ollama::new(settings)?)),
        "completion" => Ok(Box::new(completion::Completion::new(settings)?)),
        "replay" => Ok(Box::new(replay::Replay::new(settings)?)),
        other => {
            let names: Vec<&str> = settings::PROVIDERS.iter().map(|(n, _)| *n).collect();
            Err(format!("unknown provider `{other}`: this build offers {}", names.join(", ")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_provider_is_refused() {
        let settings = settings::ProviderSettings { provider: "nope".into(), ..Default::default() };
        let err = build(&settings).err().unwrap();
        assert!(err.contains("unknown provider `nope`"), "{err}");
    }
}
