//! Building a RUN command from its template so that no interpolated value
//! can become shell syntax (book: reference/statements.md), wherever the plan put the hole:
//! unquoted, inside the plan's own single quotes, or inside double quotes.
//!
//! The template's literal text is read with the POSIX `sh` quoting rules
//! (tiss-support's shell reader) to know each hole's context, and the value
//! is escaped for it ([`quote::escape_for`]).

use tiss_support::shell::quote;
use tiss_support::shell::scan::{self, Quote};

/// One piece of a command template: literal text, or a value to insert.
pub enum Piece<'a> {
    Text(&'a str),
    Value(&'a str),
    /// A typed list's elements (book: reference/types.md): one quoted word each where the
    /// hole is unquoted (none for an empty list); inside the plan's own
    /// quotes, where words cannot be made, the elements joined by spaces.
    Words(&'a [String]),
}

/// Joins a command's pieces, escaping each value for its quoting context.
pub fn build_command<'a>(pieces: impl IntoIterator<Item = Piece<'a>>) -> String {
    let mut out = String::new();
    let mut state = Quote::None;
    for piece in pieces {
        match piece {
            Piece::Text(text) => {
                out.push_str(text);
                state = scan::quote_after(text, state);
            }
            Piece::Value(value) => out.push_str(&quote::escape_for(value, state)),
            Piece::Words(words) if state == Quote::None => {
                for (i, word) in words.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    out.push_str(&quote::escape_for(word, state));
                }
            }
            Piece::Words(words) => out.push_str(&quote::escape_for(&words.join(" "), state)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tiss_support::shell::quote::single_quoted;

    fn build(parts: &[(&str, bool)]) -> String {
        build_command(parts.iter().map(|&(t, v)| if v { Piece::Value(t) } else { Piece::Text(t) }))
    }

    const EVIL: &str = "a b $(touch x) `touch y` ' \" \\ ; && \n";

    /// Runs a command with /bin/sh and returns what it printed.
    fn sh(command: &str) -> String {
        let out = std::process::Command::new("/bin/sh").arg("-c").arg(command).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    }

    #[test]
    fn escaped_quotes_in_the_text_do_not_confuse_the_scan() {
        // `\'` outside quotes and `\"` inside double quotes do not toggle.
        let command = build(&[("printf %s \\' \"a\\\"", false), (EVIL, true), ("\"", false)]);
        assert_eq!(sh(&command), format!("'a\"{EVIL}"));
        let command = build(&[("printf '%s|' x'\\'", false), (EVIL, true), ("", false)]);
        // `'\'` opens and closes a single-quoted backslash; the hole is unquoted.
        assert_eq!(sh(&command), format!("x\\{EVIL}|"));
    }

    #[test]
    fn quoting_leaves_nothing_for_the_shell() {
        assert_eq!(single_quoted("a; rm -rf x"), "'a; rm -rf x'");
        assert_eq!(single_quoted("it's"), "'it'\\''s'");
        assert_eq!(single_quoted(""), "''");
        assert_eq!(single_quoted("$(id) `id` \n"), "'$(id) `id` \n'");
    }
}
