//! The checks, driven through the real front end on small plans: for each
//! code, where it points (line, column) and the exact replacements it offers.

use crate::frontend;

type Found = (String, usize, usize, Vec<String>);

/// (code, line, column, suggested replacements) of every diagnostic.
fn diags(src: &str) -> Vec<Found> {
    let fe = frontend("t.tiss", src.as_bytes());
    fe.diagnostics
        .iter()
        .map(|d| {
            let lc = fe.file.line_col(d.span.start as usize);
            let reps = d.suggestions.iter().map(|s| s.replacement.clone()).collect();
            (d.code.to_string(), lc.line, lc.column, reps)
        })
        .collect()
}

fn d(code: &str, line: usize, col: usize, reps: &[&str]) -> Found {
    (code.to_string(), line, col, reps.iter().map(|s| s.to_string()).collect())
}

/// The diagnostics of a plan whose one STEP holds `body` (from line 3).
fn in_step(body: &str) -> Vec<Found> {
    diags(&format!("TASK \"t\"\nSTEP \"s\" {{\n{body}\n}}\n"))
}

/// Codes only, for flow tests whose positions are checked elsewhere.
fn codes(body: &str) -> Vec<String> {
    in_step(body).into_iter().map(|f| f.0).collect()
}

const NONE: [&str; 0] = [];

fn messages(src: &str) -> Vec<String> {
    frontend("t.tiss", src.as_bytes()).diagnostics.iter().map(|d| d.message.clone()).collect()
}

fn suggestion_messages(src: &str) -> Vec<String> {
    let fe = frontend("t.tiss", src.as_bytes());
    fe.diagnostics.iter().flat_map(|d| d.suggestions.iter().map(|s| s.message.clone())).collect()
}

const SPEC_EXAMPLE: &str = r#"#TISS! Language=Python
#TISS_VERSION >= 1.0

TASK "Create and test a simple Python hello world script"

SET_BUDGET RUN_COUNT = 10

STEP "Create the main application file" {
    WRITE "main.py" <<PYTHON
import sys

def main():
    print(f"Hello, {sys.argv[1]}!")

if __name__ == "__main__":
    main()
PYTHON
}

STEP "Run the script and verify its output" {
    RUN "python3 main.py TissLang" TIMEOUT 30s
    ASSERT LAST_RUN.EXIT_CODE == 0
    ASSERT LAST_RUN.STDOUT CONTAINS "Hello, TissLang!"
    ASSERT FILE "main.py" EXISTS
}
"#;

#[test]
fn spec_example_is_clean() {
    assert_eq!(diags(SPEC_EXAMPLE), vec![]);
}

const EVERY_CONSTRUCT: &str = r#"#TISS! Language=Shell
#TISS_VERSION ^1.0
TASK "all of it"
SET_BUDGET EXECUTION_TIME = 10m
SETUP "prepare" {
    VAR who = "world"
    MKDIR "build"
}
DEFINE_TASK "test" {
    RUN "make test" IN "build" TIMEOUT 2m
    ASSERT LAST_RUN.EXIT_CODE == 0 MESSAGE "tests failed for ${who}"
    VAR tested = TRUE
}
DEFINE_TASK "all" { CALL "test" LOG "after ${LAST_RUN.COMMAND}" }
STEP "work" {
    SET_BUDGET API_CALLS = 5
    ENV GREETING = "hello ${who}"
    ENV LIMIT = 3
    READ "in.txt" AS input
    WRITE "out.txt" FROM input
    APPEND "log.txt" <<EOF
more
EOF
    CALL "all"
    ASSERT tested
    ASSERT NOT LAST_RUN.TIMED_OUT AND (LAST_RUN.STDOUT IS_EMPTY OR LAST_RUN.STDOUT MATCHES "^ok\\s+\\d+$")
    ASSERT LAST_RUN.STDERR NOT CONTAINS "error" AND LAST_RUN.DURATION < 30s
    ASSERT COST < 5m AND COST.RUN_COUNT <= 10 AND COST.EXECUTION_TIME < 1h
    VAR before = COST
    ASSERT before.API_CALLS >= 0
    TRY {
        RUN "flaky"
        VAR outcome = "ok"
    } CATCH AS e {
        LOG "${e.KIND}: ${e.MESSAGE} at ${e.STEP}:${e.LINE}"
        VAR outcome = "failed"
    }
    LOG "${outcome}"
    IF outcome == "ok" THEN { VAR next = 1 } ELSE IF FILE "x" IS_EMPTY { VAR next = 2 } ELSE { VAR next = 3 }
    ASSERT next > 0
    PROMPT_AGENT "summarize ${input}" WITH input, outcome INTO summary
    REQUEST_REVIEW "ship ${summary}?" INTO review
    ASSERT review.APPROVED OR review.COMMENT STARTS_WITH "later"
    CHOOSE "how?" {
        OPTION "fast" { VAR mode = "fast" }
        STEP "slow" { VAR mode = "slow" }
    }
    LOG "${mode}"
    ESTIMATE_COST INTO est { CALL "test" PROMPT_AGENT "x" }
    ASSERT est.API_CALLS <= 1 AND est.API_CALLS_MIN >= 0 AND est.EXECUTION_TIME_MIN < 1h
    PAUSE "look at ${later}"
    DELETE "build/tmp" RECURSIVE
    ASSERT FILE "out.txt" CONTAINS input
}
STEP "more" { VAR later = "f" }
"#;

