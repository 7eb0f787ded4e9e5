//! The commands that continue a snapshot, printed so that each can be
//! pasted into a shell as it stands: paths shell-quoted, and one command per
//! answer the waiting interaction takes (no `approve|reject` to edit).

use crate::machine::value::shell_quote;

/// `text` as one shell word: as is when it is plain, else single-quoted.
pub fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':' | '=' | '@' | '+' | ',')
        });
    if plain { text.to_string() } else { shell_quote(text) }
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
