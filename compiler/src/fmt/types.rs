//! The layout of the types a plan writes (TissLang 1.1): a `TYPE` item's
//! and the one after `PROMPT_AGENT … INTO x AS`.
//!
//! A type stays on the line of its item or statement when that line fits in
//! [`WIDTH`] columns: `TYPE Review = { verdict: "approve" | "reject", risk: INT }`.
//! Otherwise its outermost record breaks, one field per line, each field
//! followed by a comma (the last too), the `}` on a line of its own; then
//! each field's line is judged the same way, so a record inside it breaks
//! only if that line is too long. A record that holds a comment always
//! breaks (and so does every record around it): the comment stays with its
//! field. A record on one line has no comma after its last field.

use rustc_hash::{FxHashMap, FxHashSet};

use super::comments::Gaps;
use super::layout::{self, Line};
use crate::syntax::ast::{Expr, Plan, PromptInto, TypeDef, TypeExpr};
use crate::syntax::span::Span;
use crate::syntax::token::{Token, TokenKind};
use crate::syntax::visit::{self, Visitor};

/// Lines longer than this break their outermost record.
pub const WIDTH: usize = 100;

/// One record type's braces, by token index.
#[derive(Debug, Clone, Copy)]
struct Record {
    close: usize,
    /// The `{` of the record that holds it, if any.
    parent: Option<usize>,
}

/// Where the types of a plan are in its tokens, and how they are laid out.
#[derive(Debug, Default)]
pub struct Types {
    /// Each type's tokens, `(first, last)` inclusive, in source order.
    regions: Vec<(usize, usize)>,
    /// Records by the index of their `{`.
    records: FxHashMap<usize, Record>,
    /// The `{` of each record by the index of its `}`.
    opens: FxHashMap<usize, usize>,
    /// The `{` of each record laid out one field per line.
    breaking: FxHashSet<usize>,
}

impl Types {
    /// The types of `plan`, found in `tokens` (the plan's, `Eof` excluded).
    pub fn new(plan: &Plan, tokens: &[Token], gaps: &Gaps<'_>) -> Types {
        let mut roots = Roots(Vec::new());
        visit::walk_plan(&mut roots, plan);
        let mut types = Types::default();
        for span in roots.0 {
            let first = tokens.partition_point(|t| t.span.start < span.start);
            let last = tokens.partition_point(|t| t.span.start < span.end);
            if first >= last {
                continue;
            }
            let last = last - 1;
            types.regions.push((first, last));
            let mut open: Vec<usize> = Vec::new();
            for (i, token) in tokens.iter().enumerate().take(last + 1).skip(first) {
                match token.kind {
                    TokenKind::LBrace => open.push(i),
                    TokenKind::RBrace => {
                        if let Some(start) = open.pop() {
                            types.records.insert(start, Record { close: i, parent: open.last().copied() });
                            types.opens.insert(i, start);
                        }
                    }
                    _ => {}
                }
            }
        }
        types.regions.sort_unstable();
        // A record holding a comment breaks, and every record around it.
        let mut commented: Vec<usize> = types
            .records
            .iter()
            .filter(|(open, r)| (**open + 1..=r.close).any(|i| gaps[i].comments().next().is_some()))
            .map(|(open, _)| *open)
            .collect();
        commented.sort_unstable();
        for open in commented {
            types.break_with_parents(open);
        }
        types
    }

    fn break_with_parents(&mut self, open: usize) {
        let mut at = Some(open);
        while let Some(open) = at {
            self.breaking.insert(open);
            at = self.records.get(&open).and_then(|r| r.parent);
        }
    }

    /// The region that holds token `i` past its first token, if any.
    fn region_of(&self, i: usize) -> Option<(usize, usize)> {
        let after = self.regions.partition_point(|&(first, _)| first < i);
        after.checked_sub(1).map(|r| self.regions[r]).filter(|&(_, last)| i <= last)
    }

