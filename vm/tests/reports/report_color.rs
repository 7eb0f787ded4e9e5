//! Colour in `tissvm`'s human output (book: cli/tissvm.md: "Human output is coloured on
//! a terminal (`--color auto|always|never`; `NO_COLOR` is honoured)"),
//! through the real binary, on pipes and on a pseudo-terminal: step results,
//! the failure report's headline and warnings are coloured; JSON and JUnit
//! never are, nor anything written to a pipe under `auto`.

use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;
use std::process::Stdio;

use crate::common::Fixture;

const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[1;31m";
const YELLOW: &str = "\x1b[33m";
const RESET: &str = "\x1b[0m";

/// Whether `text` holds a colour escape (SGR: `ESC [ ... m`). The live
/// progress line's `ESC [ 2K` (clear the line) is not colour.
fn coloured(text: &str) -> bool {
    text.split("\x1b[").skip(1).any(|rest| {
        let params = rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == ';');
        params.starts_with('m')
    })
}

impl Fixture {
    /// `tissvm run PLAN --workdir ws ARGS` with stdout and stderr on one pseudo-terminal.
    fn run_on_terminal(&self, plan: &str, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
        let plan = self.write_plan(plan);
        let ws = self.ws();
        on_terminal(
            self.root.path(),
            &[&["run", &plan, "--workdir", ws.to_str().unwrap()], args].concat(),
            env,
        )
    }
}

/// Runs `tissvm ARGS` with stdout and stderr on a new pseudo-terminal (stdin
/// from /dev/null); returns its exit status and what it wrote there.
fn on_terminal(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let (mut master, mut slave) = (0, 0);
    // SAFETY: two valid out-pointers; no name, terminal settings or size.
    let r = unsafe {
        libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), std::ptr::null())
    };
    assert_eq!(r, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: openpty returned two fresh descriptors that nothing else owns.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut command = crate::common::command();
    command
        .args(args)
        .current_dir(cwd)
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave));
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command.spawn().expect("run tissvm");
    // The terminal ends (EIO) once no one holds its other side open.
    drop(command);
    let mut terminal = std::fs::File::from(master);
    let mut out = Vec::new();
    let mut buf = [0; 4096];
    loop {
        match terminal.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.raw_os_error() == Some(libc::EIO) => break,
            Err(e) => panic!("reading the terminal: {e}"),
        }
    }
    let status = child.wait().expect("tissvm ends");
    (status.code(), String::from_utf8_lossy(&out).replace("\r\n", "\n"))
}

const FAILING: &str = r#"TASK "colours"
STEP "good" {
    LOG "fine"
}
STEP "bad" {
    RUN "exit 3"
    ASSERT LAST_RUN.EXIT_CODE == 0
}
"#;

const WARNING: &str = r#"TASK "warned"
STEP "maybe" {
    RUN "true"
    VAR again = FALSE
    IF again {
        RUN "true"
    }
}
"#;

#[test]
fn color_always_colours_step_results_and_the_failure_headline() {
    let fx = Fixture::new();
    let run = fx.run(FAILING, &["--color", "always"]);
    run.expect(1);
    let out = &run.stdout;
    assert!(out.contains(&format!("{GREEN}✓ good{RESET}  (")), "{out:?}");
    assert!(out.contains(&format!("{RED}✗ bad{RESET}  (")), "{out:?}");
    assert!(out.contains(&format!("{RED}failed{RESET}: colours\n")), "{out:?}");
    assert!(
        out.contains(&format!("  {RED}assertion_failed{RESET}: `LAST_RUN.EXIT_CODE == 0` is false\n")),
        "{out:?}"
    );
    // The rest stays plain, so it reads the same without colour.
    assert!(out.contains("  LOG fine\n") && out.contains("  in step: bad\n"), "{out:?}");

    let passing = fx.run("TASK \"ok\"\nSTEP \"s\" {\n    LOG \"x\"\n}\n", &["--color", "always"]);
    passing.expect(0);
    assert!(passing.stdout.contains(&format!("{GREEN}passed{RESET}: ok\n")), "{:?}", passing.stdout);
}

#[test]
fn color_always_colours_warnings() {
    let fx = Fixture::new();
    let run = fx.run(WARNING, &["--color", "always", "--budget", "RUN_COUNT=1"]);
    run.expect(0);
    assert!(
        run.stdout.contains(&format!("  {YELLOW}warning{RESET}: step \"maybe\" may need up to")),
        "{:?}",
        run.stdout
    );
}

#[test]
fn json_and_junit_are_never_coloured() {
    let fx = Fixture::new();
    for format in ["json", "junit"] {
        let run = fx.run(FAILING, &["--color", "always", "--output-format", format]);
        run.expect(1);
        assert!(!coloured(&run.stdout), "{format} on stdout: {:?}", run.stdout);
        // The human messages beside it, on stderr, are.
        assert!(
            run.stderr.contains(&format!("{RED}assertion_failed{RESET}: ")),
            "{format}: {:?}",
            run.stderr
        );
        assert!(run.stderr.contains(&format!("{RED}✗ bad{RESET}")), "{format}: {:?}", run.stderr);
    }
}

