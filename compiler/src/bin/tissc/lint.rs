//! `tissc lint FILE... [--deny-warnings]`: every diagnostic of each plan,
//! its lint warnings included, and with `--output-format` as annotations
//! or SARIF too (`report.rs`). Exit 0 with warnings alone; 1 with
//! errors, or with warnings under `--deny-warnings`; 2 when a file cannot
//! be read.

use std::path::PathBuf;

use super::report::{ReportFormat, Reports};
use super::{Output, load, status};

#[derive(clap::Args)]
pub(crate) struct LintArgs {
    /// The plans to lint (`.tiss`).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Exit with status 1 when there are warnings, as with errors (for CI).
    #[arg(long)]
    deny_warnings: bool,
    /// Besides the diagnostics on stderr: `github` (an annotation per diagnostic on stdout, and a
    /// summary appended to the file GITHUB_STEP_SUMMARY names) or `sarif` (a SARIF 2.1.0 log on
    /// stdout: rules with their help, results with regions and certain fixes).
    #[arg(long, value_enum, default_value_t = ReportFormat::Text, value_name = "FORMAT")]
    output_format: ReportFormat,
}

pub(crate) fn lint(out: &mut Output, args: &LintArgs) -> u8 {
    let mut reports = Reports::new(args.output_format);
    let mut code = status::OK;
    for path in &args.files {
        let Some(mut frontend) = load(path) else {
            code = code.max(status::USAGE);
            continue;
        };
        tiss_compiler::lint::add_warnings(&mut frontend);
        reports.add(out, "lint", &frontend);
        if frontend.has_errors() || (args.deny_warnings && !frontend.diagnostics.is_empty()) {
            code = code.max(status::COMPILE_ERRORS);
        }
    }
    reports.finish("lint", code)
}
