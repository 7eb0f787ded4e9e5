//! Writing text for the shell to read back as it is: as a word of its own
//! ([`shell_word`], [`single_quoted`]), or into the quoting context a
//! command's text leaves open ([`escape_for`]).

use super::scan::Quote;

/// `text` as one shell word, quoted only when it needs to be (single quotes,
/// each `'` written `'\''`), so a command printed for the user can be pasted
/// as it is.
pub fn shell_word(text: &str) -> String {
    if !text.is_empty() && is_plain(text) { text.to_string() } else { single_quoted(text) }
}

/// Whether the shell reads `text` as the text it is, with nothing in it
/// special anywhere: letters, digits and `_ - . / : = @ + ,` (no quotes,
/// expansions, globs, tildes, braces, separators or blanks).
pub fn is_plain(text: &str) -> bool {
    text.chars().all(|c| {
        c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':' | '=' | '@' | '+' | ',')
    })
}

/// `text` as one single-quoted shell word, each `'` written `'\''`.
pub fn single_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    out.push_str(&text.replace('\'', "'\\''"));
    out.push('\'');
    out
}

/// `value` written where a command's text leaves the context `quote`, so
/// that it stays one literal piece of text: unquoted, one single-quoted
/// word; inside `'…'`, each `'` written `'\''` (closing, escaping and
/// reopening the quotes); inside `"…"`, with `\`, `"`, `$` and `` ` ``
/// backslashed, the only characters special there.
pub fn escape_for(value: &str, quote: Quote) -> String {
    match quote {
        Quote::None => single_quoted(value),
        Quote::Single => value.replace('\'', "'\\''"),
        Quote::Double => {
            let mut out = String::with_capacity(value.len());
            for c in value.chars() {
                if matches!(c, '\\' | '"' | '$' | '`') {
                    out.push('\\');
                }
                out.push(c);
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::scan::quote_after;

    #[test]
    fn shell_words_are_plain_or_single_quoted() {
        assert_eq!(shell_word("ws/.tiss/a-1.snap"), "ws/.tiss/a-1.snap");
        assert_eq!(shell_word("my dir/a.snap"), "'my dir/a.snap'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
    }

    const EVIL: &str = "a b $(touch x) `touch y` ' \" \\ ; && \n";

    /// What /bin/sh prints for `command`.
    fn sh(command: &str) -> String {
        let out = std::process::Command::new("/bin/sh").arg("-c").arg(command).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    }

    #[test]
    fn every_context_keeps_the_value_one_literal_word() {
        for (before, after) in
            [("printf %s ", ""), ("printf %s '", "'"), ("printf %s \"", "\""), ("printf %s 'x", "y'")]
        {
            let command = format!("{before}{}{after}", escape_for(EVIL, quote_after(before, Quote::None)));
            let expected = match before.chars().last() {
                Some('x') => format!("x{EVIL}y"),
                _ => EVIL.to_string(),
            };
            assert_eq!(sh(&command), expected, "{command}");
        }
    }
}
