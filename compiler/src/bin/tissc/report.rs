//! `tissc check|lint --output-format`: besides the diagnostics on stderr
//! (as `--error-format` says), `github` prints a workflow command per
//! diagnostic on stdout and appends a summary to the file
//! `GITHUB_STEP_SUMMARY` names; `sarif` prints one SARIF 2.1.0 log of every
//! file on stdout at the end.

use std::io::Write;

use tiss_compiler::Frontend;
use tiss_compiler::diagnostics::github::GithubReport;
use tiss_compiler::diagnostics::sarif::SarifReport;
use tiss_support::cli::write_stdout;

use super::{Output, PROGRAM, status};

/// What goes on stdout besides the diagnostics on stderr.
#[derive(Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum ReportFormat {
    /// Nothing: the diagnostics on stderr alone.
    #[default]
    Text,
    /// GitHub Actions annotations, and the job summary.
    Github,
    /// A SARIF 2.1.0 log (code scanning).
    Sarif,
}

/// The reports of a command over its files.
pub(crate) enum Reports {
    Text,
    Github(GithubReport),
    Sarif(SarifReport),
}

impl Reports {
    pub(crate) fn new(format: ReportFormat) -> Reports {
        match format {
            ReportFormat::Text => Reports::Text,
            ReportFormat::Github => Reports::Github(GithubReport::default()),
            ReportFormat::Sarif => Reports::Sarif(SarifReport::default()),
        }
    }

    /// The diagnostics of one plan: on stderr, and as the format says.
    pub(crate) fn add(&mut self, out: &mut Output, verb: &str, frontend: &Frontend) {
        out.report(verb, frontend);
        match self {
            Reports::Text => {}
            Reports::Github(report) => {
                let mut stdout = std::io::stdout().lock();
                let _ = report.add(&mut stdout, &frontend.file, &frontend.diagnostics);
                let _ = stdout.flush();
            }
            Reports::Sarif(report) => report.add(&frontend.file, &frontend.diagnostics),
        }
    }

    /// Ends the reports: the summary, or the SARIF log; `code`, or the
    /// status of what could not be written.
    pub(crate) fn finish(self, verb: &str, code: u8) -> u8 {
        match self {
            Reports::Text => code,
            Reports::Github(report) => match tiss_support::github::append_step_summary(&report.summary(verb))
            {
                Ok(()) => code,
                Err(e) => {
                    eprintln!("{PROGRAM}: {e}");
                    code.max(status::USAGE)
                }
            },
            Reports::Sarif(report) => {
                let mut text = serde_json::to_string_pretty(&report.log()).unwrap_or_default();
                text.push('\n');
                write_stdout(PROGRAM, &text, code)
            }
        }
    }
}
