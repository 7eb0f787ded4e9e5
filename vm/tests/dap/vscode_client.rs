//! The adapter driven by VS Code's own test client for debug adapters
//! (`@vscode/debugadapter-testsupport`'s `DebugClient`, from npm):
//! `editors/vscode/test/dap.test.js`. It needs node and npm (and the npm
//! registry or its cache for `npm ci`, when the extension's packages are not
//! installed yet): without them the test fails when `CI=true` and is
//! skipped, loudly, elsewhere.

use std::path::{Path, PathBuf};
use std::process::Command;

fn have(program: &str) -> bool {
    Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success())
}

fn extension_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../editors/vscode")
}

#[test]
fn vscodes_debug_client_drives_the_adapter() {
    if !(have("node") && have("npm")) {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "CI=true but node or npm is missing");
        eprintln!("SKIPPED: node and npm are needed to drive tissvm dap with VS Code's DebugClient");
        return;
    }
    let dir = extension_dir();
    if !dir.join("node_modules/@vscode/debugadapter-testsupport").is_dir() {
        let out =
            Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(&dir).output().unwrap();
        assert!(out.status.success(), "npm ci failed:\n{}", String::from_utf8_lossy(&out.stderr));
    }
    let scratch = tempfile::tempdir().unwrap();
    let out = Command::new("node")
        .arg("test/dap.test.js")
        .current_dir(&dir)
        .env("TISSVM", env!("CARGO_BIN_EXE_tissvm"))
        .env("TISS_DAP_DIR", scratch.path())
        .env(tiss_vm::session::snapshot_key::KEY_FILE_VAR, crate::common::key_file())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "dap.test.js failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("dap.test.js: passed"));
}
