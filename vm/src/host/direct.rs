//! RUN's fast path (SPEC §8): a command with no shell syntax is executed
//! directly, without `/bin/sh -c`, with the same observable result.
//!
//! A command qualifies when it is only words separated by spaces or tabs,
//! each made of plain characters, single-quoted text (as interpolation
//! writes values: `'it'\''s'`) and backslash-escaped characters, and its
//! first word is neither a shell builtin nor a keyword (`echo`, `cd`, `if`,
//! `VAR=value`…), whose behaviour only the shell has. Anything else — `$`,
//! double quotes, globs, redirections, pipes, `;`, `&`, `~`, comments,
//! newlines — goes to the shell. When the program cannot be started (not
//! found, not executable), the runner asks the shell after all, so the
//! failure reads and exits exactly as the shell's (`127`, `126`); a program
//! a signal ends gets the line dash prints for it (`Killed`). Only where
//! `/bin/sh` is dash: elsewhere every command goes to the shell.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

/// Builtins and keywords of POSIX `sh` (dash's and bash's common set):
/// these words first mean the shell, not a program of that name.
const SHELL_WORDS: &[&str] = &[
    "!", ".", ":", "[", "[[", "alias", "bg", "break", "builtin", "case", "cd", "chdir", "command",
    "continue", "do", "done", "echo", "elif", "else", "esac", "eval", "exec", "exit", "export", "false",
    "fc", "fg", "fi", "for", "function", "getopts", "hash", "if", "in", "jobs", "kill", "local", "printf",
    "pwd", "read", "readonly", "return", "select", "set", "shift", "source", "test", "then", "time", "times",
    "trap", "true", "type", "ulimit", "umask", "unalias", "unset", "until", "wait", "while", "{", "}",
];

/// The argument vector of `command` if it has no shell syntax (and
/// `/bin/sh` is dash, whose report of a program a signal ended
/// [`signal_report`] gives), else `None`.
pub fn plain_words(command: &str) -> Option<Vec<String>> {
    if !shell_is_dash() {
        return None;
    }
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => words.extend(word.take()),
            '\'' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => current.push(c),
                    }
                }
            }
            '\\' => match chars.next()? {
                '\n' => return None,
                c => word.get_or_insert_with(String::new).push(c),
            },
            c if c.is_alphanumeric() || "_-./,:+@%^=".contains(c) => {
                word.get_or_insert_with(String::new).push(c)
            }
            _ => return None,
        }
    }
    words.extend(word);
    let first = words.first()?;
    if SHELL_WORDS.contains(&first.as_str()) || first.contains('=') && first_is_unquoted_assignment(command) {
        return None;
    }
    Some(words)
}

/// Whether `/bin/sh` is dash (Debian's and Ubuntu's): the fast path gives
/// exactly its results. Other shells report signals in their own ways, so
/// elsewhere every command goes to the shell.
fn shell_is_dash() -> bool {
    static DASH: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DASH.get_or_init(|| {
        std::fs::canonicalize("/bin/sh")
            .is_ok_and(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("dash")))
    })
}

/// What dash prints on stderr when the program it waited for was ended by a
/// signal other than SIGINT and SIGPIPE: the signal's description, as
/// `strsignal` gives it, and ` (core dumped)` where it applies.
pub fn signal_report(status: ExitStatus) -> Option<String> {
    let signal = status.signal()?;
    if signal == libc::SIGINT || signal == libc::SIGPIPE {
        return None;
    }
    // SAFETY: strsignal returns a NUL-terminated string that stays valid
    // until the next call on this thread; it is copied at once.
    let text = unsafe { std::ffi::CStr::from_ptr(libc::strsignal(signal)) }.to_string_lossy().into_owned();
    Some(format!("{text}{}\n", if status.core_dumped() { " (core dumped)" } else { "" }))
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
    use super::plain_words;

    fn words(command: &str) -> Option<Vec<&'static str>> {
        plain_words(command).map(|w| w.into_iter().map(|s| &*s.leak()).collect())
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
    fn shell_syntax_and_shell_words_go_to_the_shell() {
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
        ] {
            assert_eq!(plain_words(command), None, "{command:?}");
        }
    }
}
