//! Failures (book: reference/failures.md) and the report of one.

use serde::{Deserialize, Serialize};
use tisslang::cost::Dim;

use crate::host::RunResult;
use crate::machine::value::{Value, format_duration};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FailureKind {
    AssertionFailed,
    CommandError,
    ReviewRejected,
    BudgetExceeded,
    SecurityViolation,
    ProviderError,
    /// A typed answer that does not fit its type after one repair (book: reference/types.md).
    InvalidAnswer,
}

impl FailureKind {
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::AssertionFailed => "assertion_failed",
            FailureKind::CommandError => "command_error",
            FailureKind::ReviewRejected => "review_rejected",
            FailureKind::BudgetExceeded => "budget_exceeded",
            FailureKind::SecurityViolation => "security_violation",
            FailureKind::ProviderError => "provider_error",
            FailureKind::InvalidAnswer => "invalid_answer",
        }
    }

    /// TRY catches these; budget and security failures always halt.
    pub fn catchable(self) -> bool {
        matches!(
            self,
            FailureKind::AssertionFailed
                | FailureKind::CommandError
                | FailureKind::ReviewRejected
                | FailureKind::ProviderError
                | FailureKind::InvalidAnswer
        )
    }

    /// The process exit status for an uncaught failure (book: reference/failures.md).
    pub fn exit_code(self) -> i32 {
        match self {
            FailureKind::AssertionFailed
            | FailureKind::CommandError
            | FailureKind::ReviewRejected
            | FailureKind::ProviderError
            | FailureKind::InvalidAnswer => 1,
            FailureKind::BudgetExceeded => 4,
            FailureKind::SecurityViolation => 5,
        }
    }
}

/// What went wrong, where, and (for an assertion) what it saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
    /// The open steps, outermost first, joined with ` > `.
    pub step: String,
    pub line: u32,
    pub column: u32,
    /// For an assertion: the condition as written.
    pub condition: Option<String>,
    /// For an assertion: each value the condition read (a string shortened
    /// to its head and tail; `None` if it could not be read).
    #[serde(deserialize_with = "crate::machine::state_limits::actual")]
    pub actual: Vec<(String, Option<Value>)>,
    /// For a budget failure: the dimension, the cap and the spend.
    pub budget: Option<BudgetBreach>,
    /// The last command the failing top-level step ran, with its stdout and
    /// stderr shortened to head and tail; `None` if it ran none. Boxed: the
    /// machine's status holds a `Failure`, and most runs never fail.
    pub command: Option<Box<RunResult>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetBreach {
    pub dimension: String,
    pub cap: u64,
    /// What the run had spent when it stopped: never a spend that did not
    /// happen (refused work spent nothing).
    pub spent: u64,
    /// What the refused work needed: at least this for `preflight`, exactly
    /// this for an effect or instruction refused before it ran; `None` when
    /// a measured spend crossed the cap.
    pub needed: Option<u64>,
    /// `limit` or `preflight`.
    pub reason: String,
}

/// A budget that stops the run: its figures and the message that says them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetStop {
    pub breach: BudgetBreach,
    pub message: String,
}

impl BudgetStop {
    /// `what` is refused before it starts: it needs `needed` (`at_least`: its
    /// minimum on any path, for preflight) and only `cap - spent` is left.
    pub fn refused(dim: Dim, cap: u64, spent: u64, needed: u64, what: &str, at_least: bool) -> BudgetStop {
        let at_least_text = if at_least { "at least " } else { "" };
        let message = format!(
            "{what} was refused: it needs {at_least_text}{}, but the {} {}",
            amount(dim, needed),
            dim.name(),
            cap_left(dim, cap, spent)
        );
        let reason = if at_least { "preflight" } else { "limit" };
        BudgetStop { breach: breach(dim, cap, spent, Some(needed), reason), message }
    }

    /// A spend measured after the fact crossed the cap; `how` ends the
    /// message (e.g. which command was killed).
    pub fn crossed(dim: Dim, cap: u64, spent: u64, how: &str) -> BudgetStop {
        let message = format!(
            "the {} cap of {} was crossed: {} spent{how}",
            dim.name(),
            amount(dim, cap),
            amount(dim, spent)
        );
        BudgetStop { breach: breach(dim, cap, spent, None, "limit"), message }
    }
}