#[test]
fn every_construct() {
    // The one finding: PAUSE reads a variable only the later STEP binds.
    assert_eq!(diags(EVERY_CONSTRUCT), vec![d("E0203", 51, 22, &[])]);
}

// ---- structure ---------------------------------------------------------------

#[test]
fn missing_task() {
    assert_eq!(diags("STEP \"s\" { }\n"), vec![d("E0102", 1, 1, &[])]);
    assert_eq!(diags(""), vec![d("E0102", 1, 1, &[])]);
}

#[test]
fn missing_task_not_repeated_after_a_parse_error() {
    let found = diags("TASK\nSTEP \"s\" { }\n");
    assert!(!found.iter().any(|f| f.0 == "E0102"), "{found:?}");
    assert!(!found.is_empty());
}

#[test]
fn duplicate_task() {
    assert_eq!(diags("TASK \"a\"\nTASK \"b\"\n"), vec![d("E0103", 2, 1, &[])]);
    assert!(messages("TASK \"a\"\nTASK \"b\"\n")[0].contains("line 1"));
}

#[test]
fn task_not_first() {
    assert_eq!(diags("STEP \"a\" { }\nTASK \"t\"\n"), vec![d("E0104", 1, 1, &[])]);
    let src = "#TISS! A=b\nSET_BUDGET RUN_COUNT = 1\nTASK \"t\"\n";
    assert_eq!(diags(src), vec![d("E0104", 2, 1, &[])]);
}

#[test]
fn setup_after_step_and_duplicate_setup() {
    let src = "TASK \"t\"\nSTEP \"a\" { }\nSETUP { }\nSETUP { }\n";
    assert_eq!(diags(src), vec![d("E0106", 3, 1, &[]), d("E0107", 4, 1, &[])]);
}

#[test]
fn choose_needs_two_options() {
    let body = "  CHOOSE \"pick\" { OPTION \"only\" { } }";
    assert_eq!(in_step(body), vec![d("E0110", 3, 3, &[])]);
    assert_eq!(in_step("CHOOSE { OPTION \"a\" { } OPTION \"b\" { } }"), vec![]);
    let options = |n: usize| (0..n).map(|i| format!("OPTION \"o{i}\" {{ }} ")).collect::<String>();
    assert_eq!(in_step(&format!("  CHOOSE {{ {} }}", options(1000))), vec![]);
    assert_eq!(in_step(&format!("  CHOOSE {{ {} }}", options(1001))), vec![d("E0110", 3, 3, &[])]);
}

#[test]
fn choose_options_need_labels_of_their_own() {
    let body = "  CHOOSE { OPTION \"a\" { } STEP \"b\" { } OPTION \"a\" { } OPTION \"a\" { } }";
    assert_eq!(in_step(body), vec![d("E0113", 3, 47, &[]), d("E0113", 3, 62, &[])]);
    // Labels that differ only in case are told apart exactly; interpolated ones at run time.
    assert_eq!(in_step("CHOOSE { OPTION \"a\" { } OPTION \"A\" { } }"), vec![]);
    assert_eq!(in_step("VAR x = \"a\"\nCHOOSE { OPTION \"${x}\" { } OPTION \"${x}\" { } }"), vec![]);
}

#[test]
fn duplicate_define() {
    let src = "TASK \"t\"\nDEFINE_TASK \"x\" { }\nDEFINE_TASK \"x\" { }\n";
    assert_eq!(diags(src), vec![d("E0212", 3, 13, &[])]);
    assert!(messages(src)[0].contains("line 2"));
}

