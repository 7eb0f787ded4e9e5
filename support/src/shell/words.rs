//! The argument vector of a command that needs no shell: only words
//! separated by spaces or tabs, each made of plain characters,
//! single-quoted text (as a quoted value is written: `'it'\''s'`) and
//! backslash-escaped characters, whose first word names a program rather
//! than a builtin, a keyword or a variable assignment (`echo`, `cd`, `if`,
//! `VAR=value`…), whose behaviour only the shell has. Anything else — `$`,
//! double quotes, globs, redirections, pipes, `;`, `&`, `~`, comments,
//! newlines — needs the shell.

use super::scan::{Piece, Quote, Scanner};

/// Builtins and keywords of POSIX `sh` (dash's and bash's common set):
/// these words first mean the shell, not a program of that name.
const SHELL_WORDS: &[&str] = &[
    "!", ".", ":", "[", "[[", "alias", "bg", "break", "builtin", "case", "cd", "chdir", "command",
    "continue", "do", "done", "echo", "elif", "else", "esac", "eval", "exec", "exit", "export", "false",
    "fc", "fg", "fi", "for", "function", "getopts", "hash", "if", "in", "jobs", "kill", "local", "printf",
    "pwd", "read", "readonly", "return", "select", "set", "shift", "source", "test", "then", "time", "times",
    "trap", "true", "type", "ulimit", "umask", "unalias", "unset", "until", "wait", "while", "{", "}",
];

/// The argument vector of `command` if it is only literal words naming a
/// program, else `None` (it needs the shell).
pub fn program_words(command: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut scanner = Scanner::new(command, Quote::None);
    for piece in scanner.by_ref() {
        match piece {
            Piece::Plain(' ' | '\t') => words.extend(word.take()),
            // `''` is a word, empty.
            Piece::Opens(Quote::Single) | Piece::Closes(Quote::Single) => {
                word.get_or_insert_with(String::new);
            }
            Piece::Quoted(c, Quote::Single) => word.get_or_insert_with(String::new).push(c),
            Piece::Escaped('\n') | Piece::TrailingBackslash => return None,
            Piece::Escaped(c) => word.get_or_insert_with(String::new).push(c),
            Piece::Plain(c) if c.is_alphanumeric() || "_-./,:+@%^=".contains(c) => {
                word.get_or_insert_with(String::new).push(c)
            }
            _ => return None,
        }
    }
    // An unterminated `'`.
    if scanner.quote() != Quote::None {
        return None;
    }
    words.extend(word);
    let first = words.first()?;
    if SHELL_WORDS.contains(&first.as_str()) || first.contains('=') && first_is_unquoted_assignment(command) {
        return None;
    }
    Some(words)
}

/// Whether the command starts with `NAME=`: a variable assignment for the
/// shell, not a program name.
fn first_is_unquoted_assignment(command: &str) -> bool {
    let start = command.trim_start_matches([' ', '\t']);
    start.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::program_words;

    fn words(command: &str) -> Option<Vec<&'static str>> {
        program_words(command).map(|w| w.into_iter().map(|s| &*s.leak()).collect())
    }

    #[test]
    fn plain_commands_are_split_into_words() {
        assert_eq!(words("python3 main.py TissLang"), Some(vec!["python3", "main.py", "TissLang"]));
        assert_eq!(words("  ls   -la\t/tmp "), Some(vec!["ls", "-la", "/tmp"]));
        assert_eq!(words("cat 'it'\\''s here'"), Some(vec!["cat", "it's here"]));
        assert_eq!(words("grep -c 'a b' x"), Some(vec!["grep", "-c", "a b", "x"]));
        assert_eq!(words("touch ''"), Some(vec!["touch", ""]));
        assert_eq!(words("cargo test --features=x,y"), Some(vec!["cargo", "test", "--features=x,y"]));
        assert_eq!(words("./run.sh a\\ b"), Some(vec!["./run.sh", "a b"]));
    }

    #[test]
    fn shell_syntax_and_shell_words_need_the_shell() {
        for command in [
            "",
            "   ",
            "echo hi",
            "cd x",
            "true",
            "if x",
            "A=1 env",
            "ls | wc",
            "a && b",
            "a; b",
            "a &",
            "ls > f",
            "ls < f",
            "ls *.rs",
            "ls ?",
            "ls ~",
            "ls $HOME",
            "echo `x`",
            "ls \"a\"",
            "ls (x)",
            "ls # c",
            "a\nb",
            "ls 'open",
            "ls \\",
            "ls [ab]",
            "ls {a,b}",
            "ls !x",
            "test -f x",
            "printf x",
            "ls a\\\nb",
        ] {
            assert_eq!(program_words(command), None, "{command:?}");
        }
    }
}
