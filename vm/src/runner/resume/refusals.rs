//! Why a snapshot is not resumed, and what to do instead, in words: a
//! file that is not one, a workspace that cannot be used, a snapshot
//! another process is resuming, one resumed before.

use std::ffi::OsString;
use std::path::Path;

use tiss_support::shell::quote::shell_word;

use crate::session::snapshot::{Continuation, NotSnapshot, SnapshotError};
use crate::session::workspace_claim::{self, Basis, Refusal};

/// Why the file `name`, of `bytes`, is refused as a snapshot: a plan's
/// source (text with a `TASK`) is named as one, with the command that runs
/// it, as `tissvm run` names the command that resumes a snapshot.
pub fn not_a_snapshot(name: &str, bytes: &[u8], error: SnapshotError) -> String {
    let is_plan = |text: &str| text.lines().any(|l| l.trim_start().starts_with("TASK"));
    match error {
        SnapshotError::NotSnapshot(NotSnapshot::Other) if std::str::from_utf8(bytes).is_ok_and(is_plan) => {
            format!("`{name}` is a plan, not a snapshot; run it with `tissvm run {}`", shell_word(name))
        }
        error => format!("{name}: {error}"),
    }
}

/// Why the workspace cannot be used, and the command that resumes the
/// snapshot with `--workdir`: the one given, with the snapshot's own
/// workspace if that would do, else `DIR` to fill in.
pub fn refused_workspace(
    name: &str,
    claim: &Path,
    refusal: &Refusal,
    home: Option<&Path>,
    arguments: &[OsString],
) -> String {
    let mut text = format!("`{name}`: {refusal}");
    if matches!(
        refusal,
        Refusal::NotADirectory { basis: Basis::Given, .. } | Refusal::System { basis: Basis::Given, .. }
    ) {
        return text;
    }
    let usable =
        claim.is_absolute() && workspace_claim::choose(Some(claim), claim, Ok(()), home, false).is_ok();
    let dir = if usable { shell_word(&claim.display().to_string()) } else { "DIR".to_string() };
    let given: Vec<String> = arguments.iter().map(|arg| shell_word(&arg.to_string_lossy())).collect();
    text.push_str(&format!(":\n  tissvm {} --workdir {dir}", given.join(" ")));
    if !usable {
        text.push_str("\nwith DIR a directory of your own for the run's files");
    }
    text
}

/// Why a snapshot that another process is resuming is refused, and what to
/// do instead.
pub fn being_resumed(name: &str, lock: &Path, pid: Option<u32>) -> String {
    let (holder, stop) = match pid {
        Some(pid) => (format!("another tissvm (pid {pid})"), format!("; `kill -TERM {pid}` suspends it")),
        None => ("another tissvm".to_string(), String::new()),
    };
    format!(
        "`{name}` is being resumed right now by {holder}, which holds its lock `{}`; two resumes of one \
         snapshot would both run the effects after it, so only one runs at a time, --force or not. Wait for it \
         to end{stop}",
        lock.display()
    )
}

/// Why a snapshot resumed before is refused, and what to do instead.
pub fn resumed_before(name: &str, continuation: &Continuation) -> String {
    let advice = match continuation {
        Continuation::Snapshot(next) => {
            format!("Continue from there: `tissvm resume {}`", shell_word(&next.display().to_string()))
        }
        Continuation::Ended(_) => "There is nothing left to continue".to_string(),
        Continuation::Started => {
            "If it is not running, the effects after the snapshot may have happened in part: check the \
             workspace"
                .to_string()
        }
    };
    format!(
        "`{name}` was resumed before, and that run {continuation}; resuming it again would run the effects \
         after it twice. {advice}; or pass --force to resume it anyway"
    )
}
