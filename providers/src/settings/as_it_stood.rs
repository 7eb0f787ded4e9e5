//! Settings files read as they stood before a run still going on began:
//! another tissvm's plan may have changed them since, and that run puts
//! them back when it ends (tissvm's `project_file.rs` finds them as it
//! starts). Without this, a run started meanwhile would read the plan's
//! `tiss.toml`: its provider, its command policy.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Files to read as they stood before a run still going on began, whose
/// plan may have changed them since (set by tissvm as it starts, and by a
/// debug adapter's launch: `project_file.rs`): each one's absolute path,
/// its bytes then (`None`: there was none), and what to say when it is
/// read so.
static AS_IT_STOOD: Mutex<Vec<StoodFile>> = Mutex::new(Vec::new());

/// A file as it stood, for [`read_as_it_stood`].
pub struct StoodFile {
    pub path: PathBuf,
    pub bytes: Option<Vec<u8>>,
    pub note: String,
    told: bool,
}

impl StoodFile {
    pub fn new(path: PathBuf, bytes: Option<Vec<u8>>, note: String) -> StoodFile {
        StoodFile { path, bytes, note, told: false }
    }
}

/// From now on, [`read_settings_file`](super::read_settings_file) and
/// tissvm's answers read `files` as they stood (and no others).
pub fn read_as_it_stood(files: Vec<StoodFile>) {
    *AS_IT_STOOD.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = files;
}

/// The bytes at `path` as they stood before a run going on could change
/// them, if one could (`Some(None)`: there was no file); stderr says so,
/// once a file.
pub fn as_it_stood(path: &Path) -> Option<Option<Vec<u8>>> {
    let mut files = AS_IT_STOOD.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if files.is_empty() {
        return None;
    }
    // The records name a file by its directory as resolved, or as given.
    let resolved = path.parent().and_then(|dir| {
        let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
        Some(std::fs::canonicalize(dir).ok()?.join(path.file_name()?))
    });
    let given = std::path::absolute(path).ok();
    let stood = files
        .iter_mut()
        .find(|file| Some(&file.path) == resolved.as_ref() || Some(&file.path) == given.as_ref())?;
    if !std::mem::replace(&mut stood.told, true) {
        eprintln!("tissvm: {}", stood.note);
    }
    Some(stood.bytes.clone())
}
