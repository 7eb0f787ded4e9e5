//! What the end-to-end tests of `tissvm` share: a fixture (a temporary
//! directory with the plan and a workspace `ws/` in it), running the binary
//! and reading what it did. The tests are grouped into one binary per
//! concern (`cli/`, `run/`, `suspend/`, ...; each file a module of it); a
//! binary adds its own methods to `Fixture` once, where it needs more
//! (`suspend/fixture.rs`), and uses only part of this module.
//!
//! Every `tissvm` a test starts signs and checks snapshots with the tests'
//! own key ([`key_file`], through `TISS_SNAPSHOT_KEY_FILE`), never the
//! user's in `~/.config`: start it with [`command`], or give a shell that
//! runs it that variable.
#![allow(dead_code)]

pub mod marker;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub use tiss_test_support::Run;
use tiss_vm::session::snapshot_key::KEY_FILE_VAR;

/// A temporary directory holding `plan.tiss` and the workspace `ws/`;
/// removed when dropped.
pub struct Fixture {
    pub root: tempfile::TempDir,
}

impl Fixture {
    pub fn new() -> Fixture {
        let root = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(root.path().join("ws")).unwrap();
        Fixture { root }
    }

    pub fn ws(&self) -> PathBuf {
        self.root.path().join("ws")
    }

    /// A path beside the workspace.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.path().join(rel)
    }

    /// Writes `plan.tiss` and returns its path.
    pub fn write_plan(&self, plan: &str) -> String {
        let path = self.path("plan.tiss");
        std::fs::write(&path, plan).unwrap();
        path.to_str().unwrap().to_string()
    }

    /// `tissvm ARGS` from the fixture's directory.
    pub fn tissvm(&self, args: &[&str]) -> Run {
        tissvm(self.root.path(), args, &[])
    }

    /// `tissvm run plan.tiss --workdir ws ARGS` with `plan` as the plan.
    pub fn run(&self, plan: &str, args: &[&str]) -> Run {
        self.run_env(plan, args, &[])
    }

    /// The same with extra environment.
    pub fn run_env(&self, plan: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
        let plan = self.write_plan(plan);
        let ws = self.ws();
        tissvm(self.root.path(), &[&["run", &plan, "--workdir", ws.to_str().unwrap()], args].concat(), env)
    }
}

/// The snapshot key of the tests' `tissvm`s: one for the whole build, in
/// Cargo's scratch directory for tests (made by the first snapshot), so
/// what one command of a test writes is its own snapshot to the next.
pub fn key_file() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("snapshot-key").join("snapshot.key")
}

/// The built `tissvm`, with the tests' snapshot key.
pub fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tissvm"));
    command.env(KEY_FILE_VAR, key_file());
    command
}

/// The built `tissvm` in `cwd` with `args` and extra environment `env`
/// (which may name another key), run hermetically
/// ([`tiss_test_support::command`]: stdin from /dev/null, none of the
/// caller's `TISS_*` settings) with the tests' snapshot key.
fn prepared(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = tiss_test_support::command("tissvm", cwd, args);
    command.env(KEY_FILE_VAR, key_file());
    for (name, value) in env {
        command.env(name, value);
    }
    command
}

/// Runs [`prepared`]'s `tissvm` to its end.
pub fn tissvm(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    prepared(cwd, args, env).output().expect("run tissvm").into()
}

/// Starts [`prepared`]'s `tissvm` with its stdout and stderr piped, for a
/// test that acts while it runs (`wait_with_output` reads them).
pub fn start(cwd: &Path, args: &[&str]) -> std::process::Child {
    prepared(cwd, args, &[]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("start tissvm")
}

/// Whether a run under `strict` was refused because this machine cannot
/// enforce it (exit 5): the test then skips, loudly, and fails under
/// `CI=true`, where every profile must run.
pub fn strict_refused(code: Option<i32>, stderr: &str) -> bool {
    if code != Some(5) {
        return false;
    }
    let message = format!("the strict profile is refused on this machine: {}", stderr.trim());
    tiss_test_support::skip::cannot(&message);
    true
}
