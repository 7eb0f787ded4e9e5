//! `tissvm collect DIR`: the JSON reports that `tissvm run --report-dir DIR`
//! wrote (one per plan, from any number of shards, machines or Slurm
//! tasks) merged into one report, as a run of all those plans would give
//! it: text, the combined JSON, or JUnit with one testsuite per plan.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use serde_json::Value as Json;
use tiss_vm::report::combined::{self, PlanStatus, Summary};
use tiss_vm::report::style::Tone;

use super::color;
use super::options::OutputFormat;
use super::options::ReportOptions;
use super::status;

#[derive(Args)]
pub struct CollectArgs {
    /// The report directory: every `*.json` file below it is one plan's report.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    #[command(flatten)]
    pub report: ReportOptions,
}

pub fn collect(args: &CollectArgs) -> u8 {
    collect_dir(&args.dir, args.report.output_format)
}

/// The reports below `dir` merged, in `format` on stdout; the exit status.
pub fn collect_dir(dir: &Path, format: OutputFormat) -> u8 {
    match files(dir).and_then(|files| summarize(dir, &files).map(|s| (files, s))) {
        Ok((files, (summary, elapsed))) => {
            let reports = files.iter().map(|f| read(dir, f).unwrap_or(Json::Null));
            let mut out = std::io::stdout().lock();
            let written = match format {
                OutputFormat::Text => write_text(&mut out, &summary, elapsed, reports),
                OutputFormat::Json => combined::write_json(&mut out, &summary, elapsed, reports),
                OutputFormat::Junit => {
                    out.write_all(combined::junit(reports).as_bytes()).and_then(|()| out.flush())
                }
                OutputFormat::Html => combined::html(&summary, elapsed, reports)
                    .and_then(|page| out.write_all(page.as_bytes()))
                    .and_then(|()| out.flush()),
            };
            match written {
                Ok(()) => summary.exit_code() as u8,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => summary.exit_code() as u8,
                Err(e) => {
                    eprintln!("tissvm: cannot write the report: {e}");
                    status::INTERNAL
                }
            }
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
        let tone = match plan_status {
            PlanStatus::Passed => Tone::Good,
            PlanStatus::Suspended => Tone::Warn,
            _ => Tone::Bad,
        };
        let plan = report["plan"].as_str().unwrap_or("?");
        let time = combined::seconds(Duration::from_millis(report["duration_ms"].as_u64().unwrap_or(0)));
        writeln!(out, "{} {time:>8}  {plan}", style.paint(tone, &format!("{:<8}", plan_status.label())))?;
        if plan_status == PlanStatus::Passed {
            continue;
        }
        details.push_str(&format!("\n── {} {plan} ──\n", style.paint(Tone::Bad, plan_status.label())));
        if report["failure"].is_object() {
            details.push_str(&combined::failure_text(&report["failure"]));
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

/// How many reports `dir` holds.
pub fn count(dir: &Path) -> usize {
    files(dir).map_or(0, |found| found.len())
}
