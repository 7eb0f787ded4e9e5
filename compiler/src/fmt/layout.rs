//! Where lines break: the tokens grouped into output lines (book: guide/tissc.md).
//!
//! A plan without errors is laid out from its tokens alone: a line starts at
//! every top-level item and every statement (a keyword of
//! [`Kw::ITEM_STARTS`] or [`Kw::STATEMENT_STARTS`], or `OPTION`, that is not
//! a field after `.` and not the `IF` of `ELSE IF`), after `{`, at `}`, and
//! after a pragma or a heredoc. `ELSE` and `CATCH` stay on the line of the `}`
//! before them, and an empty block stays `{}`. Inside a type, lines break
//! only where [`Types`] says (around the fields of a record too long for
//! one line).

use super::types::Types;
use crate::syntax::token::{Kw, Token, TokenKind};

/// One output line: tokens `first..=last`, at an indentation depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    pub first: usize,
    pub last: usize,
    pub depth: usize,
}

/// The lines of a token stream (without its `Eof`). `empty_block(i)` says
/// whether the `}` at `i` may join the `{` before it (no comment between).
pub fn lines(tokens: &[Token], empty_block: impl Fn(usize) -> bool, types: &Types) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate() {
        let starts_line = match i.checked_sub(1).map(|p| tokens[p].kind) {
            None => true,
            Some(prev) => types.breaks_before(tokens, i).unwrap_or_else(|| {
                breaks_between(prev, token.kind, depth)
                    && !(prev == TokenKind::LBrace && token.kind == TokenKind::RBrace && empty_block(i))
            }),
        };
        if token.kind == TokenKind::RBrace {
            depth = depth.saturating_sub(1);
        }
        match lines.last_mut() {
            Some(line) if !starts_line => line.last = i,
            _ => lines.push(Line { first: i, last: i, depth }),
        }
        if token.kind == TokenKind::LBrace {
            depth += 1;
        }
    }
    lines
}

/// Does a line break fall between `prev` and `next`, `depth` blocks deep?
fn breaks_between(prev: TokenKind, next: TokenKind, depth: usize) -> bool {
    use TokenKind as T;
    match (prev, next) {
        (T::Pragma(_) | T::Heredoc(_) | T::LBrace, _) | (_, T::Pragma(_) | T::RBrace) => true,
        (T::RBrace, T::Kw(Kw::ELSE | Kw::CATCH)) => false,
        (T::RBrace, _) => true,
        // A field name may be a keyword (`e.STEP`).
        (T::Dot, _) => false,
        (T::Kw(Kw::ELSE), T::Kw(Kw::IF)) => false,
        (_, T::Kw(kw)) if depth == 0 => Kw::ITEM_STARTS.contains(&kw),
        (_, T::Kw(kw)) => kw.starts_statement() || kw == Kw::OPTION,
        _ => false,
    }
}

/// No space between these two tokens on a line; one space otherwise.
pub fn joined(prev: TokenKind, next: TokenKind) -> bool {
    use TokenKind as T;
    matches!(prev, T::LParen | T::Dot)
        || matches!(next, T::Comma | T::RParen | T::Dot | T::Colon | T::Question)
        || (prev == T::LBrace && next == T::RBrace)
}
