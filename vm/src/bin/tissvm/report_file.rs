//! Where the report of `run` and `resume` goes: the file `--report` names,
//! replaced atomically (a reader never sees half a report), or stdout.

use std::path::Path;

use tiss_compiler::atomic_write::{parent_of, write_atomically};

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
