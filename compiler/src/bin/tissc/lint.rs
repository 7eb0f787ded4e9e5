//! `tissc lint FILE... [--deny-warnings]`: every diagnostic of each plan,
//! its lint warnings included (SPEC §9). Exit 0 with warnings alone; 1 with
//! errors, or with warnings under `--deny-warnings`; 2 when a file cannot
//! be read.

use std::path::PathBuf;

use super::{Output, load, status};

#[derive(clap::Args)]
pub(crate) struct LintArgs {
    /// The plans to lint (`.tiss`).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Exit with status 1 when there are warnings, as with errors (for CI).
    #[arg(long)]
    deny_warnings: bool,
}

pub(crate) fn lint(out: &mut Output, args: &LintArgs) -> u8 {
    let mut code = status::OK;
    for path in &args.files {
        let Some(mut frontend) = load(path) else {
            code = code.max(status::USAGE);
            continue;
        };
        tiss_compiler::lint::add_warnings(&mut frontend);
        out.report("lint", &frontend);
        if frontend.has_errors() || (args.deny_warnings && !frontend.diagnostics.is_empty()) {
            code = code.max(status::COMPILE_ERRORS);
        }
    }
    code
}
