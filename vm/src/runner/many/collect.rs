//! `tissvm collect DIR`: the JSON reports that `tissvm run --report-dir DIR`
//! wrote (one per plan, from any number of shards, machines or Slurm
//! tasks) merged into one report, as a run of all those plans would give
//! it: text, the combined JSON, or JUnit with one testsuite per plan.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::report::combined::{self, PlanStatus, Summary};
use serde_json::Value as Json;

use crate::runner::color;
use crate::runner::options::{OutputFormat, ReportOptions};
use crate::runner::status;

/// Merges the reports below `dir` (refusing first a `--report` that could
/// not be written); the exit status.
pub fn collect(dir: &Path, reporting: &ReportOptions) -> u8 {
    if let Err(e) = reporting.check() {
        eprintln!("tissvm: collect: {e}");
        return status::INVALID;
    }
    collect_dir(dir, reporting)
}

/// The reports below `dir` merged, in the format `reporting` asks for,
/// where it goes; the exit status.
pub fn collect_dir(dir: &Path, reporting: &ReportOptions) -> u8 {
    match files(dir).and_then(|files| summarize(dir, &files).map(|s| (files, s))) {
        Ok((files, (summary, elapsed))) => {
            let reports = || files.iter().map(|f| read(dir, f).unwrap_or(Json::Null));
            reporting.deliver_with(summary.exit_code() as u8, |mut out| match reporting.output_format {
                OutputFormat::Text => write_text(&mut out, &summary, elapsed, reports()),
                OutputFormat::Json => combined::write_json(out, &summary, elapsed, reports()),
                OutputFormat::Junit => out.write_all(combined::junit(reports()).as_bytes()),
                OutputFormat::Html => {
                    crate::report::html::write_many(out, &combined::head(&summary, elapsed), reports)
                }
                OutputFormat::Github => {
                    let heading = format!("TissLang: {}", summary.counts_line(elapsed));
                    crate::report::github::write(out, &heading, "plan", reports())
                }
            })
        }
        Err(e) => {
            eprintln!("tissvm: collect: {e}");
            status::INVALID
        }
    }
}

/// The report files below `dir`, sorted (the order of the plans' paths).
fn files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), String> {
        let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot list `{}`: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| format!("cannot list `{}`: {e}", dir.display()))?.path();
            if path.is_dir() && !path.is_symlink() {
                walk(&path, found)?;
            } else if path.extension().is_some_and(|e| e == "json") {
                found.push(path);
            }
        }
        Ok(())
    }
    let mut found = Vec::new();
    walk(dir, &mut found)?;
    if found.is_empty() {
        return Err(format!(
            "`{}` holds no report: write them with `tissvm run PLAN... --report-dir {}`",
            dir.display(),
            dir.display()
        ));
    }
    found.sort();
    Ok(found)
}

/// One plan's report, with `plan` set if the file lacks it (its path below `dir`).
fn read(dir: &Path, file: &Path) -> Result<Json, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read `{}`: {e}", file.display()))?;
    let mut report: Json = serde_json::from_slice(&bytes)
        .map_err(|e| format!("`{}` is not a JSON report: {e}", file.display()))?;
    if !report["exit_code"].is_i64() {
        return Err(format!(
            "`{}` is not a plan's report (it has no `exit_code`): the directory should hold only what \
             `tissvm run --report-dir` wrote",
            file.display()
        ));
    }
    if report["plan"].is_null() {
        let name = file.strip_prefix(dir).unwrap_or(file).with_extension("");
        report["plan"] = Json::String(name.display().to_string());
    }
    Ok(report)
}

/// The counts and the plans' time added up, reading each report once;
/// an error names the file.
fn summarize(dir: &Path, files: &[PathBuf]) -> Result<(Summary, Duration), String> {
    let mut summary = Summary::default();
    let mut elapsed = Duration::ZERO;
    for file in files {
        let report = read(dir, file)?;
        summary.add(report["exit_code"].as_i64().unwrap_or(70) as i32);
        elapsed += Duration::from_millis(report["duration_ms"].as_u64().unwrap_or(0));
    }
    Ok((summary, elapsed))
}

/// A line per plan, the reports of those that did not pass, the counts
/// (their time is the plans' added up).
fn write_text(
    out: &mut impl Write,
    summary: &Summary,
    elapsed: Duration,
    reports: impl Iterator<Item = Json>,
) -> std::io::Result<()> {
    let style = color::stdout();
    let mut details = String::new();
    for report in reports {
        let plan_status = PlanStatus::from_exit_code(report["exit_code"].as_i64().unwrap_or(70) as i32);
        let plan = report["plan"].as_str().unwrap_or("?");
        let time = combined::seconds(Duration::from_millis(report["duration_ms"].as_u64().unwrap_or(0)));
        writeln!(
            out,
            "{} {time:>8}  {plan}",
            style.paint(plan_status.tone(), &format!("{:<8}", plan_status.label()))
        )?;
        if plan_status == PlanStatus::Passed {
            continue;
        }
        details
            .push_str(&format!("\n── {} {plan} ──\n", style.paint(plan_status.tone(), plan_status.label())));
        if report["failure"].is_object() {
            details.push_str(&combined::failure_text(&report["failure"]));
        }
        // A plan that did not compile: each diagnostic, as `tissc check` would place it.
        for diagnostic in report["diagnostics"].as_array().into_iter().flatten() {
            details.push_str(&diagnostic_line(diagnostic));
        }
        if let Some(error) = report["error"].as_str() {
            details.push_str(&format!("{error}\n"));
        }
        if let Some(snapshot) = report["snapshot"].as_str() {
            details.push_str(&format!("suspended; snapshot: {snapshot}\n"));
        }
    }
    if !details.is_empty() {
        writeln!(out, "{details}")?;
    }
    writeln!(out, "{}", summary.counts_line(elapsed))?;
    out.flush()
}

/// One compiler diagnostic of a report (`--error-format json`'s object)
/// on a line: `FILE:LINE:COLUMN: SEVERITY[CODE]: MESSAGE`.
fn diagnostic_line(diagnostic: &Json) -> String {
    let text = |key: &str| diagnostic[key].as_str().unwrap_or("?").to_string();
    let number = |key: &str| diagnostic[key].as_u64().map_or("?".to_string(), |n| n.to_string());
    format!(
        "{}:{}:{}: {}[{}]: {}\n",
        text("file"),
        number("line"),
        number("column"),
        text("severity"),
        text("code"),
        text("message")
    )
}

/// How many reports `dir` holds.
pub fn count(dir: &Path) -> usize {
    files(dir).map_or(0, |found| found.len())
}
