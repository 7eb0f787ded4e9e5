//! A real headless Chromium (Debian's `chromium`) with scripts disabled,
//! driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
//! fd 3 in, fd 4 out, messages ended by NUL): it loads a page, and gives
//! back the DOM as the browser parsed it and every URL the page requested.
//!
//! Why not `--dump-dom`: with `--blink-settings=scriptEnabled=false`,
//! Chromium 148's `--dump-dom` prints nothing (it reads the DOM through the
//! page's script context), so the DOM is read with `DOM.getOuterHTML`,
//! which needs no script.
//!
//! When there is no `chromium`: with `CI=true` the test fails (CI must
//! exercise a real browser); elsewhere it skips, visibly (`skip::missing`).

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value as Json, json};

/// How long one answer of the browser may take.
const PATIENCE: Duration = Duration::from_secs(60);

/// The browser's executable, or `None` after a SKIP message outside CI.
pub fn chromium() -> Option<PathBuf> {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .map(|dir| dir.join("chromium"))
        .find(|candidate| candidate.is_file());
    if found.is_none() {
        tiss_test_support::skip::missing(
            "chromium",
            "not on PATH; .ci/run installs it (apt-get install -y chromium)",
        );
    }
    found
}

/// What the browser made of a page.
pub struct Loaded {
    /// `document.documentElement.outerHTML` with its doctype, as parsed.
    pub dom: String,
    /// Every URL the page requested, the page itself included.
    pub requests: Vec<String>,
}

/// One headless browser with scripts disabled, closed when dropped.
pub struct Browser {
    child: Child,
    to: std::io::PipeWriter,
    from: Receiver<Json>,
    next_id: u64,
    _profile: tempfile::TempDir,
}

impl Browser {
    pub fn start(executable: &Path) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let (their_in, to) = std::io::pipe().unwrap();
        let (mut from_pipe, their_out) = std::io::pipe().unwrap();
        let (fd_in, fd_out) = (raw(&their_in), raw(&their_out));
        let mut command = Command::new(executable);
        command
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--blink-settings=scriptEnabled=false",
                "--remote-debugging-pipe",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: only async-signal-safe calls between fork and exec. The
        // pipe ends are first copied above fd 10, so that moving them to 3
        // and 4 never overwrites one with the other; dup2 clears close-on-exec.
        unsafe {
            command.pre_exec(move || {
                let (a, b) = (libc::fcntl(fd_in, libc::F_DUPFD, 10), libc::fcntl(fd_out, libc::F_DUPFD, 10));
                if a < 0 || b < 0 || libc::dup2(a, 3) < 0 || libc::dup2(b, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().unwrap_or_else(|e| panic!("cannot start {}: {e}", executable.display()));
        drop((their_in, their_out));
        let (send, from) = channel();
        std::thread::spawn(move || {
            let mut buffer = Vec::new();
            let mut chunk = [0u8; 64 * 1024];
            while let Ok(n @ 1..) = from_pipe.read(&mut chunk) {
                buffer.extend_from_slice(&chunk[..n]);
                while let Some(end) = buffer.iter().position(|b| *b == 0) {
                    let message: Vec<u8> = buffer.drain(..=end).collect();
                    let Ok(json) = serde_json::from_slice(&message[..end]) else { continue };
                    if send.send(json).is_err() {
                        return;
                    }
                }
            }
        });
        Browser { child, to, from, next_id: 0, _profile: profile }
    }

    /// Sends `method` (to the page of `session`, if given) and waits for
    /// its answer; the events that come meanwhile go to `events`.
    fn call(&mut self, method: &str, params: Json, session: Option<&str>, events: &mut Vec<Json>) -> Json {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.to.write_all(&bytes).unwrap_or_else(|e| panic!("the browser is gone ({method}): {e}"));
        loop {
            let answer = self.receive(method);
            if answer["id"] == id {
                assert!(answer.get("error").is_none(), "{method}: {answer}");
                return answer["result"].clone();
            }
            events.push(answer);
        }
    }

    fn receive(&mut self, waiting_for: &str) -> Json {
        self.from
            .recv_timeout(PATIENCE)
            .unwrap_or_else(|e| panic!("no answer from the browser to {waiting_for}: {e}"))
    }

    /// Loads `file` in a new tab and returns the DOM once the page has loaded.
    pub fn load(&mut self, file: &Path) -> Loaded {
        let url = format!("file://{}", file.canonicalize().unwrap().display());
        let mut events = Vec::new();
        let target = self.call("Target.createTarget", json!({"url": "about:blank"}), None, &mut events);
        let attached = self.call(
            "Target.attachToTarget",
            json!({"targetId": target["targetId"], "flatten": true}),
            None,
            &mut events,
        );
        let session = attached["sessionId"].as_str().expect("a session").to_string();
        let session = Some(session.as_str());
        self.call("Page.enable", json!({}), session, &mut events);
        self.call("Network.enable", json!({}), session, &mut events);
        events.clear();
        self.call("Page.navigate", json!({"url": url}), session, &mut events);
        while !events.iter().any(|e| e["method"] == "Page.loadEventFired") {
            let event = self.receive("Page.loadEventFired");
            events.push(event);
        }
        let document = self.call("DOM.getDocument", json!({"depth": -1}), session, &mut events);
        let html = self.call(
            "DOM.getOuterHTML",
            json!({"nodeId": document["root"]["nodeId"]}),
            session,
            &mut events,
        );
        let requests = events
            .iter()
            .filter(|e| e["method"] == "Network.requestWillBeSent")
            .map(|e| e["params"]["request"]["url"].as_str().unwrap_or_default().to_string())
            .collect();
        self.call("Target.closeTarget", json!({"targetId": target["targetId"]}), None, &mut events);
        Loaded { dom: html["outerHTML"].as_str().expect("outerHTML").to_string(), requests }
    }
}

impl Drop for Browser {
    /// Closes the browser (its helper processes with it); kills it if it
    /// does not end within a few seconds.
    fn drop(&mut self) {
        self.next_id += 1;
        let close = format!("{{\"id\":{},\"method\":\"Browser.close\",\"params\":{{}}}}\0", self.next_id);
        let _ = self.to.write_all(close.as_bytes());
        for _ in 0..100 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn raw(fd: &impl std::os::fd::AsRawFd) -> i32 {
    fd.as_raw_fd()
}
