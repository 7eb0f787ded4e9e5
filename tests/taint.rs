//! The static taint analysis (`tisslang::analysis::taint`) on compiled plans:
//! which RUNs a model's or a file's data reaches, and which run code a
//! model wrote.

use tiss_compiler::KeepSource;
use tisslang::analysis::taint::*;

fn report(src: &str) -> TaintReport {
    let (module, _) = tiss_compiler::compile("t.tiss", src.as_bytes(), KeepSource::Text)
        .unwrap_or_else(|fe| panic!("{:#?}", fe.diagnostics));
    analyze(&module)
}

/// A flow into the RUN at `run_line`, which starts at column 5.
fn flow(kind: SourceKind, line: u32, run_line: u32) -> Flow {
    Flow { source: Source::untyped(kind, line), run_line, run_column: 5 }
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
    // The RUN at line 5 held model output, which it may have written
    // anywhere: every RUN after it may run that (before the WRITE at 9).
    let after_5 = |run_line| ModelCodeRun { write_line: 5, run_line, by_run: true };
    assert_eq!(r.model_code_runs, vec![after_5(8), after_5(11), after_5(12)]);
    assert_eq!(r.written_runs, r.model_code_runs);
    assert_eq!((r.written_before(5), r.written_before(12)), (None, Some(5)));
    assert!(!r.incomplete);
}

