//! `tissvm mcp` (book: cookbook/agents.md): a Model Context Protocol server over stdio, so
//! an agent can use TissLang as its plan language — check, lint, fix,
//! inspect, estimate, run, replay, and read reports — without being able to
//! approve its own plan.
//!
//! **Protocol.** JSON-RPC 2.0, one message per line (MCP's stdio
//! transport), the handshake of protocol versions up to 2025-11-25. Written
//! here, synchronously, rather than with the `rmcp` SDK: the server needs
//! the requests and one reverse request (elicitation), which is little code,
//! and the VM stays free of an async runtime.
//!
//! **Threads.** One thread reads messages: responses to the server's own
//! requests (elicitations) go to the call waiting for them, everything else
//! to the session's thread, which answers requests in order.
//!
//! **Caps.** The sandbox profile, policy, budgets and provider of every run
//! come from the server's own command line (`run_args`); a tool's input
//! schema has no field that could change them, and any field it does not
//! declare is refused. Plans and journals given as paths must be under the
//! workspace root.
//!
//! **Gates** (PAUSE, REQUEST_REVIEW, CHOOSE, policy approvals) are never
//! answered by the agent: the run goes on only with a human's answer, asked
//! through the client (MCP elicitation) when it can ask; otherwise, or when
//! the human declines, the run stays suspended and the result names the
//! `tissvm resume` command for a human.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

mod checks;
mod plans;
mod runs;
mod tools;

/// What the server's command line fixed for every tool call.
#[derive(Debug, Clone)]
pub struct McpOptions {
    /// Plans, journals and workspaces given as paths are under it.
    pub root: PathBuf,
    /// Options of `tissvm run` given to every run (`--sandbox-profile`,
    /// `--policy`, `--budget`...): the caps no tool call can loosen.
    pub run_args: Vec<String>,
}

/// The longest line read: a plan given as text is within it.
const MAX_LINE: usize = 32 << 20;
/// How long an elicitation waits for the human.
const ELICITATION_WAIT: Duration = Duration::from_secs(24 * 3600);

/// JSON-RPC error codes.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;

/// The protocol versions the server speaks (the client's is taken if known).
const VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// A request's failure as JSON-RPC tells it.
#[derive(Debug)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

impl RpcError {
    pub fn params(message: impl Into<String>) -> RpcError {
        RpcError { code: INVALID_PARAMS, message: message.into() }
    }
}

/// Writes whole lines, shared by both threads.
#[derive(Clone)]
pub struct Out(Arc<Mutex<Box<dyn Write + Send>>>);

impl Out {
    fn send(&self, message: &Value) {
        if let Ok(mut out) = self.0.lock() {
            let _ = writeln!(out, "{message}").and_then(|()| out.flush());
        }
    }

    fn result(&self, id: &Value, result: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "result": result }));
    }

    fn error(&self, id: &Value, error: &RpcError) {
        self.send(
            &json!({ "jsonrpc": "2.0", "id": id, "error": { "code": error.code, "message": error.message } }),
        );
    }
}

/// The server's side of the conversation, as a tool call sees it: it can
/// ask the client to elicit an answer from the human.
pub struct Peer {
    out: Out,
    pending: Arc<Mutex<HashMap<String, Sender<Value>>>>,
    next: u64,
    /// The client said it can elicit (form mode).
    pub elicits: bool,
}

impl Peer {
    /// Asks the human, through the client, for an answer that fits
    /// `schema`; the client's result (`action`, `content`), or `None` when
    /// the client is gone or gave an error.
    pub fn elicit(&mut self, message: &str, schema: Value) -> Option<Value> {
        self.next += 1;
        let id = format!("elicit-{}", self.next);
        let (tx, rx) = mpsc::channel();
        self.pending.lock().ok()?.insert(id.clone(), tx);
        self.out.send(&json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "elicitation/create",
            "params": { "mode": "form", "message": message, "requestedSchema": schema },
        }));
        let answer = rx.recv_timeout(ELICITATION_WAIT).ok();
        if let Ok(mut pending) = self.pending.lock() {
            pending.remove(&id);
        }
        answer.and_then(|reply| reply.get("result").cloned())
    }
}

