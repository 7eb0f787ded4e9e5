//! Where a report goes: the file `--report` names,
//! replaced atomically (a reader never sees half a report), or stdout;
//! for one plan (`run`, `resume`), many (`run PLAN...`) or collected ones.

use std::io::{self, Write};
use std::path::Path;

use tiss_support::atomic_write::{parent_of, write_atomically_with};

use crate::runner::options::{OutputFormat, ReportOptions};
use crate::runner::{PROGRAM, status};
use tiss_support::cli::write_stdout;
use tiss_support::io_message::io_message;

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
        if self.output_format == OutputFormat::Github {
            return Err(format!(
                "--report `{}`: --output-format github writes workflow commands to stdout, where the runner reads \
                 them; drop --report, or keep a report with --output-format json --report FILE",
                path.display()
            ));
        }
        writable(path)
    }

    /// Writes `text`, the report, where it goes; returns `code`, or the
    /// status of a report that could not be written.
    pub fn deliver(&self, text: &str, code: u8) -> u8 {
        if self.report.is_none() {
            return write_stdout(PROGRAM, text, code);
        }
        self.deliver_with(code, |out| out.write_all(text.as_bytes()))
    }

    /// The same for a report that `write` writes as it goes (many plans',
    /// never whole in memory).
    pub fn deliver_with(&self, code: u8, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> u8 {
        let written = match &self.report {
            Some(path) => write_atomically_with(path, None, |file| {
                let mut out = io::BufWriter::new(file);
                write(&mut out)?;
                out.flush()
            })
            .map_err(|e| format!("cannot write the report `{}`: {}", path.display(), io_message(&e))),
            None => {
                let mut out = io::stdout().lock();
                match write(&mut out).and_then(|()| out.flush()) {
                    Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
                        Err(format!("cannot write to stdout: {}", io_message(&e)))
                    }
                    _ => Ok(()),
                }
            }
        };
        match written {
            Ok(()) => code,
            Err(e) => {
                eprintln!("{PROGRAM}: {e}");
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
