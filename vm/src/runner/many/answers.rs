//! `--answers FILE` with many plans (book: guide/many-plans.md): an entry may name its plan
//! (`"plan": "path"`), and each plan's own `tissvm` takes the entries that
//! name it or none (`--answers-plan`, hidden; `session::answers::for_plan`).
//! Here the file is read once before anything starts, so that an entry
//! naming no plan of the run is refused at once; and the plans that wait for
//! an answer are told, for the command that goes on to answer them.

use std::path::{Path, PathBuf};

use tiss_support::io_message::io_message;

use crate::machine::{Status, Suspension};
use serde_json::{Value as Json, json};

use crate::session::answers::{self, expected_answers};
use crate::session::snapshot;

/// Checks the answers file `file` against the run's `plans`: it parses, and
/// every plan an entry names is one of them.
pub fn check(file: &Path, plans: &[PathBuf]) -> Result<(), String> {
    let name = file.display().to_string();
    let bytes =
        std::fs::read(file).map_err(|e| format!("--answers {name}: cannot read it: {}", io_message(&e)))?;
    let entries = answers::parse_file(&bytes, &name).map_err(|e| format!("--answers {e}"))?;
    for entry in &entries {
        let Some(named) = &entry.plan else { continue };
        if !plans.iter().any(|plan| answers::same_file(named, plan)) {
            let listed: Vec<String> = plans.iter().take(3).map(|p| format!("`{}`", p.display())).collect();
            return Err(format!(
                "--answers {}: `plan` names `{}`, which is not a plan of this run; name one as the run lists \
                 it ({}{})",
                entry.reply.origin,
                named.display(),
                listed.join(", "),
                if plans.len() > 3 { ", …" } else { "" }
            ));
        }
    }
    Ok(())
}

/// The entry of an answers file that would answer, for `plan`, the
/// interaction the snapshot at `snapshot` waits for (its `answer` lists the
/// choices: `approve|reject`); `None` if it waits for none (it was
/// interrupted) or cannot be read (its resume says why).
pub fn wanted(plan: &Path, snapshot: &Path) -> Option<Json> {
    let bytes = snapshot::read(snapshot).ok()?;
    let snap = snapshot::read_snapshot(&bytes).ok()?;
    let Status::Suspended(Suspension::Interaction { question, line }) = &snap.machine.status else {
        return None;
    };
    Some(json!({"plan": plan.display().to_string(), "line": line, "answer": expected_answers(question)}))
}
