//! The Debug Adapter Protocol's framing: each message is a JSON object after
//! a `Content-Length: N` header and an empty line. Reading is bounded (a
//! header line of at most 1 KiB, a body of at most [`MAX_BODY`]) so a broken
//! or hostile client cannot make the adapter allocate without end; writing
//! is shared between the reading thread and the session's, each message
//! written whole under a lock, numbered in order.

use std::io::{self, BufRead, Read as _, Write};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// The largest message body read: a setBreakpoints of thousands of lines
/// is far below it.
pub const MAX_BODY: usize = 16 << 20;
const MAX_HEADER_LINE: usize = 1024;

/// What reading a message gave.
#[derive(Debug)]
pub enum Read {
    Message(Value),
    /// The client closed its end.
    End,
    /// A frame that is not a DAP message (bad header, bad JSON): told to
    /// the client as an error, and reading goes on with the next frame.
    Bad(String),
}

/// Reads the next message.
pub fn read(input: &mut impl BufRead) -> io::Result<Read> {
    let mut length: Option<usize> = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = input.by_ref().take(MAX_HEADER_LINE as u64 + 1).read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(Read::End);
        }
        if line.last() != Some(&b'\n') {
            return Ok(Read::Bad(format!("a header line is longer than {MAX_HEADER_LINE} bytes")));
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if length.is_some() {
                break;
            }
            // Blank lines between messages are let pass.
            continue;
        }
        let Some((name, value)) = text.split_once(':') else {
            return Ok(Read::Bad(format!("`{text}` is not a header (`Content-Length: N` was expected)")));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            match value.trim().parse::<usize>() {
                Ok(n) if n <= MAX_BODY => length = Some(n),
                Ok(n) => {
                    return Ok(Read::Bad(format!("a message of {n} bytes is over the limit of {MAX_BODY}")));
                }
                Err(_) => return Ok(Read::Bad(format!("`{}` is not a content length", value.trim()))),
            }
        }
    }
    let length = length.unwrap_or(0);
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    Ok(match serde_json::from_slice::<Value>(&body) {
        Ok(value) if value.is_object() => Read::Message(value),
        Ok(_) => Read::Bad("a message must be a JSON object".into()),
        Err(e) => Read::Bad(format!("the message is not JSON: {e}")),
    })
}

/// Writes numbered messages; cloned into each thread that writes.
#[derive(Clone)]
pub struct Writer {
    out: Arc<Mutex<Box<dyn Write + Send>>>,
    seq: Arc<AtomicI64>,
}

impl Writer {
    pub fn new(out: Box<dyn Write + Send>) -> Writer {
        Writer { out: Arc::new(Mutex::new(out)), seq: Arc::new(AtomicI64::new(1)) }
    }

    /// Numbers `message` and writes it whole. A client that is gone is no
    /// error here: the reading thread sees it end and the session ends.
    fn send(&self, mut message: Value) {
        let Ok(mut out) = self.out.lock() else { return };
        message["seq"] = json!(self.seq.fetch_add(1, Ordering::SeqCst));
        let body = message.to_string();
        let _ = write!(out, "Content-Length: {}\r\n\r\n{body}", body.len()).and_then(|()| out.flush());
    }

    /// The success response to `request`.
    pub fn respond(&self, request: &Value, body: Value) {
        self.send(json!({
            "type": "response",
            "request_seq": request["seq"].as_i64().unwrap_or(0),
            "command": request["command"].as_str().unwrap_or(""),
            "success": true,
            "body": body,
        }));
    }

    /// The error response to `request`, with `message` shown to the user.
    pub fn refuse(&self, request: &Value, message: &str) {
        self.send(json!({
            "type": "response",
            "request_seq": request["seq"].as_i64().unwrap_or(0),
            "command": request["command"].as_str().unwrap_or(""),
            "success": false,
            "message": message,
            "body": { "error": { "id": 1, "format": message, "showUser": true } },
        }));
    }

    pub fn event(&self, event: &str, body: Value) {
        self.send(json!({ "type": "event", "event": event, "body": body }));
    }

    /// An `output` event of `category` (`console`, `stdout`, `stderr`).
    pub fn output(&self, category: &str, text: &str) {
        let mut text = text.to_string();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        self.event("output", json!({ "category": category, "output": text }));
    }
}

#[cfg(test)]
mod tests {
    use super::{Read, read};

    fn frames(bytes: &[u8]) -> Vec<String> {
        let mut input = std::io::BufReader::new(bytes);
        let mut out = Vec::new();
        loop {
            match read(&mut input) {
                Ok(Read::Message(v)) => out.push(v["command"].as_str().unwrap_or("?").to_string()),
                Ok(Read::Bad(why)) => out.push(format!("bad: {why}")),
                Ok(Read::End) => return out,
                Err(e) => {
                    out.push(format!("io: {e}"));
                    return out;
                }
            }
        }
    }

    #[test]
    fn frames_are_read_and_bad_ones_told() {
        let good = |c: &str| {
            let body = format!("{{\"seq\":1,\"type\":\"request\",\"command\":\"{c}\"}}");
            format!("Content-Length: {}\r\n\r\n{body}", body.len())
        };
        let bytes = format!("{}{}", good("initialize"), good("threads"));
        assert_eq!(frames(bytes.as_bytes()), ["initialize", "threads"]);
        // Bad JSON is told, and the next frame is read.
        let bytes = format!("Content-Length: 3\r\n\r\n{{{{x{}", good("next"));
        let read = frames(bytes.as_bytes());
        assert!(read[0].starts_with("bad: the message is not JSON"), "{read:?}");
        assert_eq!(read[1], "next");
        assert!(frames(b"Content-Length: x\r\n\r\n")[0].contains("not a content length"));
        assert!(frames(b"Content-Length: 99999999999\r\n\r\n")[0].contains("over the limit"));
        assert!(frames(b"nonsense\r\n\r\n")[0].contains("is not a header"));
        assert!(frames(&[b'a'; 5000])[0].contains("longer than"));
        // A body cut short ends the stream with an I/O error, not a panic.
        assert!(frames(b"Content-Length: 10\r\n\r\n{}")[0].starts_with("io:"));
        assert!(frames(b"Content-Length: 2\r\n\r\n[]")[0].contains("JSON object"));
    }
}
