//! Launching, stepping, the stack, scopes and variables, going back,
//! disconnecting with a snapshot, and attaching to it.

use serde_json::json;

use crate::{PLAN, Setup};

#[test]
fn a_launched_plan_steps_and_shows_its_stack_and_values() {
    let setup = Setup::new(PLAN);
    let mut dap = setup.client();
    let caps = dap.launch(setup.launch(json!({ "stopOnEntry": true })));
    assert_eq!(caps["supportsStepBack"], true);
    assert_eq!(caps["supportsConditionalBreakpoints"], true);
    let filters: Vec<&str> = caps["exceptionBreakpointFilters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["filter"].as_str().unwrap())
        .collect();
    assert_eq!(filters, ["assertion_failed", "failure", "gate"]);
    dap.ok("configurationDone", json!({}));
    assert_eq!(dap.stopped()["reason"], "entry");
    assert_eq!(dap.line(), 9);
    assert_eq!(dap.ok("threads", json!({}))["threads"][0]["id"], 1);

    dap.ok("stepIn", json!({ "threadId": 1 }));
    assert_eq!(dap.stopped()["reason"], "step");
    assert_eq!(dap.line(), 10);
    for line in [11, 12, 15] {
        dap.ok("next", json!({ "threadId": 1 }));
        dap.stopped();
        assert_eq!(dap.line(), line);
    }
    assert!(dap.output.contains("prepared world\n"), "LOG arrives as output: {}", dap.output);
    let scopes = dap.ok("scopes", json!({ "frameId": 0 }));
    let names: Vec<&str> =
        scopes["scopes"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Variables", "COST"], "no LAST_RUN before a RUN");
    let vars = dap.ok("variables", json!({ "variablesReference": 1 }));
    assert_eq!(vars["variables"][0]["name"], "name");
    assert_eq!(vars["variables"][0]["value"], "\"world\"");
    assert_eq!(vars["variables"][0]["type"], "string");

    // The typed answer: its type, no taint on the enum, fields to open.
    for line in [16, 17] {
        dap.ok("next", json!({ "threadId": 1 }));
        dap.stopped();
        assert_eq!(dap.line(), line);
    }
    let vars = dap.ok("variables", json!({ "variablesReference": 1 }));
    let t = vars["variables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "t")
        .cloned()
        .unwrap_or_else(|| panic!("{vars:#}"));
    assert!(t["type"].as_str().unwrap().contains("risk"), "{t}");
    let fields = dap.ok("variables", json!({ "variablesReference": t["variablesReference"] }));
    assert_eq!(fields["variables"][0]["name"], "risk");
    assert_eq!(fields["variables"][0]["value"], "\"low\"");
    assert!(!fields["variables"][0]["type"].as_str().unwrap().contains("tainted"));
    assert_eq!(fields["variables"][1]["value"], "absent");
    let evaluated = dap.ok("evaluate", json!({ "expression": "t.risk", "context": "hover" }));
    assert_eq!(evaluated["result"], "\"low\"");
    let holds = dap.ok(
        "evaluate",
        json!({ "expression": "t.risk == \"low\" AND name == \"world\"", "context": "repl" }),
    );
    assert_eq!(holds["result"], "TRUE");
    let refused = dap.refused("evaluate", json!({ "expression": "t.risk == \"medium\"", "context": "repl" }));
    assert!(refused.contains("medium"), "{refused}");
    let cost = dap.ok("variables", json!({ "variablesReference": 3 }));
    assert_eq!(cost["variables"][0]["name"], "API_CALLS");
    assert!(cost["variables"][0]["value"].as_str().unwrap().starts_with("1 "), "{cost}");

    // Into the CALL: its frame, then the step's and the plan's.
    dap.ok("setBreakpoints", json!({ "source": { "path": setup.plan }, "breakpoints": [{ "line": 6 }] }));
    dap.ok("setExceptionBreakpoints", json!({ "filters": [] }));
    dap.ok("continue", json!({ "threadId": 1 }));
    assert_eq!(dap.stopped()["reason"], "breakpoint");
    let trace = dap.ok("stackTrace", json!({ "threadId": 1 }));
    let frames: Vec<(String, i64)> = trace["stackFrames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["name"].as_str().unwrap().to_string(), f["line"].as_i64().unwrap()))
        .collect();
    assert_eq!(
        frames,
        [("CALL \"shout\"".into(), 6), ("STEP \"Check\"".into(), 26), ("TASK \"debug me\"".into(), 20)]
    );
    assert_eq!(trace["stackFrames"][0]["source"]["path"], setup.plan.to_str().unwrap());
    dap.ok("stepOut", json!({ "threadId": 1 }));
    dap.stopped();
    assert_eq!(dap.line(), 27, "out of the CALL, at the statement after it");
    assert!(dap.output.contains("HELLO"), "RUN output arrives: {}", dap.output);
    assert_eq!(dap.finish(), 0);
}

#[test]
fn a_try_is_a_frame_and_a_caught_assertion_stops_where_it_is_caught() {
    let setup = Setup::new(PLAN);
    let mut dap = setup.client();
    dap.launch(setup.launch(json!({})));
    setup.breakpoints(&mut dap, json!([{ "line": 22 }]));
    dap.ok("setExceptionBreakpoints", json!({ "filters": ["assertion_failed"] }));
    dap.ok("configurationDone", json!({}));
    assert_eq!(dap.stopped()["hitBreakpointIds"], json!([1]));
    let trace = dap.ok("stackTrace", json!({ "threadId": 1 }));
    let names: Vec<&str> =
        trace["stackFrames"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["TRY", "STEP \"Check\"", "TASK \"debug me\""]);
    dap.ok("continue", json!({ "threadId": 1 }));
    let stop = dap.stopped();
    assert_eq!(stop["reason"], "exception");
    assert!(stop["text"].as_str().unwrap().contains("assertion_failed"), "{stop}");
    assert_eq!(dap.line(), 24, "at the CATCH's first statement");
    assert_eq!(
        dap.ok("evaluate", json!({ "expression": "e.KIND", "context": "watch" }))["result"],
        "\"assertion_failed\""
    );
    assert_eq!(dap.finish(), 0);
}

#[test]
fn stepping_back_needs_a_journal_and_replays_with_one() {
    let setup = Setup::new(PLAN);
    let mut dap = setup.client();
    dap.launch(setup.launch(json!({ "stopOnEntry": true })));
    dap.ok("configurationDone", json!({}));
    dap.stopped();
    let refused = dap.refused("stepBack", json!({ "threadId": 1 }));
    assert!(refused.contains("journal"), "{refused}");
    drop(dap);

    let journal = setup.fixture.path("run.journal");
    let mut dap = setup.client();
    dap.launch(setup.launch(json!({ "stopOnEntry": true, "journal": journal })));
    setup.breakpoints(&mut dap, json!([{ "line": 11 }]));
    dap.ok("configurationDone", json!({}));
    dap.stopped();
    for _ in 0..4 {
        dap.ok("next", json!({ "threadId": 1 }));
        dap.stopped();
    }
    assert_eq!(dap.line(), 15);
    dap.ok("stepBack", json!({ "threadId": 1 }));
    assert_eq!(dap.stopped()["reason"], "step");
    assert_eq!(dap.line(), 12);
    dap.ok("reverseContinue", json!({ "threadId": 1 }));
    assert_eq!(dap.stopped()["reason"], "breakpoint");
    assert_eq!(dap.line(), 11);
    assert!(dap.output.contains("replayed, not done again"));
    // Forward again: the WRITE is replayed, not done twice; the run goes on live after.
    dap.ok("setBreakpoints", json!({ "source": { "path": setup.plan }, "breakpoints": [] }));
    dap.ok("setExceptionBreakpoints", json!({ "filters": [] }));
    dap.ok("continue", json!({ "threadId": 1 }));
    assert_eq!(dap.stopped()["reason"], "exception", "the PAUSE waits for an answer");
    assert!(std::fs::metadata(&journal).unwrap().len() > 0);
    assert_eq!(dap.finish(), 0);
}

#[test]
fn a_disconnect_can_leave_a_snapshot_that_resumes_and_attaches() {
    let setup = Setup::new(PLAN);
    let snapshots = setup.fixture.path("snaps");
    let mut dap = setup.client();
    dap.launch(setup.launch(json!({ "snapshotDir": snapshots })));
    setup.breakpoints(&mut dap, json!([{ "line": 16 }]));
    dap.ok("configurationDone", json!({}));
    dap.stopped();
    dap.ok("disconnect", json!({ "terminateDebuggee": false }));
    let saved: Vec<_> = std::fs::read_dir(&snapshots).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert!(dap.output.contains(saved[0].to_str().unwrap()), "the output names it: {}", dap.output);
    assert_eq!(dap.hang_up(), 0);

    // Attach: the run stands where it was left, and goes on.
    let mut dap = setup.client();
    dap.ok("initialize", json!({ "adapterID": "tiss" }));
    dap.ok("attach", json!({ "snapshot": saved[0], "workdir": setup.fixture.ws() }));
    dap.event("initialized");
    dap.ok("setExceptionBreakpoints", json!({ "filters": ["gate"] }));
    dap.ok("configurationDone", json!({}));
    assert_eq!(dap.stopped()["reason"], "entry");
    assert_eq!(dap.line(), 16);
    dap.ok("continue", json!({ "threadId": 1 }));
    assert_eq!(dap.stopped()["reason"], "exception");
    let answered = dap.ok("evaluate", json!({ "expression": "answer continue", "context": "repl" }));
    assert!(answered["result"].as_str().unwrap().contains("PAUSE"), "{answered}");
    let exited = dap.event("exited");
    assert_eq!(exited["body"]["exitCode"], 0);
    dap.event("terminated");
    assert!(dap.output.contains("done"), "{}", dap.output);
    assert_eq!(dap.finish(), 0);

    // As for `tissvm resume`: a snapshot resumed before is not attached again.
    let resumed = setup.fixture.tissvm(&["resume", saved[0].to_str().unwrap(), "--non-interactive"]);
    assert_eq!(resumed.code, Some(3), "on to the PAUSE: {}", resumed.stderr);
    let mut dap = setup.client();
    dap.ok("initialize", json!({ "adapterID": "tiss" }));
    let refused = dap.refused("attach", json!({ "snapshot": saved[0], "workdir": setup.fixture.ws() }));
    assert!(refused.contains("resumed"), "{refused}");
    assert_eq!(dap.finish(), 0);
}
