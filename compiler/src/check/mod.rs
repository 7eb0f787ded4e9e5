//! Checks after parsing (book: reference/structure.md, reference/statements.md,
//! reference/expressions.md, reference/sandbox.md): structure, names, types, definite
//! assignment, the call graph, and literal paths and regexes.
//!
//! Each concern is its own module; the passes run in the order of [`check`].
//! Each pass walks the tree once, names are looked up in maps keyed by text
//! borrowed from the tree, and nothing clones it. The one cost that is not
//! linear: a CALL applies its task's summary (what the task reads and binds),
//! so it costs the size of that summary. Output order never depends on
//! hash-map iteration (the front end sorts diagnostics by span afterwards).

pub(crate) mod answers;
pub use answers::schema::{TypeSchemaError, type_schema};
mod calls;
mod dialect;
mod flow;
mod literals;
pub(crate) use literals::quote;
mod names;
mod structure;
mod symbols;
pub(crate) mod types;
mod version_gate;
mod walk;

#[cfg(test)]
mod tests;

use crate::diagnostics::Diagnostic;
use crate::syntax::ast::Plan;
use crate::syntax::span::Span;

/// Runs every check on a parsed plan, appending to `diagnostics`.
///
/// `src` is the text the plan was parsed from: messages quote line numbers
/// (a JSON diagnostic has no labels, so "(line 12)" is how it points at a
/// second place) and suggestions quote the rewritten source.
pub fn check(plan: &Plan, src: &str, diagnostics: &mut Vec<Diagnostic>) {
    check_keeping_answers(plan, src, diagnostics);
}

/// [`check`], returning the plan's answer types, which the lowering of a
/// plan without errors needs (the same as [`answer_types`]'s).
pub(crate) fn check_keeping_answers(
    plan: &Plan,
    src: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> answers::AnswerTypes {
    let mut cx = Ctx::new(src, diagnostics);
    structure::check(plan, &mut cx);
    let answers = answers::table::collect(plan, &mut cx);
    let syms = symbols::collect(plan, src, &answers);
    let var_types = types::resolve(&syms, &answers.shapes, &mut cx);
    let order = calls::check(&syms, &mut cx);
    walk::check(plan, &syms, &var_types, &answers, &mut cx);
    flow::check(plan, &syms, &order, &mut cx);
    answers::presence::check(plan, &syms, &var_types, &answers, &mut cx);
    version_gate::check(plan, &mut cx);
    answers
}

/// Each variable with its type (`None` where no binding has a type that
/// can be known), in the order of first binding: what the language
/// server shows on hover and offers after `x.`.
pub(crate) fn variable_types<'a>(
    plan: &'a Plan,
    src: &'a str,
) -> (Vec<(&'a str, Option<types::ty::Ty>)>, answers::AnswerTypes) {
    let answers = answer_types(plan);
    let syms = symbols::collect(plan, src, &answers);
    let types = types::infer(&syms, &answers.shapes);
    (syms.vars.iter().map(|var| var.name).zip(types).collect(), answers)
}

/// The plan's answer types, without their errors (the checks report
/// those): for the language server and the lowering, which runs only on
/// plans without errors.
pub(crate) fn answer_types(plan: &Plan) -> answers::AnswerTypes {
    let mut quiet = Vec::new();
    answers::table::collect(plan, &mut Ctx::new("", &mut quiet))
}

/// What every check needs: the source text and the diagnostics sink.
pub(crate) struct Ctx<'a> {
    pub(crate) src: &'a str,
    diags: &'a mut Vec<Diagnostic>,
    /// Byte offsets of line starts, built the first time a message needs a line.
    line_starts: Option<Vec<usize>>,
    /// Number literals the lexer refused: reported already, of no known type.
    rejected_numbers: Vec<Span>,
}

impl<'a> Ctx<'a> {
    fn new(src: &'a str, diags: &'a mut Vec<Diagnostic>) -> Ctx<'a> {
        let rejected_numbers = crate::lexer::rejected_numbers(diags);
        Ctx { src, diags, line_starts: None, rejected_numbers }
    }

    /// Whether `span` is a number literal the lexer refused (and reported).
    fn is_rejected_number(&self, span: Span) -> bool {
        !self.rejected_numbers.is_empty()
            && self
                .rejected_numbers
                .binary_search_by_key(&(span.start, span.end), |s| (s.start, s.end))
                .is_ok()
    }

    fn emit(&mut self, diagnostic: Diagnostic) {
        self.diags.push(diagnostic);
    }

    /// Whether an earlier stage (or check) already reported an error.
    fn has_errors(&self) -> bool {
        self.diags.iter().any(Diagnostic::is_error)
    }

    /// The source text of a span ("" if the span is not in the text).
    fn text(&self, span: Span) -> &'a str {
        self.src.get(span.range()).unwrap_or("")
    }

    /// The 1-based line a span starts on.
    fn line(&mut self, span: Span) -> usize {
        let src = self.src;
        let starts = self.line_starts.get_or_insert_with(|| {
            std::iter::once(0)
                .chain(src.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1))
                .collect()
        });
        match starts.binary_search(&(span.start as usize)) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }
}
