//! `tissc fix`: applies every suggestion marked machine-applicable
//! ([`Applicability::Machine`]), checks the result again, and repeats until
//! no such suggestion is left (or [`MAX_ROUNDS`] have run). Suggestions that
//! overlap in one round are applied one at a time over several rounds: the
//! first (the outermost where one contains another) now, the others when the
//! recheck reports them again at their new places.
//!
//! The caller decides what to do with the result: `tissc fix` writes it
//! only if it compiles (or with `--partial`), `tissc generate` compiles a
//! model's plan after fixing it, before spending a repair round on the model.

use crate::diagnostics::{Applicability, Diagnostic};
use crate::source_file::SourceFile;
use crate::syntax::span::Span;
use crate::{Frontend, frontend};

/// Rounds of fix-and-recheck at most: each round removes at least one
/// error, and no plan met needs more than a handful (a braceless `IF`
/// inside a braceless `STEP` needs two).
pub const MAX_ROUNDS: usize = 16;

/// One replacement made, for the report: where (1-based line, in the text
/// as it was in that round) and what was written instead of what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub line: usize,
    pub old: String,
    pub new: String,
}

/// A plan after fixing.
pub struct Fixed {
    /// The text after every round.
    pub text: String,
    /// Every replacement, in the order made.
    pub changes: Vec<Change>,
    /// The front end's result on `text`: what is still wrong, if anything.
    pub frontend: Frontend,
}

impl Fixed {
    /// Whether the fixed text compiles (warnings do not stop it).
    pub fn compiles(&self) -> bool {
        !self.frontend.has_errors()
    }
}

/// Fixes the plan `text` (named `name` in diagnostics).
pub fn fix(name: &str, text: &str) -> Fixed {
    let mut text = text.to_string();
    let mut changes = Vec::new();
    for _ in 0..MAX_ROUNDS {
        let fe = frontend(name, text.as_bytes());
        // Never rewrite text the decoder replaced: the file is not UTF-8.
        if fe.diagnostics.iter().any(|d| d.code == crate::diagnostics::codes::INVALID_UTF8) {
            return Fixed { text, changes, frontend: fe };
        }
        let edits = machine_edits(&fe.diagnostics);
        let Some(next) = apply(&fe.file, &edits, &mut changes) else {
            return Fixed { text, changes, frontend: fe };
        };
        text = next;
    }
    let fe = frontend(name, text.as_bytes());
    Fixed { text, changes, frontend: fe }
}

/// The first machine-applicable suggestion of each diagnostic, in source
/// order, keeping only those that overlap no earlier one (a replacement
/// that contains another comes first and wins).
fn machine_edits(diagnostics: &[Diagnostic]) -> Vec<(Span, &str)> {
    let mut edits: Vec<(Span, &str)> = diagnostics
        .iter()
        .filter_map(|d| d.suggestions.iter().find(|s| s.applicability == Applicability::Machine))
        .map(|s| (s.span, s.replacement.as_str()))
        .collect();
    edits.sort_by_key(|(span, _)| (span.start, std::cmp::Reverse(span.end)));
    let mut kept: Vec<(Span, &str)> = Vec::with_capacity(edits.len());
    for edit in edits {
        let clear = kept.last().is_none_or(|(last, _)| {
            edit.0.start >= last.end && !(edit.0.start == last.start && edit.0.is_empty() && last.is_empty())
        });
        if clear {
            kept.push(edit);
        }
    }
    kept
}