#[test]
fn version_not_satisfied() {
    let src = "#TISS_VERSION >= 1.2\nTASK \"t\"\n";
    assert_eq!(diags(src), vec![d("E0011", 1, 1, &[])]);
    assert!(messages(src)[0].contains("implements 1.1.0"));
    assert_eq!(diags("#TISS_VERSION < 1.0\nTASK \"t\"\n").len(), 1);
    assert_eq!(diags("#TISS_VERSION == 1.0.0\nTASK \"t\"\n").len(), 1);
    assert_eq!(diags("#TISS_VERSION ^1.0\nTASK \"t\"\n"), vec![]);
    assert_eq!(diags("#TISS_VERSION == 1.1.0\nTASK \"t\"\n"), vec![]);
}

// ---- names -------------------------------------------------------------------

#[test]
fn undefined_variable_suggests_the_nearest_bound_name() {
    assert_eq!(in_step("VAR result = \"a\"\nLOG \"${reslt}\""), vec![d("E0200", 4, 8, &["result"])]);
    assert_eq!(in_step("LOG \"${nothing_like_it}\""), vec![d("E0200", 3, 8, &[])]);
    assert_eq!(in_step("ASSERT LASTRUN.EXIT_CODE == 0"), vec![d("E0200", 3, 8, &["LAST_RUN"])]);
    // PROMPT_AGENT ... WITH names variables too.
    assert_eq!(
        in_step("VAR input = \"a\"\nPROMPT_AGENT \"q\" WITH inptu"),
        vec![d("E0200", 4, 23, &["input"])]
    );
}

#[test]
fn undefined_task_suggests_the_quoted_name() {
    let src = "TASK \"t\"\nDEFINE_TASK \"build\" { }\nSTEP \"s\" {\n  CALL \"buid\"\n}\n";
    assert_eq!(diags(src), vec![d("E0201", 4, 8, &["\"build\""])]);
    let src = "TASK \"t\"\nSTEP \"s\" {\n  CALL \"nothing\"\n}\n";
    assert_eq!(diags(src), vec![d("E0201", 3, 8, &[])]);
    let src = "TASK \"t\"\nSTEP \"s\" {\n  VAR n = \"x\"\n  CALL \"${n}\"\n}\n";
    assert_eq!(diags(src), vec![d("E0201", 4, 8, &[])]);
}

#[test]
fn unknown_field() {
    assert_eq!(
        in_step("RUN \"x\"\nASSERT LAST_RUN.STDOUTT CONTAINS \"a\""),
        vec![d("E0202", 4, 17, &["STDOUT"])]
    );
    assert_eq!(in_step("ASSERT COST.RUNS < 3"), vec![d("E0202", 3, 13, &[])]);
    let body = "TRY { } CATCH AS e { LOG \"${e.MESAGE}\" }";
    assert_eq!(in_step(body), vec![d("E0202", 3, 31, &["MESSAGE"])]);
    let body = "ESTIMATE_COST INTO est { }\nASSERT est.API_CALL_MIN < 3";
    assert_eq!(in_step(body), vec![d("E0202", 4, 12, &["API_CALLS_MIN"])]);
    let body = "REQUEST_REVIEW \"ok?\" INTO r\nASSERT r.APROVED";
    assert_eq!(in_step(body), vec![d("E0202", 4, 10, &["APPROVED"])]);
    // A COST record copied into a variable has COST's fields, not an estimate's.
    assert_eq!(in_step("VAR c = COST\nASSERT c.RUN_COUNT_MIN < 3"), vec![d("E0202", 4, 10, &["RUN_COUNT"])]);
}

#[test]
fn field_of_non_record() {
    assert_eq!(in_step("VAR s = \"x\"\nLOG \"${s.FOO}\""), vec![d("E0216", 4, 10, &[])]);
    assert_eq!(in_step("RUN \"x\"\nASSERT LAST_RUN.STDOUT.LENGTH == 0"), vec![d("E0216", 4, 24, &[])]);
}

