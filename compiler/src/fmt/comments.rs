//! Comments and blank lines, found in the gaps between tokens.
//!
//! The lexer drops comments; the formatter finds them again without touching
//! it: between two tokens there is only blank space and comments (strings,
//! heredocs and pragmas are tokens), so every `#` in a gap starts a comment
//! that runs to the end of its line. Each gap is read once, in source order,
//! into what the printer needs: the comment that ends the previous token's
//! line (a suffix comment) and the own-line comments and blank lines before
//! the next token.

use crate::syntax::token::{Token, TokenKind};

/// One comment: where it starts in the source and its text (from `#`, trailing
/// blanks removed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comment<'a> {
    pub start: usize,
    pub text: &'a str,
}

/// A line between two tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GapLine<'a> {
    Blank,
    Comment(Comment<'a>),
}

/// What stands between a token and the one before it.
#[derive(Debug, Default)]
pub struct Gap<'a> {
    /// A comment on the previous token's line.
    pub suffix: Option<Comment<'a>>,
    /// Whole lines: own-line comments and blank lines, in source order.
    pub lines: Vec<GapLine<'a>>,
}

impl<'a> Gap<'a> {
    pub fn comments(&self) -> impl Iterator<Item = Comment<'a>> + '_ {
        self.suffix.into_iter().chain(self.lines.iter().filter_map(|line| match line {
            GapLine::Comment(c) => Some(*c),
            GapLine::Blank => None,
        }))
    }
}

/// Text in a gap that is neither blank nor a comment: the lexer would have
/// made a token of it, so the token stream does not match the source.
#[derive(Debug)]
pub struct StrayText {
    pub offset: usize,
}

/// The gap before each token (`gaps[i]` precedes `tokens[i]`; the last token
/// is `Eof`, so the last gap holds what follows the plan).
pub fn gaps<'a>(src: &'a str, tokens: &[Token]) -> Result<Gaps<'a>, StrayText> {
    let mut gaps = Gaps { index: Vec::with_capacity(tokens.len()), entries: Vec::new() };
    let mut prev_end = 0;
    for (i, token) in tokens.iter().enumerate() {
        let start = token.span.start as usize;
        let gap = gap(src, prev_end, start, i > 0)?;
        if gap.suffix.is_none() && gap.lines.is_empty() {
            gaps.index.push(NO_GAP);
        } else {
            gaps.index.push(gaps.entries.len() as u32);
            gaps.entries.push(gap);
        }
        prev_end = token.span.end as usize;
    }
    Ok(gaps)
}

/// The gaps of a plan, indexed by token: only those with something in them
/// are stored (a plan of short statements has two empty gaps a statement,
/// 48 bytes each; an index is 4).
pub struct Gaps<'a> {
    index: Vec<u32>,
    entries: Vec<Gap<'a>>,
}

/// The index of a token whose gap is empty.
const NO_GAP: u32 = u32::MAX;

static EMPTY: Gap<'static> = Gap { suffix: None, lines: Vec::new() };

impl<'a> Gaps<'a> {
    /// The gaps that hold a comment or a blank line, in source order.
    pub fn non_empty(&self) -> impl Iterator<Item = &Gap<'a>> {
        self.entries.iter()
    }
}

impl<'a> std::ops::Index<usize> for Gaps<'a> {
    type Output = Gap<'a>;

    fn index(&self, token: usize) -> &Gap<'a> {
        match self.index[token] {
            NO_GAP => &EMPTY,
            entry => &self.entries[entry as usize],
        }
    }
}

fn gap(src: &str, from: usize, to: usize, after_token: bool) -> Result<Gap<'_>, StrayText> {
    let mut out = Gap::default();
    let text = &src[from..to];
    let segments: Vec<(usize, &str)> = text
        .split('\n')
        .scan(from, |at, segment| {
            let start = *at;
            *at += segment.len() + 1;
            Some((start, segment))
        })
        .collect();
    let last = segments.len() - 1;
    for (i, &(start, segment)) in segments.iter().enumerate() {
        let content = segment.trim_start_matches(is_blank);
        let offset = start + (segment.len() - content.len());
        let content = content.trim_end_matches(is_blank);
        if content.is_empty() {
            // The rest of the previous token's line and the indentation of the
            // next token's line are not lines of their own.
            if i > 0 && i < last {
                out.lines.push(GapLine::Blank);
            }
            continue;
        }
        if !content.starts_with('#') {
            return Err(StrayText { offset });
        }
        let comment = Comment { start: offset, text: content };
        if i == 0 && after_token {
            out.suffix = Some(comment);
        } else {
            out.lines.push(GapLine::Comment(comment));
        }
    }
    Ok(out)
}

/// Blank characters as the lexer skips them (`\r` of a CRLF line end included).
fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\x0C')
}

/// A heredoc token's text split at its first line: the `<<TAG` head, the
/// comment that may follow it on that line, and the body with its terminator
/// line (CRLF line ends as LF: the lexer reads them so).
pub struct HeredocParts<'a> {
    pub head: &'a str,
    pub comment: Option<Comment<'a>>,
    pub rest: String,
}

pub fn heredoc_parts(src: &str, token: Token) -> HeredocParts<'_> {
    debug_assert!(matches!(token.kind, TokenKind::Heredoc(_)));
    let start = token.span.start as usize;
    let text = &src[token.span.range()];
    let first_line_end = text.find('\n').unwrap_or(text.len());
    let first = &text[..first_line_end];
    let head_len = 2 + first[2..]
        .find(|c: char| !(c == '~' || c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(first.len() - 2);
    let after_head = &first[head_len..];
    let content = after_head.trim_start_matches(is_blank);
    let comment_start = start + head_len + (after_head.len() - content.len());
    let content = content.trim_end_matches(is_blank);
    let comment = content.starts_with('#').then_some(Comment { start: comment_start, text: content });
    HeredocParts { head: &first[..head_len], comment, rest: text[first_line_end..].replace("\r\n", "\n") }
}
