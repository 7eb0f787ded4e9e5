//! What `tissvm` says about a plan that cannot run (exit 2): a plan that does
//! not compile, or bytecode or a snapshot that is invalid. Errors are told
//! on stderr where they happen; with `--output-format json` or `junit`
//! stdout still holds one report, so a tool reading it always finds one:
//! JSON of the run report's shape with `status: "invalid"`, nothing run,
//! the `error` and the compiler's `diagnostics` (the objects of
//! `--error-format json`); JUnit one testsuite named for the file, with one
//! testcase holding an `<error type="invalid">`.

use crate::report::xml;
use serde_json::{Value as Json, json};
use tiss_compiler::Frontend;
use tiss_compiler::diagnostics::render::{self, JsonDiagnostic};
use tisslang::cost::Dim;

use crate::runner::options::{OutputFormat, ReportOptions};
use crate::runner::{PROGRAM, status};
use tiss_support::cli::write_stdout;

/// Why a plan, bytecode or snapshot cannot run.
pub struct Invalid {
    /// The file refused, as given.
    pub file: String,
    /// One line: what is wrong.
    pub error: String,
    /// The compiler's diagnostics, as `--error-format json` objects.
    pub diagnostics: Vec<Json>,
    /// The diagnostics as the human reads them, without color (JUnit).
    pub detail: String,
}

/// Why a plan was not loaded: invalid (exit 2, with its report), or a bug
/// (exit 70, told on stderr).
pub enum Refused {
    Invalid(Invalid),
    Internal,
}

impl Refused {
    pub fn status(&self) -> u8 {
        match self {
            Refused::Invalid(_) => status::INVALID,
            Refused::Internal => status::INTERNAL,
        }
    }

    /// The exit status, once the report `reporting` asks for is written.
    pub fn report(&self, reporting: &ReportOptions) -> u8 {
        match self {
            Refused::Invalid(invalid) => invalid.report(reporting),
            Refused::Internal => status::INTERNAL,
        }
    }

    /// The same for a command whose JSON is not a run report (`inspect`,
    /// `estimate`): with `json`, stdout holds `{"status": "invalid",
    /// "exit_code": 2, "file", "error", "diagnostics"}`.
    pub fn report_analysis(&self, json: bool) -> u8 {
        match self {
            Refused::Invalid(invalid) if json => invalid.print_json(&invalid.analysis_json()),
            _ => self.status(),
        }
    }
}

impl From<Invalid> for Refused {
    fn from(invalid: Invalid) -> Refused {
        Refused::Invalid(invalid)
    }
}

impl Invalid {
    /// `file` refused for `error` (no diagnostics), told on stderr now.
    pub fn told(file: impl Into<String>, error: impl Into<String>) -> Invalid {
        let error = error.into();
        eprintln!("{PROGRAM}: {error}");
        Invalid { file: file.into(), error, diagnostics: Vec::new(), detail: String::new() }
    }

    /// A plan that does not compile.
    pub fn from_frontend(file: &str, frontend: &Frontend) -> Invalid {
        let error = render::summary("compile", &frontend.file.name, &frontend.diagnostics)
            .map_or_else(|| format!("could not compile `{file}`"), |(_, text)| text);
        Invalid {
            file: file.to_string(),
            error,
            diagnostics: frontend
                .diagnostics
                .iter()
                .map(|d| json!(JsonDiagnostic::new(&frontend.file, d)))
                .collect(),
            detail: render::human_to_string(&frontend.file, &frontend.diagnostics),
        }
    }

    /// Writes the report `reporting` asks for where it goes (text: nothing,
    /// the errors are on stderr already); returns exit status 2.
    pub fn report(&self, reporting: &ReportOptions) -> u8 {
        let text = match reporting.output_format {
            OutputFormat::Text => return status::INVALID,
            OutputFormat::Json => pretty(&self.to_json()),
            OutputFormat::Junit => self.to_junit(),
            OutputFormat::Html => {
                let mut json = self.to_json();
                json["file"] = json!(self.file);
                crate::report::html::render(&json)
            }
            OutputFormat::Github => {
                let mut out = Vec::new();
                let heading = format!("TissLang: `{}` is not a plan tissvm can run", self.file);
                let _ = crate::report::github::write(
                    &mut out,
                    &heading,
                    &self.file,
                    std::iter::once(self.to_json()),
                );
                String::from_utf8_lossy(&out).into_owned()
            }
        };
        if let Err(e) = reporting.check() {
            eprintln!("{PROGRAM}: {e}");
            return status::INVALID;
        }
        reporting.deliver(&text, status::INVALID)
    }

    fn print_json(&self, json: &Json) -> u8 {
        write_stdout(PROGRAM, &pretty(json), status::INVALID)
    }

    fn analysis_json(&self) -> Json {
        json!({
            "status": "invalid",
            "exit_code": status::INVALID,
            "file": self.file,
            "error": self.error,
            "diagnostics": self.diagnostics,
        })
    }

    fn to_json(&self) -> Json {
        let cost: serde_json::Map<String, Json> =
            Dim::ALL.iter().map(|d| (d.json_key().to_string(), json!(0))).collect();
        json!({
            "status": "invalid",
            "exit_code": status::INVALID,
            "task": null,
            "duration_ms": 0,
            "steps": [],
            "failure": null,
            "cost": cost,
            "snapshot": null,
            "error": self.error,
            "diagnostics": self.diagnostics,
        })
    }

    fn to_junit(&self) -> String {
        let detail = if self.detail.is_empty() { &self.error } else { &self.detail };
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <testsuite name=\"{file}\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">\n  \
             <testcase name=\"load\" classname=\"{file}\" time=\"0.000\">\n    \
             <error type=\"invalid\" message=\"{message}\">{detail}</error>\n  \
             </testcase>\n\
             </testsuite>\n",
            file = xml(&self.file),
            message = xml(&self.error),
            detail = xml(detail),
        )
    }
}

/// `json` as the JSON reports print it: indented, with a final newline.
fn pretty(json: &Json) -> String {
    let mut text = serde_json::to_string_pretty(json).unwrap_or_default();
    text.push('\n');
    text
}
