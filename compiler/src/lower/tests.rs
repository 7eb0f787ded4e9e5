use tisslang::cost::Dim;
use tisslang::isa::Instr;
use tisslang::module::{Module, PathAccess, RiskKind, RiskLevel};

use super::KeepSource;

fn compile(src: &str) -> Module {
    match crate::compile("t.tiss", src.as_bytes(), KeepSource::Text) {
        Ok((module, _)) => module,
        Err(fe) => panic!("{:#?}", fe.diagnostics),
    }
}

fn in_step(body: &str) -> Module {
    compile(&format!("TASK \"t\"\nSTEP \"s\" {{\n{body}\n}}\n"))
}

fn bound(m: &Module, dim: Dim) -> (u64, u64) {
    m.bound.get(dim)
}

#[test]
fn straight_line_counts_are_exact() {
    let m = in_step("RUN \"a\"\nRUN \"b\" TIMEOUT 5s\nASSERT LAST_RUN.EXIT_CODE == 0");
    assert_eq!(bound(&m, Dim::RunCount), (2, 2));
    let n = m.code.len() as u64;
    assert_eq!(bound(&m, Dim::Instructions), (n, n), "every instruction runs once");
    assert_eq!(m.code.last(), Some(&Instr::Halt {}));
    // The first RUN has no timeout: the default maximum; the second: 5s.
    assert_eq!(bound(&m, Dim::ExecutionTime), (0, super::path_cost::DEFAULT_RUN_MAX_MS + 5_000));
}

#[test]
fn if_takes_min_and_max_over_arms() {
    let m = in_step("VAR b = TRUE\nIF b { RUN \"a\" RUN \"b\" } ELSE { RUN \"c\" }");
    assert_eq!(bound(&m, Dim::RunCount), (1, 2));
    let m = in_step("VAR b = TRUE\nIF b { RUN \"a\" }");
    assert_eq!(bound(&m, Dim::RunCount), (0, 1));
    let m = in_step("VAR b = TRUE\nIF b { RUN \"a\" } ELSE IF b { } ELSE { RUN \"b\" RUN \"c\" RUN \"d\" }");
    assert_eq!(bound(&m, Dim::RunCount), (0, 3));
}

#[test]
fn try_takes_the_worst_of_both_paths() {
    let m = in_step("TRY { RUN \"a\" RUN \"b\" } CATCH AS e { RUN \"c\" }");
    assert_eq!(bound(&m, Dim::RunCount), (1, 3));
    assert_eq!(m.handlers.len(), 1);
    let h = m.handlers[0];
    assert!(h.start < h.end && h.end < h.target);
    assert_ne!(h.catch_slot, tisslang::module::NONE);
}

#[test]
fn choose_calls_and_estimates() {
    let m = in_step("CHOOSE { OPTION \"a\" { RUN \"x\" } OPTION \"b\" { RUN \"y\" RUN \"z\" } }");
    assert_eq!(bound(&m, Dim::RunCount), (1, 2));
    assert_eq!(m.choices[0].options.len(), 2);

    let m = compile(
        "TASK \"t\"\nDEFINE_TASK \"two\" { RUN \"a\" CALL \"one\" }\nDEFINE_TASK \"one\" { RUN \"b\" }\nSTEP \"s\" { CALL \"two\" CALL \"two\" }\n",
    );
    assert_eq!(bound(&m, Dim::RunCount), (4, 4));
    assert_eq!(m.tasks.len(), 2);
    for task in &m.tasks {
        assert!(m.code.get(task.entry as usize).is_some());
    }

    let m = in_step("ESTIMATE_COST INTO e { RUN \"a\" PROMPT_AGENT \"q\" }\nASSERT e.RUN_COUNT == 1");
    assert_eq!(bound(&m, Dim::RunCount), (0, 0), "the estimated block does not run");
    assert_eq!(m.estimates[0].get(Dim::RunCount), (1, 1));
    assert_eq!(m.estimates[0].get(Dim::ApiCalls), (1, 1));
    assert!(m.manifest.commands.is_empty(), "an estimated command is not an effect");
    assert!(!m.code.iter().any(|i| matches!(i, Instr::Run { .. })));
}