#[test]
fn record_as_value() {
    let all = [
        "LAST_RUN.STDOUT",
        "LAST_RUN.STDERR",
        "LAST_RUN.EXIT_CODE",
        "LAST_RUN.DURATION",
        "LAST_RUN.TIMED_OUT",
        "LAST_RUN.COMMAND",
    ];
    assert_eq!(in_step("RUN \"x\"\nLOG \"${LAST_RUN}\""), vec![d("E0215", 4, 8, &all)]);
    assert_eq!(in_step("RUN \"x\"\nWRITE \"o\" FROM LAST_RUN"), vec![d("E0215", 4, 16, &all)]);
    assert_eq!(codes("ENV X = COST"), ["E0215"]);
    // In a string test only the string fields fit.
    assert_eq!(
        in_step("RUN \"x\"\nASSERT LAST_RUN CONTAINS \"a\""),
        vec![d("E0215", 4, 8, &["LAST_RUN.STDOUT", "LAST_RUN.STDERR", "LAST_RUN.COMMAND"])]
    );
    // Compared with an integer, the integer fields.
    assert_eq!(in_step("TRY { } CATCH AS e { ASSERT e == 3 }"), vec![d("E0215", 3, 29, &["e.LINE"])]);
    // As a condition, the boolean fields.
    assert_eq!(in_step("REQUEST_REVIEW \"ok?\" INTO r\nASSERT r"), vec![d("E0215", 4, 8, &["r.APPROVED"])]);
    // Copying a record is fine.
    assert_eq!(in_step("VAR before = COST\nASSERT before.API_CALLS < 3"), vec![]);
}

// ---- flow --------------------------------------------------------------------

#[test]
fn possibly_unbound_after_if_without_else() {
    assert_eq!(
        in_step("RUN \"x\"\nIF LAST_RUN.EXIT_CODE == 0 { VAR x = 1 }\nASSERT x == 1"),
        vec![d("E0203", 5, 8, &[])]
    );
    let msg = &messages("TASK \"t\"\nSTEP \"s\" {\nIF TRUE { VAR x = 1 }\nASSERT x == 1\n}\n")[0];
    assert!(msg.contains("`x`") && msg.contains("line 3"), "{msg}");
}

#[test]
fn if_else_binding_in_both_arms() {
    assert_eq!(codes("IF TRUE { VAR x = 1 } ELSE { VAR x = 2 }\nASSERT x == 1"), NONE);
    assert_eq!(codes("IF TRUE { VAR x = 1 } ELSE { VAR y = 2 }\nASSERT x == 1"), ["E0203"]);
}

#[test]
fn else_if_chains() {
    let full = "IF TRUE { VAR x = 1 } ELSE IF FALSE { VAR x = 2 } ELSE { VAR x = 3 }\nASSERT x == 1";
    assert_eq!(codes(full), NONE);
    let open = "IF TRUE { VAR x = 1 } ELSE IF FALSE { VAR x = 2 }\nASSERT x == 1";
    assert_eq!(codes(open), ["E0203"]);
    let middle = "IF TRUE { VAR x = 1 } ELSE IF FALSE { } ELSE { VAR x = 3 }\nASSERT x == 1";
    assert_eq!(codes(middle), ["E0203"]);
    // An ELSE IF condition runs before the first arm could bind anything.
    assert_eq!(codes("IF TRUE { VAR x = 1 } ELSE IF x == 1 { }"), ["E0203"]);
}

#[test]
fn try_catch_flow() {
    assert_eq!(codes("TRY { VAR x = 1 } CATCH { VAR x = 2 }\nASSERT x == 1"), NONE);
    assert_eq!(codes("TRY { VAR x = 1 } CATCH { }\nASSERT x == 1"), ["E0203"]);
    // The handler may start before the body bound anything.
    assert_eq!(codes("TRY { VAR x = 1 } CATCH { ASSERT x == 1 }"), ["E0203"]);
    // The caught error exists in the handler only.
    assert_eq!(codes("TRY { } CATCH AS e { LOG \"${e.MESSAGE}\" }"), NONE);
    assert_eq!(codes("TRY { } CATCH AS e { }\nLOG \"${e.MESSAGE}\""), ["E0203"]);
}

#[test]
fn choose_flow() {
    let both = "CHOOSE { OPTION \"a\" { VAR m = 1 } OPTION \"b\" { VAR m = 2 } }\nASSERT m == 1";
    assert_eq!(codes(both), NONE);
    let one =
        "CHOOSE {\nOPTION \"a\" { VAR m = 1 }\nSTEP \"b\" { }\nOPTION \"c\" { VAR m = 3 }\n}\nASSERT m == 1";
    assert_eq!(codes(one), ["E0203"]);
}

