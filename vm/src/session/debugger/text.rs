//! The debugger's words: command help, values and outcomes as text.

use tisslang::types::Field;

use crate::machine::Outcome;
use crate::machine::value::{Record, Value, format_duration};
use crate::report::failure_text;
use crate::report::style::Style;

/// The commands, in the order `help` lists them: (name, short form, usage, what it does).
pub(super) const COMMANDS: &[(&str, &str, &str, &str)] = &[
    (
        "break",
        "b",
        "break LINE | break \"STEP\"",
        "stop before LINE, or where a step named STEP starts; alone: list",
    ),
    ("delete", "d", "delete N", "remove breakpoint N; alone: remove them all"),
    ("continue", "c", "continue", "run until a breakpoint, the end, a failure or a suspension"),
    ("step", "s", "step", "run to the next statement, into CALLs"),
    ("next", "n", "next", "run to the next statement, over CALLs"),
    (
        "back",
        "",
        "back",
        "go back to the statement before (what the run did from there is replayed, not done again)",
    ),
    (
        "reverse-continue",
        "rc",
        "reverse-continue",
        "go back to the last breakpoint passed (or the first statement)",
    ),
    ("print", "p", "print NAME | NAME.FIELD | LAST_RUN | COST", "show a value"),
    ("locals", "", "locals", "every bound variable with its type and value"),
    ("where", "", "where", "the current line, the step path and the call stack"),
    ("list", "l", "list [LINE]", "the source around the current line (or LINE)"),
    ("save", "", "save FILE", "write a snapshot that `tissvm resume FILE` continues"),
    ("quit", "q", "quit", "end the session"),
    ("help", "h", "help", "this list"),
];

/// `a string`, `an integer`.
pub(super) fn a(noun: &str) -> String {
    let article = if noun.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    format!("{article} {noun}")
}

/// The fields a record has, in `Field` order.
pub fn record_fields(record: &Record) -> Vec<(Field, Value)> {
    Field::ALL.iter().filter_map(|&f| record.field(f).map(|v| (f, v))).collect()
}

/// A value on one line, in plan syntax; strings longer than `limit`
/// characters keep their head and tail.
pub fn show(value: &Value, limit: usize) -> String {
    match value {
        Value::Str(s) => quote(s, limit),
        Value::Tainted(s) => format!("{} (tainted: from a model or a file)", quote(s, limit)),
        Value::Int(i) => i.to_string(),
        Value::Duration(ms) => format_duration(*ms),
        Value::Bool(b) => (if *b { "TRUE" } else { "FALSE" }).to_string(),
        Value::Record(record) => {
            let fields: Vec<String> = record_fields(record)
                .into_iter()
                .map(|(f, v)| format!("{} = {}", f.name(), show(&v, limit / 2)))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        // A typed answer as its JSON, shortened like a string; escaped so a
        // model cannot write to the terminal.
        Value::Answer(a) => {
            let json = tiss_support::terminal_text::escape_controls(&a.json);
            let json = if json.chars().count() > limit { quote(&json, limit) } else { json.into_owned() };
            let taint = if a.tainted { " (tainted: its strings are a model's)" } else { "" };
            format!("{json}{taint}")
        }
    }
}

/// `"text"` with escapes; beyond `limit` characters, `"head" … [N characters omitted] … "tail"`.
pub(super) fn quote(text: &str, limit: usize) -> String {
    let count = text.chars().count();
    if count <= limit {
        return format!("{text:?}");
    }
    let half = (limit / 2).max(1);
    let head: String = text.chars().take(half).collect();
    let tail: String = text.chars().skip(count - half).collect();
    format!("{head:?} … [{} characters omitted] … {tail:?}", count - 2 * half)
}

/// `passed`, `failed`, `internal error` or `suspended`.
pub(super) fn ended_name(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Completed => "passed",
        // The failure report names the kind; saying it here too would repeat it.
        Outcome::Failed(_) => "failed",
        Outcome::Trapped(_) => "internal error",
        Outcome::Running | Outcome::Suspended(_) => "suspended",
    }
}

pub fn end_text(outcome: &Outcome) -> String {
    match outcome {
        // Plain: the transcript on stdout is the same on every run.
        Outcome::Failed(f) => {
            format!("the plan ended: {}\n{}", ended_name(outcome), failure_text(f, Style::PLAIN))
        }
        Outcome::Trapped(message) => format!(
            "the plan ended: internal error: {message}\nThis is a bug in tissvm (the verifier accepted this \
             bytecode); please report it."
        ),
        other => format!("the plan ended: {}", ended_name(other)),
    }
}

pub(super) fn unknown_command(word: &str) -> String {
    let names = COMMANDS.iter().map(|(n, ..)| *n);
    let mut text = format!("unknown command `{word}`");
    if let Some(close) = tiss_support::suggest::closest(word, names.clone()) {
        text.push_str(&format!("; did you mean `{close}`?"));
    }
    text.push_str(&format!("\ncommands: {}", names.collect::<Vec<_>>().join(", ")));
    text
}

pub(super) fn help() -> String {
    let width = COMMANDS.iter().map(|(_, _, usage, _)| usage.len()).max().unwrap_or(0);
    let mut text = String::from("commands:");
    for (_, _, usage, what) in COMMANDS {
        text.push_str(&format!("\n  {usage:width$}  {what}"));
    }
    let shorts: Vec<&str> = COMMANDS.iter().map(|(_, s, ..)| *s).filter(|s| !s.is_empty()).collect();
    text.push_str(&format!("\nshort forms: {}; an empty line repeats step or next", shorts.join(", ")));
    text
}
