//! Number literals that are not one (`1.5s`, `30sec`, `30S`, `2m30s`, `1d`,
//! `2.5`, `30x`, `1e3` after `TIMEOUT`): each is reported once (E0008), with the literal that means
//! exactly the same where there is one (`crate::written_duration`), and pushed as the
//! token it stands for. The checks know these spans ([`rejected_numbers`]) and
//! raise nothing more about them, so one mistake is one error.

use super::{Lexer, word_len};
use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::span::Span;
use crate::syntax::token::{Kw, TokenKind};
use crate::written_duration::{self, Flaw, Inexact};

/// The spans of the number literals the lexer refused (E0005, E0008) among
/// `diagnostics`, sorted, for the stages after it to leave alone.
pub(crate) fn rejected_numbers(diagnostics: &[Diagnostic]) -> Vec<Span> {
    let mut spans: Vec<Span> = diagnostics
        .iter()
        .filter(|d| d.code == codes::INVALID_NUMBER || d.code == codes::INTEGER_OVERFLOW)
        .map(|d| d.span)
        .collect();
    spans.sort_by_key(|s| (s.start, s.end));
    spans
}

const UNITS_NOTE: &str = "a duration is an integer followed directly by `ms`, `s`, `m` or `h`";

impl Lexer<'_> {
    /// The malformed number literal at `start` (a `-`, digits, then a
    /// fraction or letters that are no unit), up to the end of its word.
    pub(super) fn bad_number(&mut self, start: usize) {
        self.pos = start + usize::from(self.bytes[start] == b'-');
        self.pos += digits_len(&self.bytes[self.pos..]);
        if self.peek(0) == Some(b'.') && self.peek(1).is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1 + digits_len(&self.bytes[self.pos + 1..]);
        }
        self.pos += word_len(&self.bytes[self.pos..]);
        let span = Span::new(start, self.pos);
        let text = &self.src[start..self.pos];
        let body = text.strip_prefix('-').unwrap_or(text);
        let after_timeout = self.after_timeout();
        let unitless = written_duration::is_number(body);
        if !body.bytes().any(|b| b.is_ascii_alphabetic()) && !after_timeout {
            self.error(
                Diagnostic::error(codes::INVALID_NUMBER, span, format!("`{text}` is not a number: numbers are whole"))
                    .with_note("TissLang has no fractions; a fraction of a duration is written in a smaller unit (`1500ms`, not `1.5s`)"),
            );
            self.push(TokenKind::Int(0), start);
            return;
        }
        // After TIMEOUT a number without a unit is in seconds, as for `TIMEOUT 90`.
        let in_seconds = unitless.then(|| format!("{body}s"));
        let Some(written) = written_duration::read(in_seconds.as_deref().unwrap_or(body)) else {
            self.error(
                Diagnostic::error(
                    codes::INVALID_NUMBER,
                    span,
                    format!("`{text}` is not a number or a duration"),
                )
                .with_note(UNITS_NOTE),
            );
            self.push(self.rejected_number_kind(), start);
            return;
        };
        let (message, fix_message) = match (written.millis, written.flaw) {
            (Err(Inexact::TooLarge), _) => {
                (format!("`{text}` is too long a duration: it does not fit in 64 bits of milliseconds"), "")
            }
            _ if text.starts_with('-') => {
                ("a duration cannot be negative".to_string(), "write a positive duration")
            }
            _ if unitless => (
                format!(
                    "`{text}` is not a duration: a timeout needs a unit, and durations are whole numbers"
                ),
                "in seconds",
            ),
            (_, Some(Flaw::Fraction)) => (
                format!("`{text}` is not a duration: durations are whole numbers"),
                "write it in a smaller unit",
            ),
            (_, Some(Flaw::Compound)) => {
                (format!("`{text}` is not a duration: a duration has a single unit"), "write it in one unit")
            }
            (_, Some(Flaw::Unsupported { name })) => (
                format!(
                    "`{text}` is not a duration: there are no {name}; the units are `ms`, `s`, `m` and `h`"
                ),
                "write it in hours",
            ),
            (_, Some(Flaw::Spelling { unit, name })) => {
                (format!("`{text}` is not a duration: {name} are written `{unit}`"), "write")
            }
            (_, None) => (format!("`{text}` is not a duration"), "write"),
        };
        let mut d = Diagnostic::error(codes::INVALID_NUMBER, span, message);
        if let Some(fix) = written.fix() {
            d = d.with_suggestion(fix_message, span, fix);
        } else if written.millis == Err(Inexact::NotWhole) {
            d = d.with_note(format!(
                "durations count whole milliseconds, and `{body}` is not a whole number of them"
            ));
        }
        self.error(d);
        let millis = if text.starts_with('-') { 0 } else { written.millis.unwrap_or(0) };
        self.push(TokenKind::Duration(millis), start);
    }

    /// The token a rejected number stands as: a duration right after
    /// `TIMEOUT` (so the parser asks for no unit), else an integer.
    pub(super) fn rejected_number_kind(&self) -> TokenKind {
        if self.after_timeout() { TokenKind::Duration(0) } else { TokenKind::Int(0) }
    }

    /// Whether the last token is `TIMEOUT` (or `TIMEOUT =`, reported by
    /// the parser), which a duration must follow.
    fn after_timeout(&self) -> bool {
        let kinds: Vec<TokenKind> = self.out.tokens.iter().rev().take(2).map(|tok| tok.kind).collect();
        matches!(
            kinds.as_slice(),
            [TokenKind::Kw(Kw::TIMEOUT), ..] | [TokenKind::Assign, TokenKind::Kw(Kw::TIMEOUT)]
        )
    }
}

/// The length of the run of digits and `_` at the start of `bytes`.
fn digits_len(bytes: &[u8]) -> usize {
    bytes.iter().position(|&b| !(b.is_ascii_digit() || b == b'_')).unwrap_or(bytes.len())
}