#[test]
fn steps_have_their_own_bounds_and_nesting() {
    let m = compile("TASK \"t\"\nSTEP \"a\" { RUN \"x\" STEP \"inner\" { RUN \"y\" } }\nSTEP \"b\" { }\n");
    assert_eq!(m.steps.len(), 3);
    assert_eq!(m.steps[0].bound.get(Dim::RunCount), (2, 2));
    assert_eq!(m.steps[1].parent, 0);
    assert_eq!(m.steps[1].depth, 1);
    assert_eq!(m.steps[1].bound.get(Dim::RunCount), (1, 1));
    assert_eq!(m.steps[2].bound.get(Dim::RunCount), (0, 0));
}

#[test]
fn strings_are_stored_once_and_output_is_deterministic() {
    let src = "TASK \"t\"\nSTEP \"s\" { LOG \"same\" LOG \"same\" RUN \"echo same\" LOG \"same\" }\n";
    let a = compile(src);
    let b = compile(src);
    assert_eq!(a, b);
    assert_eq!(a.strings.iter().filter(|s| *s == "same").count(), 1);
    assert_eq!(a.constants.len(), a.constants.iter().collect::<std::collections::HashSet<_>>().len());
}

/// The string index starts with room for the variables' names and grows
/// as strings come, carrying each string's hash: a string met again after
/// several growths is still found, never stored twice.
#[test]
fn strings_are_stored_once_however_often_the_index_grows() {
    let mut src = String::from("TASK \"t\"\n");
    for i in 0..3000 {
        // New strings each step, and ones from far earlier steps again.
        src.push_str(&format!(
            "STEP \"s{i}\" {{\n    VAR v{i} = \"value {i}\"\n    LOG \"log {i}\"\n    LOG \"log {}\"\n}}\n",
            i / 7
        ));
    }
    let m = compile(&src);
    let texts: Vec<&str> = m.strings.iter().collect();
    let distinct: std::collections::HashSet<&str> = texts.iter().copied().collect();
    assert_eq!(distinct.len(), texts.len(), "a string stored twice");
    assert!(texts.len() > 9000, "{} strings: the index grew past its first room", texts.len());
    assert_eq!(m.strings.iter().filter(|s| *s == "log 0").count(), 1);
}

#[test]
fn run_strings_mark_shell_quoting() {
    let m = in_step("VAR f = \"a b\"\nRUN \"cat ${f}\"\nLOG \"file ${f}\"");
    assert!(m.code.iter().any(|i| matches!(i, Instr::InterpShell { holes: 1, .. })));
    assert!(m.code.iter().any(|i| matches!(i, Instr::Interp { holes: 1, .. })));
    assert!(m.manifest.commands[0].dynamic);
}

#[test]
fn manifest_and_risk() {
    let m = in_step(
        "READ \"in.txt\" AS x\nWRITE \"out.txt\" FROM x\nDELETE \"tmp\" RECURSIVE\nRUN \"curl https://example.com\"\nPROMPT_AGENT \"fix\" INTO fix\nRUN \"sh -c ${fix}\"",
    );
    let accesses: Vec<_> = m.manifest.paths.iter().map(|p| p.access).collect();
    assert_eq!(accesses, [PathAccess::Read, PathAccess::Write, PathAccess::DeleteRecursive]);
    assert_eq!(m.manifest.risk.level, RiskLevel::High);
    let reasons: Vec<_> = m.manifest.risk.reasons.iter().map(|r| m.risk_text(r)).collect();
    assert!(reasons.iter().any(|r| r.contains("network tool `curl`")), "{reasons:?}");
    assert!(reasons.iter().any(|r| r.contains("language-model output `fix`")), "{reasons:?}");
    assert!(reasons.iter().any(|r| r.contains("deletes `tmp` recursively")), "{reasons:?}");

    let calm = in_step("RUN \"make test\" TIMEOUT 1m\nASSERT LAST_RUN.EXIT_CODE == 0");
    assert_eq!(calm.manifest.risk.level, RiskLevel::Low);
    assert!(calm.manifest.risk.reasons.is_empty());
}

