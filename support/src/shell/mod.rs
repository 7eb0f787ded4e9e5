//! Shell syntax: writing a word a shell reads back as it is ([`shell_word`]).

/// `text` as one shell word, quoted only when it needs to be (single quotes,
/// each `'` written `'\''`), so a command printed for the user can be pasted
/// as it is.
pub fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':' | '=' | '@' | '+' | ',')
        });
    if plain { text.to_string() } else { format!("'{}'", text.replace('\'', "'\\''")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_are_plain_or_single_quoted() {
        assert_eq!(shell_word("ws/.tiss/a-1.snap"), "ws/.tiss/a-1.snap");
        assert_eq!(shell_word("my dir/a.snap"), "'my dir/a.snap'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
    }
}
