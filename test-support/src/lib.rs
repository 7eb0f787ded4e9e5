//! What the integration tests of the workspace's binaries share: the built
//! binary run hermetically in a directory ([`command`], [`tissc`]), what it
//! did ([`Run`], or [`stdout`] and [`stderr`] of an `Output`), and temporary
//! workspaces ([`workspace`], [`listing`]); the book's command-line reference
//! of a binary held to its definition ([`cli_reference`]); a binary's hot
//! functions linked first ([`hot_text`]); a binary's peak memory and time
//! as the kernel counts them for it alone ([`measured`]); and the servers the
//! provider tests talk to: a scripted HTTP server on loopback ([`loopback`])
//! and a real llama.cpp server ([`llm_server`]).
//!
//! A test crate's `env!("CARGO_BIN_EXE_…")` names its own package's binaries
//! only at its own compile time, so this crate finds a binary where Cargo
//! puts it: beside the `deps/` directory that holds the test executable.
//! Cargo builds a package's binaries before running its integration tests.

pub mod cli_reference;
pub mod docs;
pub mod hot_text;
pub mod llm_server;
pub mod loopback;
pub mod measured;
pub mod skip;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value as Json;

/// The path of the workspace binary `name` built for this test run.
pub fn binary(name: &str) -> PathBuf {
    let test = std::env::current_exe().expect("the test's own path");
    let mut dir = test.parent().expect("the test's directory").to_path_buf();
    if dir.ends_with("deps") {
        dir.pop();
    }
    let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(path.is_file(), "{} is not built (it is a binary of the package under test?)", path.display());
    path
}

/// The built binary `name` with `args`, in `dir`, stdin from /dev/null (so
/// it is never a terminal), without `NO_COLOR` nor any of the caller's
/// `TISS_*` settings or `OPENAI_API_KEY`: what a test sees does not depend
/// on who runs it. A test adds its own environment to the command.
pub fn command(name: &str, dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(binary(name));
    command.args(args).current_dir(dir).stdin(Stdio::null()).env_remove("NO_COLOR");
    for (var, _) in std::env::vars_os() {
        if var.to_str().is_some_and(|v| v.starts_with("TISS_") || v == "OPENAI_API_KEY") {
            command.env_remove(var);
        }
    }
    command
}

/// `tissc ARGS` in `dir` ([`command`]), run to its end.
pub fn tissc(dir: &Path, args: &[&str]) -> Output {
    command("tissc", dir, args).output().expect("run tissc")
}

/// Runs `command` to its end with `stdin` as its input. A program that
/// exits before reading it (a usage error) may have closed the pipe: not a
/// failure of the test.
pub fn output_with_stdin(mut command: Command, stdin: &str) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start it");
    if let Err(e) = child.stdin.take().expect("stdin").write_all(stdin.as_bytes()) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
    }
    child.wait_with_output().expect("wait for it")
}

/// Bytes a program printed, as the UTF-8 text they must be.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

/// The stdout of `o`, as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

/// The stderr of `o`, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

/// What one invocation did, its output as (lossy) text.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        Run {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl Run {
    /// Stdout as the one JSON object it must be.
    pub fn json(&self) -> Json {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!("stdout is not one JSON object ({e}):\n{}\nstderr:\n{}", self.stdout, self.stderr)
        })
    }

    /// Asserts the exit status, showing both outputs when it differs.
    #[track_caller]
    pub fn expect(&self, code: i32) -> &Run {
        assert_eq!(self.code, Some(code), "exit status\nstdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        self
    }
}

/// A temporary directory holding `files` (name, content), their parent
/// directories made as needed; removed when dropped.
pub fn workspace(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, content) in files {
        let path = dir.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(path, content).expect("write a file");
    }
    dir
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

/// The help of the built binary `name` and of each of its `subcommands`:
/// `-h` is a summary that fits a screen (at most 60 lines), `--help` keeps
/// at least as much, and neither cites the specification, which a user of
/// the tool does not have (issue 32).
pub fn assert_help_fits_and_cites_no_spec(name: &str, subcommands: &[&str]) {
    for sub in subcommands.iter().map(|s| vec![*s]).chain([vec![]]) {
        let help = |flag: &str| {
            let out =
                command(name, Path::new("."), &[sub.as_slice(), &[flag]].concat()).output().expect("run it");
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let (short, long) = (help("-h"), help("--help"));
        let shown = format!("{name} {}", sub.join(" "));
        assert!(short.lines().count() <= 60, "`{shown} -h` has {} lines:\n{short}", short.lines().count());
        assert!(long.lines().count() >= short.lines().count(), "`{shown} --help` is shorter than -h");
        for text in [&short, &long] {
            assert!(!text.contains("SPEC"), "`{shown}` help cites the spec:\n{text}");
        }
    }
}