#[test]
fn estimate_cost_does_not_run_its_body() {
    assert_eq!(codes("ESTIMATE_COST { VAR x = 1 }\nASSERT x == 1"), ["E0203"]);
    assert_eq!(codes("ESTIMATE_COST { RUN \"x\" }\nASSERT LAST_RUN.EXIT_CODE == 0"), ["E0204"]);
    assert_eq!(codes("ESTIMATE_COST INTO e { }\nASSERT e.RUN_COUNT == 0"), NONE);
    // Its body is still checked, from the state before it.
    assert_eq!(codes("ESTIMATE_COST { ASSERT LAST_RUN.EXIT_CODE == 0 }"), ["E0204"]);
    assert_eq!(codes("RUN \"x\"\nESTIMATE_COST { ASSERT LAST_RUN.EXIT_CODE == 0 }"), NONE);
}

#[test]
fn last_run_without_run() {
    assert_eq!(in_step("ASSERT LAST_RUN.EXIT_CODE == 0"), vec![d("E0204", 3, 8, &[])]);
    assert_eq!(codes("IF TRUE { RUN \"x\" }\nLOG \"${LAST_RUN.STDOUT}\""), ["E0204"]);
    let both = "IF TRUE { RUN \"x\" } ELSE { RUN \"y\" }\nLOG \"${LAST_RUN.STDOUT}\"";
    assert_eq!(codes(both), NONE);
    // The command is built before the RUN records anything.
    assert_eq!(codes("RUN \"echo ${LAST_RUN.STDOUT}\""), ["E0204"]);
    // Reported once per path, not at every read.
    let twice = "ASSERT LAST_RUN.EXIT_CODE == 0\nASSERT LAST_RUN.EXIT_CODE == 0";
    assert_eq!(codes(twice), ["E0204"]);
}

#[test]
fn steps_run_in_order_after_setup() {
    let src = "TASK \"t\"\nSETUP { VAR a = 1 }\nSTEP \"one\" { VAR b = a }\nSTEP \"two\" { ASSERT a == b }\n";
    assert_eq!(diags(src), vec![]);
    let src = "TASK \"t\"\nSTEP \"one\" { ASSERT b == 1 }\nSTEP \"two\" { VAR b = 1 }\n";
    assert_eq!(diags(src), vec![d("E0203", 2, 21, &[])]);
    // A step's name is evaluated when the step runs.
    let src = "TASK \"t\"\nSTEP \"one\" { VAR n = \"x\" }\nSTEP \"${n}\" { }\n";
    assert_eq!(diags(src), vec![]);
}

#[test]
fn call_summaries() {
    let task = "TASK \"t\"\nDEFINE_TASK \"check\" {\n  ASSERT x == 1\n  RUN \"y\"\n  VAR made = TRUE\n}\n";
    // The caller binds what the task reads; the task's RUN and VAR count after.
    let ok = format!(
        "{task}STEP \"s\" {{\n  VAR x = 1\n  CALL \"check\"\n  ASSERT made AND LAST_RUN.EXIT_CODE == 0\n}}\n"
    );
    assert_eq!(diags(&ok), vec![]);
    // Not bound before the CALL: reported at the CALL, naming the use's line.
    let bad = format!("{task}STEP \"s\" {{\n  CALL \"check\"\n  VAR x = 1\n}}\n");
    assert_eq!(diags(&bad), vec![d("E0203", 8, 3, &[])]);
    assert_eq!(
        messages(&bad)[0],
        "task \"check\" uses `x` (line 3), which is not bound on every path to this CALL"
    );
    // LAST_RUN read in a task before its own RUN.
    let src = "TASK \"t\"\nDEFINE_TASK \"c\" { ASSERT LAST_RUN.EXIT_CODE == 0 }\nSTEP \"s\" {\n  CALL \"c\"\n  RUN \"x\"\n  CALL \"c\"\n}\n";
    assert_eq!(diags(src), vec![d("E0204", 4, 3, &[])]);
    // A task never called never runs: nothing to report.
    let src = "TASK \"t\"\nDEFINE_TASK \"c\" { ASSERT LAST_RUN.EXIT_CODE == 0 }\n";
    assert_eq!(diags(src), vec![]);
}

