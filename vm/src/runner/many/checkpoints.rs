//! Each plan's checkpoint in the report directory (`--checkpoint`, see
//! `runner/execute/checkpoint.rs`): `DIR/<plan path>.snapshots/
//! checkpoint.snap`, kept by the plan's `tissvm` before each effect. A plan
//! that left no report — its `tissvm`, and this one, were killed outright —
//! is resumed from it by `--continue-from-reports`, after it is renamed
//! `killed.snap`: the resumed run keeps a new checkpoint under the old
//! name, and if it is killed before its first one, `killed.snap` is still
//! there to resume from again. Both go once the plan has a report, and
//! the directory with them if nothing else is in it.

use std::path::{Path, PathBuf};

use super::plans::with_suffix;

/// Where plan `key`'s `tissvm` keeps its checkpoint.
pub fn path(report_dir: &Path, key: &Path) -> PathBuf {
    snapshots(report_dir, key).join("checkpoint.snap")
}

/// Where plan `key`'s checkpoint goes when it is resumed from.
pub fn killed_path(report_dir: &Path, key: &Path) -> PathBuf {
    snapshots(report_dir, key).join("killed.snap")
}

/// Whether plan `key` left a checkpoint (nothing is changed).
pub fn left(report_dir: &Path, key: &Path) -> bool {
    path(report_dir, key).is_file() || killed_path(report_dir, key).is_file()
}

/// The checkpoint to resume plan `key` from, if it left one: the newest.
pub fn killed(report_dir: &Path, key: &Path) -> Option<PathBuf> {
    let killed = killed_path(report_dir, key);
    let checkpoint = path(report_dir, key);
    if checkpoint.is_file() {
        std::fs::rename(&checkpoint, &killed).ok()?;
    }
    killed.is_file().then_some(killed)
}

/// Removes plan `key`'s checkpoints: its report says how it went on. Their
/// directory goes too unless it holds more (a suspended plan's snapshot):
/// a plan that ended without one leaves no empty `.snapshots/` behind.
pub fn clear(report_dir: &Path, key: &Path) {
    let dir = snapshots(report_dir, key);
    for name in ["checkpoint.snap", "killed.snap"] {
        let _ = std::fs::remove_file(dir.join(name));
    }
    // Fails, and so keeps it, when it is not empty.
    let _ = std::fs::remove_dir(&dir);
}

fn snapshots(report_dir: &Path, key: &Path) -> PathBuf {
    report_dir.join(with_suffix(key, ".snapshots"))
}
