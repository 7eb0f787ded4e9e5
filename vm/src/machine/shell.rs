//! Building a RUN command from its template so that no interpolated value
//! can become shell syntax (SPEC §3), wherever the plan put the hole:
//! unquoted, inside the plan's own single quotes, or inside double quotes.
//!
//! The template's literal text is scanned with the POSIX `sh` quoting rules
//! to know each hole's context, and the value is escaped for it:
//! - unquoted: one single-quoted word (`'it'\''s'`);
//! - inside `'...'`: the value with each `'` written as `'\''` (closing,
//!   escaping and reopening the plan's quotes);
//! - inside `"..."`: the value with `\`, `"`, `$` and `` ` `` backslashed,
//!   the only characters special there.

/// Where the shell is, at a point in the command text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    None,
    Single,
    Double,
}

/// Advances the quoting state over literal command text.
fn scan(text: &str, mut state: Quote) -> Quote {
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        state = match (state, c) {
            (Quote::None, '\\') | (Quote::Double, '\\') => {
                chars.next();
                state
            }
            (Quote::None, '\'') => Quote::Single,
            (Quote::None, '"') => Quote::Double,
            (Quote::Single, '\'') => Quote::None,
            (Quote::Double, '"') => Quote::None,
            _ => state,
        };
    }
    state
}

/// One piece of a command template: literal text, or a value to insert.
pub enum Piece<'a> {
    Text(&'a str),
    Value(&'a str),
}

/// Joins a command's pieces, escaping each value for its quoting context.
pub fn build_command<'a>(pieces: impl IntoIterator<Item = Piece<'a>>) -> String {
    let mut out = String::new();
    let mut state = Quote::None;
    for piece in pieces {
        match piece {
            Piece::Text(text) => {
                out.push_str(text);
                state = scan(text, state);
            }
            Piece::Value(value) => match state {
                Quote::None => out.push_str(&crate::machine::value::shell_quote(value)),
                Quote::Single => out.push_str(&value.replace('\'', "'\\''")),
                Quote::Double => {
                    for c in value.chars() {
                        if matches!(c, '\\' | '"' | '$' | '`') {
                            out.push('\\');
                        }
                        out.push(c);
                    }
                }
            },
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn every_context_keeps_the_value_one_literal_word() {
        for (before, after) in
            [("printf %s ", ""), ("printf %s '", "'"), ("printf %s \"", "\""), ("printf %s 'x", "y'")]
        {
            let command = build(&[(before, false), (EVIL, true), (after, false)]);
            let expected = match before.chars().last() {
                Some('x') => format!("x{EVIL}y"),
                _ => EVIL.to_string(),
            };
            assert_eq!(sh(&command), expected, "{command}");
        }
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
}