#[test]
fn call_summaries_through_nested_tasks() {
    // "outer" is defined first but summarised after "inner".
    let src = "TASK \"t\"\nDEFINE_TASK \"outer\" { CALL \"inner\" }\nDEFINE_TASK \"inner\" {\n  LOG \"${x}\"\n  VAR y = 1\n}\nSTEP \"s\" {\n  CALL \"outer\"\n  VAR x = \"a\"\n  CALL \"outer\"\n  ASSERT y == 1\n}\n";
    assert_eq!(diags(src), vec![d("E0203", 8, 3, &[])]);
    assert!(messages(src)[0].contains("(line 4, in task \"inner\")"), "{:?}", messages(src));
    // What a task binds on only some path does not count after the CALL.
    let src = "TASK \"t\"\nDEFINE_TASK \"maybe\" { IF TRUE { VAR z = 1 } }\nSTEP \"s\" {\n  CALL \"maybe\"\n  ASSERT z == 1\n}\n";
    assert_eq!(diags(src), vec![d("E0203", 5, 10, &[])]);
    // A task reading what it binds on only some path needs it from every caller.
    let src = "TASK \"t\"\nDEFINE_TASK \"m\" {\n  IF TRUE { VAR z = 1 }\n  LOG \"${z}\"\n}\nSTEP \"s\" {\n  VAR z = 0\n  CALL \"m\"\n}\nSTEP \"u\" { CALL \"m\" }\n";
    assert_eq!(diags(src), vec![]);
    let src = "TASK \"t\"\nDEFINE_TASK \"m\" {\n  IF TRUE { VAR z = 1 }\n  LOG \"${z}\"\n}\nSTEP \"u\" { CALL \"m\" }\n";
    assert_eq!(diags(src), vec![d("E0203", 6, 12, &[])]);
}

// ---- types -------------------------------------------------------------------

#[test]
fn conflicting_types() {
    assert_eq!(in_step("VAR x = 1\nVAR x = \"one\""), vec![d("E0206", 4, 5, &[])]);
    let src = "TASK \"t\"\nSTEP \"s\" {\nVAR x = 1\nVAR x = \"one\"\n}\n";
    assert!(messages(src)[0].contains("line 3"));
    assert_eq!(in_step("VAR x = 1\nVAR x = 2"), vec![]);
    // Types flow through copies, whatever the source order.
    let src = "TASK \"t\"\nDEFINE_TASK \"d\" { VAR y = x }\nSTEP \"s\" {\n  VAR x = 5\n  CALL \"d\"\n  READ \"f\" AS y\n}\n";
    assert_eq!(diags(src), vec![d("E0206", 6, 15, &[])]);
    let body = "READ \"f\" AS x\nPROMPT_AGENT \"q\" INTO x\nREQUEST_REVIEW \"r\" INTO x";
    assert_eq!(in_step(body), vec![d("E0206", 5, 25, &[])]);
}

#[test]
fn type_mismatch_suggests_the_right_literal() {
    assert_eq!(in_step("RUN \"x\"\nASSERT LAST_RUN.EXIT_CODE == \"0\""), vec![d("E0205", 4, 30, &["0"])]);
    assert_eq!(in_step("RUN \"x\"\nASSERT LAST_RUN.DURATION < \"5s\""), vec![d("E0205", 4, 28, &["5s"])]);
    assert_eq!(
        in_step("RUN \"x\"\nASSERT LAST_RUN.TIMED_OUT == \"true\""),
        vec![d("E0205", 4, 30, &["TRUE"])]
    );
    assert_eq!(in_step("RUN \"x\"\nASSERT LAST_RUN.STDOUT == 0"), vec![d("E0205", 4, 27, &["\"0\""])]);
    assert_eq!(in_step("RUN \"x\"\nASSERT LAST_RUN.EXIT_CODE == \"zero\""), vec![d("E0205", 4, 30, &[])]);
    // Neither side a literal: the whole comparison.
    assert_eq!(
        in_step("RUN \"x\"\nASSERT LAST_RUN.EXIT_CODE == LAST_RUN.STDOUT"),
        vec![d("E0205", 4, 8, &[])]
    );
    // Known through a variable.
    assert_eq!(in_step("VAR n = 3\nASSERT n == \"3\""), vec![d("E0205", 4, 13, &["3"])]);
}

#[test]
fn string_tests_need_strings() {
    assert_eq!(in_step("RUN \"x\"\nASSERT LAST_RUN.EXIT_CODE CONTAINS \"0\""), vec![d("E0205", 4, 8, &[])]);
    assert_eq!(
        in_step("RUN \"x\"\nASSERT LAST_RUN.STDOUT NOT CONTAINS 42"),
        vec![d("E0205", 4, 37, &["\"42\""])]
    );
    assert_eq!(in_step("ASSERT 5s IS_EMPTY"), vec![d("E0205", 3, 8, &["\"5s\""])]);
    assert_eq!(in_step("ASSERT FILE \"a\" CONTAINS TRUE"), vec![d("E0205", 3, 26, &["\"TRUE\""])]);
}

