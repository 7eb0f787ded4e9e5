//! What the end-to-end tests of `tissvm` share: running the binary and
//! reading what it did. Each test file keeps its own fixture (where the plan
//! and the workspace live) and uses only part of this module.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value as Json;

/// What one `tissvm` invocation did.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Stdout as the one JSON object it must be.
    pub fn json(&self) -> Json {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!("stdout is not one JSON object ({e}):\n{}\nstderr:\n{}", self.stdout, self.stderr)
        })
    }

    #[track_caller]
    pub fn expect(&self, code: i32) -> &Run {
        assert_eq!(self.code, Some(code), "exit status\nstdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        self
    }
}

/// Runs the built `tissvm` in `cwd` with `args` and extra environment `env`,
/// stdin from /dev/null (so it is never a terminal).
pub fn tissvm(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tissvm"));
    command.args(args).current_dir(cwd).stdin(Stdio::null()).env_remove("NO_COLOR");
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().expect("run tissvm");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Every entry below `dir`, recursively, as sorted relative paths.
pub fn listing(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            out.push(path.strip_prefix(base).unwrap().to_string_lossy().into_owned());
            if path.is_dir() && !path.is_symlink() {
                walk(&path, base, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}
