//! Words of other languages that TissLang has no form for, or spells
//! another way (part of the dialect table in `dialect.rs`): string operators
//! named as elsewhere (`INCLUDES`, `HAS`), loops (`FOR`, `WHILE`), and names
//! written bare where TissLang takes a string (`STEP build {`). Each is one
//! error that says what to write instead.

use super::{PResult, Parser};
use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{StrLit, StrPart, StrParts};
use crate::syntax::token::{Kw, TokenKind};

/// String operators as other languages name them, with the TissLang one.
pub(crate) const OPERATOR_WORDS: &[(&str, Kw)] = &[
    ("INCLUDES", Kw::CONTAINS),
    ("INCLUDE", Kw::CONTAINS),
    ("HAS", Kw::CONTAINS),
    ("HAS_SUBSTRING", Kw::CONTAINS),
    ("BEGINS_WITH", Kw::STARTS_WITH),
    ("STARTSWITH", Kw::STARTS_WITH),
    ("ENDSWITH", Kw::ENDS_WITH),
    ("MATCH", Kw::MATCHES),
    ("LIKE", Kw::MATCHES),
];

/// Words that open a loop in other languages; TissLang has none.
pub(crate) const LOOP_WORDS: &[&str] = &["FOR", "FOREACH", "FOR_EACH", "WHILE", "LOOP", "REPEAT", "UNTIL"];

impl Parser<'_> {
    /// The current word as one of [`OPERATOR_WORDS`] among `operators`,
    /// reported with the TissLang operator (not consumed), when an operand
    /// follows it. `None` if it is none of them.
    pub(super) fn operator_word(&mut self, operators: &[Kw]) -> Option<Kw> {
        let tok = self.peek();
        let word = self.ident_word()?;
        let &(_, kw) =
            OPERATOR_WORDS.iter().find(|(w, kw)| w.eq_ignore_ascii_case(word) && operators.contains(kw))?;
        if !matches!(self.peek_nth_kind(1), TokenKind::Str(_) | TokenKind::Ident | TokenKind::Kw(_)) {
            return None;
        }
        // `LIKE` takes a pattern of `%` and `_`, not a regular expression: a human decides.
        let certain = !word.eq_ignore_ascii_case("LIKE");
        self.diagnostics.push(
            Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                tok.span,
                format!("`{word}` is not a TissLang operator; it is written `{}`", kw.as_str()),
            )
            .with_note("the string operators are CONTAINS, STARTS_WITH, ENDS_WITH and MATCHES (a regular expression)")
            .with_suggestion_if(certain, "write", tok.span, kw.as_str()),
        );
        Some(kw)
    }

    /// A loop of another language (`FOR x IN [...] {`, `WHILE c {`; the
    /// word current): reported, with what to write instead, and skipped
    /// with its block. `None` if the current word opens no loop.
    pub(super) fn foreign_loop(&mut self) -> Option<PResult<()>> {
        let word = self.ident_word()?;
        if !LOOP_WORDS.iter().any(|w| w.eq_ignore_ascii_case(word))
            || self.peek_nth_kind(1) == TokenKind::Assign
        {
            return None;
        }
        let tok = self.bump();
        // The header: the rest of the line up to the block.
        while !matches!(self.peek_kind(), TokenKind::LBrace | TokenKind::RBrace | TokenKind::Eof)
            && !self.starts_line()
        {
            self.bump();
        }
        let header = tok.span.to(self.previous().map_or(tok.span, |t| t.span));
        self.diagnostics.push(
            Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                header,
                format!("TissLang has no loops (`{word}`): a plan's steps are written out, one by one"),
            )
            .with_note(
                "write one `STEP` per item (`STEP \"build a\" { ... }`, `STEP \"build b\" { ... }`), \
                 or put the body in a `DEFINE_TASK \"name\" { ... }` and `CALL \"name\"` once per item",
            ),
        );
        if self.peek_kind() == TokenKind::LBrace {
            self.bump();
            self.skip_balanced_from_open();
        }
        Some(Ok(()))
    }

    /// A name TissLang takes as a string (a step's, a task's): a bare word
    /// there is reported with its quoted form and taken as it.
    pub(super) fn name_string(&mut self, what: &str) -> PResult<StrLit> {
        let tok = self.peek();
        if tok.kind != TokenKind::Ident {
            return self.string(what);
        }
        self.bump();
        let name = self.text(tok.span);
        let quoted = format!("\"{name}\"");
        self.diagnostics.push(
            Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                tok.span,
                format!("expected {what}, found `{name}`: a name is written in quotes, `{quoted}`"),
            )
            .with_fix("quote it", tok.span, quoted),
        );
        Ok(StrLit { parts: StrParts::one(StrPart::Text { text: name.into() }), span: tok.span })
    }
}
