//! Generates large, valid plans that use every construct, for benches and
//! whole-process measurements. Shared by `benches/frontend.rs`, the
//! `gen_plan` example and the test that keeps the generated plan clean.

/// One chunk of plan: a top-level STEP using every statement form, and the
/// DEFINE_TASK it calls. Every name is suffixed with the chunk number.
fn chunk(i: usize, out: &mut String) {
    use std::fmt::Write;
    let _ = write!(
        out,
        r#"STEP "Build component {i}" {{
    SET_BUDGET RUN_COUNT = 1000
    WRITE "src/mod_{i}.py" <<PYTHON
def f_{i}(x):
    # a comment inside the body is text
    return x + {i}
PYTHON
    RUN "python3 -m pytest tests/test_{i}.py" IN "pkg" TIMEOUT 30s
    ASSERT LAST_RUN.EXIT_CODE == 0 MESSAGE "tests for {i} failed"
    ASSERT LAST_RUN.STDOUT CONTAINS "passed" AND LAST_RUN.STDERR NOT CONTAINS "error"
    VAR out_{i} = LAST_RUN.STDOUT
    READ "src/mod_{i}.py" AS src_{i}
    IF src_{i} MATCHES "def f_[0-9]+" THEN {{
        LOG "module {i} ok: ${{out_{i}}}"
    }} ELSE IF LAST_RUN.DURATION > 5s {{
        APPEND "slow.log" FROM LAST_RUN.COMMAND
    }} ELSE {{
        MKDIR "build/{i}"
    }}
    TRY {{
        RUN "make -C build/{i} ${{out_{i}}}"
        ASSERT FILE "build/{i}/out" EXISTS OR (FILE "build/{i}/log" IS_EMPTY AND NOT LAST_RUN.TIMED_OUT)
    }} CATCH AS err_{i} {{
        LOG "failed at line ${{err_{i}.LINE}}: ${{err_{i}.MESSAGE}}"
    }}
    ENV BUILD_ID = "{i}"
    CALL "helper {i}"
    STEP "Review {i}" {{
        ESTIMATE_COST INTO est_{i} {{
            PROMPT_AGENT "Review module {i}" WITH src_{i}, out_{i} INTO review_{i}
        }}
        ASSERT est_{i}.API_CALLS <= 1
        ASSERT COST < 10m
        REQUEST_REVIEW "Ship module {i}?" INTO approval_{i}
        IF approval_{i}.APPROVED {{
            PAUSE "Module {i} approved: ${{approval_{i}.COMMENT}}"
        }}
        CHOOSE "Keep the build output of {i}?" {{
            OPTION "keep" {{ LOG "kept" }}
            OPTION "clean" {{ DELETE "build/{i}/tmp" RECURSIVE }}
        }}
        ASSERT LAST_RUN.DURATION <= 30s
    }}
}}

DEFINE_TASK "helper {i}" {{
    RUN "echo helper {i}"
    ASSERT LAST_RUN.STDOUT STARTS_WITH "helper" AND LAST_RUN.STDOUT ENDS_WITH "{i}"
}}

"#
    );
}

/// A plan of at least `lines` lines.
pub fn generate(lines: usize) -> String {
    let mut out = String::with_capacity(lines * 40);
    out.push_str("#TISS! Language=Python Owner=bench\n#TISS_VERSION >= 1.0\n\nTASK \"Generated plan\"\n\n");
    out.push_str("SETUP \"Prepare\" {\n    MKDIR \"build\"\n    RUN \"true\"\n}\n\n");
    let mut i = 0;
    while out.lines().count() < lines {
        // Count in batches: counting lines is linear in the text.
        for _ in 0..100 {
            chunk(i, &mut out);
            i += 1;
        }
    }
    out
}

/// A plan with no effects at all (VAR, IF, ASSERT, string tests), for the
/// dispatch bench: `chunks` repetitions of a 12-line block in one step.
#[allow(dead_code)] // used by the VM bench only
pub fn generate_pure(chunks: usize) -> String {
    use std::fmt::Write;
    let mut out = String::from("TASK \"Pure VM work\"\nSTEP \"compute\" {\n    VAR y = \"start\"\n");
    for i in 0..chunks {
        let _ = write!(
            out,
            r#"    VAR name_{i} = "value {i} of the bench"
    VAR n_{i} = {i}
    VAR limit_{i} = 1500ms
    IF n_{i} >= 0 AND name_{i} CONTAINS "value" THEN {{
        VAR y = name_{i}
    }} ELSE IF limit_{i} > 2s {{
        VAR y = "slow"
    }} ELSE {{
        VAR y = "other"
    }}
    ASSERT y STARTS_WITH "value" AND NOT y ENDS_WITH "x" AND n_{i} != -1
    ASSERT name_{i} != y OR limit_{i} < 5s
"#
        );
    }
    out.push_str("}\n");
    out
}
