//! The lexer: source text → tokens (book: reference/lexical.md).
//!
//! Hand-written and single-pass. Literal contents (strings, heredocs, pragmas)
//! are decoded here into side tables that tokens index, so a token stays a small
//! `Copy` value. Errors are collected, never raised: after an error the lexer
//! skips the offending text and goes on, so one run reports every problem.

mod bad_number;
mod dialect;
mod heredoc;
mod literals;
mod pragma;
mod string;

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{Heredoc, Item, StrLit};
use crate::syntax::span::Span;
use crate::syntax::token::{Kw, Token, TokenKind};
pub(crate) use literals::Literals;

pub(crate) use bad_number::rejected_numbers;

/// Everything the lexer produces for one source text.
#[derive(Debug, Default)]
pub struct Lexed {
    /// The tokens, always ending with one `Eof`.
    pub tokens: Vec<Token>,
    pub strings: Vec<StrLit>,
    pub heredocs: Vec<Heredoc>,
    /// `Item::Header` and `Item::Version` nodes, indexed by `TokenKind::Pragma`.
    pub pragmas: Vec<Item>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Lexes a whole source text. Never panics. (The parser does not need the
/// whole stream: it has a [`Lexer`] scan a chunk at a time.)
pub fn lex(src: &str) -> Lexed {
    let mut lexer = Lexer::new(src);
    // A rough upper bound from the generated bench plan (a token per 9
    // bytes): the vector rarely grows, which would copy it.
    lexer.out.tokens.reserve(src.len() / 5 + 1);
    lexer.scan(usize::MAX);
    let out = lexer.out;
    Lexed {
        tokens: out.tokens,
        strings: out.strings.into_vec(),
        heredocs: out.heredocs.into_vec(),
        pragmas: out.pragmas,
        diagnostics: out.diagnostics,
    }
}

/// What the lexer has produced.
#[derive(Debug, Default)]
pub(crate) struct Output {
    /// The tokens scanned and not yet dropped by the parser; the last one
    /// is `Eof` once the input is done.
    pub(crate) tokens: Vec<Token>,
    pub(crate) strings: Literals<StrLit>,
    pub(crate) heredocs: Literals<Heredoc>,
    /// `Item::Header` and `Item::Version` nodes, indexed by `TokenKind::Pragma`.
    pub(crate) pragmas: Vec<Item>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

/// The lexer: [`Lexer::scan`] appends tokens to `out.tokens`.
pub(crate) struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    pub(crate) out: Output,
    /// Nothing but blanks since the last line break (a `#TISS` there is a pragma).
    at_line_start: bool,
    /// Set once a token other than a pragma has been produced.
    seen_token: bool,
    /// The final `Eof` has been produced.
    pub(crate) done: bool,
    /// Heredoc bodies written as they are taken are left in the source
    /// (`parser::parse_for_lowering`).
    pub(crate) bodies_in_source: bool,
}

pub(crate) fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

/// `[A-Za-z0-9_]` by byte value: one load per byte in the word loops.
static IDENT_CONTINUE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    table
};

pub(crate) fn is_ident_continue(b: u8) -> bool {
    IDENT_CONTINUE[usize::from(b)]
}

/// The length of the run of word bytes at the start of `bytes`.
fn word_len(bytes: &[u8]) -> usize {
    bytes.iter().position(|&b| !is_ident_continue(b)).unwrap_or(bytes.len())
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(src: &'a str) -> Lexer<'a> {
        Lexer {
            src,
            bytes: src.as_bytes(),
            pos: 0,
            out: Output::default(),
            // A first line starting with `#!` is a comment, which the comment rule covers.
            at_line_start: true,
            seen_token: false,
            done: false,
            bodies_in_source: false,
        }
    }

    /// Scans until `out.tokens` holds at least `len` tokens or the input is
    /// done, which ends the tokens with one `Eof`.
    pub(crate) fn scan(&mut self, len: usize) {
        // A local in the loop; saved for the next call.
        let mut at_line_start = self.at_line_start;
        while self.out.tokens.len() < len {
            let Some(&b) = self.bytes.get(self.pos) else {
                if !self.done {
                    self.done = true;
                    let end = self.bytes.len();
                    self.out.tokens.push(Token { kind: TokenKind::Eof, span: Span::new(end, end) });
                }
                break;
            };
            // Blanks, line breaks and comments, up to the next token.
            match b {
                b'\n' => {
                    self.pos += 1;
                    at_line_start = true;
                    continue;
                }
                b' ' | b'\t' | b'\r' | b'\x0C' => {
                    // Indentation comes in runs: skip it in one tight loop.
                    self.pos += 1;
                    let rest = &self.bytes[self.pos..];
                    self.pos += rest.iter().position(|&b| b != b' ' && b != b'\t').unwrap_or(rest.len());
                    continue;
                }
                b'#' => {
                    // `#tiss!` too: a pragma in another case is reported, not ignored.
                    if at_line_start
                        && self.bytes[self.pos..].get(..5).is_some_and(|w| w.eq_ignore_ascii_case(b"#TISS"))
                    {
                        self.pragma_line();
                    } else {
                        self.skip_to_line_end();
                    }
                    continue;
                }
                _ => {}
            }
            at_line_start = false;
            let start = self.pos;
            match b {
                b'/' | b'-' if self.peek(1) == Some(b) && (b == b'/' || self.peek(2) == Some(b' ')) => {
                    self.foreign_comment();
                }
                b'-' if self.peek(1) == Some(b'>') => self.arrow(),
                b'$' if self.shell_variable() => {}
                b'[' if self.argument_list() => {}
                b'"' => self.string(),
                b'<' if self.peek(1) == Some(b'<') => self.heredoc(),
                b'-' | b'0'..=b'9' => self.number(),
                b if is_ident_start(b) => self.word(),
                _ => self.punct(start),
            }
        }
        self.at_line_start = at_line_start;
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    fn push(&mut self, kind: TokenKind, start: usize) {
        self.seen_token = true;
        self.out.tokens.push(Token { kind, span: Span::new(start, self.pos) });
    }

    fn error(&mut self, diagnostic: Diagnostic) {
        self.out.diagnostics.push(diagnostic);
    }

    /// Position of the end of the current line (before `\r\n` or `\n`).
    fn line_end(&self, from: usize) -> usize {
        let rest = &self.bytes[from..];
        let nl = rest.iter().position(|&b| b == b'\n').map_or(self.bytes.len(), |i| from + i);
        if nl > from && self.bytes[nl - 1] == b'\r' { nl - 1 } else { nl }
    }

    fn skip_to_line_end(&mut self) {
        self.pos = self.line_end(self.pos);
    }

    fn word(&mut self) {
        let start = self.pos;
        self.pos += word_len(&self.bytes[start..]);
        let kind = match Kw::from_word(&self.src[start..self.pos]) {
            Some(kw) => TokenKind::Kw(kw),
            None => TokenKind::Ident,
        };
        self.push(kind, start);
    }

    /// `-?[0-9][0-9_]*` optionally followed by a duration unit.
    fn number(&mut self) {
        let start = self.pos;
        let negative = self.bytes[start] == b'-';
        if negative {
            if !self.peek(1).is_some_and(|b| b.is_ascii_digit()) {
                self.pos += 1;
                self.error(
                    Diagnostic::error(
                        codes::UNEXPECTED_CHARACTER,
                        Span::new(start, self.pos),
                        "unexpected `-`: a minus sign must be followed by digits",
                    )
                    .with_note("TissLang 1.0 has no arithmetic; `-` only starts a negative integer"),
                );
                return;
            }
            self.pos += 1;
        }
        let mut value: u64 = 0;
        let mut overflow = false;
        while let Some(b) = self.peek(0) {
            match b {
                b'0'..=b'9' => {
                    let digit = u64::from(b - b'0');
                    match value.checked_mul(10).and_then(|v| v.checked_add(digit)) {
                        Some(v) => value = v,
                        None => overflow = true,
                    }
                }
                b'_' => {}
                _ => break,
            }
            self.pos += 1;
        }
        let digits_end = self.pos;
        if self.peek(0) == Some(b'.') && self.peek(1).is_some_and(|b| b.is_ascii_digit()) {
            return self.bad_number(start);
        }
        let suffix_start = self.pos;
        self.pos += word_len(&self.bytes[suffix_start..]);
        let suffix = &self.src[suffix_start..self.pos];
        let span = Span::new(start, self.pos);
        let number_text = &self.src[start..digits_end];
        if suffix.is_empty() {
            let limit = if negative { 1u64 << 63 } else { i64::MAX as u64 };
            if overflow || value > limit {
                self.overflow(span, number_text);
                self.push(self.rejected_number_kind(), start);
            } else {
                let v = if negative { (value as i64).wrapping_neg() } else { value as i64 };
                self.push(TokenKind::Int(v), start);
            }
            return;
        }
        let unit_ms: u64 = match suffix {
            "ms" => 1,
            "s" => 1_000,
            "m" => 60_000,
            "h" => 3_600_000,
            _ => return self.bad_number(start),
        };
        if negative {
            self.error(
                Diagnostic::error(codes::INVALID_NUMBER, span, "a duration cannot be negative")
                    .with_suggestion("write a positive duration", span, &self.src[start + 1..self.pos]),
            );
            self.push(TokenKind::Duration(0), start);
            return;
        }
        match value.checked_mul(unit_ms) {
            Some(ms) if !overflow => self.push(TokenKind::Duration(ms), start),
            _ => {
                self.overflow(span, number_text);
                self.push(TokenKind::Duration(0), start);
            }
        }
    }

    fn overflow(&mut self, span: Span, text: &str) {
        self.error(
            Diagnostic::error(
                codes::INTEGER_OVERFLOW,
                span,
                format!("`{text}` does not fit in a 64-bit signed integer"),
            )
            .with_note(format!("integers range from {} to {}", i64::MIN, i64::MAX)),
        );
    }

    fn punct(&mut self, start: usize) {
        let b = self.bytes[start];
        let two = |second: u8| self.peek(1) == Some(second);
        let (kind, len) = match b {
            b'{' => (TokenKind::LBrace, 1),
            b'}' => (TokenKind::RBrace, 1),
            b'(' => (TokenKind::LParen, 1),
            b')' => (TokenKind::RParen, 1),
            b',' => (TokenKind::Comma, 1),
            b'.' => (TokenKind::Dot, 1),
            b'=' if two(b'=') => (TokenKind::EqEq, 2),
            b'=' => (TokenKind::Assign, 1),
            b'!' if two(b'=') => (TokenKind::NotEq, 2),
            b'<' if two(b'=') => (TokenKind::Le, 2),
            b'<' => (TokenKind::Lt, 1),
            b'>' if two(b'=') => (TokenKind::Ge, 2),
            b'>' => (TokenKind::Gt, 1),
            // `||` is another language's OR (see `unexpected`).
            b'|' if !two(b'|') => (TokenKind::Pipe, 1),
            b'?' => (TokenKind::Question, 1),
            b':' => (TokenKind::Colon, 1),
            _ => {
                self.unexpected(start);
                return;
            }
        };
        self.pos += len;
        self.push(kind, start);
    }

    /// Reports a character that cannot start a token, with a fix for the
    /// common ones (`'text'`, `&&`, `||`, `!`), and skips it.
    fn unexpected(&mut self, start: usize) {
        let ch = self.src[start..].chars().next().unwrap_or('\u{FFFD}');
        let mut len = ch.len_utf8();
        let rest = &self.src[start..self.line_end(start)];
        // Whether the fix is certain: a backslash or `${` in single quotes
        // would mean something else in double quotes.
        let mut certain = true;
        let (message, fix): (String, Option<(&str, String)>) = match ch {
            '\'' => {
                let fix = rest[1..].find('\'').map(|close| {
                    len = close + 2;
                    let inner = &rest[1..=close];
                    certain = !inner.contains('\\') && !inner.contains("${");
                    ("strings use double quotes", format!("\"{}\"", inner.replace('"', "\\\"")))
                });
                ("unexpected `'`: strings are written in double quotes".into(), fix)
            }
            '&' if rest.starts_with("&&") => {
                len = 2;
                ("unexpected `&&`".into(), Some(("conditions are joined with", "AND".into())))
            }
            '|' if rest.starts_with("||") => {
                len = 2;
                ("unexpected `||`".into(), Some(("alternatives are joined with", "OR".into())))
            }
            '!' => {
                // `!x` would become `NOTx`: a human spaces it.
                certain = false;
                ("unexpected `!`".into(), Some(("negation is written", "NOT".into())))
            }
            _ => (format!("unexpected character `{}`", ch.escape_debug()), None),
        };
        let span = Span::new(start, start + len);
        let mut d = Diagnostic::error(codes::UNEXPECTED_CHARACTER, span, message);
        if let Some((msg, replacement)) = &fix {
            d = d.with_suggestion_if(certain, *msg, span, replacement.clone());
        }
        self.error(d);
        self.pos = start + len;
        // Recover as the token the fix stands for, so parsing goes on undisturbed.
        let kind = match fix.as_ref().map(|(_, r)| r.as_str()) {
            Some("AND") => Some(TokenKind::Kw(Kw::AND)),
            Some("OR") => Some(TokenKind::Kw(Kw::OR)),
            Some("NOT") => Some(TokenKind::Kw(Kw::NOT)),
            Some(_) => {
                let text = &self.src[start + 1..start + len - 1];
                let parts = if text.is_empty() {
                    crate::syntax::ast::StrParts::default()
                } else {
                    crate::syntax::ast::StrParts::one(crate::syntax::ast::StrPart::Text { text: text.into() })
                };
                Some(TokenKind::Str(self.out.strings.push(StrLit { parts, span })))
            }
            None => None,
        };
        if let Some(kind) = kind {
            self.push(kind, start);
        }
    }
}

#[cfg(test)]
mod tests;
