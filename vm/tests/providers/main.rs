//! Language-model providers through tissvm: mock, openai, ollama, completion, a real llama.cpp server (and the typed-answers suite against it), cassettes, settings, secrets.
//!
//! One test binary per concern (linked once, not once per file); each
//! file is a module of it.

#[path = "../common/mod.rs"]
mod common;

mod provider_cassette;
mod provider_completion;
mod provider_mock;
mod provider_ollama;
mod provider_openai;
mod provider_real;
mod provider_secrets;
mod provider_settings;
mod typed_answers;
mod typed_suite;
