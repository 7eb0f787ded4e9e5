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
