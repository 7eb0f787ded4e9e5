//! `tissc generate` (book: guide/generate.md): a model writes a plan for a goal, the
//! compiler checks it, and its diagnostics go back to the model with its
//! plan until the plan compiles or the repairs run out. Each answer first
//! gets the certain fixes of `tissc fix` (`crate::fix`). `grammar.rs` holds the
//! language's grammar and the plan grammar sent with the requests, `prompt.rs` what the model is told,
//! `reply.rs` how the plan is taken from its answer. The command line
//! (files, output formats, exit statuses) is in `bin/tissc.rs`.

pub mod grammar;
pub mod prompt;
pub mod reply;

use tiss_providers::chat::ChatRequest;
use tiss_providers::settings::ProviderSettings;
use tiss_providers::{PromptError, Provider};

use crate::Frontend;
use crate::diagnostics::render::JsonDiagnostic;

/// Whether requests to the provider these settings name carry the grammar:
/// llama.cpp takes one at its own `/completion` (the `completion` provider
/// without a `/v1` base) and at its OpenAI-compatible `/chat/completions`
/// (`openai`; other OpenAI-compatible servers ignore the field or refuse it
/// in words). Ollama's API and `/completions` have no such field, and the
/// `mock` provider has no use for one.
pub fn sends_grammar(settings: &ProviderSettings) -> bool {
    match settings.provider.as_str() {
        "openai" => true,
        "completion" => !settings.base_url.as_deref().is_some_and(|b| b.ends_with("/v1")),
        _ => false,
    }
}

/// One answer of the model and what the compiler said of it.
pub struct Attempt {
    /// The plan taken from the answer, after `tissc fix`'s certain fixes.
    pub plan: String,
    /// How many certain fixes were applied to the model's plan.
    pub fixes: usize,
    /// Its errors, as `tissc check --error-format json` prints them.
    pub errors: Vec<serde_json::Value>,
    /// The tokens the request took (as reported, or estimated).
    pub tokens: u64,
}

/// How a generation ended.
pub enum Outcome {
    /// The last attempt's plan compiles.
    Compiled,
    /// No attempt compiled and the repairs ran out.
    Rejected,
    /// A request failed (after its retries): the provider's message.
    ProviderFailed(String),
}

pub struct Generation {
    pub attempts: Vec<Attempt>,
    pub outcome: Outcome,
    /// Requests sent, retries included.
    pub requests: u64,
    pub tokens: u64,
    /// Some request's tokens are an estimate (its server reported none).
    pub estimated: bool,
}

impl Generation {
    /// The plan of the last attempt, if there was one.
    pub fn last_plan(&self) -> Option<&str> {
        self.attempts.last().map(|a| a.plan.as_str())
    }
}

/// What the loop does, and how it tells its caller as it goes.
pub struct Options<'a> {
    /// The plan's name in diagnostics (the output file's).
    pub name: &'a str,
    /// Repairs after the first attempt.
    pub max_repairs: u32,
    /// The GBNF grammar to send with every request, if any.
    pub grammar: Option<&'a str>,
    /// Called after each attempt with its number (1-based) and its errors.
    pub progress: &'a mut dyn FnMut(u32, &Attempt),
}

/// Asks `provider` for a plan for `goal` and repairs it up to
/// `options.max_repairs` times.
pub fn generate(goal: &str, provider: &mut dyn Provider, options: Options<'_>) -> Generation {
    let mut generation = Generation {
        attempts: Vec::new(),
        outcome: Outcome::Rejected,
        requests: 0,
        tokens: 0,
        estimated: false,
    };
    let mut messages = prompt::first(goal);
    for index in 0..=options.max_repairs {
        let request = ChatRequest {
            messages,
            grammar: options.grammar.map(str::to_string),
            answer_format: None,
            requests_allowed: None,
            index,
        };
        let answer = match provider.chat(&request, &mut |_| {}) {
            Ok(answer) => answer,
            Err(PromptError { message, requests, .. }) => {
                generation.requests += requests;
                generation.outcome = Outcome::ProviderFailed(message);
                return generation;
            }
        };
        generation.requests += answer.requests;
        generation.tokens += answer.tokens;
        generation.estimated |= answer.estimated;
        // The certain fixes first (`tissc fix`): a repair round is spent on
        // the model only for what needs judgement.
        let fixed = crate::fix::fix(options.name, &reply::plan_of(&answer.text));
        let errors = errors_of(&fixed.frontend);
        let attempt = Attempt { plan: fixed.text, fixes: fixed.changes.len(), errors, tokens: answer.tokens };
        (options.progress)(index + 1, &attempt);
        if attempt.errors.is_empty() {
            generation.attempts.push(attempt);
            generation.outcome = Outcome::Compiled;
            return generation;
        }
        let lines: Vec<String> = attempt.errors.iter().map(|e| e.to_string()).collect();
        messages = prompt::repair(goal, &attempt.plan, &lines);
        generation.attempts.push(attempt);
    }
    generation
}

/// The front end's errors as JSON values (warnings do not stop a plan).
pub fn errors_of(frontend: &Frontend) -> Vec<serde_json::Value> {
    frontend
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| serde_json::to_value(JsonDiagnostic::new(&frontend.file, d)).unwrap_or_default())
        .collect()
}
