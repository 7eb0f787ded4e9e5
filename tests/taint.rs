//! The static taint analysis (`tisslang::analysis::taint`) on compiled plans:
//! which RUNs a model's or a file's data reaches, and which run code a
//! model wrote.

use tiss_compiler::lower::LowerOptions;
use tisslang::analysis::taint::*;

fn report(src: &str) -> TaintReport {
    let (module, _) = tiss_compiler::compile("t.tiss", src.as_bytes(), LowerOptions::default())
        .unwrap_or_else(|fe| panic!("{:#?}", fe.diagnostics));
    analyze(&module)
}

/// A flow into the RUN at `run_line`, which starts at column 5.
fn flow(kind: SourceKind, line: u32, run_line: u32) -> Flow {
    Flow { source: Source { kind, line }, run_line, run_column: 5 }
}

#[test]
fn flows_through_variables_interpolation_env_and_files() {
    let r = report(
        "TASK \"t\"\nSTEP \"s\" {\n    PROMPT_AGENT \"name a file\" INTO f\n    VAR g = \"x ${f}\"\n    \
         RUN \"cat ${g}\"\n    READ \"in.txt\" AS c\n    ENV X = c\n    RUN \"true\"\n    WRITE \"m.py\" FROM f\n    \
         READ \"m.py\" AS code\n    RUN \"echo ${code}\"\n    RUN \"python3 m.py\"\n}\n",
    );
    use SourceKind::{Prompt, Read};
    assert_eq!(
        r.flows,
        vec![
            flow(Prompt, 3, 5),
            flow(Read, 6, 8),
            flow(Read, 6, 11),
            flow(Prompt, 3, 11),
            flow(Read, 10, 11),
            flow(Read, 6, 12),
        ]
        .into_iter()
        .fold(Vec::new(), |mut v, f| {
            v.push(f);
            v.sort();
            v
        })
    );
    assert_eq!(
        r.model_code_runs,
        vec![ModelCodeRun { write_line: 9, run_line: 11 }, ModelCodeRun { write_line: 9, run_line: 12 }]
    );
    assert!(!r.incomplete);
}

#[test]
fn untainted_runs_and_runs_before_the_source_are_not_flows() {
    let r = report(
        "TASK \"t\"\nSTEP \"s\" {\n    VAR f = \"a\"\n    RUN \"cat ${f}\"\n    READ \"x\" AS f\n    \
         RUN \"ls\"\n    ASSERT f CONTAINS \"y\"\n}\n",
    );
    assert_eq!(r, TaintReport::default());
}

#[test]
fn tasks_are_followed_at_their_calls() {
    let r = report(
        "TASK \"t\"\nDEFINE_TASK \"use\" {\n    RUN \"echo ${a}\"\n}\nSTEP \"s\" {\n    VAR a = \"x\"\n    \
         CALL \"use\"\n    PROMPT_AGENT \"q\" INTO a\n    CALL \"use\"\n}\n",
    );
    assert_eq!(r.flows, vec![flow(SourceKind::Prompt, 8, 3)]);
}

/// A plan of one step whose statements are `lines`, the first at line 3.
fn step(lines: &[&str]) -> TaintReport {
    let body: String = lines.iter().map(|l| format!("    {l}\n")).collect();
    report(&format!("TASK \"t\"\nSTEP \"s\" {{\n{body}}}\n"))
}

/// The (source kind, source line, RUN line) of each flow.
fn flows(r: &TaintReport) -> Vec<(SourceKind, u32, u32)> {
    r.flows.iter().map(|f| (f.source.kind, f.source.line, f.run_line)).collect()
}

#[test]
fn a_caught_failure_carries_what_its_message_was_made_of() {
    use SourceKind::{Prompt, Read};
    // An ASSERT's MESSAGE and a READ's path, each caught: e.MESSAGE holds
    // the model's text; e.KIND and e.LINE hold nothing.
    let r = step(&[
        "PROMPT_AGENT \"q\" INTO x",
        "TRY {",
        "    ASSERT x == \"never\" MESSAGE \"bad ${x}\"",
        "} CATCH AS e {",
        "    RUN \"echo ${e.MESSAGE}\"",
        "    RUN \"echo ${e.KIND} ${e.LINE}\"",
        "}",
        "TRY {",
        "    READ \"no-${x}.txt\" AS y",
        "} CATCH AS f {",
        "    RUN \"echo ${f.MESSAGE}\"",
        "}",
    ]);
    assert_eq!(flows(&r), [(Prompt, 3, 7), (Prompt, 3, 13)]);
    // A constant MESSAGE, a constant path: nothing.
    let r = step(&[
        "PROMPT_AGENT \"q\" INTO x",
        "TRY {",
        "    ASSERT x == \"never\" MESSAGE \"bad\"",
        "    READ \"missing.txt\" AS y",
        "} CATCH AS e {",
        "    RUN \"echo ${e.MESSAGE}\"",
        "}",
    ]);
    assert_eq!(flows(&r), []);
    // A failed model request: its message may quote the model's server.
    let r = step(&[
        "TRY {",
        "    PROMPT_AGENT \"q\" INTO x",
        "} CATCH AS e {",
        "    RUN \"echo ${e.MESSAGE}\"",
        "}",
    ]);
    assert_eq!(flows(&r), [(Prompt, 4, 6)]);
    // A file's text in a READ path, then in a RUN that cannot start.
    let r = step(&[
        "READ \"in.txt\" AS c",
        "TRY {",
        "    RUN \"${c}\"",
        "} CATCH AS e {",
        "    RUN \"echo ${e.MESSAGE}\"",
        "}",
    ]);
    assert_eq!(flows(&r), [(Read, 3, 5), (Read, 3, 7)]);
}

#[test]
fn a_failure_in_a_called_task_reaches_the_callers_catch() {
    let r = report(
        "TASK \"t\"\nDEFINE_TASK \"check\" {\n    ASSERT a == \"never\" MESSAGE \"saw ${a}\"\n}\nSTEP \"s\" {\n    \
         PROMPT_AGENT \"q\" INTO a\n    TRY {\n        CALL \"check\"\n    } CATCH AS e {\n        \
         RUN \"echo ${e.MESSAGE}\"\n    }\n}\n",
    );
    assert_eq!(flows(&r), [(SourceKind::Prompt, 6, 10)]);
}

#[test]
fn last_run_text_carries_what_its_command_held() {
    use SourceKind::Prompt;
    let r = step(&[
        "RUN \"true\"",
        "RUN \"echo ${LAST_RUN.STDOUT} ${LAST_RUN.EXIT_CODE}\"",
        "PROMPT_AGENT \"q\" INTO x",
        "RUN \"echo ${x}\"",
        "VAR out = LAST_RUN.STDOUT",
        "RUN \"echo ${LAST_RUN.EXIT_CODE} ${LAST_RUN.TIMED_OUT} ${LAST_RUN.DURATION}\"",
        "RUN \"echo ${out}\"",
        "RUN \"echo ${LAST_RUN.COMMAND}\"",
        "RUN \"echo ${LAST_RUN.STDERR}\"",
    ]);
    // Line 4 and line 8 hold only numbers; line 9 the STDOUT kept in `out`,
    // and lines 10 and 11 follow the tainted RUN of line 9.
    assert_eq!(flows(&r), [(Prompt, 5, 6), (Prompt, 5, 9), (Prompt, 5, 10), (Prompt, 5, 11)]);
}
