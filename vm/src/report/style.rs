//! Colour for human output (book: cli/tissvm.md): what reads as a result or needs
//! attention is wrapped in an ANSI colour; everything else stays plain, so
//! the text reads the same without colour. Whether to colour is the
//! caller's choice (`--color`, `NO_COLOR`, a terminal); JSON and JUnit never
//! take a style.

pub use tiss_support::terminal_text::escape_controls;

/// [`escape_controls`] for text shown inside a line of ours: each line after
/// the first indented by `indent`, so that a line of it never starts where
/// ours do (`passed: …` at the start of a line is the report's alone), and
/// its trailing newlines dropped, so that a command's output (which ends in
/// one) shown in a LOG does not end in a blank line. The text itself, the
/// value the plan sees, is the caller's and stays as it is.
pub fn escape_indented(text: &str, indent: &str) -> String {
    escape_controls(text.trim_end_matches('\n')).replace('\n', &format!("\n{indent}"))
}

/// How a piece of text reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// Passed, low risk: green.
    Good,
    /// Failed, a failure's kind, high risk: bold red.
    Bad,
    /// A warning, suspended, caught, medium risk: yellow.
    Warn,
}

/// Colour on or off, for one output stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Style {
    color: bool,
}

impl Style {
    /// No colour: files, pipes, machine-readable output.
    pub const PLAIN: Style = Style { color: false };

    pub fn new(color: bool) -> Style {
        Style { color }
    }

    /// `text` in `tone`'s colour, or as it is without colour.
    pub fn paint(self, tone: Tone, text: &str) -> String {
        if !self.color {
            return text.to_string();
        }
        let code = match tone {
            Tone::Good => "32",
            Tone::Bad => "1;31",
            Tone::Warn => "33",
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_written_out() {
        assert_eq!(escape_controls("plain\nlines\tand tabs"), "plain\nlines\tand tabs");
        assert_eq!(
            escape_controls("\x1b[2J\x1b]0;t\x07\rpassed\u{9b}\u{202e}x"),
            "\\x1b[2J\\x1b]0;t\\x07\\rpassed\\x9b\\u{202e}x"
        );
    }

    #[test]
    fn plain_is_the_text_itself() {
        assert_eq!(Style::PLAIN.paint(Tone::Bad, "failed"), "failed");
        assert_eq!(Style::default(), Style::PLAIN);
    }

    #[test]
    fn colour_wraps_the_text_and_resets() {
        let style = Style::new(true);
        assert_eq!(style.paint(Tone::Good, "passed"), "\x1b[32mpassed\x1b[0m");
        assert_eq!(style.paint(Tone::Bad, "failed"), "\x1b[1;31mfailed\x1b[0m");
        assert_eq!(style.paint(Tone::Warn, "warning"), "\x1b[33mwarning\x1b[0m");
    }
}
