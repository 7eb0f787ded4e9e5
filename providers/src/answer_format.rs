//! Structured answers (book: reference/types.md, "Asking"): what a typed PROMPT_AGENT adds
//! to its request. The VM derives a JSON Schema from the plan's TYPE and
//! puts it in [`AnswerFormat`]; each live provider asks its server to keep
//! to it in that API's own field:
//!
//! - `openai`: `"response_format": {"type": "json_schema", "json_schema":
//!   {"name": NAME, "strict": true, "schema": SCHEMA}}`, NAME made to fit
//!   OpenAI's `^[a-zA-Z0-9_-]{1,64}$` ([`crate::openai::schema_name`]);
//! - `ollama`: `"format": SCHEMA`;
//! - `completion` against llama.cpp's `/completion`: `"json_schema": SCHEMA`
//!   (llama.cpp turns it into a grammar). An OpenAI-style `/completions`
//!   endpoint is refused, as a grammar is: the servers differ on the field
//!   (llama.cpp's own `/v1/completions` takes `json_schema` and ignores
//!   `response_format`; OpenAI's takes neither), and an answer that was
//!   meant to be constrained must not come back unconstrained without a word;
//! - `mock` answers as scripted, and `replay` as recorded: neither uses the
//!   schema, but it is part of what a cassette keys, so another schema is
//!   another request.
//!
//! A request carries a grammar or an answer format, never both (the VM sends
//! no such request; a provider refuses one, sending nothing).
//!
//! Whatever the provider did, the VM validates the answer. An invalid one
//! gets one [`Repair`] request: the same request with the invalid answer and
//! the validation errors after it, as two more messages (the layout's repair,
//! `layout.rs`), and the same answer format.

/// A typed PROMPT_AGENT's answer must be JSON of this schema (book: reference/types.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerFormat {
    /// The TYPE's name, or `answer` for a type written in place: what the
    /// schema is called where the API names it (`openai`).
    pub name: String,
    /// The JSON Schema, sent as it is (its keys in their order).
    pub schema: serde_json::Value,
}

/// The one repair request of a typed prompt whose answer did not validate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repair {
    /// The invalid answer as it was received: sent back as the assistant's.
    pub answer: String,
    /// The validation errors, one per line.
    pub errors: String,
}
