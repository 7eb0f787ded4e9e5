//! `tissc fmt`: the one canonical layout of a plan (book: guide/tissc.md).
//!
//! The plan is parsed first; one with a syntax error is refused with its
//! diagnostics. Then its tokens are laid out into lines ([`layout`]), and the
//! comments and blank lines between them ([`comments`]) are printed with the
//! lines ([`printer`]). Strings, numbers, pragmas and heredoc bodies are
//! copied from the source as written. Two checks guard every result: each
//! comment of the input is printed exactly once, and the formatted text
//! parses to the same plan apart from positions ([`same_meaning`]). A failed
//! check is a bug in the formatter, reported as such (`E0900`) and never a
//! silently changed plan.

mod comments;
mod layout;
mod one_line;
mod printer;
pub mod same_meaning;
mod types;

pub(crate) use one_line::one_line;

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::lexer;
use crate::parser;
use crate::syntax::ast::Item;
use crate::syntax::span::Span;
use crate::syntax::token::TokenKind;

/// Formats a plan's source. `Err` holds the plan's syntax errors (the plan
/// is then left as it is), or one `E0900` diagnostic if the formatter failed
/// its own checks (a bug).
pub fn format_source(source: &str) -> Result<String, Vec<Diagnostic>> {
    // A leading BOM is not part of the plan (book: reference/lexical.md); the canonical form has none.
    let source = source.strip_prefix('\u{FEFF}').unwrap_or(source);
    let (plan, diagnostics) = parser::parse(source);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Err(diagnostics);
    }
    let fault = |at: usize, message: String| {
        vec![
            Diagnostic::error(codes::FORMATTER_FAULT, Span::new(at, at), message)
                .with_note("this is a bug in `tissc fmt`, not in your plan; the file was left as it is"),
        ]
    };
    // The tokens, gaps and lines are dropped before the formatted text is
    // parsed again: the two are never resident together.
    let (text, mut printed, mut expected) = {
        let lexed = lexer::lex(source);
        let gaps = comments::gaps(source, &lexed.tokens).map_err(|stray| {
            fault(stray.offset, "text between tokens that is neither blank nor a comment".into())
        })?;
        let code_tokens = &lexed.tokens[..lexed.tokens.len() - 1];
        let mut types = types::Types::new(&plan, code_tokens, &gaps);
        let lines = types.lay_out(source, code_tokens, |i| gaps[i].comments().next().is_none());
        let (text, printed) = printer::Printer::new(source, &lexed.tokens, &gaps, &types).print(&lines);
        let mut expected: Vec<usize> =
            gaps.non_empty().flat_map(|gap| gap.comments().map(|c| c.start)).collect();
        expected.extend(
            code_tokens
                .iter()
                .filter(|t| matches!(t.kind, TokenKind::Heredoc(_)))
                .filter_map(|&t| comments::heredoc_parts(source, t).comment.map(|c| c.start)),
        );
        (text, printed, expected)
    };

    // Every comment exactly once.
    expected.sort_unstable();
    printed.sort_unstable();
    if let Some(twice) = printed.windows(2).find(|w| w[0] == w[1]) {
        return Err(fault(
            twice[0],
            format!("the comment on line {} was printed twice", line_of(source, twice[0])),
        ));
    }
    if let Some(&lost) = expected.iter().find(|at| printed.binary_search(at).is_err()) {
        return Err(fault(lost, format!("the comment on line {} was lost", line_of(source, lost))));
    }
    drop((printed, expected));

    // The same plan, apart from positions: the plan's items written compact,
    // its tree dropped before the formatted text is parsed.
    let before: Vec<Vec<u8>> = plan.items.iter().map(|item| same_meaning::written(source, item)).collect();
    let starts: Vec<usize> = plan.items.iter().map(item_start).collect();
    drop(plan);
    let (formatted, diagnostics) = parser::parse(&text);
    if let Some(error) = diagnostics.iter().find(|d| d.is_error()) {
        return Err(fault(0, format!("the formatted plan does not parse: {}", error.message)));
    }
    if let Some(item) = same_meaning::first_difference(&before, &text, &formatted) {
        let at = starts.get(item).copied().unwrap_or(source.len());
        return Err(fault(at, format!("formatting would change the item on line {}", line_of(source, at))));
    }
    Ok(text)
}

/// The 1-based line of a byte offset (for the rare fault message only).
fn line_of(source: &str, offset: usize) -> usize {
    source.as_bytes()[..offset.min(source.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

fn item_start(item: &Item) -> usize {
    let span = match item {
        Item::Header { span, .. }
        | Item::Version { span, .. }
        | Item::Task { span, .. }
        | Item::Setup { span, .. }
        | Item::DefineTask { span, .. } => *span,
        Item::Step(step) => step.span,
        Item::SetBudget(budget) => budget.span,
        Item::TypeDef(def) => def.span,
    };
    span.start as usize
}
