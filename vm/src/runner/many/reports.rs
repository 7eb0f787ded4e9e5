//! The plans' JSON reports as a run of many keeps them: each with its
//! plan's path, or one made for a plan whose `tissvm` wrote none; and what
//! `--continue-from-reports` finds of an earlier attempt.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value as Json, json};

use super::checkpoints;
use super::plans::with_suffix;

/// What an earlier attempt left of a plan in the report directory.
pub enum Earlier {
    /// It ended, with this exit status, after this long: not run again.
    Final(i32, Duration),
    /// It was suspended: resumed from this snapshot.
    Suspended(PathBuf),
    /// It was killed outright, without a report: resumed from its checkpoint.
    Killed(PathBuf),
}

/// What `--continue-from-reports` finds of plan `key` in the report directory `dir`.
pub fn earlier(dir: &Path, key: &Path) -> Option<Earlier> {
    let Some(report) = std::fs::read(dir.join(with_suffix(key, ".json"))).ok() else {
        return checkpoints::killed(dir, key).map(Earlier::Killed);
    };
    let report: Json = serde_json::from_slice(&report).ok()?;
    // Its tissvm died without a report, and left a checkpoint.
    if report["checkpoint"].is_string()
        && let Some(checkpoint) = checkpoints::killed(dir, key)
    {
        return Some(Earlier::Killed(checkpoint));
    }
    let code = report["exit_code"].as_i64()? as i32;
    if code == 3 {
        return report["snapshot"].as_str().map(|s| Earlier::Suspended(PathBuf::from(s)));
    }
    Some(Earlier::Final(code, Duration::from_millis(report["duration_ms"].as_u64().unwrap_or(0))))
}

/// The JSON report in `bytes` with `plan` added, or, if there is none (the
/// plan's tissvm died), one that says so with its exit status and names the
/// `checkpoint` it left, which `--continue-from-reports` resumes it from.
pub fn report_from(bytes: Option<&[u8]>, plan: &str, code: i32, checkpoint: Option<&Path>) -> Json {
    let parsed = bytes.and_then(|bytes| serde_json::from_slice::<Json>(bytes).ok());
    match parsed {
        Some(Json::Object(mut report)) => {
            let mut with_plan = serde_json::Map::new();
            with_plan.insert("plan".into(), json!(plan));
            report.remove("plan");
            with_plan.extend(report);
            Json::Object(with_plan)
        }
        _ => json!({
            "plan": plan,
            "status": "error",
            "exit_code": code,
            "task": null,
            "duration_ms": 0,
            "steps": [],
            "failure": null,
            "snapshot": null,
            "error": match checkpoint {
                None => format!("tissvm ended with status {code} and wrote no report"),
                Some(checkpoint) => format!(
                    "tissvm ended with status {code} and wrote no report; --continue-from-reports resumes it \
                     from its checkpoint `{}`",
                    checkpoint.display()
                ),
            },
            "checkpoint": checkpoint.map(|c| c.display().to_string()),
        }),
    }
}
