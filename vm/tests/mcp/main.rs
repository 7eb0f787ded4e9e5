//! `tissvm mcp` (book: cookbook/agents.md) driven by a real MCP client: the official MCP
//! Python SDK (PyPI `mcp`, installed by `.ci/run`), in `client.py`. Without
//! python3 and the SDK the test fails when `CI=true` and is skipped,
//! loudly, elsewhere. The protocol's edge cases without a client are the
//! in-process tests of `vm/src/mcp/tests.rs`.

#[path = "../common/mod.rs"]
mod common;

mod check_speed;

use std::path::Path;
use std::process::Command;

fn sdk_available() -> bool {
    Command::new("python3").args(["-c", "import mcp.client.stdio"]).output().is_ok_and(|o| o.status.success())
}

const OK: &str = r#"TASK "ok"
STEP "Write" {
    RUN "echo hi"
    WRITE "out.txt" FROM "done"
}
"#;

#[test]
fn the_python_sdk_drives_every_tool_and_no_call_answers_a_gate() {
    if !sdk_available() {
        let why = "python3 with the `mcp` package drives tissvm mcp (.ci/run installs it: pip install mcp)";
        return tiss_test_support::skip::missing("MCP Python SDK", why);
    }
    let root = tempfile::tempdir().unwrap();
    let root = root.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("ws")).unwrap();
    std::fs::write(root.join("ok.tiss"), OK).unwrap();
    // A journal to replay, recorded by the CLI.
    let recorded = common::command()
        .args(["run", "ok.tiss", "--workdir", "ws", "--journal", "ok.journal"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(recorded.status.success(), "{}", String::from_utf8_lossy(&recorded.stderr));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let out = Command::new("python3")
        .arg(&script)
        .args([env!("CARGO_BIN_EXE_tissvm"), root.to_str().unwrap(), "ok.journal"])
        .env("TISS_SNAPSHOT_KEY_FILE", common::key_file())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("client.py: passed"),
        "client.py failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}