/// `file`'s text with `edits` (sorted, disjoint) applied, recording each in
/// `changes`; `None` if nothing would change.
fn apply(file: &SourceFile, edits: &[(Span, &str)], changes: &mut Vec<Change>) -> Option<String> {
    let text = &file.text;
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0usize;
    let before = changes.len();
    for &(span, replacement) in edits {
        let range = span.range();
        let (Some(old), true) = (text.get(range.clone()), range.start >= at) else { continue };
        if old == replacement {
            continue;
        }
        out.push_str(&text[at..range.start]);
        out.push_str(replacement);
        at = range.end;
        changes.push(Change {
            line: file.line_col(range.start).line,
            old: shown(old),
            new: shown(replacement),
        });
    }
    if changes.len() == before {
        return None;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// A replaced text as the report shows it: one line, with a long rewrite
/// cut to its first line.
fn shown(text: &str) -> String {
    let trimmed = text.trim_matches('\n');
    match trimmed.split_once('\n') {
        Some((first, rest)) => format!("{} … ({} more lines)", first.trim_end(), rest.lines().count()),
        None => trimmed.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixes_until_it_compiles_and_reports_each_change() {
        let plan = "TASK \"t\"\nSTEP \"s\" {\n    // check\n    RUN \"make\" TIMEOUT=30\n    EXPECT LAST_RUN.EXIT_CODE = 0\n}\n";
        let fixed = fix("p.tiss", plan);
        assert!(fixed.compiles(), "{:?}", fixed.frontend.diagnostics);
        assert_eq!(
            fixed.text,
            "TASK \"t\"\nSTEP \"s\" {\n    # check\n    RUN \"make\" TIMEOUT 30s\n    ASSERT LAST_RUN.EXIT_CODE == 0\n}\n"
        );
        let lines: Vec<usize> = fixed.changes.iter().map(|c| c.line).collect();
        assert_eq!(lines, [3, 4, 5, 5]);
        assert_eq!(fixed.changes[0], Change { line: 3, old: "//".into(), new: "#".into() });
    }

    #[test]
    fn an_assigned_timeout_keeps_its_duration() {
        // `TIMEOUT=10.0` once became `TIMEOUT 0s`: the command killed at once.
        let plan = |t: &str| format!("TASK \"t\"\nSTEP \"s\" {{\n    RUN \"make\" TIMEOUT={t}\n}}\n");
        for (written, want) in
            [("10.0", "10s"), ("1.5", "1500ms"), ("1e3", "1000s"), ("10", "10s"), ("2.5m", "150s")]
        {
            let fixed = fix("p.tiss", &plan(written));
            assert!(fixed.compiles(), "{written}: {:?}", fixed.frontend.diagnostics);
            assert!(fixed.text.contains(&format!("TIMEOUT {want}\n")), "{written}: {}", fixed.text);
        }
        // No literal is exactly 1.0001 seconds: nothing certain to write.
        let inexact = plan("1.0001");
        let fixed = fix("p.tiss", &inexact);
        assert_eq!(fixed.text, inexact);
        assert!(!fixed.compiles());
    }

    #[test]
    fn nested_rewrites_take_more_rounds() {
        let plan = "TASK \"t\"\nSTEP \"s\"\n    RUN \"x\"\n    IF LAST_RUN.EXIT_CODE == 0 THEN\n        LOG \"ok\"\n    ENDIF\nENDSTEP\n";
        let fixed = fix("p.tiss", plan);
        assert!(fixed.compiles(), "{:?}", fixed.frontend.diagnostics);
        assert_eq!(
            fixed.text,
            "TASK \"t\"\nSTEP \"s\" {\n    RUN \"x\"\n    IF LAST_RUN.EXIT_CODE == 0 {\n        LOG \"ok\"\n    }\n}\n"
        );
        assert_eq!(fixed.changes.len(), 2);
    }

    #[test]
    fn a_maybe_is_left_alone() {
        // A one-edit typo may be another word: a human (or the model) decides.
        let plan = "TASK \"t\"\nSTEP \"s\" { ASERT TRUE }\n";
        let fixed = fix("p.tiss", plan);
        assert_eq!(fixed.text, plan);
        assert!(fixed.changes.is_empty());
        assert!(!fixed.compiles());
    }

    #[test]
    fn a_plan_without_errors_is_unchanged() {
        let plan = "TASK \"t\"\nSTEP \"s\" { LOG \"hi\" }\n";
        let fixed = fix("p.tiss", plan);
        assert!(fixed.compiles() && fixed.changes.is_empty() && fixed.text == plan);
    }
}
