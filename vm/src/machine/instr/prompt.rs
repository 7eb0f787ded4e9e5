//! PROMPT_AGENT: a query with its context to the language model, metered
//! in API_CALLS and TOKEN_COUNT, each asking counted by fingerprint.

use tisslang::cost::Dim;
use tisslang::cost::bound::CostBound;
use tisslang::module::NONE;

use tiss_providers::Repair;
use tisslang::answer::validate;

use crate::host::{Detail, Event, Host, PromptRequest};
use crate::machine::Machine;
use crate::machine::failure::{BudgetStop, FailureKind};
use crate::machine::flow::{Exec, budget};
use crate::machine::program::Program;
use crate::machine::value::{Answer, Value};

/// How much of an invalid answer its failure quotes, in characters.
const ANSWER_HEAD: usize = 200;

/// A prompt's identity within a run: the first 16 bytes of the SHA-256 of its
/// query and each context name and value, each with its length first.
fn prompt_fingerprint(query: &str, context: &[(String, String)]) -> [u8; 16] {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    for part in std::iter::once(query).chain(context.iter().flat_map(|(k, v)| [k.as_str(), v.as_str()])) {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part.as_bytes());
    }
    let digest = hash.finalize();
    let mut out = [0; 16];
    out.copy_from_slice(&digest[..16]);
    out
}

impl Machine {
    pub(in crate::machine) fn prompt(
        &mut self,
        prompt: u32,
        program: &Program,
        host: &mut dyn Host,
    ) -> Result<(), Exec> {
        let info =
            program.module.prompts.get(prompt as usize).ok_or_else(|| Exec::Trap("bad prompt".into()))?;
        let query = self.pop()?.to_text();
        self.charge(Dim::ApiCalls, 1, "this PROMPT_AGENT")?;

        let mut context = Vec::new();
        for &slot in &info.context {
            let name = program.module.slots.get(slot as usize).map_or("", |s| program.string(s.name));
            if let Some(Some(value)) = self.slots.get(slot as usize) {
                context.push((name.to_string(), value.to_text()));
            }
        }
        if info.default_context
            && let Some(run) = &self.last_run
        {
            context.push(("LAST_RUN.STDOUT".to_string(), run.stdout.clone()));
            context.push(("LAST_RUN.STDERR".to_string(), run.stderr.clone()));
            context.push(("LAST_RUN.EXIT_CODE".to_string(), run.exit_code.to_string()));
        }
        let into = info.into;
        let answer = info.answer;
        // Preflight on tokens: what is certain of the prompt as it will be
        // sent (query and context, a token per 8 bytes) must fit, and the
        // estimate with the provider's `max_tokens` of answer may not (a
        // warning).
        let chars: usize = query.chars().count()
            + context.iter().map(|(k, v)| k.chars().count() + v.chars().count()).sum::<usize>();
        let bytes: usize = query.len() + context.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>();
        let (min_tokens, max_tokens) = tisslang::analysis::cost_model::prompt_tokens_for_text(
            bytes as u64,
            chars as u64,
            host.completion_tokens(),
        );
        let mut bound = CostBound::ZERO;
        bound.add_range(Dim::TokenCount, min_tokens, max_tokens);
        self.preflight(program, host, &bound, 0, "the prompt")?;
        let occurrence = self.count_asked(prompt_fingerprint(&query, &context));
        let mut request = PromptRequest {
            query: query.clone(),
            context,
            occurrence,
            step: self.step_path(program),
            line: program.line(self.pc - 1),
            answer_format: program.answer_formats.get(prompt as usize).cloned().flatten(),
            ..Default::default()
        };
        let text = self.ask(program, host, &mut request)?;
        self.room_for(text.len(), "this answer")?;
        let Some(answer) = answer else {
            if into != NONE {
                self.store(into, Value::Tainted(text.into()))?;
            }
            return self.check_time();
        };
        // A typed answer is checked whatever the provider promised; an
        // invalid one gets one repair request, with the errors (book: reference/types.md).
        let shapes = &program.shapes;
        let value = match validate::parse(shapes, answer.shape, &text) {
            Ok(value) => value,
            Err(invalid) => {
                self.charge(Dim::ApiCalls, 1, "the repair request of this typed PROMPT_AGENT")?;
                request.repair = Some(Repair { answer: text, errors: invalid.errors.join("\n") });
                let text = self.ask(program, host, &mut request)?;
                self.room_for(text.len(), "this answer")?;
                validate::parse(shapes, answer.shape, &text).map_err(|invalid| {
                    let name = program.string(answer.name);
                    let head: String = text.chars().take(ANSWER_HEAD).collect();
                    let more = if head.len() < text.len() { " …" } else { "" };
                    Exec::Raise((
                        FailureKind::InvalidAnswer,
                        format!(
                            "the model's answer does not fit the type `{name}` ({}), even after a repair \
                             request: {invalid}; the answer began: {head:?}{more}",
                            shapes.describe(answer.shape)
                        ),
                    ))
                })?
            }
        };
        // The tree beside its text (at most `answer::validate::MAX_VALUE`).
        self.room_for(value.held_bytes(), "this answer's value")?;
        if into != NONE {
            let value = Answer::stack_value(shapes, answer.shape, value)
                .ok_or_else(|| Exec::Trap("a validated answer does not follow its shape".into()))?;
            self.store(into, value)?;
        }
        self.check_time()
    }

