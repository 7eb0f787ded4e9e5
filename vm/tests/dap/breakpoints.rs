//! Line breakpoints: verified or moved to a statement's line, conditions
//! compiled and checked as plan conditions, hit counts, log messages.

use serde_json::json;

use crate::{PLAN, Setup};

/// A task called three times: its LOG line is reached three times.
const THRICE: &str = r#"TASK "thrice"

DEFINE_TASK "say" {
    LOG "said"
}

STEP "Say" {
    VAR n = 1
    CALL "say"
    VAR m = 2
    CALL "say"
    CALL "say"
}
"#;

#[test]
fn breakpoints_are_verified_moved_or_refused_with_the_compilers_message() {
    let setup = Setup::new(PLAN);
    let mut dap = setup.client();
    dap.launch(setup.launch(json!({})));
    let set = setup.breakpoints(
        &mut dap,
        json!([
            { "line": 12 },
            { "line": 8 },
            { "line": 12, "condition": "nobody == 1" },
            { "line": 17, "condition": "t.risk == \"medium\"" },
            { "line": 12, "condition": "name ==" },
            { "line": 12, "hitCondition": "often" },
            { "line": 900 },
        ]),
    );
    let b = set["breakpoints"].as_array().unwrap();
    assert_eq!((b[0]["verified"].clone(), b[0]["line"].clone()), (json!(true), json!(12)));
    assert_eq!(
        (b[1]["verified"].clone(), b[1]["line"].clone()),
        (json!(true), json!(9)),
        "moved to the STEP"
    );
    assert_eq!(b[2]["verified"], false);
    assert!(b[2]["message"].as_str().unwrap().contains("E0200"), "{}", b[2]);
    assert!(b[3]["message"].as_str().unwrap().contains("medium"), "{}", b[3]);
    assert_eq!(b[4]["verified"], false, "{}", b[4]);
    assert!(b[5]["message"].as_str().unwrap().contains("hit count"), "{}", b[5]);
    assert_eq!(b[6]["line"], 28, "past the end: moved to the last statement");
    let other = dap.ok(
        "setBreakpoints",
        json!({ "source": { "path": setup.fixture.path("other.tiss") }, "breakpoints": [{ "line": 3 }] }),
    );
    assert_eq!(other["breakpoints"][0]["verified"], false);
    assert_eq!(dap.finish(), 0);
}

#[test]
fn a_condition_stops_only_where_it_holds() {
    for (condition, stops) in [("name == \"world\"", true), ("name == \"moon\"", false)] {
        let setup = Setup::new(PLAN);
        let mut dap = setup.client();
        dap.launch(setup.launch(json!({})));
        setup.breakpoints(&mut dap, json!([{ "line": 12, "condition": condition }]));
        dap.ok("setExceptionBreakpoints", json!({ "filters": [] }));
        dap.ok("configurationDone", json!({}));
        let stop = dap.stopped();
        if stops {
            assert_eq!(stop["reason"], "breakpoint", "{condition}");
            assert_eq!(dap.line(), 12);
        } else {
            assert_eq!(stop["reason"], "exception", "{condition}: on to the PAUSE");
            assert_eq!(dap.line(), 27);
        }
        assert_eq!(dap.finish(), 0);
    }
}

#[test]
fn hit_counts_and_log_messages() {
    for (hit, lines) in [("2", vec![11]), (">= 2", vec![11, 12]), ("% 3", vec![12])] {
        let setup = Setup::new(THRICE);
        let mut dap = setup.client();
        dap.launch(setup.launch(json!({})));
        setup.breakpoints(&mut dap, json!([{ "line": 4, "hitCondition": hit }]));
        dap.ok("configurationDone", json!({}));
        for line in &lines {
            assert_eq!(dap.stopped()["reason"], "breakpoint");
            let trace = dap.ok("stackTrace", json!({ "threadId": 1 }));
            assert_eq!(trace["stackFrames"][1]["line"], *line, "{hit}: called from line {line}");
            dap.ok("continue", json!({ "threadId": 1 }));
        }
        assert_eq!(dap.event("exited")["body"]["exitCode"], 0, "{hit}");
        assert_eq!(dap.finish(), 0);
    }

    // A logpoint says its message, with the values of the moment, and never stops.
    let setup = Setup::new(THRICE);
    let mut dap = setup.client();
    dap.launch(setup.launch(json!({})));
    let set = setup.breakpoints(&mut dap, json!([{ "line": 4, "logMessage": "n is ${n}, \"quoted\"" }]));
    assert_eq!(set["breakpoints"][0]["verified"], true);
    dap.ok("configurationDone", json!({}));
    dap.event("terminated");
    assert_eq!(dap.output.matches("n is 1, \"quoted\"\n").count(), 3, "{}", dap.output);
    let set = setup.breakpoints(&mut dap, json!([{ "line": 4, "logMessage": "m is ${m}" }]));
    assert_eq!(set["breakpoints"][0]["verified"], false, "m is not bound on every path to line 4: {set}");
    assert_eq!(dap.finish(), 0);
}
