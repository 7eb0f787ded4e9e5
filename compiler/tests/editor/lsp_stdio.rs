//! `tissc lsp` end to end: the real binary, spoken to over pipes in
//! Content-Length framed JSON-RPC, as an editor does.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fn send(stdin: &mut ChildStdin, message: Value) {
    stdin.write_all(&frame(&message.to_string())).unwrap();
    stdin.flush().unwrap();
}

/// Reads framed messages from the server's stdout into a channel.
fn read_messages(stdout: ChildStdout) -> mpsc::Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        loop {
            let mut length = None;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                assert!(line.ends_with("\r\n"), "header lines end in CRLF: {line:?}");
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(n) = line.strip_prefix("Content-Length: ") {
                    length = Some(n.parse::<usize>().unwrap());
                }
            }
            let mut body = vec![0; length.expect("a Content-Length header")];
            reader.read_exact(&mut body).unwrap();
            if tx.send(serde_json::from_slice(&body).expect("the body is JSON")).is_err() {
                return;
            }
        }
    });
    rx
}

/// The next message that satisfies `wanted`; others are skipped.
fn next(rx: &mpsc::Receiver<Value>, wanted: impl Fn(&Value) -> bool) -> Value {
    loop {
        let message = rx.recv_timeout(Duration::from_secs(30)).expect("the server answers within 30s");
        if wanted(&message) {
            return message;
        }
    }
}

fn response(rx: &mpsc::Receiver<Value>, id: i64) -> Value {
    next(rx, |m| m["id"] == json!(id))
}

#[test]
fn the_binary_speaks_lsp_over_stdio_and_exits_cleanly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tissc"))
        .args(["lsp", "--stdio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tissc lsp starts");
    let mut stdin = child.stdin.take().unwrap();
    let rx = read_messages(child.stdout.take().unwrap());

    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
    );
    let init = response(&rx, 1);
    assert_eq!(init["result"]["serverInfo"]["name"], "tissc");
    assert_eq!(init["result"]["capabilities"]["completionProvider"]["triggerCharacters"][0], ".");
    assert_eq!(init["result"]["capabilities"]["codeActionProvider"]["codeActionKinds"], json!(["quickfix"]));
    send(&mut stdin, json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));

    // Malformed input is answered and the server reads on.
    stdin.write_all(&frame("{this is not json")).unwrap();
    let error = next(&rx, |m| m.get("error").is_some());
    assert_eq!((error["id"].clone(), error["error"]["code"].clone()), (Value::Null, json!(-32700)));
    stdin.write_all(&frame(r#"{"jsonrpc": "2.0", "id": 7, "params": {}}"#)).unwrap();
    let error = response(&rx, 7);
    assert_eq!(error["error"]["code"], -32600);

    let uri = "file:///tmp/plan.tiss";
    let text = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"true\"\n    ASERT LAST_RUN.EXIT_CODE == 0\n    LOG \"${LAST_RUN.\n}\n";
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
               "params": {"textDocument": {"uri": uri, "languageId": "tiss", "version": 1, "text": text}}}),
    );
    let published = next(&rx, |m| m["method"] == "textDocument/publishDiagnostics");
    assert_eq!(published["params"]["uri"], uri);
    let diagnostics = published["params"]["diagnostics"].as_array().unwrap();
    assert!(
        diagnostics.iter().any(|d| d["message"].as_str().unwrap().contains("ASERT")
            && d["range"]["start"] == json!({"line": 3, "character": 4})),
        "{diagnostics:?}"
    );

    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/completion",
               "params": {"textDocument": {"uri": uri}, "position": {"line": 4, "character": 20}}}),
    );
    let labels: Vec<Value> =
        response(&rx, 2)["result"].as_array().unwrap().iter().map(|item| item["label"].clone()).collect();
    assert_eq!(labels[..2], [json!("STDOUT"), json!("STDERR")]);

    // The misspelling's fix, as a quick fix with its exact edit.
    let cursor = json!({"line": 3, "character": 6});
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 4, "method": "textDocument/codeAction",
               "params": {"textDocument": {"uri": uri}, "range": {"start": cursor, "end": cursor},
                          "context": {"diagnostics": []}}}),
    );
    let actions = response(&rx, 4)["result"].clone();
    let fix = actions.as_array().unwrap().iter().find(|a| a["kind"] == "quickfix").expect("a quick fix");
    assert_eq!(
        fix["edit"]["changes"][uri],
        json!([{"range": {"start": {"line": 3, "character": 4}, "end": {"line": 3, "character": 9}}, "newText": "ASSERT"}]),
        "{actions}"
    );

    send(&mut stdin, json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}));
    assert_eq!(response(&rx, 3)["result"], Value::Null);
    send(&mut stdin, json!({"jsonrpc": "2.0", "method": "exit"}));
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
}

#[test]
fn input_ending_without_exit_ends_the_server_with_status_1() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tissc"))
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("tissc lsp starts");
    let mut stdin = child.stdin.take().unwrap();
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
    );
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(1));
}