#[test]
fn a_typed_answers_clean_fields_in_a_command_are_no_model_output() {
    let m = compile(
        "TASK \"t\"\nTYPE T = { e: \"a\" | \"b\", n: INT, s: STRING, who: { ok: BOOL, name: STRING } }\n\
         STEP \"s\" {\n    PROMPT_AGENT \"q\" INTO t AS T\n    PROMPT_AGENT \"q\" INTO k AS LIST OF INT\n    \
         RUN \"echo ${t.e} ${t.n} ${t.who.ok} ${k}\"\n    RUN \"echo ${t.s}\"\n    RUN \"echo ${t.who.name}\"\n}\n",
    );
    let reasons: Vec<(u32, String)> = m
        .manifest
        .risk
        .reasons
        .iter()
        .filter(|r| r.kind == RiskKind::ModelOutputInCommand)
        .map(|r| (r.line, m.risk_text(r)))
        .collect();
    let output = |line| (line, "language-model output `t` flows into a command".to_string());
    assert_eq!(reasons, [output(7), output(8)]);
}

#[test]
fn asserts_record_their_condition_and_observed_values() {
    let m = in_step(
        "RUN \"x\"\nASSERT LAST_RUN.STDOUT CONTAINS \"ok\" AND LAST_RUN.EXIT_CODE == 0 MESSAGE \"bad\"",
    );
    let a = &m.assertions[0];
    assert_eq!(m.string(a.condition), Some("LAST_RUN.STDOUT CONTAINS \"ok\" AND LAST_RUN.EXIT_CODE == 0"));
    assert_eq!(m.string(a.message), Some("bad"));
    let observed: Vec<_> = a.observed.iter().map(|o| m.string(o.text).unwrap()).collect();
    assert_eq!(observed, ["LAST_RUN.STDOUT", "LAST_RUN.EXIT_CODE"]);
    // An interpolated message is built only on failure: FAIL instead of ASSERT.
    let m = in_step("VAR x = 1\nASSERT x == 1 MESSAGE \"x was ${x}\"");
    assert!(m.code.iter().any(|i| matches!(i, Instr::Fail { .. })));
}

#[test]
fn bare_cost_against_a_duration_reads_execution_time() {
    let m = in_step("ASSERT COST < 5m");
    let at = m.code.iter().position(|i| matches!(i, Instr::Cost {})).unwrap();
    assert_eq!(m.code[at + 1], Instr::Field { field: tisslang::types::Field::ExecutionTime as u8 });
}

#[test]
fn every_example_lowers() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "tiss") {
            let m = compile(&std::fs::read_to_string(&path).unwrap());
            assert_eq!(
                m.code.iter().filter(|i| matches!(i, Instr::Halt {})).count(),
                1,
                "{}",
                path.display()
            );
            assert!(m.max_stack >= 1, "{}", path.display());
        }
    }
}

/// AND and OR of conditions that can neither fail nor reach outside the
/// machine compute both sides and combine them (straight-line code); an
/// operand that can keeps the jump over the rest, so a guard still guards.
#[test]
fn inert_conditions_combine_and_guards_still_jump() {
    let count = |m: &Module, f: fn(&Instr) -> bool| m.code.iter().filter(|&i| f(i)).count();
    let jumps = |m: &Module| {
        count(m, |i| matches!(i, Instr::Jump { .. } | Instr::JumpIfFalse { .. } | Instr::JumpIfTrue { .. }))
    };
    let combined = |m: &Module| count(m, |i| matches!(i, Instr::And {} | Instr::Or {}));
    let head = "VAR a = \"v\"\nVAR b = \"w\"\nVAR n = 2\nVAR t = 1s\nVAR f = FALSE\nRUN \"x\" TIMEOUT 1s\n";
    let m = in_step(&format!(
        "{head}ASSERT a CONTAINS \"x\" AND a STARTS_WITH \"v\" OR NOT (a == b OR LAST_RUN.EXIT_CODE < n) AND a MATCHES \"^v\" AND t >= 1s AND NOT f AND \"\" IS_EMPTY"
    ));
    assert_eq!((jumps(&m), combined(&m)), (0, 7));
    // None of these is inert (a file test, a run-time pattern, interpolation,
    // a longer path): the chain jumps.
    for other in [
        "FILE \"f\" EXISTS",
        "FILE \"f\" CONTAINS a",
        "a MATCHES b",
        "a == \"x ${b}\"",
        "COST.RUN_COUNT < 3",
        "LAST_RUN.STDOUT == \"${LAST_RUN.STDERR}\"",
    ] {
        let m = in_step(&format!("{head}ASSERT a == \"v\" AND {other}"));
        assert_eq!(combined(&m), 0, "{other}");
        assert_eq!(jumps(&m), 2, "{other}");
    }
    // An inert chain inside one that jumps is combined all the same, and so
    // are inert operands next to each other in a chain that jumps: one jump
    // after them, none between.
    let m = in_step(&format!("{head}IF FILE \"f\" EXISTS OR a == \"x\" AND b == \"y\" {{ LOG \"x\" }}"));
    assert_eq!(combined(&m), 1);
    for (chain, and_or, conditional) in [
        ("a == \"x\" AND b == \"y\" AND FILE \"f\" EXISTS", 1, 1),
        ("FILE \"f\" EXISTS OR a == \"x\" OR n > 1 OR NOT f", 2, 1),
        ("a == \"x\" AND FILE \"f\" EXISTS AND b == \"y\" AND n > 1", 1, 2),
        ("a == \"x\" OR FILE \"f\" EXISTS OR b == \"y\"", 0, 2),
    ] {
        let m = in_step(&format!("{head}ASSERT {chain}"));
        let conditional_jumps =
            count(&m, |i| matches!(i, Instr::JumpIfFalse { .. } | Instr::JumpIfTrue { .. }));
        assert_eq!((combined(&m), conditional_jumps), (and_or, conditional), "{chain}");
    }
    // A typed answer's optional field: EXISTS guards the read.
    let m = compile(
        "TASK \"t\"\nTYPE R = { notes?: LIST OF STRING }\nSTEP \"s\" {\nPROMPT_AGENT \"q\" INTO r AS R\nIF r.notes EXISTS AND r.notes CONTAINS \"x\" { LOG \"x\" }\n}\n",
    );
    assert_eq!(combined(&m), 0);
    let guard = m.code.iter().position(|i| matches!(i, Instr::HasMember { .. })).expect("EXISTS");
    assert!(matches!(m.code[guard + 1], Instr::JumpIfFalse { .. }), "{:?}", &m.code[guard..]);
}

