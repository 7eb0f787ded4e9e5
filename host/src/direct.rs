//! RUN's fast path (book: reference/sandbox.md): a command with no shell syntax is executed
//! directly, without `/bin/sh -c`, with the same observable result.
//!
//! A command qualifies (the shell reader's `program_words`) when it is only words separated by spaces or tabs,
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

/// The argument vector of `command` if it has no shell syntax (and
/// `/bin/sh` is dash, whose report of a program a signal ended
/// [`signal_report`] gives), else `None`.
pub fn plain_words(command: &str) -> Option<Vec<String>> {
    if !shell_is_dash() {
        return None;
    }
    tiss_support::shell::words::program_words(command)
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