    /// Sends `request` (its place in the run taken here) and meters it:
    /// every request sent counts one API_CALLS, retries included (book: reference/models.md),
    /// and the reported tokens count against TOKEN_COUNT. The answer's text.
    fn ask(
        &mut self,
        program: &Program,
        host: &mut dyn Host,
        request: &mut PromptRequest,
    ) -> Result<String, Exec> {
        self.sync_time(host);
        let calls = Dim::ApiCalls;
        request.requests_allowed = self.budgets[calls].map(|cap| cap.saturating_sub(self.meters[calls]));
        request.index = self.prompts;
        self.prompts = self.prompts.saturating_add(1);
        let started = host.now_ms();
        let result = host.prompt(request);
        let duration_ms = host.now_ms().saturating_sub(started);
        self.sync_time(host);
        let requests = match &result {
            Ok(r) => r.requests,
            Err(e) => e.requests,
        };
        self.meters[calls] = self.meters[calls].saturating_add(requests);
        let query = request.query.as_str();
        let response = match result {
            Ok(r) => r,
            Err(e) => {
                self.log(program, host, "prompt", query, "failed", duration_ms);
                if e.out_of_calls {
                    let cap = self.budgets[calls].unwrap_or(0);
                    let what = format!("a retry of this PROMPT_AGENT (after: {})", e.message);
                    return Err(budget(BudgetStop::refused(
                        Dim::ApiCalls,
                        cap,
                        self.meters[calls],
                        1,
                        &what,
                        false,
                    )));
                }
                return Err(Exec::Raise((FailureKind::ProviderError, e.message)));
            }
        };
        self.meters[Dim::TokenCount] = self.meters[Dim::TokenCount].saturating_add(response.tokens);
        let usage = if response.estimated { "estimated" } else { "reported" };
        let finish = response.finish_reason.as_deref().unwrap_or("");
        let mut details = vec![
            ("tokens", Detail::Count(response.tokens)),
            ("usage", Detail::Text(usage)),
            ("requests", Detail::Count(requests)),
        ];
        if !finish.is_empty() {
            details.push(("finish_reason", Detail::Text(finish)));
        }
        if request.repair.is_some() {
            details.push(("repair", Detail::Flag(true)));
        }
        let event = Event {
            event: "prompt",
            step: self.current_step_name(program),
            depth: self.steps.len() as u32,
            line: program.line(self.pc - 1),
            op: query,
            outcome: "ok",
            duration_ms,
            details: &details,
        };
        host.log(&event);
        // The provider's reported usage counts against TOKEN_COUNT after the fact.
        if let Some(cap) = self.budgets[Dim::TokenCount]
            && self.meters[Dim::TokenCount] > cap
        {
            let how = " (the model's reported usage)";
            return Err(budget(BudgetStop::crossed(Dim::TokenCount, cap, self.meters[Dim::TokenCount], how)));
        }
        Ok(response.text)
    }

    /// Counts one more asking of the prompt with `fingerprint`; how many
    /// times it was asked before.
    pub(in crate::machine) fn count_asked(&mut self, fingerprint: [u8; 16]) -> u32 {
        match self.asked.binary_search_by(|(f, _)| f.cmp(&fingerprint)) {
            Ok(at) => {
                let before = self.asked[at].1;
                self.asked[at].1 = before.saturating_add(1);
                before
            }
            Err(at) => {
                self.asked.insert(at, (fingerprint, 1));
                0
            }
        }
    }
}
