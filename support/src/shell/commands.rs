//! A command line cut into its simple commands, as the shell would run
//! them: split at `|`, `||`, `&&`, `;`, `&` and newlines, with `$(…)`,
//! backticks and `( … )` each holding commands of their own. Quotes and
//! backslashes are removed from the words, as the shell removes them
//! before it looks a program up (`c''url` is `curl`), but a quoted `|` or
//! `;` is text, not a separator. A redirection's target (`> curl`) is no
//! word of the command. This is a reading for what a command runs, not a
//! shell: what it cannot tell (aliases, functions, `eval`) it reads as
//! words.

use std::ops::Range;

use super::scan::{Piece, Quote, Scanner};

/// One simple command: its words (ranges into the text [`split`] fills),
/// and whether a single `|` feeds it the output of the one before.
#[derive(Debug, Default)]
pub struct Simple {
    pub piped: bool,
    pub words: Vec<Range<usize>>,
}

/// A command being read, and what ends it.
struct Open {
    command: Simple,
    /// `)` for `$(`/`(`, `` ` `` for a backtick, `\0` for the whole line.
    closer: char,
    /// The quoting around the `$(` or backtick (double quotes apply again
    /// after it).
    around: Quote,
}

/// The simple commands of `line`, their words' text written into `text`.
pub fn split(line: &str, text: &mut String) -> Vec<Simple> {
    text.clear();
    let mut reader = Reader {
        text,
        done: Vec::new(),
        open: vec![Open { command: Simple::default(), closer: '\0', around: Quote::None }],
        word: None,
        redirected: false,
    };
    let mut scanner = Scanner::new(line, Quote::None);
    while let Some(piece) = scanner.next() {
        let (c, in_double) = match piece {
            Piece::Escaped(c) | Piece::Quoted(c, Quote::Single) => {
                reader.push(c);
                continue;
            }
            Piece::TrailingBackslash | Piece::Closes(_) => continue,
            // An opening quote starts a word, even an empty one (`""`).
            Piece::Opens(_) => {
                reader.start();
                continue;
            }
            Piece::Quoted(c, _) => (c, true),
            Piece::Plain(c) => (c, false),
        };
        match c {
            '$' if scanner.peek() == Some('(') => {
                scanner.next_char();
                reader.enter(')', scanner.quote());
                scanner.set_quote(Quote::None);
            }
            '$' if scanner.peek() == Some('{') => {
                // `${x}`: one word, whatever it holds.
                reader.push('$');
                while let Some(inner) = scanner.next_char() {
                    reader.push(inner);
                    if inner == '}' {
                        break;
                    }
                }
            }
            '`' if reader.closer() == '`' => scanner.set_quote(reader.leave()),
            '`' => {
                reader.enter('`', scanner.quote());
                scanner.set_quote(Quote::None);
            }
            _ if in_double => reader.push(c),
            '(' => reader.enter(')', Quote::None),
            ')' if reader.closer() == ')' => scanner.set_quote(reader.leave()),
            '|' => match scanner.peek() {
                Some('|') => {
                    scanner.next_char();
                    reader.next_command(false);
                }
                Some('&') => {
                    scanner.next_char();
                    reader.next_command(true);
                }
                _ => reader.next_command(true),
            },
            '&' if scanner.peek() == Some('>') => {
                scanner.next_char();
                reader.redirect();
            }
            '&' => {
                scanner.next_char_if(|n| n == '&');
                reader.next_command(false);
            }
            ';' | '\n' => reader.next_command(false),
            '>' | '<' => {
                while scanner.next_char_if(|n| matches!(n, '>' | '&' | '|')).is_some() {}
                reader.redirect();
            }
            '#' if reader.word.is_none() => {
                // A comment, to the end of the line.
                while scanner.next_char_if(|n| n != '\n').is_some() {}
            }
            c if c.is_whitespace() || c == ')' => reader.end_word(),
            c => reader.push(c),
        }
    }
    while reader.open.len() > 1 {
        reader.leave();
    }
    reader.next_command(false);
    reader.done
}

