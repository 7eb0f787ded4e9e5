//! `tissc fix FILE... [--dry-run] [--partial]`: the command line around
//! `tiss_compiler::fix`. For each file: the changes on stdout, one line each
//! (`FILE:LINE: OLD → NEW`), what is still wrong on stderr (in
//! `--error-format`), and the file replaced atomically, only if the fixed
//! plan compiles (or `--partial`). Exit status: 0 every plan compiles now,
//! 1 some plan still has errors, 2 a file could not be read or written.

use std::fs;
use std::path::{Path, PathBuf};

use clap::Args;
use tiss_support::atomic_write::write_atomically;
use tiss_support::cli::write_stdout;
use tiss_support::io_message::io_message;

use super::{Output, PROGRAM, read_source, status};

#[derive(Args)]
pub struct FixArgs {
    /// The plans to fix (`.tiss`), each rewritten in place.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Print what would change and what would still be wrong; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Write a plan whose fixes leave errors too (by default such a plan is left untouched).
    #[arg(long)]
    partial: bool,
}

pub fn fix(out: &mut Output, args: &FixArgs) -> u8 {
    let mut code = status::OK;
    for path in &args.files {
        code = code.max(fix_file(out, args, path));
    }
    code
}

fn fix_file(out: &mut Output, args: &FixArgs, path: &Path) -> u8 {
    let name = path.display().to_string();
    let Some(bytes) = read_source(path) else {
        return status::USAGE;
    };
    // The fixer works on text; a leading BOM is put back as it was.
    const BOM: &str = "\u{FEFF}";
    let (bom, text) = match String::from_utf8(bytes) {
        Ok(text) => match text.strip_prefix(BOM) {
            Some(rest) => (BOM, rest.to_string()),
            None => ("", text),
        },
        Err(e) => {
            // Not UTF-8: nothing to fix safely; say why as `check` does.
            let frontend = tiss_compiler::frontend_owned(&name, e.into_bytes());
            out.report("fix", &frontend);
            return status::COMPILE_ERRORS;
        }
    };
    let fixed = tiss_compiler::fix::fix(&name, &text);
    let mut report = String::new();
    for change in &fixed.changes {
        report.push_str(&format!(
            "{name}:{}: {} → {}\n",
            change.line,
            shown(&change.old),
            shown(&change.new)
        ));
    }
    let printed = write_stdout(PROGRAM, &report, status::OK);
    out.report("fix", &fixed.frontend);
    let compiles = fixed.compiles();
    let verdict = match (fixed.changes.len(), compiles) {
        (0, true) => return printed,
        (n, true) => format!("{name}: {} made, the plan compiles", count(n, "change")),
        (0, false) => format!("{name}: nothing certain to fix; the errors above are left to you"),
        (n, false) => format!("{name}: {} made, the errors above remain", count(n, "change")),
    };
    let write = !args.dry_run && !fixed.changes.is_empty() && (compiles || args.partial);
    let note = if args.dry_run {
        " (dry run: nothing written)"
    } else if !write && !fixed.changes.is_empty() {
        " (not written: --partial writes it anyway)"
    } else {
        ""
    };
    eprintln!("{verdict}{note}");
    if write
        && let Err(e) = write_atomically(path, format!("{bom}{}", fixed.text).as_bytes(), permissions(path))
    {
        eprintln!("tissc: cannot write `{name}`: {}", io_message(&e));
        return status::USAGE;
    }
    printed.max(if compiles { status::OK } else { status::COMPILE_ERRORS })
}

/// Text as the report shows it: `(nothing)` for a deletion.
fn shown(text: &str) -> String {
    if text.is_empty() { "(nothing)".to_string() } else { format!("`{text}`") }
}

fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// The file's permission bits, kept by the rewrite.
fn permissions(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).ok().map(|m| m.permissions().mode() & 0o7777)
}
