//! Plumbing shared by the `tissc` and `tissvm` binaries: exit statuses for
//! clap's own exits, I/O error messages, and writing to stdout.

use std::io::{self, Write};

/// Exit status for internal errors (SPEC §9).
pub const INTERNAL: u8 = 70;
/// Exit status for usage errors (SPEC §9).
pub const USAGE: u8 = 2;

/// Prints a clap error or help text; `--help` and `--version` exit 0, usage errors 2.
pub fn clap_exit(e: clap::Error) -> u8 {
    let _ = e.print();
    if e.use_stderr() { USAGE } else { 0 }
}

/// An I/O error's message without the ` (os error N)` suffix.
pub fn io_message(e: &io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// Writes to stdout and returns `code`; a closed pipe (`... | head`) is not an
/// error. A failing write is reported as `PROGRAM: cannot write to stdout`.
pub fn write_stdout(program: &str, text: &str, code: u8) -> u8 {
    let mut stdout = io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Ok(()) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => code,
        Err(e) => {
            eprintln!("{program}: cannot write to stdout: {}", io_message(&e));
            INTERNAL
        }
    }
}