/// Serves one client until it closes its end; the exit status.
pub fn serve(input: Box<dyn Read + Send>, output: Box<dyn Write + Send>, options: McpOptions) -> u8 {
    let out = Out(Arc::new(Mutex::new(output)));
    let pending: Arc<Mutex<HashMap<String, Sender<Value>>>> = Arc::default();
    let (tx, rx) = mpsc::channel();
    {
        let (out, pending) = (out.clone(), Arc::clone(&pending));
        if let Err(e) = std::thread::Builder::new()
            .name("mcp-reader".into())
            .spawn(move || read_loop(input, &out, &pending, &tx))
        {
            eprintln!("tissvm: mcp: cannot start the reading thread: {e}");
            return crate::runner::status::INTERNAL;
        }
    }
    let mut peer = Peer { out: out.clone(), pending, next: 0, elicits: false };
    let mut state = tools::State::new(options);
    session(&rx, &out, &mut peer, &mut state);
    0
}

fn session(rx: &Receiver<Value>, out: &Out, peer: &mut Peer, state: &mut tools::State) {
    for message in rx {
        let Some(method) = message["method"].as_str() else { continue };
        let id = message.get("id").cloned();
        let params = message.get("params").cloned().unwrap_or(json!({}));
        let result = match method {
            "initialize" => Ok(initialize(&params, peer)),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({ "tools": tools::list() })),
            "tools/call" => state.call(&params, peer),
            "resources/list" => Ok(state.resources()),
            "resources/read" => state.read_resource(&params),
            "prompts/list" => Ok(json!({ "prompts": tools::prompts() })),
            "prompts/get" => tools::prompt(&params),
            _ if id.is_none() => continue, // notifications: initialized, cancelled...
            other => Err(RpcError { code: METHOD_NOT_FOUND, message: format!("no method `{other}`") }),
        };
        let Some(id) = id else { continue };
        match result {
            Ok(result) => out.result(&id, result),
            Err(error) => out.error(&id, &error),
        }
    }
}

fn initialize(params: &Value, peer: &mut Peer) -> Value {
    let asked = params["protocolVersion"].as_str().unwrap_or("");
    let version = VERSIONS.iter().find(|v| **v == asked).copied().unwrap_or(VERSIONS[0]);
    peer.elicits = params["capabilities"].get("elicitation").is_some();
    json!({
        "protocolVersion": version,
        "capabilities": { "tools": {}, "resources": {}, "prompts": {} },
        "serverInfo": { "name": "tissvm", "version": env!("CARGO_PKG_VERSION") },
        "instructions": "TissLang plans: check, lint and fix a plan, inspect what it would do, estimate its cost, \
                         run it under the server's sandbox, policy and budgets, replay a recorded run, read reports. \
                         The prompt `write_plan` teaches the language. Gates in a plan are answered by a human, never \
                         by a tool call.",
    })
}

/// Reads lines until the client is gone: responses go to the call that
/// waits for them, the rest to the session.
fn read_loop(
    input: Box<dyn Read + Send>,
    out: &Out,
    pending: &Mutex<HashMap<String, Sender<Value>>>,
    tx: &Sender<Value>,
) {
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    // The client is gone: a call waiting for its answer (an elicitation)
    // learns it at once, not after the wait.
    let gone = || {
        if let Ok(mut pending) = pending.lock() {
            pending.clear();
        }
    };
    loop {
        line.clear();
        match (&mut input).take(MAX_LINE as u64 + 1).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return gone(),
            Ok(n) if n > MAX_LINE => {
                out.error(
                    &Value::Null,
                    &RpcError { code: INVALID_REQUEST, message: "a message over 32 MiB".into() },
                );
                // The rest of that line is not a message either.
                let mut rest = Vec::new();
                if input.read_until(b'\n', &mut rest).is_err() {
                    return gone();
                }
                continue;
            }
            Ok(_) => {}
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let message: Value = match serde_json::from_slice(&line) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => {
                out.error(
                    &Value::Null,
                    &RpcError { code: INVALID_REQUEST, message: "a message must be an object".into() },
                );
                continue;
            }
            Err(e) => {
                out.error(&Value::Null, &RpcError { code: PARSE_ERROR, message: format!("not JSON: {e}") });
                continue;
            }
        };
        if message.get("method").is_none() {
            let id = message["id"]
                .as_str()
                .map(str::to_string)
                .or_else(|| message["id"].as_i64().map(|i| i.to_string()));
            let waiting = id.and_then(|id| pending.lock().ok()?.remove(&id));
            match waiting {
                Some(call) => {
                    let _ = call.send(message);
                }
                None if message.get("id").is_some()
                    && (message.get("result").is_some() || message.get("error").is_some()) => {}
                None => out.error(
                    &Value::Null,
                    &RpcError { code: INVALID_REQUEST, message: "a message needs a `method`".into() },
                ),
            }
            continue;
        }
        if tx.send(message).is_err() {
            return gone();
        }
    }
}

#[cfg(test)]
mod tests;
