//! A small HTTP/1.1 server on loopback, for what a real model server cannot
//! show on demand: 429 with Retry-After, 5xx then success, stalls, malformed
//! bodies, error bodies. Each request gets the next scripted [`Reply`] (the
//! last one repeats), on its own connection (`Connection: close`); streamed
//! bodies use chunked transfer encoding, one chunk per piece, each after its
//! delay, as a real SSE server sends them.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the server answers one request with.
#[derive(Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// Body pieces, each sent after waiting its milliseconds.
    pub pieces: Vec<(u64, String)>,
}

impl Reply {
    /// A 200 SSE stream of `events` (each a `data:` payload), then `[DONE]`.
    pub fn sse(events: &[&str]) -> Reply {
        let mut pieces: Vec<(u64, String)> = events.iter().map(|e| (0, format!("data: {e}\n\n"))).collect();
        pieces.push((0, "data: [DONE]\n\n".into()));
        Reply { status: 200, headers: vec![("Content-Type".into(), "text/event-stream".into())], pieces }
    }

    /// A 200 NDJSON stream (Ollama's native API): each object on its own line.
    pub fn ndjson(objects: &[&str]) -> Reply {
        let pieces = objects.iter().map(|o| (0, format!("{o}\n"))).collect();
        Reply { status: 200, headers: vec![("Content-Type".into(), "application/x-ndjson".into())], pieces }
    }

    /// A 200 SSE stream of `events` as given (each a `data:` payload), with no
    /// `[DONE]`: llama.cpp's `/completion` ends with `"stop": true` instead.
    pub fn sse_raw(events: &[&str]) -> Reply {
        let pieces = events.iter().map(|e| (0, format!("data: {e}\n\n"))).collect();
        Reply { status: 200, headers: vec![("Content-Type".into(), "text/event-stream".into())], pieces }
    }

    /// A 200 answer streamed as "Hello" in two pieces, with usage 12 + 2.
    pub fn hello() -> Reply {
        Reply::sse(&[
            r#"{"choices":[{"delta":{"content":"Hel"}}]}"#,
            r#"{"choices":[{"delta":{"content":"lo"},"finish_reason":"stop"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":2,"total_tokens":14}}"#,
        ])
    }

    /// `status` with a JSON error body and extra headers.
    pub fn error(status: u16, body: &str, headers: &[(&str, &str)]) -> Reply {
        let mut all: Vec<(String, String)> = vec![("Content-Type".into(), "application/json".into())];
        all.extend(headers.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        Reply { status, headers: all, pieces: vec![(0, body.into())] }
    }

    /// Each piece after the given delay.
    pub fn delayed(mut self, delays: &[u64]) -> Reply {
        for (piece, delay) in self.pieces.iter_mut().zip(delays) {
            piece.0 = *delay;
        }
        self
    }
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct Received {
    /// Request line and headers.
    pub head: String,
    pub body: String,
}

pub struct Server {
    /// `http://127.0.0.1:PORT/v1`
    pub base_url: String,
    pub received: Arc<Mutex<Vec<Received>>>,
}

impl Server {
    pub fn start(replies: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().unwrap().port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&received);
        std::thread::spawn(move || {
            let mut next = 0usize;
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let reply = replies[next.min(replies.len() - 1)].clone();
                next += 1;
                let seen = Arc::clone(&seen);
                std::thread::spawn(move || serve(stream, &reply, &seen));
            }
        });
        Server { base_url: format!("http://127.0.0.1:{port}/v1"), received }
    }

    /// The server's address without `/v1`: `http://127.0.0.1:PORT`.
    pub fn root_url(&self) -> String {
        self.base_url.trim_end_matches("/v1").to_string()
    }

    pub fn requests(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

/// A base URL where nothing listens: connections are refused.
pub fn refused_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}/v1")
}

fn serve(stream: TcpStream, reply: &Reply, seen: &Mutex<Vec<Received>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let length = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap())
        })
        .unwrap_or(0usize);
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).unwrap();
    seen.lock().unwrap().push(Received { head, body: String::from_utf8_lossy(&body).into_owned() });

    let mut out = stream;
    let reason = match reply.status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        408 => "Request Timeout",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    };
    let mut response = format!("HTTP/1.1 {} {reason}\r\nConnection: close\r\n", reply.status);
    for (k, v) in &reply.headers {
        response.push_str(&format!("{k}: {v}\r\n"));
    }
    response.push_str("Transfer-Encoding: chunked\r\n\r\n");
    if out.write_all(response.as_bytes()).is_err() {
        return;
    }
    let _ = out.flush();
    for (delay, piece) in &reply.pieces {
        std::thread::sleep(Duration::from_millis(*delay));
        let chunk = format!("{:x}\r\n{piece}\r\n", piece.len());
        if out.write_all(chunk.as_bytes()).and_then(|()| out.flush()).is_err() {
            return;
        }
    }
    let _ = out.write_all(b"0\r\n\r\n");
}
