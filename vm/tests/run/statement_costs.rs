//! Costs and budgets as statements use them, through the real `tissvm run`
//! binary (book: reference/costs.md): ESTIMATE_COST, COST, SET_BUDGET and `--budget`, which
//! limit wins, what TRY cannot catch, and the preflight of a step.

use super::run_statements::run_json;
use crate::common::Fixture;

#[test]
fn estimate_cost_binds_the_bound_and_runs_nothing() {
    let fx = Fixture::new();
    let plan = r#"TASK "estimate"
STEP "estimate" {
    ESTIMATE_COST INTO e {
        RUN "touch ran1"
        RUN "touch ran2"
        IF FILE "x" EXISTS { RUN "touch ran3" }
        PROMPT_AGENT "q" INTO a
    }
    WRITE "estimate.txt" FROM "${e.RUN_COUNT} ${e.API_CALLS}"
    ASSERT e.RUN_COUNT == 3
    ASSERT COST.RUN_COUNT == 0
}
"#;
    let report = run_json(&fx, plan, 0);
    assert_eq!(fx.read("estimate.txt"), "3 1");
    assert_eq!(report["cost"]["run_count"], 0);
    assert_eq!(report["cost"]["api_calls"], 0);
    assert_eq!(fx.listing(), ["estimate.txt"]);
}

#[test]
fn cost_run_count_is_what_the_current_step_spent() {
    let fx = Fixture::new();
    let plan = r#"TASK "cost"
STEP "one" {
    RUN "true"
    RUN "true"
    WRITE "one.txt" FROM "${COST.RUN_COUNT}"
}
STEP "two" {
    WRITE "two-before.txt" FROM "${COST.RUN_COUNT}"
    RUN "true"
    WRITE "two.txt" FROM "${COST.RUN_COUNT}"
}
"#;
    let report = run_json(&fx, plan, 0);
    assert_eq!(fx.read("one.txt"), "2");
    assert_eq!(fx.read("two-before.txt"), "0");
    assert_eq!(fx.read("two.txt"), "1");
    assert_eq!(report["cost"]["run_count"], 3);
}

#[test]
fn set_budget_run_count_exceeded_halts_with_exit_4() {
    let fx = Fixture::new();
    // The IF hides the third RUN's certainty from a static preflight, so
    // this exercises the limit crossed at run time.
    let plan = r#"TASK "budget"
SET_BUDGET RUN_COUNT = 2
STEP "spend" {
    RUN "touch one"
    RUN "touch two"
    IF FILE "two" EXISTS {
        RUN "touch three"
    }
    WRITE "after.txt" FROM "must not run"
}
STEP "later" {
    LOG "never"
}
"#;
    let report = run_json(&fx, plan, 4);
    assert_eq!(report["status"], "budget_exceeded");
    let f = &report["failure"];
    assert_eq!(f["kind"], "budget_exceeded");
    assert_eq!(f["dimension"], "RUN_COUNT");
    assert_eq!(f["cap"], 2);
    // The third command was refused before it ran: two spent, one more needed.
    assert_eq!((f["spent"].as_u64(), f["needed"].as_u64()), (Some(2), Some(1)));
    assert_eq!(f["reason"], "limit");
    assert_eq!(f["line"], 7);
    assert_eq!(report["cost"]["run_count"], 2);
    assert_eq!(report["steps"][0]["status"], "failed");
    assert_eq!(report["steps"][1]["status"], "not_run");
    assert_eq!(fx.listing(), ["one", "two"]);
}

#[test]
fn cli_budget_caps_run_count() {
    let fx = Fixture::new();
    let plan = r#"TASK "budget"
STEP "first" {
    RUN "touch one"
}
STEP "second" {
    RUN "touch two"
}
"#;
    let run = fx.run(plan, &["--budget", "RUN_COUNT=1", "--output-format", "json"]);
    run.expect(4);
    let report = run.json();
    assert_eq!(report["status"], "budget_exceeded");
    assert_eq!(report["failure"]["dimension"], "RUN_COUNT");
    assert_eq!(report["failure"]["cap"], 1);
    assert_eq!(report["steps"][0]["status"], "passed");
    assert_eq!(report["steps"][1]["status"], "failed");
    assert_eq!(fx.listing(), ["one"]);
}

#[test]
fn the_lower_of_set_budget_and_cli_budget_wins() {
    let plan_with = |cap: u32| {
        format!(
            "TASK \"t\"\nSET_BUDGET RUN_COUNT = {cap}\nSTEP \"s\" {{\n    RUN \"touch a\"\n    IF FILE \"a\" EXISTS {{ RUN \"touch b\" }}\n    IF FILE \"b\" EXISTS {{ RUN \"touch c\" }}\n}}\n"
        )
    };
    // The plan's cap is the lower one.
    let fx = Fixture::new();
    let run = fx.run(&plan_with(1), &["--budget", "RUN_COUNT=5", "--output-format", "json"]);
    run.expect(4);
    assert_eq!(run.json()["failure"]["cap"], 1);
    assert_eq!(fx.listing(), ["a"]);
    // The command line's cap is the lower one.
    let fx = Fixture::new();
    let run = fx.run(&plan_with(5), &["--budget", "run_count=2", "--output-format", "json"]);
    run.expect(4);
    assert_eq!(run.json()["failure"]["cap"], 2);
    assert_eq!(fx.listing(), ["a", "b"]);
    // Under both caps: passes.
    let fx = Fixture::new();
    fx.run(&plan_with(3), &["--budget", "RUN_COUNT=3"]).expect(0);
    assert_eq!(fx.listing(), ["a", "b", "c"]);
}

#[test]
fn try_does_not_catch_budget_exceeded() {
    let fx = Fixture::new();
    let plan = r#"TASK "budget"
SET_BUDGET RUN_COUNT = 1
STEP "s" {
    RUN "true"
    TRY {
        IF FILE "." EXISTS { RUN "touch second" }
    } CATCH {
        WRITE "caught.txt" FROM "wrong"
    }
}
"#;
    let report = run_json(&fx, plan, 4);
    assert_eq!(report["failure"]["kind"], "budget_exceeded");
    assert!(fx.listing().is_empty(), "{:?}", fx.listing());
}

#[test]
fn invalid_budget_flags_are_usage_errors() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"touch ran\"\n}\n";
    for bad in ["RUN_COUNT", "RUNS=3", "RUN_COUNT=3s", "EXECUTION_TIME=5", "RUN_COUNT=-1"] {
        let run = fx.run(plan, &["--budget", bad]);
        run.expect(2);
        assert!(run.stderr.contains("--budget"), "{bad}: {}", run.stderr);
    }
    assert!(fx.listing().is_empty());
}

/// book: reference/costs.md: "work whose *minimum* cost exceeds what is left cannot fit on any
/// path and is refused before it starts (`budget_exceeded`, reason `preflight`)".
#[test]
fn preflight_refuses_a_step_that_cannot_fit() {
    let fx = Fixture::new();
    let plan = r#"TASK "preflight"
SET_BUDGET RUN_COUNT = 2
STEP "too big" {
    RUN "touch one"
    RUN "touch two"
    RUN "touch three"
}
"#;
    let report = run_json(&fx, plan, 4);
    assert_eq!(report["failure"]["kind"], "budget_exceeded");
    assert_eq!(report["failure"]["reason"], "preflight");
    assert_eq!(report["cost"]["run_count"], 0);
    assert!(fx.listing().is_empty(), "nothing may run: {:?}", fx.listing());
}

// ---------------------------------------------------------------- failure kinds and exit statuses
