//! A DAP client for the tests: it starts the real `tissvm dap`, sends
//! requests framed as the protocol says, and reads every message the
//! adapter writes on its own thread, so a test can wait for a response or
//! an event (keeping the ones it passes for later waits).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long a test waits for any one message.
pub const WAIT: Duration = Duration::from_secs(30);

pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    /// Messages read but not yet waited for, in order.
    kept: VecDeque<Value>,
    seq: i64,
    /// Every `output` event's text, in order.
    pub output: String,
}

impl Client {
    /// `tissvm dap` in `cwd`.
    pub fn start(cwd: &Path) -> Client {
        let mut child = crate::common::command()
            .arg("dap")
            .current_dir(cwd)
            .env_remove("TISS_PROVIDER")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start tissvm dap");
        let stdout = child.stdout.take().unwrap();
        let (tx, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut input = BufReader::new(stdout);
            while let Some(message) = read(&mut input) {
                if tx.send(message).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        Client { child, stdin, messages, kept: VecDeque::new(), seq: 0, output: String::new() }
    }

    /// Writes raw bytes to the adapter.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).and_then(|()| stdin.flush()).expect("write to tissvm dap");
    }

    /// Sends a request; its sequence number.
    pub fn send(&mut self, command: &str, arguments: Value) -> i64 {
        self.seq += 1;
        let body = json!({ "seq": self.seq, "type": "request", "command": command, "arguments": arguments });
        let body = body.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
        self.seq
    }

    /// The next message `wanted` accepts (others are kept for later waits).
    pub fn wait(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(at) = self.kept.iter().position(&wanted) {
            return self.kept.remove(at).unwrap();
        }
        let end = Instant::now() + WAIT;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(message) => {
                    if message["event"] == "output" {
                        self.output.push_str(message["body"]["output"].as_str().unwrap_or(""));
                    }
                    if wanted(&message) {
                        return message;
                    }
                    self.kept.push_back(message);
                }
                Err(RecvTimeoutError::Timeout) => panic!("no {what} within {WAIT:?}; kept: {:#?}", self.kept),
                Err(RecvTimeoutError::Disconnected) => {
                    let stderr = self.stderr();
                    panic!("the adapter ended before {what}; kept: {:#?}\nstderr: {stderr}", self.kept)
                }
            }
        }
    }

    /// The response to request `seq`.
    pub fn response(&mut self, seq: i64) -> Value {
        self.wait(&format!("response to request {seq}"), |m| {
            m["type"] == "response" && m["request_seq"] == seq
        })
    }

    /// Sends a request and returns its response, whatever it says.
    pub fn request(&mut self, command: &str, arguments: Value) -> Value {
        let seq = self.send(command, arguments);
        self.response(seq)
    }

    /// Sends a request that must succeed; its body.
    pub fn ok(&mut self, command: &str, arguments: Value) -> Value {
        let response = self.request(command, arguments);
        assert_eq!(response["success"], true, "{command} failed: {response:#}");
        response["body"].clone()
    }

    /// Sends a request that must fail; its message.
    pub fn refused(&mut self, command: &str, arguments: Value) -> String {
        let response = self.request(command, arguments);
        assert_eq!(response["success"], false, "{command} should fail: {response:#}");
        response["message"].as_str().unwrap_or("").to_string()
    }

    pub fn event(&mut self, name: &str) -> Value {
        self.wait(&format!("a `{name}` event"), |m| m["type"] == "event" && m["event"] == name)
    }

    /// The next `stopped` event's body.
    pub fn stopped(&mut self) -> Value {
        self.event("stopped")["body"].clone()
    }

    /// Whether any message is left unread after a short while.
    pub fn quiet_for(&mut self, wait: Duration) -> bool {
        self.kept.is_empty() && self.messages.recv_timeout(wait).is_err()
    }

    /// `initialize`, `launch` with `arguments`, and the `initialized` event.
    pub fn launch(&mut self, arguments: Value) -> Value {
        let caps = self
            .ok("initialize", json!({ "adapterID": "tiss", "linesStartAt1": true, "columnsStartAt1": true }));
        self.ok("launch", arguments);
        self.event("initialized");
        caps
    }

    /// The line of the innermost frame.
    pub fn line(&mut self) -> i64 {
        let trace = self.ok("stackTrace", json!({ "threadId": 1 }));
        trace["stackFrames"][0]["line"].as_i64().unwrap()
    }

    /// `disconnect`, and the adapter's exit status.
    pub fn finish(mut self) -> i32 {
        self.request("disconnect", json!({}));
        self.stdin.take();
        wait_exit(&mut self.child)
    }

    /// Closes stdin without a disconnect; the exit status.
    pub fn hang_up(mut self) -> i32 {
        self.stdin.take();
        wait_exit(&mut self.child)
    }

    fn stderr(&mut self) -> String {
        let mut text = String::new();
        if let Some(stderr) = self.child.stderr.as_mut() {
            let _ = stderr.read_to_string(&mut text);
        }
        text
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_exit(child: &mut Child) -> i32 {
    let end = Instant::now() + WAIT;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().unwrap_or(-1);
        }
        assert!(Instant::now() < end, "tissvm dap did not exit");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// One framed message, or `None` at the end.
fn read(input: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').expect("a header");
        assert_eq!(name, "Content-Length", "only Content-Length is written");
        length = Some(value.trim().parse::<usize>().unwrap());
    }
    let mut body = vec![0; length.expect("a length")];
    input.read_exact(&mut body).ok()?;
    Some(serde_json::from_slice(&body).expect("the adapter writes JSON"))
}
