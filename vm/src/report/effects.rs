//! The effects of a run for its report (`"effects"` in the JSON report, the
//! effect list of the HTML report): each command, file operation, model
//! call and human answer as the `--log-file` event says it, with the
//! command's output shortened as the failure report shortens it. A run of a
//! million effects keeps the first and the last [`KEEP`] and counts the rest,
//! so the report stays small and the memory flat.

use std::collections::VecDeque;

use serde_json::{Map, Value as Json, json};

use crate::host::Event;

/// The events that are effects (the rest are step boundaries, logs,
/// warnings and failures, which the report gives elsewhere).
const EFFECTS: [&str; 10] =
    ["run", "write", "append", "read", "mkdir", "delete", "prompt", "approval", "answer", "interrupted"];

/// How many effects are kept at each end.
pub const KEEP: usize = 500;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effect {
    /// The event: `run`, `write`, `prompt`, ...
    pub event: String,
    /// The innermost step it happened in.
    pub step: Option<String>,
    pub line: u32,
    /// Its subject: the command, the path, the prompt.
    pub op: String,
    /// `exit 0`, `ok`, `failed`, `timed_out`, `approved`, ...
    pub outcome: String,
    pub duration_ms: u64,
    /// The event's other fields (a command's `stdout` and `stderr`, a
    /// prompt's `tokens`, an answer's `comment`...), typed as the log file
    /// writes them.
    pub details: Vec<(String, Json)>,
}

/// The effects of one run (or of one session of it, since a resume).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Effects {
    pub head: Vec<Effect>,
    pub tail: VecDeque<Effect>,
    /// Effects left out between `head` and `tail`.
    pub omitted: u64,
}

impl Effects {
    /// Keeps `event` if it is an effect.
    pub fn record(&mut self, event: &Event<'_>) {
        if !EFFECTS.contains(&event.event) {
            return;
        }
        let effect = Effect {
            event: event.event.to_string(),
            step: event.step.map(str::to_string),
            line: event.line,
            op: crate::machine::failure::shorten(event.op),
            outcome: event.outcome.to_string(),
            duration_ms: event.duration_ms,
            details: event.details.iter().map(|(k, v)| ((*k).to_string(), v.to_json())).collect(),
        };
        if self.head.len() < KEEP {
            self.head.push(effect);
            return;
        }
        self.tail.push_back(effect);
        if self.tail.len() > KEEP {
            self.tail.pop_front();
            self.omitted += 1;
        }
    }

    /// The JSON report's `"effects"`: one object per effect kept, in order,
    /// with the fields of its `--log-file` event (no `ts`).
    pub fn to_json(&self) -> Json {
        Json::Array(self.head.iter().chain(&self.tail).map(Effect::to_json).collect())
    }
}

impl Effect {
    fn to_json(&self) -> Json {
        let mut obj = Map::new();
        obj.insert("event".into(), json!(self.event));
        obj.insert("step".into(), json!(self.step));
        obj.insert("line".into(), json!(self.line));
        obj.insert("op".into(), json!(self.op));
        obj.insert("outcome".into(), json!(self.outcome));
        obj.insert("duration_ms".into(), json!(self.duration_ms));
        for (key, value) in &self.details {
            obj.insert(key.clone(), value.clone());
        }
        Json::Object(obj)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Detail;

    fn event<'a>(event: &'a str, op: &'a str, details: &'a [(&'a str, Detail<'a>)]) -> Event<'a> {
        Event { event, step: Some("build"), depth: 1, line: 7, op, outcome: "ok", duration_ms: 3, details }
    }

    #[test]
    fn effects_keep_their_fields_and_skip_what_is_not_an_effect() {
        let mut effects = Effects::default();
        effects.record(&event("step_start", "build", &[]));
        effects.record(&event(
            "run",
            "make",
            &[("stdout", Detail::Text("built\n")), ("stderr", Detail::Text(""))],
        ));
        effects.record(&event(
            "prompt",
            "q",
            &[("tokens", Detail::Count(14)), ("repair", Detail::Flag(true))],
        ));
        effects.record(&event("log", "hello", &[]));
        effects.record(&event("write", "out.txt", &[]));
        assert_eq!(
            effects.to_json(),
            json!([
                {"event": "run", "step": "build", "line": 7, "op": "make", "outcome": "ok", "duration_ms": 3,
                 "stdout": "built\n", "stderr": ""},
                {"event": "prompt", "step": "build", "line": 7, "op": "q", "outcome": "ok", "duration_ms": 3,
                 "tokens": 14, "repair": true},
                {"event": "write", "step": "build", "line": 7, "op": "out.txt", "outcome": "ok", "duration_ms": 3},
            ])
        );
    }

    #[test]
    fn a_long_run_keeps_its_first_and_last_effects_and_counts_the_rest() {
        let mut effects = Effects::default();
        let names: Vec<String> = (0..3 * KEEP).map(|i| format!("cmd {i}")).collect();
        for name in &names {
            effects.record(&event("run", name, &[]));
        }
        assert_eq!(effects.omitted, KEEP as u64);
        let json = effects.to_json();
        let ops: Vec<&str> = json.as_array().unwrap().iter().map(|e| e["op"].as_str().unwrap()).collect();
        assert_eq!(ops.len(), 2 * KEEP);
        assert_eq!((ops[0], ops[KEEP - 1]), ("cmd 0", "cmd 499"));
        assert_eq!((ops[KEEP], ops[2 * KEEP - 1]), ("cmd 1000", "cmd 1499"));
    }
}
