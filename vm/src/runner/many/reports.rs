//! The plans' JSON reports as a run of many keeps them: each with its
//! plan's path, or one made for a plan whose `tissvm` wrote none; what
//! `--continue-from-reports` finds of an earlier attempt; and the plans an
//! earlier attempt left unfinished, which a run without it refuses to
//! start over unless told to (book: guide/many-plans.md).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value as Json, json};

use super::checkpoints;
use super::plans::{key, with_suffix};
use crate::session::resume_lock::{LockError, ResumeLock};

/// What an earlier attempt left of a plan in the report directory.
pub enum Earlier {
    /// It ended, with this exit status, after this long: not run again.
    Final(i32, Duration),
    /// It was suspended: resumed from this snapshot.
    Suspended(PathBuf),
    /// It was killed outright, without a report: resumed from its checkpoint.
    Killed(PathBuf),
    /// Another resume holds this snapshot now: left for a later continue.
    Busy(Busy),
}

/// A snapshot another resume holds.
pub struct Busy {
    pub snapshot: PathBuf,
    /// Its lock file, and the holder's pid if it wrote it.
    pub lock: PathBuf,
    pub pid: Option<u32>,
}

impl Busy {
    /// The report of a busy plan for this run's output (the report in the
    /// report directory stays as it is, for a later continue).
    pub fn report(&self, plan: &str) -> Json {
        let holder = self.pid.map_or_else(|| "another tissvm".to_string(), |pid| format!("tissvm pid {pid}"));
        json!({
            "plan": plan,
            "status": "busy",
            "exit_code": 3,
            "task": null,
            "duration_ms": 0,
            "steps": [],
            "failure": null,
            "snapshot": self.snapshot.display().to_string(),
            "error": format!(
                "`{}` is being resumed by {holder} (it holds `{}`); a later --continue-from-reports resumes \
                 this plan once that one has ended",
                self.snapshot.display(),
                self.lock.display()
            ),
        })
    }
}

/// Whether another process holds the resume lock of `snapshot`.
fn held(snapshot: &Path) -> Option<Busy> {
    match ResumeLock::take(snapshot) {
        Err(LockError::Held { path, pid }) => {
            Some(Busy { snapshot: snapshot.to_path_buf(), lock: path, pid })
        }
        // Free (the lock taken here is let go at once), or no lock to take:
        // the resume says why.
        _ => None,
    }
}

/// What `--continue-from-reports` finds of plan `key` in the report directory `dir`.
pub fn earlier(dir: &Path, key: &Path) -> Option<Earlier> {
    let Some(report) = std::fs::read(dir.join(with_suffix(key, ".json"))).ok() else {
        return killed(dir, key);
    };
    let report: Json = serde_json::from_slice(&report).ok()?;
    // Its tissvm died without a report, and left a checkpoint.
    if report["checkpoint"].is_string()
        && let Some(earlier) = killed(dir, key)
    {
        return Some(earlier);
    }
    let code = report["exit_code"].as_i64()? as i32;
    if code == 3 {
        let snapshot = PathBuf::from(report["snapshot"].as_str()?);
        return Some(held(&snapshot).map_or(Earlier::Suspended(snapshot), Earlier::Busy));
    }
    Some(Earlier::Final(code, Duration::from_millis(report["duration_ms"].as_u64().unwrap_or(0))))
}

/// Plan `key`'s checkpoint to resume from, unless a resume of it runs now
/// (whose own checkpoint is not to be taken from under it).
fn killed(dir: &Path, key: &Path) -> Option<Earlier> {
    if let Some(busy) = held(&checkpoints::killed_path(dir, key)) {
        return Some(Earlier::Busy(busy));
    }
    checkpoints::killed(dir, key).map(Earlier::Killed)
}

/// The plans of `plans` an earlier attempt left unfinished in the report
/// directory `dir` (suspended, or killed with a checkpoint), each with
/// what it is; nothing is changed.
pub fn unfinished(dir: &Path, plans: &[PathBuf]) -> Vec<String> {
    let mut found = Vec::new();
    for plan in plans {
        let key = key(plan);
        let report = std::fs::read(dir.join(with_suffix(&key, ".json")))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Json>(&bytes).ok());
        let suspended = report.as_ref().is_some_and(|r| r["exit_code"] == 3 && r["snapshot"].is_string());
        // A checkpoint counts unless a report says the plan ended.
        let killed =
            checkpoints::left(dir, &key) && report.as_ref().is_none_or(|r| r["checkpoint"].is_string());
        if suspended {
            found.push(format!("`{}` (suspended)", plan.display()));
        } else if killed {
            found.push(format!("`{}` (killed; its checkpoint is left)", plan.display()));
        }
    }
    found
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
