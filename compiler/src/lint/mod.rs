//! `tissc lint`: the warnings W0001-W0008 (book: guide/errors.md), one rule per file.
//!
//! Rules run only on a plan without errors: they read the checked tree (and,
//! for W0008, its bytecode), whose names and types are then known to be
//! consistent, so a warning never repeats or guesses around an error. Each
//! rule warns only where it is sure: a plan where some path looks at a
//! RUN's result, or that has the budget somewhere, is not warned about.
//! `tissc check` and the language server show the same warnings. A
//! suggestion always replaces the span its warning points at, as the
//! errors' do: the JSON form of a diagnostic has no other place for it.

mod constant_condition;
mod duplicate_name;
mod prompt_without_budget;
mod risky_command;
mod run_without_timeout;
mod tainted_run;
mod unchecked_run;
mod unused_variable;

use crate::Frontend;
use crate::diagnostics::Diagnostic;
use crate::source_file::SourceFile;
use crate::syntax::ast::{Plan, Stmt};
use crate::syntax::span::Span;
use crate::syntax::visit;

/// Every diagnostic of a plan: its errors, or (when it has none) its
/// warnings, sorted by place. What the language server publishes.
pub fn lint_source(file_name: &str, source: &str) -> Vec<Diagnostic> {
    let mut frontend = crate::frontend(file_name, source.as_bytes());
    add_warnings(&mut frontend);
    frontend.diagnostics
}

/// Adds the lint warnings to a front end's diagnostics (none if it has
/// errors), keeping them sorted by place.
pub fn add_warnings(frontend: &mut Frontend) {
    if frontend.has_errors() {
        return;
    }
    let found = warnings(&frontend.plan, &frontend.file);
    if found.is_empty() {
        return;
    }
    frontend.diagnostics.extend(found);
    frontend.diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
}

/// The warnings of a plan that has no errors.
fn warnings(plan: &Plan, file: &SourceFile) -> Vec<Diagnostic> {
    let mut statements = Vec::new();
    visit::statements(plan, &mut |stmt, in_estimate| statements.push((stmt, in_estimate)));
    let mut cx = Lint { plan, file, statements, found: Vec::new() };
    unused_variable::check(&mut cx);
    unchecked_run::check(&mut cx);
    run_without_timeout::check(&mut cx);
    risky_command::check(&mut cx);
    prompt_without_budget::check(&mut cx);
    constant_condition::check(&mut cx);
    duplicate_name::check(&mut cx);
    tainted_run::check(&mut cx);
    cx.found
}

/// What every rule reads, and where it puts its warnings.
struct Lint<'a> {
    plan: &'a Plan,
    file: &'a SourceFile,
    /// Every statement of the plan in source order, with whether it is in
    /// an ESTIMATE_COST block: the tree is walked once, and each rule
    /// reads this list (`visit::statements`).
    statements: Vec<(&'a Stmt, bool)>,
    found: Vec<Diagnostic>,
}

impl Lint<'_> {
    fn warn(&mut self, diagnostic: Diagnostic) {
        self.found.push(diagnostic);
    }

    /// The source text of a span.
    fn text(&self, span: Span) -> &str {
        self.file.slice(span)
    }

    fn line(&self, span: Span) -> usize {
        self.file.line_col(span.start as usize).line
    }

    /// What separates a statement inserted after the one at `span` from
    /// it: a line break and the same indentation when that statement
    /// stands at the start of its line, else a space.
    fn separator_after(&self, span: Span) -> String {
        let text = &self.file.text;
        let start = span.start as usize;
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let indent = &text[line_start..start];
        if indent.chars().all(|c| c == ' ' || c == '\t') { format!("\n{indent}") } else { " ".to_string() }
    }

    /// The text of `outer` with `inner` (a span within it) replaced by
    /// `with`. Suggestions replace the span their diagnostic points at
    /// (the JSON form has no other place), so a smaller edit is written
    /// as the whole statement rewritten.
    fn rewrite(&self, outer: Span, inner: Span, with: &str) -> String {
        let text = self.text(outer);
        let from = (inner.start - outer.start) as usize;
        let to = (inner.end - outer.start) as usize;
        format!("{}{with}{}", &text[..from], &text[to..])
    }
}