#[test]
fn ordering_needs_integers_or_durations() {
    assert_eq!(in_step("RUN \"x\"\nASSERT LAST_RUN.STDOUT < \"b\""), vec![d("E0214", 4, 8, &[])]);
    assert_eq!(in_step("ASSERT TRUE >= FALSE"), vec![d("E0214", 3, 8, &[])]);
    assert_eq!(in_step("ASSERT 3 < 4 AND 3s <= 4s"), vec![]);
}

#[test]
fn condition_must_be_boolean() {
    assert_eq!(in_step("RUN \"x\"\nASSERT LAST_RUN.EXIT_CODE"), vec![d("E0213", 4, 8, &[])]);
    assert_eq!(in_step("ASSERT \"true\""), vec![d("E0213", 3, 8, &["TRUE"])]);
    assert_eq!(in_step("IF 1 { }"), vec![d("E0213", 3, 4, &[])]);
    assert_eq!(in_step("RUN \"x\"\nIF LAST_RUN.TIMED_OUT { }"), vec![]);
}

#[test]
fn ambiguous_cost() {
    let reps = ["COST.API_CALLS", "COST.TOKEN_COUNT", "COST.RUN_COUNT", "COST.INSTRUCTIONS"];
    assert_eq!(in_step("ASSERT COST < 3"), vec![d("E0207", 3, 8, &reps)]);
    assert_eq!(
        suggestion_messages("TASK \"t\"\nSTEP \"s\" { ASSERT COST < 3 }\n"),
        [
            "rewrite as `COST.API_CALLS < 3`",
            "rewrite as `COST.TOKEN_COUNT < 3`",
            "rewrite as `COST.RUN_COUNT < 3`",
            "rewrite as `COST.INSTRUCTIONS < 3`"
        ]
    );
    // COST on the right.
    assert_eq!(in_step("ASSERT 3 >= COST"), vec![d("E0207", 3, 13, &reps)]);
    // With a duration it means EXECUTION_TIME.
    assert_eq!(in_step("ASSERT COST < 5m AND 1s <= COST"), vec![]);
    assert_eq!(in_step("ASSERT COST.RUN_COUNT < 3"), vec![]);
}

#[test]
fn budget_value_types() {
    assert_eq!(in_step("SET_BUDGET EXECUTION_TIME = \"5m\""), vec![d("E0208", 3, 29, &["5m"])]);
    assert_eq!(in_step("SET_BUDGET RUN_COUNT = 5s"), vec![d("E0208", 3, 24, &["5"])]);
    assert_eq!(in_step("SET_BUDGET RUN_COUNT = \"5\""), vec![d("E0208", 3, 24, &["5"])]);
    assert_eq!(in_step("SET_BUDGET EXECUTION_TIME = 30"), vec![d("E0208", 3, 29, &[])]);
    assert_eq!(in_step("SET_BUDGET RUN_COUNT = -1"), vec![d("E0208", 3, 24, &[])]);
    assert_eq!(in_step("SET_BUDGET RUN_COUNT = \"ten\""), vec![d("E0208", 3, 24, &[])]);
    assert_eq!(in_step("SET_BUDGET API_CALLS = TRUE"), vec![d("E0208", 3, 24, &[])]);
    assert_eq!(in_step("VAR n = 3\nSET_BUDGET API_CALLS = n"), vec![d("E0208", 4, 24, &[])]);
    let src = "TASK \"t\"\nSET_BUDGET TOKEN_COUNT = \"1_000\"\n";
    assert_eq!(diags(src), vec![d("E0208", 2, 26, &["1_000"])]);
    assert_eq!(in_step("SET_BUDGET INSTRUCTIONS = 0\nSET_BUDGET EXECUTION_TIME = 1500ms"), vec![]);
}

// ---- literals ----------------------------------------------------------------

