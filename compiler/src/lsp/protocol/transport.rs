//! JSON-RPC over stdin/stdout with `Content-Length` framing. `lsp-server`'s
//! own stdio transport ends its reader at the first malformed message; this
//! one answers it with a JSON-RPC error (`-32700` parse error, or `-32600`
//! invalid request with the message's `id` when it has one) and reads on,
//! so a bad message never kills the server.

use std::io::{self, BufRead, Write};
use std::thread;

use crossbeam_channel::{Receiver, Sender, bounded};
use lsp_server::{Connection, ErrorCode, Message};
use serde_json::{Value, json};

/// The writer thread: joined once the server has dropped its connection,
/// so every message sent is on stdout before the process exits.
pub struct Transport {
    writer: thread::JoinHandle<io::Result<()>>,
}

impl Transport {
    pub fn join(self) -> io::Result<()> {
        self.writer.join().unwrap_or_else(|_| Err(io::Error::other("the LSP writer thread panicked")))
    }
}

pub fn stdio() -> (Connection, Transport) {
    let (to_server, from_client) = bounded::<Message>(0);
    let (to_client, outgoing) = bounded::<Message>(0);
    // The reader is never joined: after `exit` it may still be waiting on stdin.
    thread::Builder::new()
        .name("lsp-reader".to_string())
        .spawn(move || read_messages(&mut io::stdin().lock(), &to_server))
        .expect("spawning a thread");
    let writer = thread::Builder::new()
        .name("lsp-writer".to_string())
        .spawn(move || write_messages(&outgoing))
        .expect("spawning a thread");
    (Connection { sender: to_client, receiver: from_client }, Transport { writer })
}

fn write_messages(outgoing: &Receiver<Message>) -> io::Result<()> {
    for message in outgoing {
        // One lock per message: the reader's error replies never interleave.
        message.write(&mut io::stdout().lock())?;
    }
    Ok(())
}

/// Reads framed messages until end of input or `exit`, handing each to the
/// server and answering the malformed ones itself.
fn read_messages(input: &mut impl BufRead, to_server: &Sender<Message>) {
    loop {
        let body = match read_frame(input) {
            Ok(Some(body)) => body,
            Ok(None) => return,
            Err(Malformed(message)) => {
                reply_error(Value::Null, ErrorCode::ParseError, &message);
                continue;
            }
        };
        match serde_json::from_slice::<Message>(&body) {
            Ok(message) => {
                let is_exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if to_server.send(message).is_err() || is_exit {
                    return;
                }
            }
            Err(error) => match serde_json::from_slice::<Value>(&body) {
                Ok(value) => {
                    let id = value.get("id").filter(|id| id.is_number() || id.is_string()).cloned();
                    let text = format!(
                        "not a JSON-RPC request, response or notification ({error}): a request needs \
                         `\"id\"` and `\"method\"`, a notification `\"method\"`"
                    );
                    reply_error(id.unwrap_or(Value::Null), ErrorCode::InvalidRequest, &text);
                }
                Err(error) => reply_error(
                    Value::Null,
                    ErrorCode::ParseError,
                    &format!("the message is not JSON: {error}"),
                ),
            },
        }
    }
}

struct Malformed(String);

/// One message's body: headers up to an empty line, then `Content-Length`
/// bytes. `None` at the end of input (a frame cut short included).
fn read_frame(input: &mut impl BufRead) -> Result<Option<Vec<u8>>, Malformed> {
    let mut length = None;
    let mut bad_header = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return Ok(None),
            Ok(_) => {}
        }
        let header = String::from_utf8_lossy(&line);
        let header = header.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            break;
        }
        match header.split_once(':') {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("Content-Length") => {
                match value.trim().parse::<usize>() {
                    Ok(n) => length = Some(n),
                    Err(_) => {
                        bad_header =
                            Some(format!("bad Content-Length `{}`: expected a byte count", value.trim()))
                    }
                }
            }
            Some(_) => {}
            None => bad_header = Some(format!("malformed header line `{header}`: expected `Name: value`")),
        }
    }
    let Some(length) = length else {
        return Err(Malformed(
            bad_header.unwrap_or_else(|| "a message without a Content-Length header".to_string()),
        ));
    };
    let mut body = vec![0; length];
    match input.read_exact(&mut body) {
        Ok(()) => Ok(Some(body)),
        Err(_) => Ok(None),
    }
}

fn reply_error(id: Value, code: ErrorCode, message: &str) {
    let reply =
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": code as i32, "message": message}}).to_string();
    let mut out = io::stdout().lock();
    // Nothing to do if stdout is gone: the client has left.
    let _ = write!(out, "Content-Length: {}\r\n\r\n{reply}", reply.len()).and_then(|()| out.flush());
}