#[test]
fn auto_and_never_colour_nothing_on_a_pipe() {
    let fx = Fixture::new();
    for args in [&[][..], &["--color", "auto"], &["--color", "never"], &["--output-format", "json"]] {
        let run = fx.run(FAILING, args);
        run.expect(1);
        assert!(!coloured(&run.stdout) && !coloured(&run.stderr), "{args:?}: {run:?}");
    }
}

#[test]
fn auto_colours_a_terminal_unless_no_color_is_set() {
    let fx = Fixture::new();
    let (code, out) = fx.run_on_terminal(FAILING, &[], &[]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains(&format!("{GREEN}✓ good{RESET}")), "{out:?}");
    assert!(out.contains(&format!("{RED}assertion_failed{RESET}")), "{out:?}");

    let (code, out) = fx.run_on_terminal(FAILING, &[], &[("NO_COLOR", "1")]);
    assert_eq!(code, Some(1), "{out}");
    assert!(!coloured(&out), "NO_COLOR: {out:?}");
    assert!(out.contains("✓ good  ("), "{out:?}");

    let (_, out) = fx.run_on_terminal(FAILING, &["--color", "never"], &[]);
    assert!(!coloured(&out), "--color never: {out:?}");

    // An explicit --color always wins over NO_COLOR (https://no-color.org).
    let (_, out) = fx.run_on_terminal(FAILING, &["--color", "always"], &[("NO_COLOR", "1")]);
    assert!(coloured(&out), "{out:?}");
}

#[test]
fn json_on_a_terminal_is_still_plain() {
    let fx = Fixture::new();
    let (code, out) = fx.run_on_terminal(FAILING, &["--output-format", "json"], &[]);
    assert_eq!(code, Some(1), "{out}");
    let json = &out[out.find("\n{").expect("the JSON report") + 1..];
    assert!(!coloured(json), "{json:?}");
    serde_json::from_str::<serde_json::Value>(json.trim_end()).expect("one JSON object");
}

#[test]
fn resume_colours_like_run() {
    let fx = Fixture::new();
    let plan = "TASK \"wait\"\nSTEP \"ask\" {\n    PAUSE \"look\"\n}\n";
    let run = fx.run(plan, &["--non-interactive", "--output-format", "json"]);
    run.expect(3);
    let snap = run.json()["snapshot"].as_str().unwrap().to_string();
    let done = crate::common::tissvm(
        fx.root.path(),
        &["resume", &snap, "--answer", "continue", "--color", "always"],
        &[],
    );
    done.expect(0);
    assert!(done.stdout.contains(&format!("{GREEN}✓ ask{RESET}")), "{:?}", done.stdout);
    assert!(done.stdout.contains(&format!("{GREEN}passed{RESET}: wait")), "{:?}", done.stdout);
}

#[test]
fn debug_colours_its_step_lines_but_not_its_transcript() {
    let fx = Fixture::new();
    let plan = fx.write_plan(FAILING);
    let ws = fx.path("ws");
    let mut child = crate::common::command()
        .args(["debug", &plan, "--workdir", ws.to_str().unwrap(), "--color", "always"])
        .current_dir(fx.root.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"continue\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(stderr.contains(&format!("{GREEN}✓ good{RESET}")), "{stderr:?}");
    assert!(!coloured(&stdout), "the transcript stays the same on every run: {stdout:?}");
}

#[test]
fn inspect_and_estimate_colour_what_needs_attention() {
    let fx = Fixture::new();
    let plan = fx.write_plan("TASK \"t\"\nSTEP \"s\" {\n    RUN \"curl https://example.com\"\n}\n");
    let run = crate::common::tissvm(fx.root.path(), &["inspect", &plan, "--color", "always"], &[]);
    run.expect(0);
    assert!(run.stdout.contains(&format!("risk: {RED}high{RESET}\n")), "{:?}", run.stdout);
    assert!(run.stdout.contains(&format!("[{RED}high{RESET}]")), "{:?}", run.stdout);
    let plain = crate::common::tissvm(fx.root.path(), &["inspect", &plan], &[]);
    assert!(!coloured(&plain.stdout), "{:?}", plain.stdout);
    let json = crate::common::tissvm(
        fx.root.path(),
        &["inspect", &plan, "--output-format", "json", "--color", "always"],
        &[],
    );
    assert!(!coloured(&json.stdout), "{:?}", json.stdout);

    // A RUN without TIMEOUT is estimated by a built-in guess: a warning.
    let run = crate::common::tissvm(fx.root.path(), &["estimate", &plan, "--color", "always"], &[]);
    run.expect(0);
    assert!(
        run.stdout.contains(&format!("{YELLOW}built-in default (no TIMEOUT){RESET}")),
        "{:?}",
        run.stdout
    );
    let json = crate::common::tissvm(
        fx.root.path(),
        &["estimate", &plan, "--output-format", "json", "--color", "always"],
        &[],
    );
    assert!(!coloured(&json.stdout), "{:?}", json.stdout);
}