    /// Inside a type, whether a line breaks before token `i`; `None` outside one.
    pub fn breaks_before(&self, tokens: &[Token], i: usize) -> Option<bool> {
        if self.regions.is_empty() {
            return None;
        }
        self.region_of(i)?;
        let prev = i - 1;
        let breaks = match (tokens[prev].kind, tokens[i].kind) {
            (TokenKind::LBrace, _) => self.breaking.contains(&prev),
            (_, TokenKind::RBrace) => {
                self.record_closed_at(i).is_some_and(|open| self.breaking.contains(&open))
            }
            (TokenKind::Comma, _) => self.innermost(prev).is_some_and(|open| self.breaking.contains(&open)),
            _ => false,
        };
        Some(breaks)
    }

    /// The `{` of the record whose `}` is token `i`.
    fn record_closed_at(&self, i: usize) -> Option<usize> {
        self.opens.get(&i).copied()
    }

    /// The innermost record that holds token `i`.
    fn innermost(&self, i: usize) -> Option<usize> {
        self.records.iter().filter(|(open, r)| **open < i && i < r.close).map(|(open, _)| *open).max()
    }

    /// Whether token `i` is not printed: the comma after the last field of
    /// a record on one line.
    pub fn dropped(&self, tokens: &[Token], i: usize) -> bool {
        !self.opens.is_empty()
            && tokens[i].kind == TokenKind::Comma
            && tokens.get(i + 1).is_some_and(|t| t.kind == TokenKind::RBrace)
            && self.record_closed_at(i + 1).is_some_and(|open| !self.breaking.contains(&open))
    }

    /// Whether a comma is printed after token `i`: the last field of a
    /// record laid out one field per line, written without one.
    pub fn comma_after(&self, tokens: &[Token], i: usize) -> bool {
        !self.opens.is_empty()
            && !matches!(tokens[i].kind, TokenKind::Comma | TokenKind::LBrace)
            && tokens.get(i + 1).is_some_and(|t| t.kind == TokenKind::RBrace)
            && self.record_closed_at(i + 1).is_some_and(|open| self.breaking.contains(&open))
    }

    /// The plan's lines, with each record that does not fit broken: lay
    /// out, break the outermost record still on one line of each line too
    /// long, and again until every such line fits or has no record left.
    pub fn lay_out(
        &mut self,
        src: &str,
        tokens: &[Token],
        empty_block: impl Fn(usize) -> bool + Copy,
    ) -> Vec<Line> {
        loop {
            let lines = layout::lines(tokens, empty_block, self);
            if self.records.is_empty() {
                return lines;
            }
            let mut changed = false;
            for line in &lines {
                let Some(open) = (line.first..=line.last).find(|i| {
                    self.records.get(i).is_some_and(|r| {
                        !self.breaking.contains(i) && r.parent.is_none_or(|p| self.breaking.contains(&p))
                    })
                }) else {
                    continue;
                };
                if self.width(src, tokens, *line) > WIDTH {
                    self.break_with_parents(open);
                    changed = true;
                }
            }
            if !changed {
                return lines;
            }
        }
    }

    /// The printed width of a line of code (its comments aside).
    fn width(&self, src: &str, tokens: &[Token], line: Line) -> usize {
        let mut width = line.depth * super::printer::INDENT.len();
        let mut prev: Option<TokenKind> = None;
        for i in line.first..=line.last {
            if self.dropped(tokens, i) {
                continue;
            }
            let token = tokens[i];
            if prev.is_some_and(|p| !layout::joined(p, token.kind)) {
                width += 1;
            }
            width += src[token.span.range()].chars().count();
            if self.comma_after(tokens, i) {
                width += 1;
            }
            prev = Some(token.kind);
        }
        width
    }
}

/// The spans of the types written in a plan (not those inside another).
struct Roots(Vec<Span>);

impl<'a> Visitor<'a> for Roots {
    /// Expressions are not walked ([`Visitor::visit_expr`]): no name is read.
    fn src(&self) -> &'a str {
        ""
    }

    fn visit_expr(&mut self, _expr: &'a Expr) {}

    fn visit_typedef(&mut self, def: &'a TypeDef) {
        self.0.push(def.ty.span);
    }

    fn visit_prompt_into(&mut self, into: &'a PromptInto) {
        if let Some(ty) = &into.ty {
            self.0.push(ty.span);
        }
    }

    fn visit_type(&mut self, _ty: &'a TypeExpr) {}
}
