//! The server in process, over a socket pair: the handshake, the tool
//! list, a check, and bad messages (the end-to-end tests, with the MCP
//! Python SDK as the client, are in `vm/tests/mcp/`).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;

use serde_json::{Value, json};

#[test]
fn the_server_answers_the_handshake_tools_and_bad_messages() {
    let (ours, theirs) = UnixStream::pair().unwrap();
    let reading = theirs.try_clone().unwrap();
    let root = tempfile::tempdir().unwrap();
    let options = super::McpOptions { root: root.path().canonicalize().unwrap(), run_args: Vec::new() };
    let server = std::thread::spawn(move || super::serve(Box::new(reading), Box::new(theirs), options));
    let mut input = BufReader::new(ours.try_clone().unwrap());
    let mut out = ours;
    let mut ask = |line: String| -> Value {
        out.write_all(format!("{line}\n").as_bytes()).unwrap();
        let mut reply = String::new();
        input.read_line(&mut reply).unwrap();
        serde_json::from_str(&reply).unwrap()
    };
    let init = ask(json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } })
    .to_string());
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    let tools = ask(json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" }).to_string());
    let names: Vec<&str> =
        tools["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["check", "lint", "fix", "inspect", "estimate", "run", "replay", "report"]);
    let check = ask(json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "check", "arguments": { "plan": "TASK \"t\"\nSTEP \"s\" {\n    ASSERT x == 1\n}\n" } } })
    .to_string());
    let found = &check["result"]["structuredContent"];
    assert_eq!(found["errors"], 1, "{check}");
    assert_eq!(found["diagnostics"][0]["code"], "E0200");
    assert_eq!(found["diagnostics"][0]["line"], 3);
    assert_eq!(ask("{oops".into())["error"]["code"], super::PARSE_ERROR);
    assert_eq!(ask("[1]".into())["error"]["code"], super::INVALID_REQUEST);
    let unknown = ask(json!({ "jsonrpc": "2.0", "id": 4, "method": "nothing" }).to_string());
    assert_eq!(unknown["error"]["code"], super::METHOD_NOT_FOUND);
    let loosen = ask(json!({ "jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "run", "arguments": { "plan": "TASK \"t\"", "sandbox_profile": "none" } } })
    .to_string());
    assert_eq!(loosen["error"]["code"], super::INVALID_PARAMS);
    assert!(loosen["error"]["message"].as_str().unwrap().contains("sandbox_profile"), "{loosen}");
    let outside = ask(json!({ "jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {
        "name": "check", "arguments": { "path": "/etc/passwd" } } })
    .to_string());
    assert!(
        outside["error"]["message"].as_str().unwrap().contains("outside the workspace root"),
        "{outside}"
    );
    // The client closes its end: the server ends.
    out.shutdown(std::net::Shutdown::Write).unwrap();
    assert_eq!(server.join().unwrap(), 0);
}
