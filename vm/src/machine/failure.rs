//! Failures (SPEC §5) and the report of one.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FailureKind {
    AssertionFailed,
    CommandError,
    ReviewRejected,
    BudgetExceeded,
    SecurityViolation,
}

impl FailureKind {
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::AssertionFailed => "assertion_failed",
            FailureKind::CommandError => "command_error",
            FailureKind::ReviewRejected => "review_rejected",
            FailureKind::BudgetExceeded => "budget_exceeded",
            FailureKind::SecurityViolation => "security_violation",
        }
    }

    /// TRY catches these; budget and security failures always halt.
    pub fn catchable(self) -> bool {
        matches!(self, FailureKind::AssertionFailed | FailureKind::CommandError | FailureKind::ReviewRejected)
    }

    /// The process exit status for an uncaught failure (SPEC §9).
    pub fn exit_code(self) -> i32 {
        match self {
            FailureKind::AssertionFailed | FailureKind::CommandError | FailureKind::ReviewRejected => 1,
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
    /// For an assertion: each value the condition read, shortened.
    pub actual: Vec<(String, String)>,
    /// For a budget failure: the dimension, the cap and the spend.
    pub budget: Option<BudgetBreach>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetBreach {
    pub dimension: String,
    pub cap: u64,
    pub spent: u64,
    pub reason: String,
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
