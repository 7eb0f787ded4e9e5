//! A tool's plan, given as text or as a path under the workspace root, and
//! the other paths a tool takes (a journal, a workspace): each resolved and
//! refused when it leaves the root, before anything reads it.

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use super::RpcError;

/// A plan to work on: its file (the one given, or a scratch copy of the
/// text), and its text.
pub struct Plan {
    pub path: PathBuf,
    pub text: String,
    /// Holds the scratch copy of a plan given as text.
    _scratch: Option<tempfile::TempDir>,
}

/// `path` under `root`: relative (to the root) or absolute, never outside
/// it, even through a symbolic link. `what` names it in the error.
pub fn under_root(root: &Path, path: &str, what: &str) -> Result<PathBuf, RpcError> {
    let given = Path::new(path);
    if given.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(RpcError::params(format!(
            "the {what} `{path}` has `..` in it: paths stay under the workspace root"
        )));
    }
    let joined = if given.is_absolute() { given.to_path_buf() } else { root.join(given) };
    let resolved = std::fs::canonicalize(&joined)
        .map_err(|e| RpcError::params(format!("the {what} `{path}` cannot be read: {e}")))?;
    if !resolved.starts_with(root) {
        return Err(RpcError::params(format!(
            "the {what} `{path}` is outside the workspace root `{}`",
            root.display()
        )));
    }
    Ok(resolved)
}

/// The plan of a tool call: `plan` (the text) or `path` (under the root),
/// exactly one of them.
pub fn plan(root: &Path, arguments: &Value) -> Result<Plan, RpcError> {
    match (arguments["plan"].as_str(), arguments["path"].as_str()) {
        (Some(text), None) => {
            let scratch =
                tempfile::tempdir().map_err(|e| RpcError::params(format!("no scratch directory: {e}")))?;
            let path = scratch.path().join("plan.tiss");
            std::fs::write(&path, text)
                .map_err(|e| RpcError::params(format!("cannot keep the plan: {e}")))?;
            Ok(Plan { path, text: text.to_string(), _scratch: Some(scratch) })
        }
        (None, Some(path)) => {
            let resolved = under_root(root, path, "plan")?;
            let text = std::fs::read(&resolved)
                .map_err(|e| RpcError::params(format!("the plan `{path}` cannot be read: {e}")))?;
            let text = String::from_utf8_lossy(&text).into_owned();
            Ok(Plan { path: resolved, text, _scratch: None })
        }
        (Some(_), Some(_)) => Err(RpcError::params("give the plan as `plan` (its text) or `path`, not both")),
        (None, None) => {
            Err(RpcError::params("a plan is needed: `plan` (its text) or `path` (under the workspace root)"))
        }
    }
}
