//! What a run tells: reports (JSON, text, JUnit, HTML), colour, failures, logs, step ends; what `tissvm inspect` tells before it.
//!
//! One test binary per concern (linked once, not once per file); each
//! file is a module of it.

#[path = "../browser/mod.rs"]
mod browser;
#[path = "../common/mod.rs"]
mod common;

mod event_schema;
mod inspect_risk;
mod report_color;
mod report_failures;
mod report_html;
mod report_html_browser;
mod report_logs;
mod report_step_ends;
mod run_reports;
mod terminal_text;
