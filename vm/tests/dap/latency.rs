//! The adapter's latency (issue: "200 consecutive `next` requests average
//! ≤ 20 ms round trip on a plan of 2,000 statements; a breakpoint hit after
//! `continue` over 10,000 instructions ≤ 20 ms"), measured on the real
//! binary over its pipes: from the request written to the `stopped` event
//! read. The goal holds for an optimised build (`benches/dap_latency.sh`
//! runs this test with `--release` and prints the figures); a debug build
//! is held to ten times it.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::Setup;

const STATEMENTS: usize = 2_000;

fn goal() -> Duration {
    if cfg!(debug_assertions) { Duration::from_millis(200) } else { Duration::from_millis(20) }
}

/// One step of `STATEMENTS` conditions, each a few instructions.
fn plan() -> String {
    let mut plan = String::from("TASK \"latency\"\nSTEP \"many\" {\n");
    for i in 0..STATEMENTS {
        plan.push_str(&format!("    ASSERT \"a{i}\" != \"b{i}\" AND \"c{i}\" != \"d{i}\"\n"));
    }
    plan.push_str("}\n");
    plan
}

#[test]
fn next_and_continue_answer_within_the_goal() {
    let setup = Setup::new(&plan());
    let mut dap = setup.client();
    dap.launch(setup.launch(json!({ "stopOnEntry": true })));
    dap.ok("configurationDone", json!({}));
    dap.stopped();

    let nexts = 200;
    let started = Instant::now();
    for _ in 0..nexts {
        dap.send("next", json!({ "threadId": 1 }));
        dap.stopped();
    }
    let per_next = started.elapsed() / nexts;
    assert_eq!(dap.line(), 3 + nexts as i64 - 1);

    // A breakpoint 1,500 statements on: over 10,000 instructions away.
    let line = 3 + 1_700;
    setup.breakpoints(&mut dap, json!([{ "line": line }]));
    let before = instructions(&mut dap);
    let started = Instant::now();
    dap.send("continue", json!({ "threadId": 1 }));
    assert_eq!(dap.stopped()["reason"], "breakpoint");
    let to_break = started.elapsed();
    let ran = instructions(&mut dap) - before;
    assert!(ran >= 10_000, "{ran} instructions");
    println!(
        "tissvm dap, {STATEMENTS} statements: `next` {per_next:?} per round trip (mean of {nexts}); `continue` to a \
         breakpoint {ran} instructions on: {to_break:?}"
    );
    assert!(per_next <= goal(), "next: {per_next:?} per round trip, over {:?}", goal());
    assert!(to_break <= goal(), "continue: {to_break:?}, over {:?}", goal());
    assert_eq!(dap.finish(), 0);
}

/// The run's INSTRUCTIONS so far.
fn instructions(dap: &mut crate::client::Client) -> u64 {
    let cost = dap.ok("variables", json!({ "variablesReference": 3 }));
    let row =
        cost["variables"].as_array().unwrap().iter().find(|v| v["name"] == "INSTRUCTIONS").unwrap().clone();
    row["value"].as_str().unwrap().split(' ').next().unwrap().parse().unwrap()
}