#[test]
fn a_write_of_file_data_and_an_in_directory_reach_the_runs_after() {
    let r = report(
        "TASK \"t\"\nSTEP \"s\" {\n    PROMPT_AGENT \"which directory?\" INTO d\n    \
         READ \"in.txt\" AS c\n    RUN \"true\"\n    APPEND \"gen.sh\" FROM \"# ${c}\"\n    RUN \"sh gen.sh\"\n    \
         WRITE \"other.sh\" FROM c\n    RUN \"sh other.sh\"\n    RUN \"make\" IN \"${d}\"\n    RUN \"true\"\n}\n",
    );
    assert_eq!(r.flows, vec![flow(SourceKind::Prompt, 3, 10)]);
    // READ data is not model output, but `[taint] run` holds every RUN after
    // its WRITE, each with the first such write; the RUN in the directory a
    // model named may have written model output there.
    let after = |write_line, run_line, by_run| ModelCodeRun { write_line, run_line, by_run };
    assert_eq!(r.model_code_runs, vec![after(10, 11, true)]);
    assert_eq!(
        r.written_runs,
        vec![after(6, 7, false), after(6, 9, false), after(6, 10, false), after(6, 11, false)]
    );
    assert_eq!(r.written_before(5), None);
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

/// Each flow as (source line, the part of a typed answer it names or
/// `-`, RUN line).
fn parts(r: &TaintReport, flows: &[Flow]) -> Vec<(u32, String, u32)> {
    flows
        .iter()
        .map(|f| (f.source.line, r.field(&f.source).map_or("-".into(), |a| a.path.clone()), f.run_line))
        .collect()
}

fn part(line: u32, path: &str, run_line: u32) -> (u32, String, u32) {
    (line, path.to_string(), run_line)
}

#[test]
fn a_typed_answer_is_followed_field_by_field() {
    let r = report(
        "TASK \"t\"\nTYPE T = { severity: \"low\" | \"high\", summary: STRING, n: INT, tags: LIST OF STRING, \
         who: { name: STRING, admin: BOOL } }\nSTEP \"s\" {\n    PROMPT_AGENT \"q\" INTO t AS T\n    \
         RUN \"echo ${t.severity} ${t.n}\"\n    RUN \"echo ${t.summary}\"\n    VAR w = t.who\n    \
         RUN \"echo ${w.admin} ${t.tags}\"\n    RUN \"echo ${w.name}\"\n    WRITE \"t.json\" FROM t\n}\n",
    );
    // Tainted: the STRING parts, each named, from the PROMPT_AGENT at line 4.
    assert_eq!(
        parts(&r, &r.flows),
        [part(4, "t.summary", 6), part(4, "t.tags", 8), part(4, "t.who.name", 9)]
    );
    // Clean: the enum, the INT and the BOOL reach their RUNs too, as clean flows.
    assert_eq!(
        parts(&r, &r.clean_flows),
        [part(4, "t.severity", 5), part(4, "t.n", 5), part(4, "t.who.admin", 8)]
    );
    let by_path =
        |p: &str| r.fields.iter().find(|f| f.path == p).unwrap_or_else(|| panic!("{p}: {:?}", r.fields));
    assert!(!by_path("t.severity").tainted && by_path("t.summary").tainted && by_path("t.who").tainted);
    assert!(r.fields.iter().all(|f| f.prompt == 0));
    // The RUN at line 6 held a STRING of it, which it may have written: the
    // RUNs after it may run that. (The WRITE of the whole answer has no RUN
    // after it.)
    let after_6 = |run_line| ModelCodeRun { write_line: 6, run_line, by_run: true };
    assert_eq!(r.model_code_runs, vec![after_6(8), after_6(9)]);
}

#[test]
fn a_clean_answer_is_no_taint_anywhere() {
    // Written to a file that a RUN then runs: no free text, no model code.
    let r = report(
        "TASK \"t\"\nTYPE T = { env: \"staging\" | \"prod\", n: INT }\nSTEP \"s\" {\n    \
         PROMPT_AGENT \"q\" INTO t AS T\n    PROMPT_AGENT \"q\" INTO k AS LIST OF INT\n    \
         WRITE \"t.json\" FROM t\n    ENV N = \"${t.n}\"\n    RUN \"sh t.json ${k}\"\n}\n",
    );
    assert!(r.flows.is_empty(), "{:?}", r.flows);
    assert!(r.model_code_runs.is_empty());
    // The RUN's environment holds `t.n`; its command the whole of `k`.
    assert_eq!(parts(&r, &r.clean_flows), [part(4, "t.n", 8), part(5, "k", 8)]);
    // An untyped answer and a READ name no part.
    let r = step(&["PROMPT_AGENT \"q\" INTO x", "READ \"f\" AS y", "RUN \"echo ${x} ${y}\""]);
    assert_eq!(parts(&r, &r.flows), [part(3, "-", 5), part(4, "-", 5)]);
    assert!(r.fields.is_empty() && r.clean_flows.is_empty());
}

#[test]
fn a_typed_answer_rebound_keeps_each_prompts_parts() {
    // Two prompts into one variable: a field read after both may come from either.
    let r = report(
        "TASK \"t\"\nTYPE T = { s: STRING, e: \"a\" | \"b\" }\nSTEP \"s\" {\n    PROMPT_AGENT \"one\" INTO t AS T\n    \
         IF t.e == \"a\" {\n        PROMPT_AGENT \"two\" INTO t AS T\n    }\n    RUN \"echo ${t.s} ${t.e}\"\n}\n",
    );
    assert_eq!(parts(&r, &r.flows), [part(4, "t.s", 8), part(6, "t.s", 8)]);
    assert_eq!(parts(&r, &r.clean_flows), [part(4, "t.e", 8), part(6, "t.e", 8)]);
    let prompts: Vec<u32> = r.fields.iter().filter(|f| f.path == "t.s").map(|f| f.prompt).collect();
    assert_eq!(prompts, [0, 1]);
}

/// A plan of many sources feeding one ENV (or WRITE) before many RUNs: each
/// RUN lists at most `MAX_SOURCES` of them, the last `more`, and each RUN
/// after a WRITE of model output names one write. Before, every RUN listed
/// every source and every write before it: a 15,000-line plan of this
/// shape took 8 s and 1.5 GB to inspect.
#[test]
fn many_sources_are_listed_at_most_max_sources_a_run() {
    let steps = 3000;
    let mut plan = String::from("TASK \"t\"\n");
    for i in 0..steps {
        plan.push_str(&format!(
            "STEP \"s{i}\" {{\n    PROMPT_AGENT \"q{i}\" INTO x{i}\n    ENV X = x{i}\n    \
             WRITE \"f{i}.sh\" FROM x{i}\n    RUN \"sh f{i}.sh\"\n}}\n"
        ));
    }
    let r = report(&plan);
    let run_line = |i: u32| 2 + 6 * i + 4;
    let last: Vec<&Flow> = r.flows.iter().filter(|f| f.run_line == run_line(steps - 1)).collect();
    assert_eq!(last.len(), MAX_SOURCES);
    assert_eq!(last.last().unwrap().source.kind, SourceKind::More);
    assert_eq!(last.last().unwrap().source.described(), "more sources than are listed");
    // The first RUNs list their sources whole.
    let first: Vec<u32> =
        r.flows.iter().filter(|f| f.run_line == run_line(2)).map(|f| f.source.line).collect();
    assert_eq!(first, [3, 9, 15]);
    assert!(r.flows.len() <= MAX_SOURCES * steps as usize);
    assert_eq!(r.model_code_runs.len(), steps as usize);
    assert!(r.model_code_runs.iter().all(|m| m.write_line == 5), "{:?}", &r.model_code_runs[..3]);
    assert_eq!(r.written_runs, r.model_code_runs);
}
