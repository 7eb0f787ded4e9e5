//! The checker's part of the dialect table (`parser/dialect.rs` lists every
//! form): what parses but means something else than its author meant.
//!
//! - `answer == yes`, `answer CONTAINS done`: a word nothing binds compared
//!   with a string is text without its quotes (earlier TissLang and shells
//!   compare words bare): E0200 with the quoted word;
//! - `LOG "value: {x}"` with `x` bound: `{x}` is literal text in TissLang,
//!   where interpolation is `${x}` (W0009, a warning: the braces may be meant).

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::lexer::{is_ident_continue, is_ident_start};
use crate::syntax::ast::Expr;
use crate::syntax::ast::RootView;
use crate::syntax::span::Span;
use tiss_support::suggest;

use super::Ctx;
use super::literals::quote;
use super::symbols::Symbols;
use super::types::ty::Ty;

/// Whether `expr` is a bare name (no fields) that nothing binds.
pub(crate) fn is_unbound_word(syms: &Symbols<'_>, expr: &Expr) -> bool {
    match expr.path(syms.src) {
        Some(path) => {
            matches!(&path.root, RootView::Var { ident } if syms.var(ident.name).is_none())
                && path.fields.is_empty()
        }
        None => false,
    }
}

/// Reports E0200 for `word`, a bare name nothing binds (see
/// [`is_unbound_word`]) compared with a value of type `other`: when that is
/// a string, with the word quoted, certain unless a variable of a similar
/// name exists.
pub(crate) fn unquoted_word(cx: &mut Ctx<'_>, syms: &Symbols<'_>, word: &Expr, other: Option<Ty>) {
    let Some(path) = word.path(cx.src) else { return };
    let RootView::Var { ident } = path.root else { return };
    if other != Some(Ty::Str) {
        super::names::variable(cx, syms, ident);
        return;
    }
    let near = suggest::closest(ident.name, syms.vars.iter().map(|v| v.name));
    let mut d = Diagnostic::error(
        codes::UNDEFINED_VARIABLE,
        ident.span,
        format!(
            "undefined variable `{}`: compared with a string, it is most likely text, written in quotes",
            ident.name
        ),
    )
    .with_suggestion_if(near.is_none(), "quote it", ident.span, quote(ident.name));
    if let Some(near) = near {
        d = d.with_suggestion("a variable with a similar name exists", ident.span, near);
    }
    cx.emit(d);
}

/// W0009 for each `{name}` (or `{name.FIELD}`) in the string literal written at `lit`
/// where `name` is a bound variable, `LAST_RUN` or `COST`.
pub(crate) fn braces_not_interpolation(cx: &mut Ctx<'_>, syms: &Symbols<'_>, lit: Span) {
    let text = cx.text(lit);
    // Only double-quoted literals: heredocs are raw by design.
    if !text.starts_with('"') {
        return;
    }
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for open in memchr::memchr_iter(b'{', bytes) {
        let before = open.checked_sub(1).map(|i| bytes[i]);
        if matches!(before, Some(b'$' | b'{' | b'\\'))
            || !bytes.get(open + 1).copied().is_some_and(is_ident_start)
        {
            continue;
        }
        let mut end = open + 1;
        while end < bytes.len() && (is_ident_continue(bytes[end]) || bytes[end] == b'.') {
            end += 1;
        }
        if bytes.get(end) != Some(&b'}') || bytes.get(end + 1) == Some(&b'}') {
            continue;
        }
        let inner = &text[open + 1..end];
        let root = inner.split('.').next().unwrap_or("");
        if syms.var(root).is_some() || root == "LAST_RUN" || root == "COST" {
            found.push((open, end + 1, inner));
        }
    }
    for (start, end, inner) in found {
        let base = lit.start as usize;
        let span = Span::new(base + start, base + end);
        cx.emit(
            Diagnostic::warning(
                codes::BRACES_NOT_INTERPOLATION,
                span,
                format!("`{{{inner}}}` is literal text here; TissLang interpolates with `${{{inner}}}`"),
            )
            .with_suggestion("did you mean", span, format!("${{{inner}}}"))
            .with_note("if the braces are meant as text, keep them: this is a warning, not an error"),
        );
    }
}