#[test]
fn invalid_regex() {
    assert_eq!(in_step("ASSERT \"a\" MATCHES \"(a\""), vec![d("E0209", 3, 20, &[])]);
    let src = "TASK \"t\"\nSTEP \"s\" { ASSERT \"a\" MATCHES \"(a\" }";
    assert!(messages(src)[0].contains("unclosed group"), "{:?}", messages(src));
    assert_eq!(codes("ASSERT \"a\" NOT MATCHES \"[z-a]\""), ["E0209"]);
    assert_eq!(in_step(r#"ASSERT "a" MATCHES "^a+\\d{2}$""#), vec![]);
    // An interpolated pattern is only known at run time.
    assert_eq!(in_step("VAR p = \"(\"\nASSERT \"a\" MATCHES \"${p}\""), vec![]);
    // A pattern too big to compile is invalid too.
    assert_eq!(codes(r#"ASSERT "a" MATCHES "\\w{1000}{1000}""#), ["E0209"]);
}

#[test]
fn paths_stay_in_the_workspace() {
    for bad in ["/etc/passwd", "~/.ssh/id_rsa", "C:\\\\x", "\\\\server", "a/../../x", "..", ""] {
        let body = format!("READ \"{bad}\" AS x");
        assert_eq!(in_step(&body), vec![d("E0210", 3, 6, &[])], "{bad}");
    }
    for good in ["a/../b", "./x", "dir/", "a..b", "...", "."] {
        assert_eq!(in_step(&format!("MKDIR \"{good}\"")), vec![], "{good}");
    }
    assert_eq!(in_step("DELETE \"a/..\" RECURSIVE"), vec![d("E0210", 3, 8, &[])]);
    assert_eq!(in_step("RUN \"ls\" IN \"/tmp\""), vec![d("E0210", 3, 13, &[])]);
    assert_eq!(in_step("ASSERT FILE \"../x\" EXISTS"), vec![d("E0210", 3, 13, &[])]);
    assert_eq!(codes("WRITE \"/x\" FROM \"a\"\nAPPEND \"../y\" FROM \"b\""), ["E0210", "E0210"]);
    // Interpolated: only a literal prefix that already decides.
    assert_eq!(in_step("VAR d = \"a\"\nMKDIR \"/tmp/${d}\""), vec![d("E0210", 4, 7, &[])]);
    assert_eq!(in_step("VAR d = \"a\"\nMKDIR \"../${d}\""), vec![d("E0210", 4, 7, &[])]);
    assert_eq!(in_step("VAR d = \"a\"\nMKDIR \"${d}/x\"\nMKDIR \"x${d}/../..\""), vec![]);
}

// ---- calls -------------------------------------------------------------------

#[test]
fn call_cycles() {
    let src = "TASK \"t\"\nDEFINE_TASK \"a\" {\n  CALL \"a\"\n}\n";
    assert_eq!(diags(src), vec![d("E0211", 3, 3, &[])]);
    assert!(messages(src)[0].contains("\"a\" → \"a\""));
    let src = "TASK \"t\"\nDEFINE_TASK \"a\" { CALL \"b\" }\nDEFINE_TASK \"b\" {\n  CALL \"a\"\n}\nSTEP \"s\" { CALL \"a\" }\n";
    assert_eq!(diags(src), vec![d("E0211", 4, 3, &[])]);
    assert!(messages(src)[0].contains("\"a\" → \"b\" → \"a\""), "{:?}", messages(src));
    // Two cycles through one task: each reported once.
    let src = "TASK \"t\"\nDEFINE_TASK \"a\" { CALL \"b\" CALL \"c\" }\nDEFINE_TASK \"b\" { CALL \"a\" }\nDEFINE_TASK \"c\" { CALL \"a\" }\n";
    assert_eq!(diags(src).iter().filter(|f| f.0 == "E0211").count(), 2);
    // A diamond is no cycle.
    let src = "TASK \"t\"\nDEFINE_TASK \"a\" { CALL \"b\" CALL \"c\" }\nDEFINE_TASK \"b\" { CALL \"c\" }\nDEFINE_TASK \"c\" { }\nSTEP \"s\" { CALL \"a\" }\n";
    assert_eq!(diags(src), vec![]);
}

#[test]
fn long_chains_do_not_overflow_the_stack() {
    use std::fmt::Write;
    let n = 5_000;
    let mut src = String::from("TASK \"t\"\n");
    for i in 0..n {
        let next = i + 1;
        let _ = writeln!(src, "DEFINE_TASK \"t{i}\" {{ CALL \"t{next}\" VAR v{i} = v{next} }}");
    }
    let _ = writeln!(src, "DEFINE_TASK \"t{n}\" {{ VAR v{n} = 1 }}");
    let _ = writeln!(src, "STEP \"s\" {{ CALL \"t0\" ASSERT v0 == 1 }}");
    assert_eq!(diags(&src), vec![]);
}
