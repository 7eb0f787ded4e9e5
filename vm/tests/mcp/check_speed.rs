//! An MCP `check` of a 1,000-line plan returns within 1.2× the time of
//! `tissc check` on it (the bench of the book's cookbook/agents.md): the tool call's round trip on a
//! running server against the CLI's whole process, medians of 15 each,
//! interleaved so both see the same machine.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// `tissc`, built beside `tissvm` in the workspace's target directory.
fn tissc() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tissvm")).with_file_name("tissc")
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

#[test]
fn an_mcp_check_is_within_1_2_times_the_clis() {
    if !tissc().exists() {
        return tiss_test_support::skip::missing(
            "tissc",
            "it is not built beside tissvm (cargo build -p tiss-compiler)",
        );
    }
    let root = tempfile::tempdir().unwrap();
    let mut plan = String::from("TASK \"thousand\"\n");
    for step in 0..200 {
        plan.push_str(&format!(
            "STEP \"step {step}\" {{\n    RUN \"cc -O2 -o out{step} src{step}.c\" TIMEOUT 30s\n    ASSERT LAST_RUN.EXIT_CODE == 0\n    LOG \"built {step}\"\n}}\n"
        ));
    }
    assert!(plan.lines().count() >= 1_000);
    std::fs::write(root.path().join("plan.tiss"), &plan).unwrap();

    let mut server = crate::common::command()
        .args(["mcp", "--root", root.path().to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to = server.stdin.take().unwrap();
    let mut from = BufReader::new(server.stdout.take().unwrap());
    let mut call = |id: u64, method: &str, params: Value| -> Value {
        writeln!(to, "{}", json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
            .unwrap();
        let mut line = String::new();
        from.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    };
    call(
        1,
        "initialize",
        json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "b", "version": "1" } }),
    );
    let (mut mcp, mut cli) = (Vec::new(), Vec::new());
    for i in 0..15 {
        let started = Instant::now();
        let reply =
            call(2 + i, "tools/call", json!({ "name": "check", "arguments": { "path": "plan.tiss" } }));
        mcp.push(started.elapsed());
        assert_eq!(reply["result"]["structuredContent"]["errors"], 0, "{reply}");
        let started = Instant::now();
        let out =
            Command::new(tissc()).args(["check", "plan.tiss"]).current_dir(root.path()).output().unwrap();
        cli.push(started.elapsed());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    drop(to);
    let _ = server.wait();
    let (mcp, cli) = (median(mcp), median(cli));
    let ratio = mcp.as_secs_f64() / cli.as_secs_f64();
    println!(
        "MCP check of a {}-line plan: {mcp:?}; tissc check: {cli:?}; ratio {ratio:.2}",
        plan.lines().count()
    );
    assert!(ratio <= 1.2, "MCP check {mcp:?} against tissc check {cli:?}: {ratio:.2}x");
}
