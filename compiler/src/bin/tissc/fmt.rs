//! `tissc fmt [FILE...|-] [--check] [--diff]`: rewrite plans in the canonical
//! layout (book: guide/tissc.md), with `tiss_compiler::fmt::format_source`.
//!
//! A file is rewritten only when its text changes, atomically and keeping its
//! permissions. `-` (or no FILE) reads stdin and writes the result to stdout.
//! `--check` and `--diff` write nothing: `--check` names each file that would
//! change on stdout and exits 1; `--diff` prints a unified diff (apply it with
//! `patch -p0`). A plan with syntax errors is left as it is (its diagnostics,
//! exit 1); a formatter fault (E0900) exits 70.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use tiss_compiler::diagnostics::codes;
use tiss_compiler::diagnostics::render;
use tiss_compiler::fmt::format_source;
use tiss_compiler::source_file::{self, SourceFile};
use tiss_support::atomic_write::write_atomically;
use tiss_support::cli::write_stdout;
use tiss_support::io_message::io_message;

use super::{Output, PROGRAM, read_source, status};

/// The name stdin goes by in messages and diffs.
const STDIN_NAME: &str = "<stdin>";

#[derive(clap::Args)]
pub struct FmtArgs {
    /// The plans to format; `-` (or none) reads stdin and writes stdout.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Change nothing; name each file that is not formatted (with --diff, show its diff) and exit 1 if any.
    #[arg(long)]
    check: bool,
    /// Change nothing; print a unified diff of what formatting would change.
    #[arg(long)]
    diff: bool,
}

pub fn fmt(out: &mut Output, args: &FmtArgs) -> u8 {
    let stdin = Path::new("-");
    let files: Vec<&Path> =
        if args.files.is_empty() { vec![stdin] } else { args.files.iter().map(PathBuf::as_path).collect() };
    if files.iter().filter(|f| **f == stdin).count() > 1 {
        eprintln!("{PROGRAM}: `-` (stdin) can be named only once");
        return status::USAGE;
    }
    // As `compile` does: 4 KiB pages, and freed pages returned at once, so
    // the tokens and layout freed before the formatted text is parsed again
    // do not stay resident beside its tree (a 1.6 MB plan of short
    // statements: 80 -> 62 MiB peak, before gaps were stored sparsely).
    #[cfg(target_os = "linux")]
    super::memory::small_pages();
    super::memory::return_freed_pages();
    let mut code = status::OK;
    for path in files {
        code = code.max(fmt_one(out, args, path, path == stdin));
    }
    code
}

fn fmt_one(out: &mut Output, args: &FmtArgs, path: &Path, is_stdin: bool) -> u8 {
    let name = if is_stdin { STDIN_NAME.to_string() } else { path.display().to_string() };
    let bytes = if is_stdin {
        let mut bytes = Vec::new();
        if let Err(e) = std::io::stdin().read_to_end(&mut bytes) {
            eprintln!("{PROGRAM}: cannot read stdin: {}", io_message(&e));
            return status::USAGE;
        }
        bytes
    } else {
        match read_source(path) {
            Some(bytes) => bytes,
            None => return status::USAGE,
        }
    };
    let (text, decode_errors) = source_file::decode(bytes.clone());
    let formatted = if decode_errors.is_empty() { format_source(&text) } else { Err(decode_errors) };
    let formatted = match formatted {
        Ok(formatted) => formatted,
        Err(diagnostics) => {
            let file = SourceFile::new(name.clone(), text);
            let _ = render::emit(&mut out.stderr, out.format, &file, &diagnostics);
            if diagnostics.iter().any(|d| d.code == codes::FORMATTER_FAULT) {
                return status::INTERNAL;
            }
            if out.format == render::ErrorFormat::Human {
                let _ = render::emit_summary(&mut out.stderr, "format", &name, &diagnostics);
            }
            return status::COMPILE_ERRORS;
        }
    };
    let changed = formatted.as_bytes() != bytes.as_slice();
    if args.check || args.diff {
        let mut code = status::OK;
        if changed && args.diff {
            let original = String::from_utf8_lossy(&bytes);
            let diff = similar::TextDiff::from_lines(original.as_ref(), formatted.as_str());
            let text = diff.unified_diff().header(&name, &name).to_string();
            code = write_stdout(PROGRAM, &text, code);
        }
        if changed && args.check {
            if !args.diff {
                code = write_stdout(PROGRAM, &format!("{name}\n"), code);
            }
            code = code.max(status::COMPILE_ERRORS);
        }
        return code;
    }
    if is_stdin {
        return write_stdout(PROGRAM, &formatted, status::OK);
    }
    if !changed {
        return status::OK;
    }
    // Keep the file's permissions: the rename would otherwise give it the umask's.
    let mode = std::fs::metadata(path).ok().map(|m| m.permissions().mode() & 0o7777);
    match write_atomically(path, formatted.as_bytes(), mode) {
        Ok(()) => status::OK,
        Err(e) => {
            eprintln!("{PROGRAM}: cannot write `{name}`: {}", io_message(&e));
            status::USAGE
        }
    }
}
