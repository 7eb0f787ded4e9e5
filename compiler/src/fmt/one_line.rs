//! Code (a condition, a path) on one line as `tissc fmt` prints it; the
//! compiler stores a condition's text so, once per condition and path.

use std::borrow::Cow;

use super::layout;
use crate::lexer::{self, is_ident_continue, is_ident_start};
use crate::syntax::token::{Kw, TokenKind};

/// The code `text` (a condition, a path) on one line as `tissc fmt` prints
/// it: its tokens as written, one space apart or joined as the layout joins
/// them, comments and line breaks dropped. The compiler stores a
/// condition's text so, and formatting keeps the bytecode (book: guide/tissc.md).
pub(crate) fn one_line(text: &str) -> Cow<'_, str> {
    // Most texts are written so already: checked without lexing them again.
    if as_written(text) { Cow::Borrowed(text) } else { Cow::Owned(relexed(text)) }
}

/// [`one_line`] by lexing `text`.
fn relexed(text: &str) -> String {
    let lexed = lexer::lex(text);
    let mut out = String::with_capacity(text.len());
    let mut prev: Option<TokenKind> = None;
    for token in lexed.tokens.iter().filter(|t| t.kind != TokenKind::Eof) {
        if prev.is_some_and(|p| !layout::joined(p, token.kind)) {
            out.push(' ');
        }
        prev = Some(token.kind);
        out.push_str(&text[token.span.range()]);
    }
    out
}

/// Whether [`one_line`] gives `text` back unchanged: tokens of the common
/// kinds ([`plain_token`]), one space between two the layout does not
/// join and none between two it does. Anything else (a comment, a line
/// break, an escape, a rarer token) answers no, and the text is lexed.
fn as_written(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut pos = 0;
    let mut prev: Option<TokenKind> = None;
    while pos < bytes.len() {
        let gap = bytes[pos] == b' ';
        pos += usize::from(gap);
        let Some((kind, len)) = text.get(pos..).and_then(plain_token) else { return false };
        let spaced = prev.is_some_and(|p| !layout::joined(p, kind));
        if gap != spaced {
            return false;
        }
        prev = Some(kind);
        pos += len;
    }
    true
}

/// The token at the start of `rest` and its length, if it is one the lexer
/// reads from these bytes alone and without a report: a word, a string
/// without escapes or holes, an integer or a duration, a comparison, a
/// parenthesis, a comma or a dot. `None` for anything else.
fn plain_token(text: &str) -> Option<(TokenKind, usize)> {
    let rest = text.as_bytes();
    let next = rest.get(1).copied();
    Some(match *rest.first()? {
        b'(' => (TokenKind::LParen, 1),
        b')' => (TokenKind::RParen, 1),
        b',' => (TokenKind::Comma, 1),
        b'.' => (TokenKind::Dot, 1),
        b'=' if next == Some(b'=') => (TokenKind::EqEq, 2),
        b'!' if next == Some(b'=') => (TokenKind::NotEq, 2),
        b'<' if next == Some(b'=') => (TokenKind::Le, 2),
        b'>' if next == Some(b'=') => (TokenKind::Ge, 2),
        // `<<` starts a heredoc.
        b'<' if next != Some(b'<') => (TokenKind::Lt, 1),
        b'>' => (TokenKind::Gt, 1),
        b'"' => {
            // Up to the closing quote, through nothing the lexer decodes.
            let end = 1 + rest[1..]
                .iter()
                .position(|&c| matches!(c, b'"' | b'\\' | b'$' | b'{' | b'\n' | b'\r'))?;
            if rest[end] != b'"' {
                return None;
            }
            (TokenKind::Str(0), end + 1)
        }
        b'0'..=b'9' => {
            let digits = rest.iter().position(|&c| !(c.is_ascii_digit() || c == b'_')).unwrap_or(rest.len());
            let len = digits + word_len(&rest[digits..]);
            // A decimal point, or a unit that is not one, is reported.
            if rest.get(len) == Some(&b'.') || !matches!(&rest[digits..len], b"" | b"ms" | b"s" | b"m" | b"h")
            {
                return None;
            }
            (TokenKind::Int(0), len)
        }
        b if is_ident_start(b) => {
            let len = word_len(rest);
            (Kw::from_word(text.get(..len)?).map_or(TokenKind::Ident, TokenKind::Kw), len)
        }
        _ => return None,
    })
}

fn word_len(bytes: &[u8]) -> usize {
    bytes.iter().position(|&b| !is_ident_continue(b)).unwrap_or(bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever the fast check accepts, lexing gives back unchanged; and
    /// what it refuses is lexed, so `one_line` is the lexer's answer.
    #[test]
    fn texts_taken_as_written_are_what_lexing_prints() {
        let pieces = [
            "a",
            "LAST_RUN",
            ".",
            "EXIT_CODE",
            "(",
            ")",
            ",",
            "==",
            "!=",
            "<",
            "<=",
            ">",
            ">=",
            "=",
            "\"x y\"",
            "\"a\\\"b\"",
            "\"${a}\"",
            "\"{{x}}\"",
            "0",
            "30s",
            "5x",
            "1_000",
            "AND",
            "NOT",
            "CONTAINS",
            " ",
            "  ",
            "\n",
            "# c\n",
            "-1",
            "<<",
            "$x",
            "[a]",
            "é",
            "\t",
            "1.5",
            "x.0",
        ];
        let mut texts = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> =
                texts.iter().flat_map(|t| pieces.iter().map(move |p| format!("{t}{p}"))).collect();
            for text in &longer {
                assert_eq!(one_line(text), relexed(text), "{text:?}");
            }
            // Some thousands of each length, spread over the combinations.
            let short: Vec<String> = longer.into_iter().filter(|t| t.len() < 12).collect();
            texts = short.iter().step_by(short.len() / 3000 + 1).cloned().collect();
        }
    }

    #[test]
    fn common_conditions_need_no_lexing() {
        for text in [
            "LAST_RUN.EXIT_CODE == 0",
            "a0 != \"\" AND (a0 CONTAINS \"value\" OR a0 CONTAINS \"other\") AND NOT a0 ENDS_WITH \"z\"",
            "COST.EXECUTION_TIME < 30s",
            "(a, b)",
        ] {
            assert!(as_written(text), "{text}");
            assert_eq!(relexed(text), text);
        }
        for text in ["a  == b", "a ==b", " a", "a ", "( a)", "a . b", "a\n== b", "a == b # c"] {
            assert!(!as_written(text), "{text}");
        }
    }
}