#[test]
fn a_long_condition_compiles_and_its_analysis_stays_linear() {
    // 60 terms once took the verifier more steps than its budget (exit 70 on a
    // plan `tissc check` passed): every failing term's jump to the end climbed
    // the dominators back to the first term.
    // As written (every term inert: combined); with a file test ANDed to
    // the end (the inert terms before it combined, then one jump); and with
    // terms that are paths, not inert, so each chain, AND or OR, jumps over
    // its other terms one by one.
    let file = " AND FILE \"f\" EXISTS";
    for (n, tail, jumping) in [
        (60, "", false),
        (400, "", false),
        (60, file, false),
        (400, file, false),
        (60, "", true),
        (400, "", true),
    ] {
        let term = |i: usize| {
            if jumping { format!("COST.RUN_COUNT != {i}") } else { format!("LAST_RUN.EXIT_CODE != {i}") }
        };
        let chain = |n: usize, op: &str| (0..n).map(term).collect::<Vec<_>>().join(&format!(" {op} "));
        let pairs: Vec<String> =
            (0..n / 2).map(|i| format!("({} AND {})", term(2 * i), term(2 * i + 1))).collect();
        let vars: String = (0..n).map(|i| format!("VAR v{i} = LAST_RUN.STDOUT\n")).collect();
        let compared: Vec<String> = (0..n).map(|i| format!("v{i} == \"a\"")).collect();
        let body = format!(
            "RUN \"x\" TIMEOUT 1s\nASSERT {}{tail}\nASSERT {}{tail}\nIF {}{tail} {{ LOG \"x\" }}\nASSERT {}{tail}\n{vars}ASSERT {}{tail}",
            chain(n, "AND"),
            chain(n, "OR"),
            chain(n, "AND"),
            pairs.join(" OR "),
            compared.join(" OR ")
        );
        let m = in_step(&body);
        assert!(tisslang::verify::verify(&m).is_ok());
        let jumps = m
            .code
            .iter()
            .filter(|i| matches!(i, Instr::JumpIfFalse { .. } | Instr::JumpIfTrue { .. }))
            .count();
        assert!(if jumping { jumps >= 4 * (n - 1) } else { jumps < 20 }, "{n} terms, {jumps} jumps");
    }
}

