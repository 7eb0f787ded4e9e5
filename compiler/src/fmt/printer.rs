//! Prints the lines of [`super::layout`] with the comments and blank lines of
//! [`super::comments`], and keeps a ledger of the comments it prints.
//!
//! Comments attach to lines, buildifier-style: the own-line comments before a
//! line print before it at its indentation (before a `}` at the block's
//! inner one), the comment after a line's last token stays at its end, and a
//! comment between two tokens of one line (a statement written over several
//! lines) moves to its own line before that line (one that starts like a
//! pragma, `#TISS`, to the end of the line instead). Blank lines: one between
//! top-level items (adjacent `SET_BUDGET`s, and adjacent `TYPE`s, keep the source's choice), none
//! after `{` or before `}`, and elsewhere at most one where the source had
//! any.

use super::comments::{Comment, Gap, GapLine, Gaps, heredoc_parts};
use super::layout::{Line, joined};
use super::types::Types;
use crate::syntax::token::{Kw, Token, TokenKind};

pub(super) const INDENT: &str = "    ";

/// The lexer reads a line starting with `#TISS`, in any case, as a pragma.
fn reads_as_pragma(comment: &str) -> bool {
    comment.get(..5).is_some_and(|start| start.eq_ignore_ascii_case("#TISS"))
}

pub struct Printer<'a> {
    src: &'a str,
    /// The plan's tokens, `Eof` last.
    tokens: &'a [Token],
    gaps: &'a Gaps<'a>,
    /// The commas a type's layout drops or adds.
    types: &'a Types,
    out: String,
    /// Where each printed comment starts, in printing order.
    printed: Vec<usize>,
    /// The keyword of the last top-level item printed.
    last_item: Option<Kw>,
}

impl<'a> Printer<'a> {
    pub fn new(src: &'a str, tokens: &'a [Token], gaps: &'a Gaps<'a>, types: &'a Types) -> Printer<'a> {
        Printer {
            src,
            tokens,
            gaps,
            types,
            out: String::with_capacity(src.len() + src.len() / 8),
            printed: Vec::new(),
            last_item: None,
        }
    }

    /// The formatted text, and where each comment it printed starts in the source.
    pub fn print(mut self, lines: &[Line]) -> (String, Vec<usize>) {
        let mut prev: Option<Line> = None;
        for &line in lines {
            self.before(prev, Some(line), &self.gaps[line.first]);
            if let Some(kw) = self.item_keyword(line) {
                self.last_item = Some(kw);
            }
            let indent = self.comment_depth(line);
            let ends_in_heredoc = matches!(self.tokens[line.last].kind, TokenKind::Heredoc(_));
            let mut at_end = Vec::new();
            for i in line.first + 1..=line.last {
                for comment in self.gaps[i].comments() {
                    // On a line of its own, `#TISS...` would be read as a pragma.
                    if reads_as_pragma(comment.text) && !ends_in_heredoc {
                        at_end.push(comment);
                    } else {
                        self.own_line(indent, comment);
                    }
                }
            }
            self.line(line);
            for comment in at_end {
                self.out.push(' ');
                self.comment(comment);
            }
            prev = Some(line);
        }
        // What follows the last token: a suffix comment, then whole lines.
        self.before(prev, None, &self.gaps[self.tokens.len() - 1]);
        (self.out, self.printed)
    }

    /// Ends the previous line and prints the gap before `next` (`None`: the end of the file).
    fn before(&mut self, prev: Option<Line>, next: Option<Line>, gap: &Gap<'_>) {
        if prev.is_some() {
            if let Some(comment) = gap.suffix {
                self.out.push(' ');
                self.comment(comment);
            }
            self.out.push('\n');
        }
        let mut lines: Vec<GapLine<'_>> = Vec::with_capacity(gap.lines.len());
        for &line in &gap.lines {
            if !(line == GapLine::Blank && lines.last().is_none_or(|l| *l == GapLine::Blank)) {
                lines.push(line);
            }
        }
        // `lines` never starts with a blank now; drop one at the end where none belongs.
        let closes = next.is_none_or(|line| self.tokens[line.first].kind == TokenKind::RBrace);
        if closes && lines.last() == Some(&GapLine::Blank) {
            lines.pop();
        }
        let item = next.and_then(|n| self.item_keyword(n));
        let keep_leading = match (prev, item) {
            (None, _) => false,
            (Some(p), _) if self.tokens[p.last].kind == TokenKind::LBrace => false,
            // Adjacent SET_BUDGETs, and adjacent TYPEs, keep the source's choice.
            (Some(_), Some(kw)) => {
                !(matches!(kw, Kw::SET_BUDGET | Kw::TYPE) && self.last_item == Some(kw))
                    || self.had_leading_blank(gap)
            }
            _ => self.had_leading_blank(gap),
        };
        if keep_leading {
            self.out.push('\n');
        }
        let depth = next.map_or(0, |line| self.comment_depth(line));
        for line in lines {
            match line {
                GapLine::Blank => self.out.push('\n'),
                GapLine::Comment(comment) => self.own_line(depth, comment),
            }
        }
    }

    /// Did the gap's lines start with a blank line (before any comment)?
    fn had_leading_blank(&self, gap: &Gap<'_>) -> bool {
        gap.lines.first() == Some(&GapLine::Blank)
    }

    /// The keyword of the top-level item a line starts, if it starts one.
    fn item_keyword(&self, line: Line) -> Option<Kw> {
        match self.tokens[line.first].kind {
            TokenKind::Kw(kw) if line.depth == 0 && Kw::ITEM_STARTS.contains(&kw) => Some(kw),
            _ => None,
        }
    }

    /// Comments before a `}` belong to the block it closes.
    fn comment_depth(&self, line: Line) -> usize {
        line.depth + usize::from(self.tokens[line.first].kind == TokenKind::RBrace)
    }

    fn own_line(&mut self, depth: usize, comment: Comment<'_>) {
        self.indent(depth);
        self.comment(comment);
        self.out.push('\n');
    }

    fn comment(&mut self, comment: Comment<'_>) {
        self.out.push_str(comment.text);
        self.printed.push(comment.start);
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str(INDENT);
        }
    }

    /// The tokens of one line, without its line end.
    fn line(&mut self, line: Line) {
        self.indent(line.depth);
        let mut prev: Option<TokenKind> = None;
        for i in line.first..=line.last {
            if self.types.dropped(self.tokens, i) {
                continue;
            }
            let token = self.tokens[i];
            if prev.is_some_and(|p| !joined(p, token.kind)) {
                self.out.push(' ');
            }
            prev = Some(token.kind);
            match token.kind {
                TokenKind::Heredoc(_) => {
                    let parts = heredoc_parts(self.src, token);
                    self.out.push_str(parts.head);
                    if let Some(comment) = parts.comment {
                        self.out.push(' ');
                        self.comment(comment);
                    }
                    self.out.push_str(&parts.rest);
                }
                // Its words split by one space (the lexer splits a pragma at any run of blanks).
                TokenKind::Pragma(_) => {
                    let words = self.src[token.span.range()].split([' ', '\t']).filter(|w| !w.is_empty());
                    self.out.push_str(&words.collect::<Vec<_>>().join(" "));
                }
                // Strings and numbers exactly as written.
                _ => self.out.push_str(&self.src[token.span.range()]),
            }
            if self.types.comma_after(self.tokens, i) {
                self.out.push(',');
            }
        }
    }
}
