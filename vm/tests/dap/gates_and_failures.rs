//! Exception breakpoints: failures caught or not, and gates answered from
//! the debug console.

use serde_json::json;

use crate::{PLAN, Setup};

const FAILING: &str = r#"TASK "fails"

STEP "Try" {
    TRY {
        RUN "exit 3" TIMEOUT 5s
        ASSERT LAST_RUN.EXIT_CODE == 0
    } CATCH AS e {
        LOG "caught ${e.KIND}"
    }
    ASSERT 1 == 2
}
"#;

#[test]
fn failures_stop_as_the_filters_say() {
    // No filter: the caught failure passes, the uncaught one ends the run.
    let setup = Setup::new(FAILING);
    let mut dap = setup.client();
    dap.launch(setup.launch(json!({})));
    dap.ok("setExceptionBreakpoints", json!({ "filters": [] }));
    dap.ok("configurationDone", json!({}));
    assert_eq!(dap.event("exited")["body"]["exitCode"], 1);
    dap.event("terminated");
    assert!(dap.output.contains("caught assertion_failed"), "{}", dap.output);
    assert!(dap.output.contains("assertion_failed"), "the failure is told: {}", dap.output);
    assert_eq!(dap.finish(), 0);

    // Assertions: the caught one stops at its CATCH, the uncaught one before the end.
    let mut dap = setup.client();
    dap.launch(setup.launch(json!({})));
    dap.ok("setExceptionBreakpoints", json!({ "filters": ["assertion_failed"] }));
    dap.ok("configurationDone", json!({}));
    let stop = dap.stopped();
    assert_eq!(stop["reason"], "exception");
    assert_eq!(dap.line(), 8);
    dap.ok("continue", json!({ "threadId": 1 }));
    let stop = dap.stopped();
    assert!(stop["text"].as_str().unwrap().contains("not caught"), "{stop}");
    let vars = dap.ok("variables", json!({ "variablesReference": 2 }));
    assert!(
        vars["variables"].as_array().unwrap().iter().any(|v| v["name"] == "EXIT_CODE" && v["value"] == "3")
    );
    dap.ok("continue", json!({ "threadId": 1 }));
    assert_eq!(dap.event("exited")["body"]["exitCode"], 1);
    assert!(dap.refused("next", json!({ "threadId": 1 })).contains("ended"));
    assert_eq!(dap.finish(), 0);
}

#[test]
fn a_gate_is_answered_in_the_debug_console() {
    let setup = Setup::new(PLAN);
    let mut dap = setup.client();
    dap.launch(setup.launch(json!({})));
    dap.ok("setExceptionBreakpoints", json!({ "filters": ["gate"] }));
    dap.ok("configurationDone", json!({}));
    let stop = dap.stopped();
    assert_eq!(stop["reason"], "exception");
    assert!(stop["text"].as_str().unwrap().contains("answer continue"), "{stop}");
    assert_eq!(dap.line(), 27);
    for (answer, error) in
        [("answer", "answer what?"), ("answer approve", "does not answer"), ("answer 0", "numbered")]
    {
        let refused = dap.refused("evaluate", json!({ "expression": answer, "context": "repl" }));
        assert!(refused.contains(error), "{answer}: {refused}");
    }
    dap.ok("evaluate", json!({ "expression": "answer continue", "context": "repl" }));
    dap.event("continued");
    assert_eq!(dap.event("exited")["body"]["exitCode"], 0);
    assert!(std::fs::read_to_string(setup.fixture.ws().join("name.txt")).unwrap() == "world");
    assert_eq!(dap.finish(), 0);
}

#[test]
fn the_gate_filter_stops_even_where_an_answers_file_would_answer() {
    let setup = Setup::new(PLAN);
    let answers = setup.fixture.path("answers.json");
    std::fs::write(&answers, r#"[{"answer": "continue"}]"#).unwrap();
    let args = json!({ "args": ["--answers", answers] });
    for (filters, stops) in [(json!(["gate"]), true), (json!([]), false)] {
        let mut dap = setup.client();
        dap.launch(setup.launch(args.clone()));
        dap.ok("setExceptionBreakpoints", json!({ "filters": filters }));
        dap.ok("configurationDone", json!({}));
        if stops {
            assert_eq!(dap.stopped()["reason"], "exception");
            dap.ok("evaluate", json!({ "expression": "answer continue", "context": "repl" }));
        }
        assert_eq!(dap.event("exited")["body"]["exitCode"], 0, "{filters}");
        assert_eq!(dap.finish(), 0);
    }
}

/// A session watches what `tissvm debug` watches: a `--policy` file in the
/// workspace that the plan's command loosened is put back when the session
/// closes (it was not watched under the adapter), the plan's kept beside it.
#[test]
fn a_policy_file_the_plan_loosens_in_a_session_is_put_back() {
    let setup = Setup::new("TASK \"t\"\nSTEP \"s\" {\n    RUN \"echo > policy.toml\" TIMEOUT 5s\n}\n");
    let ws = setup.fixture.ws();
    let rules = "[commands]\ndeny = [\"curl *\"]\n";
    std::fs::write(ws.join("policy.toml"), rules).unwrap();
    let policy = ws.join("policy.toml").display().to_string();
    let mut dap = setup.client();
    dap.launch(setup.launch(json!({ "args": ["--policy", policy] })));
    dap.ok("configurationDone", json!({}));
    assert_eq!(dap.event("exited")["body"]["exitCode"], 0);
    assert_eq!(dap.finish(), 0);
    assert_eq!(std::fs::read_to_string(ws.join("policy.toml")).unwrap(), rules);
    assert!(ws.join("policy.toml.from-plan").exists());
}
