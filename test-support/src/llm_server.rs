//! A real llama.cpp server with a real 135M model (`tools/local-llm-server`:
//! SmolLM2-135M-Instruct, alias `smollm2`), started once per test binary on
//! a free port and stopped when the binary exits.
//!
//! The suite never builds it (`TISS_LLM_NO_BUILD=1`): `.ci/run`, or
//! `tools/local-llm-server build`, fills the cache. When it cannot start:
//! with `CI=true` the test fails (CI must exercise the real server);
//! elsewhere it skips, visibly (`skip::missing`), and the test returns.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The script that starts the server (and, outside the suite, builds it once).
fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tools/local-llm-server")
}

fn pidfile() -> PathBuf {
    std::env::temp_dir().join(format!("tiss-llm-test-{}.pid", std::process::id()))
}

extern "C" fn stop_server() {
    let _ = Command::new("bash").arg(script()).arg("stop").arg(pidfile()).status();
}

/// The server's base URL (`http://127.0.0.1:PORT`), or `None` after a SKIP
/// message when it cannot start outside CI.
pub fn base_url() -> Option<&'static str> {
    static URL: OnceLock<Result<String, String>> = OnceLock::new();
    let started = URL.get_or_init(|| {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        // Never a six-minute build from the test suite: .ci/run (or
        // `tools/local-llm-server build`) fills the cache first.
        let out = Command::new("bash")
            .env("TISS_LLM_NO_BUILD", "1")
            .arg(script())
            .arg("start")
            .arg(port.to_string())
            .arg(pidfile())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", script().display()))?;
        // Stop it when this test binary exits, started or not (a half-started
        // server has a pidfile too).
        // SAFETY: registers a plain function with no arguments; atexit has no other contract.
        unsafe { libc::atexit(stop_server) };
        let url = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if out.status.success() && url.starts_with("http://") {
            Ok(url)
        } else {
            Err(format!(
                "{} start {port} failed:\n{}",
                script().display(),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    });
    match started {
        Ok(url) => Some(url),
        Err(why) => {
            crate::skip::missing("real llama.cpp server", why);
            None
        }
    }
}
