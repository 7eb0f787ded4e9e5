//! Heredocs: `<<TAG` / `<<~TAG`, a raw body, and a terminator line.

use super::{Lexer, is_ident_continue};
use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::Heredoc;
use crate::syntax::span::Span;
use crate::syntax::token::TokenKind;

impl Lexer<'_> {
    /// Lexes a heredoc starting at `<<`, through its terminator line.
    pub(super) fn heredoc(&mut self) {
        let start = self.pos;
        self.pos += 2;
        let squiggly = self.peek(0) == Some(b'~');
        if squiggly {
            self.pos += 1;
        }
        let tag_start = self.pos;
        while self.peek(0).is_some_and(is_ident_continue) {
            self.pos += 1;
        }
        let tag = self.src[tag_start..self.pos].to_string();
        let head = Span::new(start, self.pos);
        let tag_ok = tag.bytes().next().is_some_and(|b| b.is_ascii_uppercase())
            && tag.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        if tag.is_empty() {
            self.error(
                Diagnostic::error(
                    codes::INVALID_HEREDOC_TAG,
                    head,
                    "`<<` must be followed by a tag such as `<<EOF`",
                )
                .with_suggestion(
                    "name the heredoc",
                    head,
                    if squiggly { "<<~EOF" } else { "<<EOF" },
                ),
            );
            self.skip_to_line_end();
            return;
        }
        if !tag_ok {
            let fixed = tag.to_ascii_uppercase();
            let tag_span = Span::new(tag_start, self.pos);
            let d = Diagnostic::error(
                codes::INVALID_HEREDOC_TAG,
                tag_span,
                format!("heredoc tag `{tag}` must be an uppercase word (`[A-Z][A-Z0-9_]*`)"),
            );
            let d = if fixed.bytes().next().is_some_and(|b| b.is_ascii_uppercase()) {
                d.with_suggestion(
                    "write the tag in uppercase (here and on its terminator line)",
                    tag_span,
                    fixed,
                )
            } else {
                d
            };
            self.error(d);
        }
        // The rest of the `<<TAG` line may hold only blanks or a comment.
        let line_end = self.line_end(self.pos);
        let trailing = &self.src[self.pos..line_end];
        let trimmed = trailing.trim_start();
        if !trimmed.is_empty() && !trimmed.starts_with('#') {
            let at = self.pos + (trailing.len() - trimmed.len());
            self.error(
                Diagnostic::error(
                    codes::UNEXPECTED_TOKEN,
                    Span::new(at, line_end),
                    format!("`<<{tag}` must end its line; the heredoc body starts on the next line"),
                )
                .with_note("anything after the tag belongs on a line after the terminator"),
            );
        }
        let body_start = self.next_line(line_end);
        let Some((body_end, term_end)) = self.find_terminator(body_start, &tag) else {
            self.error(
                Diagnostic::error(
                    codes::UNTERMINATED_HEREDOC,
                    head,
                    format!("heredoc `<<{tag}` has no terminator line"),
                )
                .with_note(format!("end the body with a line holding only `{tag}`")),
            );
            self.pos = self.bytes.len();
            self.push_heredoc(Heredoc { tag, squiggly, ..Heredoc::default() }, start);
            return;
        };
        let raw = &self.src[body_start..body_end];
        self.pos = term_end;
        if self.bodies_in_source && !squiggly && !raw.contains('\r') {
            let in_source = Some(Span::new(body_start, body_end));
            return self.push_heredoc(Heredoc { tag, squiggly, in_source, ..Heredoc::default() }, start);
        }
        let body = if squiggly { dedent(raw) } else { normalize_newlines(raw) };
        self.push_heredoc(Heredoc { tag, squiggly, body, ..Heredoc::default() }, start);
    }

    /// Adds `heredoc`, ending here, as the next token's literal.
    fn push_heredoc(&mut self, mut heredoc: Heredoc, start: usize) {
        heredoc.span = Span::new(start, self.pos);
        let index = self.out.heredocs.push(heredoc);
        self.push(TokenKind::Heredoc(index), start);
    }

    /// Offset of the start of the line after the one ending at `line_end`.
    fn next_line(&self, line_end: usize) -> usize {
        match self.bytes[line_end..].iter().position(|&b| b == b'\n') {
            Some(i) => line_end + i + 1,
            None => self.bytes.len(),
        }
    }

    /// Finds the terminator line at or after `from`: returns (end of body =
    /// start of the terminator line, end of the terminator's text).
    fn find_terminator(&self, from: usize, tag: &str) -> Option<(usize, usize)> {
        let mut line_start = from;
        while line_start < self.bytes.len() {
            let end = self.line_end(line_start);
            let line = &self.src[line_start..end];
            if line.trim_matches([' ', '\t']) == tag {
                return Some((line_start, end));
            }
            line_start = self.next_line(end);
        }
        None
    }
}

/// CRLF line ends become LF so a plan checked out on Windows writes the same files.
fn normalize_newlines(raw: &str) -> String {
    if raw.contains('\r') { raw.replace("\r\n", "\n") } else { raw.to_string() }
}

/// `<<~`: removes the longest common leading whitespace of the non-blank lines.
fn dedent(raw: &str) -> String {
    let raw = normalize_newlines(raw);
    let mut common: Option<&str> = None;
    for line in raw.lines() {
        if line.trim().is_empty() {
            continue;
        }
        let indent = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
        common = Some(match common {
            None => indent,
            Some(c) => {
                let shared = c.bytes().zip(indent.bytes()).take_while(|(a, b)| a == b).count();
                &c[..shared]
            }
        });
    }
    let strip = common.unwrap_or("").len();
    let mut out = String::with_capacity(raw.len());
    for line in raw.split_inclusive('\n') {
        let content = line.strip_suffix('\n').unwrap_or(line);
        if content.trim().is_empty() {
            // Blank lines stay, emptied of their whitespace.
        } else {
            out.push_str(&content[strip..]);
        }
        if line.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::dedent;

    #[test]
    fn dedent_keeps_relative_indent_and_blank_lines() {
        assert_eq!(dedent("    a\n\n      b\n    c\n"), "a\n\n  b\nc\n");
        assert_eq!(dedent("\ta\n\t\tb\n"), "a\n\tb\n");
        assert_eq!(dedent("  a\n \n"), "a\n\n");
        assert_eq!(dedent(""), "");
    }
}