fn breach(dim: Dim, cap: u64, spent: u64, needed: Option<u64>, reason: &str) -> BudgetBreach {
    BudgetBreach { dimension: dim.name().to_string(), cap, spent, needed, reason: reason.to_string() }
}

/// `cap of 2 commands has 1 command left`, or `... is used up`.
pub fn cap_left(dim: Dim, cap: u64, spent: u64) -> String {
    match cap.saturating_sub(spent) {
        0 => format!("cap of {} is used up", amount(dim, cap)),
        left => format!("cap of {} has {} left", amount(dim, cap), amount(dim, left)),
    }
}

/// An amount in its dimension's unit: `1500ms`, `2m`, `3 commands`,
/// `1 model request`, `1200 tokens`, `40 instructions`.
pub fn amount(dim: Dim, value: u64) -> String {
    let (one, many) = match dim {
        Dim::ExecutionTime => return format_duration(value),
        Dim::ApiCalls => ("model request", "model requests"),
        Dim::TokenCount => ("token", "tokens"),
        Dim::RunCount => ("command", "commands"),
        Dim::Instructions => ("instruction", "instructions"),
    };
    format!("{value} {}", if value == 1 { one } else { many })
}

/// Lines kept at each end of a long value in a report.
pub const KEEP_LINES: usize = 20;
/// Characters kept at each end of a long single line.
pub const KEEP_CHARS: usize = 2000;

/// Shortens a long value for a report, keeping its head and tail: the first
/// and last [`KEEP_LINES`] lines, and within that at most [`KEEP_CHARS`]
/// characters at each end.
pub fn shorten(text: &str) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let by_lines = if lines.len() > 2 * KEEP_LINES {
        let omitted = lines.len() - 2 * KEEP_LINES;
        format!(
            "{}… [{omitted} lines omitted] …\n{}",
            lines[..KEEP_LINES].concat(),
            lines[lines.len() - KEEP_LINES..].concat()
        )
    } else {
        text.to_string()
    };
    let chars = by_lines.chars().count();
    if chars <= 2 * KEEP_CHARS {
        return by_lines;
    }
    let head: String = by_lines.chars().take(KEEP_CHARS).collect();
    let tail: String = by_lines.chars().skip(chars - KEEP_CHARS).collect();
    format!("{head}… [{} characters omitted] …{tail}", chars - 2 * KEEP_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_carry_their_units() {
        assert_eq!(amount(Dim::ExecutionTime, 1500), "1500ms");
        assert_eq!(amount(Dim::ExecutionTime, 120_000), "2m");
        assert_eq!(amount(Dim::RunCount, 1), "1 command");
        assert_eq!(amount(Dim::RunCount, 0), "0 commands");
        assert_eq!(amount(Dim::ApiCalls, 2), "2 model requests");
        assert_eq!(amount(Dim::TokenCount, 1200), "1200 tokens");
        assert_eq!(amount(Dim::Instructions, 1), "1 instruction");
    }

    #[test]
    fn budget_stops_say_their_figures_once() {
        let stop = BudgetStop::refused(Dim::RunCount, 2, 1, 3, "step \"s\"", true);
        assert_eq!(
            stop.message,
            "step \"s\" was refused: it needs at least 3 commands, but the RUN_COUNT cap of 2 commands has 1 command left"
        );
        assert_eq!(
            (stop.breach.spent, stop.breach.needed, stop.breach.reason.as_str()),
            (1, Some(3), "preflight")
        );
        let stop = BudgetStop::refused(Dim::RunCount, 1, 1, 1, "this RUN", false);
        assert!(stop.message.ends_with("the RUN_COUNT cap of 1 command is used up"), "{}", stop.message);
        assert_eq!(stop.breach.reason, "limit");
        let stop = BudgetStop::crossed(Dim::ExecutionTime, 2000, 2503, "");
        assert_eq!(stop.message, "the EXECUTION_TIME cap of 2s was crossed: 2503ms spent");
        assert_eq!(stop.breach.needed, None);
    }

    #[test]
    fn short_values_are_kept_whole() {
        assert_eq!(shorten("a\nb\n"), "a\nb\n");
    }

    #[test]
    fn long_values_keep_head_and_tail() {
        let text: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let s = shorten(&text);
        assert!(s.starts_with("line 0\n"));
        assert!(s.contains("[60 lines omitted]"));
        assert!(s.ends_with("line 99\n"));
        let wide = "x".repeat(10_000);
        assert!(shorten(&wide).contains("[6000 characters omitted]"));
    }
}
