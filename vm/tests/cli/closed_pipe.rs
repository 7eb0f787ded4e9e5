//! A closed pipe (`tissvm run plan.tiss | head -1`) ends nothing badly
//! (issue 30, item 1): the lines after it are dropped, the run goes on to
//! its end and its own exit status, and nothing is said on stderr — for a
//! run, a resume and a run of many plans.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use crate::common::Fixture;

/// Reads one line of `tissvm ARGS`'s stdout, closes the pipe, and returns
/// the exit status and stderr.
fn first_line_only(fx: &Fixture, args: &[&str]) -> (Option<i32>, String, String) {
    let mut child = crate::common::command()
        .args(args)
        .current_dir(fx.path(""))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    // The reader is dropped here: the pipe is closed.
    let out = child.wait_with_output().unwrap();
    (out.status.code(), first, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn steps(n: usize) -> String {
    let mut plan = String::from("TASK \"many lines\"\n");
    for i in 0..n {
        plan.push_str(&format!(
            "STEP \"s{i}\" {{\n    LOG \"line {i}\"\n    WRITE \"f{i}\" FROM \"x\"\n}}\n"
        ));
    }
    plan
}

#[test]
fn a_closed_pipe_drops_the_lines_and_the_run_goes_on() {
    let fx = Fixture::new();
    let plan = fx.write_plan(&steps(300));
    let ws = fx.ws();
    let (code, first, stderr) = first_line_only(&fx, &["run", &plan, "--workdir", ws.to_str().unwrap()]);
    assert_eq!(first, "  LOG line 0\n");
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr, "");
    assert!(ws.join("f299").is_file(), "the run went on to its end");

    // Many plans: the same.
    let dir = fx.path("plans");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..4 {
        std::fs::write(dir.join(format!("p{i}.tiss")), steps(3)).unwrap();
    }
    let (code, _, stderr) = first_line_only(&fx, &["run", dir.to_str().unwrap(), "-j", "2"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr, "");
}