struct Reader<'t> {
    text: &'t mut String,
    done: Vec<Simple>,
    /// The commands being read, innermost last.
    open: Vec<Open>,
    /// Where the word being read starts in `text`.
    word: Option<usize>,
    /// The next word is a redirection's target.
    redirected: bool,
}

impl Reader<'_> {
    fn closer(&self) -> char {
        self.open.last().map_or('\0', |o| o.closer)
    }

    /// A word starts here, even if it turns out empty (`""`).
    fn start(&mut self) {
        self.word.get_or_insert(self.text.len());
    }

    fn push(&mut self, c: char) {
        self.start();
        self.text.push(c);
    }

    fn end_word(&mut self) {
        let Some(start) = self.word.take() else { return };
        if std::mem::take(&mut self.redirected) {
            return;
        }
        if let Some(open) = self.open.last_mut() {
            open.command.words.push(start..self.text.len());
        }
    }

    fn redirect(&mut self) {
        self.end_word();
        self.redirected = true;
    }

    /// Ends the current simple command; the next one is fed by a pipe if
    /// `piped`.
    fn next_command(&mut self, piped: bool) {
        self.end_word();
        self.redirected = false;
        if let Some(open) = self.open.last_mut() {
            let command = std::mem::replace(&mut open.command, Simple { piped, words: Vec::new() });
            if !command.words.is_empty() {
                self.done.push(command);
            }
        }
    }

    fn enter(&mut self, closer: char, around: Quote) {
        self.end_word();
        self.open.push(Open { command: Simple::default(), closer, around });
    }

    /// Ends the innermost `$(…)`, `( … )` or backtick; returns the quoting
    /// around it, which applies again.
    fn leave(&mut self) -> Quote {
        self.next_command(false);
        let Some(open) = self.open.pop() else { return Quote::None };
        open.around
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(line: &str) -> Vec<(bool, Vec<String>)> {
        let mut text = String::new();
        let split = split(line, &mut text);
        split
            .iter()
            .map(|s| (s.piped, s.words.iter().map(|w| text[w.clone()].to_string()).collect()))
            .collect()
    }

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn separators_pipes_and_quotes() {
        assert_eq!(
            commands("a x | b && c || d; e & f"),
            [
                (false, words(&["a", "x"])),
                (true, words(&["b"])),
                (false, words(&["c"])),
                (false, words(&["d"])),
                (false, words(&["e"])),
                (false, words(&["f"])),
            ]
        );
        assert_eq!(commands("echo 'a | sh' \"b; c\""), [(false, words(&["echo", "a | sh", "b; c"]))]);
        assert_eq!(commands("c''u\\rl -s"), [(false, words(&["curl", "-s"]))]);
        assert_eq!(commands("a |& b"), [(false, words(&["a"])), (true, words(&["b"]))]);
        assert_eq!(commands("touch \"\" x"), [(false, words(&["touch", "", "x"]))]);
    }

    #[test]
    fn substitutions_hold_commands_of_their_own() {
        assert_eq!(
            commands("echo \"got $(curl x)\" done"),
            [(false, words(&["curl", "x"])), (false, words(&["echo", "got ", "done"]))]
        );
        assert_eq!(commands("echo `wget y`"), [(false, words(&["wget", "y"])), (false, words(&["echo"]))]);
        assert_eq!(commands("(cd a; make)"), [(false, words(&["cd", "a"])), (false, words(&["make"]))]);
        // Double quotes open around a substitution apply again after it.
        assert_eq!(
            commands("echo \"a $(b \"c d\") e; f\""),
            [(false, words(&["b", "c d"])), (false, words(&["echo", "a ", " e; f"]))]
        );
    }

    #[test]
    fn redirection_targets_and_comments_are_no_words() {
        assert_eq!(commands("echo hi > curl 2>&1"), [(false, words(&["echo", "hi", "2"]))]);
        assert_eq!(commands("make &> log; b"), [(false, words(&["make"])), (false, words(&["b"]))]);
        assert_eq!(commands("make # curl later"), [(false, words(&["make"]))]);
        assert_eq!(commands("echo ${x} y"), [(false, words(&["echo", "${x}", "y"]))]);
    }
}
