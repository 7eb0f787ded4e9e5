//! The protocol's edge cases: bad frames and requests get error responses
//! and the adapter goes on; a pause or terminate reaches a run in a long
//! RUN; a client that hangs up ends the adapter, and its RUN.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::{PLAN, Setup};

#[test]
fn bad_messages_get_error_responses_and_the_adapter_goes_on() {
    let setup = Setup::new(PLAN);
    let mut dap = setup.client();
    dap.send_raw(b"Content-Length: 5\r\n\r\n{oops");
    let bad = dap.wait("an error for the bad frame", |m| m["success"] == false);
    assert!(bad["message"].as_str().unwrap().contains("not JSON"), "{bad}");
    dap.send_raw(b"Content-Length: 2\r\n\r\n[]");
    let bad = dap.wait("an error for the array", |m| m["success"] == false);
    assert!(bad["message"].as_str().unwrap().contains("JSON object"), "{bad}");
    assert!(dap.refused("flyToTheMoon", json!({})).contains("not a request"));
    assert!(dap.refused("stackTrace", json!({ "threadId": 1 })).contains("launch"));
    assert!(dap.refused("launch", json!({ "workdir": "x" })).contains("plan"));
    assert!(
        dap.refused("variables", json!({ "variablesReference": "x" })).contains("not as DAP defines them")
    );
    let refused = dap.refused("launch", json!({ "plan": setup.plan, "args": ["--no-such-flag"] }));
    assert!(refused.contains("--no-such-flag"), "{refused}");
    let broken = setup.fixture.path("broken.tiss");
    std::fs::write(&broken, "TASK \"b\"\nSTEP \"s\" {\n    ASSERT x == 1\n}\n").unwrap();
    let refused = dap.refused("launch", json!({ "plan": broken }));
    assert!(refused.contains("broken.tiss:3:12") && refused.contains("E0200"), "{refused}");
    let refused = dap.refused("launch", json!({ "plan": setup.fixture.path("missing.tiss") }));
    assert!(refused.contains("missing.tiss"), "{refused}");
    // After all that, a launch still works.
    dap.ok("initialize", json!({ "adapterID": "tiss" }));
    dap.ok("launch", setup.launch(json!({ "stopOnEntry": true })));
    dap.event("initialized");
    assert!(dap.refused("launch", setup.launch(json!({}))).contains("already"));
    assert!(dap.refused("variables", json!({ "variablesReference": 555 })).contains("555"));
    let refused = dap.refused("setExceptionBreakpoints", json!({ "filters": ["everything"] }));
    assert!(refused.contains("everything"), "{refused}");
    dap.ok("configurationDone", json!({}));
    assert_eq!(dap.stopped()["reason"], "entry");
    assert_eq!(dap.finish(), 0);
}

/// A plan whose RUN takes `seconds`.
fn sleeping(seconds: u32) -> String {
    format!(
        "TASK \"slow\"\nSTEP \"s\" {{\n    RUN \"sleep {seconds}\" TIMEOUT 60s\n    LOG \"after\"\n    LOG \"end\"\n}}\n"
    )
}

#[test]
fn a_pause_during_a_long_run_is_answered_at_once_and_stops_after_it() {
    let setup = Setup::new(&sleeping(2));
    let mut dap = setup.client();
    dap.launch(setup.launch(json!({})));
    dap.ok("configurationDone", json!({}));
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    dap.ok("pause", json!({ "threadId": 1 }));
    assert!(asked.elapsed() < Duration::from_secs(1), "answered while the RUN runs: {:?}", asked.elapsed());
    assert_eq!(dap.ok("threads", json!({}))["threads"][0]["name"], "plan");
    assert_eq!(dap.stopped()["reason"], "pause");
    assert_eq!(dap.line(), 4, "at the statement after the RUN, which finished");
    dap.ok("continue", json!({ "threadId": 1 }));
    assert_eq!(dap.event("exited")["body"]["exitCode"], 0);
    assert_eq!(dap.finish(), 0);
}

#[test]
fn terminate_or_a_hang_up_ends_a_run_in_a_long_run() {
    let setup = Setup::new(&sleeping(60));
    let mut dap = setup.client();
    dap.launch(setup.launch(json!({})));
    dap.ok("configurationDone", json!({}));
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    dap.ok("terminate", json!({}));
    dap.event("terminated");
    assert!(asked.elapsed() < Duration::from_secs(10), "the RUN was killed: {:?}", asked.elapsed());
    assert_eq!(dap.finish(), 0);

    let mut dap = setup.client();
    dap.launch(setup.launch(json!({})));
    dap.ok("configurationDone", json!({}));
    std::thread::sleep(Duration::from_millis(300));
    let gone = Instant::now();
    assert_eq!(dap.hang_up(), 0);
    assert!(gone.elapsed() < Duration::from_secs(10), "{:?}", gone.elapsed());
}

#[test]
fn no_debug_runs_the_plan_through() {
    let setup = Setup::new(PLAN);
    let answers = setup.fixture.path("answers.json");
    std::fs::write(&answers, r#"[{"answer": "continue"}]"#).unwrap();
    let mut dap = setup.client();
    dap.launch(setup.launch(json!({ "noDebug": true, "args": ["--answers", answers] })));
    let set = setup.breakpoints(&mut dap, json!([{ "line": 12 }]));
    assert_eq!(set["breakpoints"][0]["verified"], false);
    dap.ok("configurationDone", json!({}));
    assert_eq!(dap.event("exited")["body"]["exitCode"], 0);
    assert_eq!(dap.finish(), 0);
}
