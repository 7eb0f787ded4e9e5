//! The adapter in process, over a socket pair: the protocol's edge cases
//! that need no plan (the end-to-end sessions are in `vm/tests/dap/`).

use std::io::{BufReader, Write};
use std::os::unix::net::UnixStream;

use serde_json::{Value, json};

use super::wire::{self, Read};

fn frame(message: &Value) -> Vec<u8> {
    let body = message.to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fn next(input: &mut BufReader<UnixStream>) -> Value {
    match wire::read(input).expect("read") {
        Read::Message(m) => m,
        other => panic!("not a message: {other:?}"),
    }
}

#[test]
fn the_adapter_answers_every_message_and_ends_when_told() {
    let (ours, theirs) = UnixStream::pair().unwrap();
    let reading = theirs.try_clone().unwrap();
    let server = std::thread::spawn(move || {
        super::serve(Box::new(reading), Box::new(theirs), Box::new(|_, _| Err("no plans here".into())))
    });
    let mut input = BufReader::new(ours.try_clone().unwrap());
    let mut out = ours;
    let request = |seq: i64, command: &str, arguments: Value| {
        frame(&json!({ "seq": seq, "type": "request", "command": command, "arguments": arguments }))
    };
    out.write_all(&request(1, "initialize", json!({ "adapterID": "t", "linesStartAt1": false }))).unwrap();
    let caps = next(&mut input);
    assert_eq!((caps["request_seq"].clone(), caps["success"].clone()), (json!(1), json!(true)));
    assert_eq!(caps["body"]["supportsLogPoints"], true);
    // Garbage between messages, a request without a command, an event, a
    // response to nothing: each answered or let pass, never the end.
    out.write_all(b"Content-Length: 4\r\n\r\nnope").unwrap();
    assert!(next(&mut input)["message"].as_str().unwrap().contains("not JSON"));
    out.write_all(&frame(&json!({ "seq": 2, "type": "request" }))).unwrap();
    assert!(next(&mut input)["message"].as_str().unwrap().contains("command"));
    out.write_all(&frame(&json!({ "seq": 3, "type": "event", "event": "x" }))).unwrap();
    out.write_all(&frame(&json!({ "seq": 4, "type": "response", "request_seq": 9 }))).unwrap();
    out.write_all(&request(5, "launch", json!({ "plan": "p.tiss" }))).unwrap();
    let launch = next(&mut input);
    assert_eq!((launch["request_seq"].clone(), launch["success"].clone()), (json!(5), json!(false)));
    assert_eq!(launch["message"], "the launch's `args`: no plans here");
    out.write_all(&request(6, "next", json!({ "threadId": 1 }))).unwrap();
    assert!(next(&mut input)["message"].as_str().unwrap().contains("launch"));
    out.write_all(&request(7, "setExceptionBreakpoints", json!({ "filters": "all" }))).unwrap();
    assert!(next(&mut input)["message"].as_str().unwrap().contains("not as DAP defines them"));
    out.write_all(&request(8, "threads", json!({}))).unwrap();
    assert_eq!(next(&mut input)["body"]["threads"][0]["id"], 1);
    out.write_all(&request(9, "disconnect", json!({}))).unwrap();
    assert_eq!(next(&mut input)["request_seq"], 9);
    assert_eq!(server.join().unwrap(), 0);
}
