//! Text from outside (a command, a model, a plan) shown on a terminal.

/// Text a command or a model produced, made safe for a terminal (book: reference/policy.md):
/// every control character but newline and tab — escape sequences, `\r`,
/// bells, C1 codes — and the bidirectional overrides written out as
/// `\x1b`, `\r`, `\u{202e}`, so that such text can neither move the cursor,
/// retitle the terminal, reorder what is shown nor forge a `passed` line.
/// JSON and log files keep the text exact.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            c if unsafe_char(c) && (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if unsafe_char(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether `c` must not reach a terminal as it is: a control character
/// but newline and tab, or a bidirectional override.
fn unsafe_char(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Source text shown beside carets and `line:column` positions: each
/// unsafe character becomes ONE visible character (its Unicode control
/// picture, `␛` for ESC, `�` beyond C0), so columns, counted in
/// characters, stay those of the file; a carriage return before a newline
/// is kept. Returns the text and where each byte of `text` went (`map[i]`
/// the offset in the result of byte `i`, `map[text.len()]` its length), or
/// `None` when nothing needs replacing.
pub fn picture_with_offsets(text: &str) -> Option<(String, Vec<usize>)> {
    let replace = |at: usize, c: char| unsafe_char(c) && !(c == '\r' && text[at + 1..].starts_with('\n'));
    if !text.char_indices().any(|(at, c)| replace(at, c)) {
        return None;
    }
    let mut shown = String::with_capacity(text.len() + 16);
    let mut map = vec![0; text.len() + 1];
    for (at, c) in text.char_indices() {
        for offset in &mut map[at..at + c.len_utf8()] {
            *offset = shown.len();
        }
        shown.push(if replace(at, c) { picture(c) } else { c });
    }
    map[text.len()] = shown.len();
    Some((shown, map))
}

/// The one character that shows an unsafe one: its control picture
/// (`␛`, `␇`, `␡`), or `�`.
fn picture(c: char) -> char {
    match c as u32 {
        n @ 0..=0x1f => char::from_u32(0x2400 + n).unwrap_or('\u{fffd}'),
        0x7f => '\u{2421}',
        _ => '\u{fffd}',
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_written_out() {
        assert_eq!(escape_controls("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(escape_controls("a\x1b[2Jb\r\u{202e}"), "a\\x1b[2Jb\\r\\u{202e}");
    }

    #[test]
    fn pictures_keep_columns_and_offsets_follow() {
        assert!(picture_with_offsets("nothing to do\r\n").is_none());
        let (shown, map) = picture_with_offsets("a\x07bé\u{202e}\r").unwrap();
        assert_eq!(shown, "a\u{2407}bé\u{fffd}\u{240d}");
        assert_eq!(shown.chars().count(), 6);
        assert_eq!(&shown[map[2]..map[3]], "b");
        assert_eq!(&shown[map[3]..map[5]], "é");
        assert_eq!(map[map.len() - 1], shown.len());
    }
}
