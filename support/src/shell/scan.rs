//! The quoting rules of POSIX `sh`, one character at a time: a backslash
//! escapes the next character (outside single quotes), `'…'` quotes
//! everything up to the next `'`, and `"…"` quotes up to the next unescaped
//! `"`. [`Scanner`] tells each character's context; the reader above it
//! decides what the characters mean.

use std::iter::Peekable;
use std::str::Chars;

/// Where the shell is, at a point in a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quote {
    None,
    Single,
    Double,
}

/// What one step of a [`Scanner`] met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    /// A character outside quotes, neither escaped nor a quote mark.
    Plain(char),
    /// A character between quotes of this kind (never [`Quote::None`]).
    Quoted(char, Quote),
    /// The character a backslash escapes, outside single quotes (in double
    /// quotes too); the backslash is not part of it.
    Escaped(char),
    /// A backslash that ends the text, escaping nothing.
    TrailingBackslash,
    /// A quote mark that opens quoting of its kind.
    Opens(Quote),
    /// The quote mark that closes it.
    Closes(Quote),
}

/// The characters of a text with their quoting context, in order.
pub struct Scanner<'a> {
    chars: Peekable<Chars<'a>>,
    quote: Quote,
}

impl<'a> Scanner<'a> {
    /// A scanner over `text`, which starts in the context `quote`.
    pub fn new(text: &'a str, quote: Quote) -> Scanner<'a> {
        Scanner { chars: text.chars().peekable(), quote }
    }

    /// The context at this point: after every piece read so far.
    pub fn quote(&self) -> Quote {
        self.quote
    }

    /// Changes the context from here on: a `$(…)` inside double quotes
    /// starts unquoted, and the quotes apply again after it.
    pub fn set_quote(&mut self, quote: Quote) {
        self.quote = quote;
    }

    /// The next character as it is written, not read yet.
    pub fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    /// The next character as it is written, whatever its context (`${…}`
    /// is read to its `}` whatever it holds); the context does not change.
    pub fn next_char(&mut self) -> Option<char> {
        self.chars.next()
    }

    /// The next character as it is written, if `f` accepts it.
    pub fn next_char_if(&mut self, f: impl FnOnce(char) -> bool) -> Option<char> {
        self.chars.next_if(|&c| f(c))
    }
}

impl Iterator for Scanner<'_> {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        let c = self.chars.next()?;
        Some(match (self.quote, c) {
            (Quote::Single, '\'') => {
                self.quote = Quote::None;
                Piece::Closes(Quote::Single)
            }
            (Quote::Single, c) => Piece::Quoted(c, Quote::Single),
            (_, '\\') => self.chars.next().map_or(Piece::TrailingBackslash, Piece::Escaped),
            (Quote::Double, '"') => {
                self.quote = Quote::None;
                Piece::Closes(Quote::Double)
            }
            (Quote::Double, c) => Piece::Quoted(c, Quote::Double),
            (Quote::None, '\'') => {
                self.quote = Quote::Single;
                Piece::Opens(Quote::Single)
            }
            (Quote::None, '"') => {
                self.quote = Quote::Double;
                Piece::Opens(Quote::Double)
            }
            (Quote::None, c) => Piece::Plain(c),
        })
    }
}

/// The context after `text`, read from the context `start`: where a value
/// inserted there would land.
pub fn quote_after(text: &str, start: Quote) -> Quote {
    let mut scanner = Scanner::new(text, start);
    scanner.by_ref().for_each(drop);
    scanner.quote()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str) -> Vec<Piece> {
        Scanner::new(text, Quote::None).collect()
    }

    #[test]
    fn each_character_gets_its_context() {
        use Piece::*;
        assert_eq!(
            pieces("a'b\"'\"c\\\"'\"\\d"),
            [
                Plain('a'),
                Opens(Quote::Single),
                Quoted('b', Quote::Single),
                Quoted('"', Quote::Single),
                Closes(Quote::Single),
                Opens(Quote::Double),
                Quoted('c', Quote::Double),
                Escaped('"'),
                Quoted('\'', Quote::Double),
                Closes(Quote::Double),
                Escaped('d'),
            ]
        );
        assert_eq!(pieces("x\\"), [Plain('x'), TrailingBackslash]);
        // In single quotes a backslash is a character like any other.
        assert_eq!(
            pieces("'\\'"),
            [Opens(Quote::Single), Quoted('\\', Quote::Single), Closes(Quote::Single)]
        );
    }

    #[test]
    fn the_context_after_a_text() {
        assert_eq!(quote_after("printf %s ", Quote::None), Quote::None);
        assert_eq!(quote_after("printf %s '", Quote::None), Quote::Single);
        assert_eq!(quote_after("printf %s \"a\\\"", Quote::None), Quote::Double);
        assert_eq!(quote_after("printf %s \\'", Quote::None), Quote::None);
        assert_eq!(quote_after("x'", Quote::Single), Quote::None);
        assert_eq!(quote_after("'\\'", Quote::None), Quote::None);
    }
}
