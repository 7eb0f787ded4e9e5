//! The lexical forms of the dialect table (`parser/dialect.rs` lists every
//! form): characters no TissLang token starts with, which earlier TissLang
//! and neighbouring languages write. Each is reported once with its exact
//! replacement and lexed as what it means, so the parser goes on undisturbed.

use super::{Lexer, is_ident_continue, is_ident_start};
use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{StrLit, StrPart, StrParts};
use crate::syntax::span::Span;
use crate::syntax::token::{Kw, TokenKind};

impl Lexer<'_> {
    /// `// note` or `-- note` (the current two bytes): a comment of another
    /// language, reported with `#` and skipped as a comment.
    pub(super) fn foreign_comment(&mut self) {
        let start = self.pos;
        let span = Span::new(start, start + 2);
        let marker = &self.src[start..start + 2];
        self.error(
            Diagnostic::error(
                codes::UNEXPECTED_CHARACTER,
                span,
                format!("`{marker}` does not start a comment in TissLang: comments start with `#`"),
            )
            .with_fix("write", span, "#"),
        );
        self.skip_to_line_end();
    }

    /// `->` (the current two bytes): lexed as `INTO`, without a report;
    /// the parser reports it where it stands (`PROMPT_AGENT "q" -> a` is
    /// `INTO a`, `RUN "c" -> a` binds nothing).
    pub(super) fn arrow(&mut self) {
        let start = self.pos;
        self.pos += 2;
        self.push(TokenKind::Kw(Kw::INTO), start);
    }

    /// `$x`, `${x}` or `${x.FIELD}` outside a string (the `$` current): a
    /// shell-style variable, reported with the bare name and lexed as it.
    /// `false` (nothing consumed) if no name follows the `$`.
    pub(super) fn shell_variable(&mut self) -> bool {
        let start = self.pos;
        let braced = self.peek(1) == Some(b'{');
        let name_start = start + 1 + usize::from(braced);
        let bytes = self.bytes;
        if !bytes.get(name_start).copied().is_some_and(is_ident_start) {
            return false;
        }
        let mut name_end = name_start;
        while name_end < bytes.len()
            && (is_ident_continue(bytes[name_end])
                || (braced
                    && bytes[name_end] == b'.'
                    && bytes.get(name_end + 1).copied().is_some_and(is_ident_start)))
        {
            name_end += 1;
        }
        if braced && bytes.get(name_end) != Some(&b'}') {
            return false;
        }
        let end = name_end + usize::from(braced);
        let span = Span::new(start, end);
        let name = &self.src[name_start..name_end];
        self.error(
            Diagnostic::error(
                codes::UNEXPECTED_CHARACTER,
                span,
                format!(
                    "`{}` is shell syntax: outside a string a variable is named bare, `{name}`",
                    &self.src[start..end]
                ),
            )
            .with_fix("write", span, name),
        );
        // The name's words and dots, lexed as they are.
        self.pos = name_start;
        while self.pos < name_end {
            if bytes[self.pos] == b'.' {
                self.pos += 1;
                self.push(TokenKind::Dot, self.pos - 1);
            } else {
                self.word();
            }
        }
        self.pos = end;
        true
    }

    /// `["ls", "-l"]` (the `[` current, on one line): a command as a list of
    /// arguments, reported with the one command string it stands for (each
    /// argument a shell word) and lexed as that string. `false` (nothing
    /// consumed) if what follows is no list of plain strings. After `IN`
    /// the list is a loop's (`FOR x IN ["a", "b"]`), which the parser
    /// reports: lexed the same, without a report.
    pub(super) fn argument_list(&mut self) -> bool {
        let start = self.pos;
        let line = &self.src[start..self.line_end(start)];
        let Some(args) = string_list(line) else { return false };
        let len = args.len;
        let span = Span::new(start, start + len);
        let words: Vec<String> = args.items.iter().map(|a| shell_word(a)).collect();
        let command = words.join(" ");
        // Escapes and `$` would mean something else once joined: a human decides.
        let certain = args.items.iter().all(|a| !a.contains(['\\', '$', '"']));
        let after_in =
            self.out.tokens.last().is_some_and(|tok| self.src[tok.span.range()].eq_ignore_ascii_case("IN"));
        if !after_in {
            self.error(
                Diagnostic::error(
                    codes::UNEXPECTED_CHARACTER,
                    span,
                    "`RUN` takes one command string for `/bin/sh -c`, not a list of arguments",
                )
                .with_suggestion_if(
                    certain,
                    "write the command as one string",
                    span,
                    format!("\"{command}\""),
                ),
            );
        }
        self.pos = start + len;
        let parts = if command.is_empty() {
            StrParts::default()
        } else {
            StrParts::one(StrPart::Text { text: command.into() })
        };
        let index = self.out.strings.push(StrLit { parts, span });
        self.push(TokenKind::Str(index), start);
        true
    }
}

/// The strings of a `[ "a", "b" ]` at the start of `line`, and its length.
struct StringList<'a> {
    items: Vec<&'a str>,
    len: usize,
}

fn string_list(line: &str) -> Option<StringList<'_>> {
    let mut rest = line.strip_prefix('[')?;
    let mut items = Vec::new();
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix(']') {
            return Some(StringList { items, len: line.len() - after.len() });
        }
        let body = rest.strip_prefix('"')?;
        let close = body.find('"')?;
        items.push(&body[..close]);
        rest = body[close + 1..].trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest);
    }
}

/// `arg` as one word of a `/bin/sh` command: as it is when it is plain,
/// else in single quotes.
fn shell_word(arg: &str) -> String {
    let plain =
        !arg.is_empty() && arg.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain { arg.to_string() } else { format!("'{}'", arg.replace('\'', r"'\''")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_words() {
        let list = string_list(r#"["ls", "-l", "my file"] TIMEOUT 5s"#).unwrap();
        assert_eq!(list.items, ["ls", "-l", "my file"]);
        assert_eq!(list.len, 23);
        assert!(string_list("[1, 2]").is_none());
        assert_eq!(shell_word("my file"), "'my file'");
        assert_eq!(shell_word("-l"), "-l");
    }
}
