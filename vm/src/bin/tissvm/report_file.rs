//! Where the report of `run` and `resume` goes: the file `--report` names,
//! replaced atomically (a reader never sees half a report), or stdout.

use std::io::{self, Write};
use std::path::Path;

use tiss_compiler::atomic_write::{parent_of, write_atomically, write_atomically_with};

use super::options::{OutputFormat, ReportOptions};
use super::{PROGRAM, io_message, status, write_stdout};

impl ReportOptions {
    /// Refuses, before anything runs, a `--report` that could not be
    /// written at the end.
    pub fn check(&self) -> Result<(), String> {
        let Some(path) = &self.report else { return Ok(()) };
        if self.output_format == OutputFormat::Text {
            return Err(format!(
                "--report `{}` writes a json, junit or html report, and the text output streams to stdout; add \
                 --output-format html (or json, junit)",
                path.display()
            ));
        }
        writable(path)
    }

    /// Writes `text`, the report, where it goes; returns `code`, or the
    /// status of a report that could not be written.
    pub fn deliver(&self, text: &str, code: u8) -> u8 {
        let Some(path) = &self.report else { return write_stdout(PROGRAM, text, code) };
        match write_atomically(path, text.as_bytes(), None) {
            Ok(()) => code,
            Err(e) => {
                eprintln!("{PROGRAM}: cannot write the report `{}`: {}", path.display(), io_message(&e));
                status::INTERNAL
            }
        }
    }
}

impl ReportOptions {
    /// [`deliver`](Self::deliver) of a report that `write` streams (many
    /// plans' reports, one at a time): into the `--report` file, replaced
    /// atomically, or stdout. The error names where it could not be written.
    pub fn deliver_with(&self, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), String> {
        let Some(path) = &self.report else {
            let mut out = io::stdout().lock();
            return match write(&mut out).and_then(|()| out.flush()) {
                Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
                    Err(format!("cannot write the report: {e}"))
                }
                _ => Ok(()),
            };
        };
        write_atomically_with(path, None, |file| {
            let mut buffered = io::BufWriter::new(file);
            write(&mut buffered)?;
            buffered.flush()
        })
        .map_err(|e| format!("cannot write the report `{}`: {}", path.display(), io_message(&e)))
    }
}

/// Whether a report can be written to `path`: a file name in an existing directory.
fn writable(path: &Path) -> Result<(), String> {
    let dir = parent_of(path);
    if path.is_dir() || path.file_name().is_none() {
        return Err(format!("--report `{}` is a directory: give the report's file name", path.display()));
    }
    if !dir.is_dir() {
        return Err(format!("--report `{}`: there is no directory `{}`", path.display(), dir.display()));
    }
    Ok(())
}