#[test]
fn every_binder_in_every_block_has_its_own_slot() {
    // Slots are declared before lowering (`slots::declare_slots`) and only
    // found while lowering: a binder the declaring walk missed would lower to
    // NO_SLOT, which the verifier run by `crate::compile` refuses.
    let m = compile(concat!(
        "TASK \"t\"\n",
        "DEFINE_TASK \"d\" { READ \"a\" AS in_task VAR copy = later }\n",
        "SETUP { VAR in_setup = 1 }\n",
        "STEP \"s\" {\n",
        "  READ \"b\" AS read_var\n",
        "  STEP \"inner\" { VAR nested = \"x\" }\n",
        "  IF TRUE { VAR in_then = 1 } ELSE IF FALSE { VAR in_else_if = 2 } ELSE { VAR in_else = 3 }\n",
        "  TRY { VAR in_try = 1 } CATCH AS caught { VAR in_handler = caught.MESSAGE }\n",
        "  ESTIMATE_COST INTO estimate { PROMPT_AGENT \"q\" INTO in_estimate }\n",
        "  CHOOSE { OPTION \"a\" { VAR in_option = 1 } OPTION \"b\" { REQUEST_REVIEW \"ok?\" INTO review } }\n",
        "  PROMPT_AGENT \"q\" WITH read_var INTO answer\n",
        "  VAR later = 7\n",
        "  CALL \"d\"\n",
        "}\n",
    ));
    let mut names: Vec<&str> = m.slots.iter().map(|s| m.strings.get(s.name).unwrap()).collect();
    names.sort_unstable();
    let mut expected = vec![
        "answer",
        "caught",
        "copy",
        "estimate",
        "in_else",
        "in_else_if",
        "in_estimate",
        "in_handler",
        "in_option",
        "in_setup",
        "in_task",
        "in_then",
        "in_try",
        "later",
        "nested",
        "read_var",
        "review",
    ];
    expected.sort_unstable();
    assert_eq!(names, expected);
    let copy = m.slots.iter().position(|s| m.strings.get(s.name) == Some("copy")).unwrap();
    let later = m.slots.iter().position(|s| m.strings.get(s.name) == Some("later")).unwrap();
    assert_eq!(m.slots[copy].ty, m.slots[later].ty, "a copy takes the type of what it copies");
    for instr in &m.code {
        if let Instr::Store { slot } | Instr::Load { slot } | Instr::Read { slot } = instr {
            assert!((*slot as usize) < m.slots.len(), "{instr:?}");
        }
    }
}

#[test]
fn lowering_that_gives_the_source_back_makes_the_same_module() {
    // Every kind of text lowering slices from the source (interpolated RUN
    // commands, conditions, escapes, multibyte text, heredocs, squiggly
    // ones copied, CRLF ones normalized), over many
    // pages, so each item's text is given back before the next is lowered.
    let mut src = String::from("TASK \"t \\\"q\\\"\"\nDEFINE_TASK \"d\" { RUN \"echo d\" }\n");
    for i in 0..600 {
        src.push_str(&format!(
            "STEP \"s{i} é\" {{\n  READ \"in{i}.txt\" AS v{i}\n  RUN \"grep -c ${{v{i}}} \\\"x\\\" f{i}\" TIMEOUT 5s\n  \
             ASSERT LAST_RUN.EXIT_CODE == 0 AND LAST_RUN.STDOUT CONTAINS \"ω{i}\"\n  \
             WRITE \"o{i}.txt\" <<TEXT\nline one {i} →\n  line two\nTEXT\n  \
             APPEND \"o{i}.txt\" <<~TEXT\n    indented {i}\r\n    TEXT\n  \
             APPEND \"o{i}.txt\" <<TEXT\r\ncrlf {i}\r\nTEXT\n  \
             PROMPT_AGENT \"sum ${{v{i}}}\" WITH v{i} INTO a{i}\n  CALL \"d\"\n}}\n"
        ));
        if i % 100 == 0 {
            src.push_str("SET_BUDGET RUN_COUNT = 100000\n");
        }
    }
    let borrowed = compile(&src);
    // As `tissc compile` does: the heredoc bodies are read from the source too.
    let fe = crate::frontend_to_lower("t.tiss", src.clone().into_bytes(), &mut || {});
    assert!(!fe.has_errors(), "{:#?}", fe.diagnostics);
    let released = fe.into_module(crate::KeepSource::Hash);
    assert_eq!(
        released.source,
        tisslang::module::Source::Hash(tisslang::module::kept_source::SourceHash::of(&src))
    );
    assert_eq!(Module { source: borrowed.source.clone(), ..released }, borrowed);
}
