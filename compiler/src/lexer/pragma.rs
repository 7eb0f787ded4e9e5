//! Pragma lines: `#TISS! Key=Value ...` and `#TISS_VERSION <op> <version>`.

use super::Lexer;
use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{HeaderEntry, Item};
use crate::syntax::span::Span;
use crate::syntax::token::TokenKind;
use tisslang::version::{Version, VersionOp, VersionReq};

const VERSION_FORM: &str = "`#TISS_VERSION <op> <major>.<minor>[.<patch>]` with <op> one of >= > == <= < ^";

impl Lexer<'_> {
    /// A line starting with `#TISS`, in any case, at its first non-blank
    /// character. In another case it is a pragma only if its word is one
    /// (`#tiss!`, `#Tiss_Version`); `#tissue` stays a comment.
    pub(super) fn pragma_line(&mut self) {
        let start = self.pos;
        let end = self.line_end(start);
        self.pos = end;
        let line = &self.src[start..end];
        let span = Span::new(start, end);
        let word_len = line.find([' ', '\t']).unwrap_or(line.len());
        let word = &line[..word_len];
        let item = match word {
            "#TISS!" => self.header(start + word_len, end, span),
            "#TISS_VERSION" => self.version(start + word_len, end, span),
            _ if word.starts_with("#TISS!") => self.header(start + 6, end, span),
            _ if !word.starts_with("#TISS") => {
                let Some(pragma) = in_another_case(word) else { return };
                let at = Span::new(start, start + pragma.len());
                self.error(
                    Diagnostic::error(
                        codes::MALFORMED_PRAGMA,
                        at,
                        format!(
                            "`{}` is the pragma `{pragma}` in another case: pragmas are uppercase",
                            &word[..pragma.len()]
                        ),
                    )
                    .with_fix("write", at, pragma),
                );
                // Read on as the pragma it is, so its own mistakes show too.
                match pragma {
                    "#TISS!" => self.header(start + pragma.len(), end, span),
                    _ => self.version(start + pragma.len(), end, span),
                }
            }
            _ => {
                let d = Diagnostic::error(
                    codes::MALFORMED_PRAGMA,
                    Span::new(start, start + word_len),
                    format!("unknown pragma `{word}`"),
                )
                .with_note("a comment starting with `#TISS` must be a pragma; put a space after `#` for a plain comment");
                let d = match tiss_support::suggest::closest(word, ["#TISS_VERSION", "#TISS!"]) {
                    Some(fix) => d.with_suggestion("did you mean", Span::new(start, start + word_len), fix),
                    None => d,
                };
                self.error(d);
                None
            }
        };
        let Some(item) = item else { return };
        if self.seen_token {
            self.error(
                Diagnostic::error(codes::MALFORMED_PRAGMA, span, "pragmas must come before the first item")
                    .with_note("move this line above `TASK`"),
            );
            return;
        }
        let index = self.out.pragmas.len() as u32;
        self.out.pragmas.push(item);
        self.out.tokens.push(crate::syntax::token::Token { kind: TokenKind::Pragma(index), span });
    }

    /// `Key=Value` entries separated by blanks.
    fn header(&mut self, from: usize, end: usize, span: Span) -> Option<Item> {
        let mut entries = Vec::new();
        let mut ok = true;
        let text = &self.src[from..end];
        let mut offset = from;
        for word in text.split([' ', '\t']) {
            let word_start = offset;
            offset += word.len() + 1;
            if word.is_empty() {
                continue;
            }
            let entry_span = Span::new(word_start, word_start + word.len());
            match word.split_once('=') {
                Some((key, value))
                    if !key.is_empty()
                        && !value.is_empty()
                        && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') =>
                {
                    entries.push(HeaderEntry {
                        key: key.to_string(),
                        value: value.to_string(),
                        span: entry_span,
                    });
                }
                _ => {
                    ok = false;
                    self.error(
                        Diagnostic::error(
                            codes::MALFORMED_PRAGMA,
                            entry_span,
                            format!("`{word}` is not a `Key=Value` entry"),
                        )
                        .with_note("write header metadata as `#TISS! Language=Python Key2=Value2`"),
                    );
                }
            }
        }
        ok.then_some(Item::Header { entries, span })
    }

    fn version(&mut self, from: usize, end: usize, span: Span) -> Option<Item> {
        let text = self.src[from..end].trim();
        let op_len = text.bytes().take_while(|b| matches!(b, b'>' | b'<' | b'=' | b'^')).count();
        let op = VersionOp::parse(&text[..op_len]);
        let version = parse_version(text[op_len..].trim());
        match (op, version) {
            (Some(op), Some(version)) => {
                Some(Item::Version { requirement: VersionReq { op, version }, span })
            }
            _ => {
                let mut d = Diagnostic::error(
                    codes::MALFORMED_PRAGMA,
                    span,
                    format!("malformed version pragma: expected {VERSION_FORM}"),
                );
                if op_len == 0
                    && let Some(version) = parse_version(text)
                {
                    d = d.with_suggestion(
                        "add a comparison",
                        span,
                        format!("#TISS_VERSION >= {}.{}", version.major, version.minor),
                    );
                }
                self.error(d);
                None
            }
        }
    }
}

/// The pragma that `word` (a line's first word, starting `#TISS` in another
/// case) is in another case, if it is one: `#tiss_version` or `#tiss!...`.
fn in_another_case(word: &str) -> Option<&'static str> {
    if word.eq_ignore_ascii_case("#TISS_VERSION") {
        Some("#TISS_VERSION")
    } else if word.as_bytes().get(..6).is_some_and(|w| w.eq_ignore_ascii_case(b"#TISS!")) {
        Some("#TISS!")
    } else {
        None
    }
}

/// `major.minor[.patch]`, each a decimal number.
fn parse_version(text: &str) -> Option<Version> {
    let mut parts = text.split('.');
    let mut number = |required: bool| -> Option<Option<u64>> {
        match parts.next() {
            None if !required => Some(None),
            None => None,
            Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => p.parse().ok().map(Some),
            Some(_) => None,
        }
    };
    let major = number(true)??;
    let minor = number(true)??;
    let patch = number(false)?.unwrap_or(0);
    if parts.next().is_some() {
        return None;
    }
    Some(Version { major, minor, patch })
}

#[cfg(test)]
mod tests {
    use super::parse_version;
    use tisslang::version::Version;

    #[test]
    fn versions() {
        assert_eq!(parse_version("1.0"), Some(Version { major: 1, minor: 0, patch: 0 }));
        assert_eq!(parse_version("1.2.3"), Some(Version { major: 1, minor: 2, patch: 3 }));
        assert_eq!(parse_version("1"), None);
        assert_eq!(parse_version("1.2.3.4"), None);
        assert_eq!(parse_version("1.x"), None);
        assert_eq!(parse_version(""), None);
    }
}
