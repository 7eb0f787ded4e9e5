//! The adapter driven by VS Code's own test client for debug adapters
//! (`@vscode/debugadapter-testsupport`'s `DebugClient`, from npm):
//! `editors/vscode/test/dap.test.js`. It needs node and the extension's
//! packages (`npm ci` in `editors/vscode/`, which `.ci/run` does; the suite
//! installs nothing): without them the test fails when `CI=true` and is
//! skipped, visibly, elsewhere.

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
    if !have("node") {
        return tiss_test_support::skip::missing("node", "VS Code's DebugClient runs on node");
    }
    let dir = extension_dir();
    if !dir.join("node_modules/@vscode/debugadapter-testsupport").is_dir() {
        let why = "the extension's packages are not installed: run `npm ci` in editors/vscode (.ci/run does)";
        return tiss_test_support::skip::missing("@vscode/debugadapter-testsupport", why);
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
