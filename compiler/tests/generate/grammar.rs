//! `tissc grammar` against the real parser, judged by llama.cpp's own GBNF
//! recogniser (`tools/local-llm-server gbnf-validator`, built from the same
//! pinned llama.cpp source as the server the grammar is sent to): every
//! example plan and the parser's own test plans, which the parser accepts,
//! are accepted by the grammar; plans the parser refuses for their syntax
//! are refused by it too.
//!
//! The suite never builds the recogniser (`TISS_LLM_NO_BUILD=1`; `.ci/run`
//! does). When it is not built: with `CI=true` the test fails; elsewhere it
//! skips, visibly (`skip::missing`), and returns.

use std::path::{Path, PathBuf};
use std::process::Command;

pub(super) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The recogniser's path, or `None` after a skip notice outside CI.
pub(super) fn validator() -> Option<PathBuf> {
    let script = repo().join("tools/local-llm-server");
    let out = Command::new("bash").env("TISS_LLM_NO_BUILD", "1").arg(&script).arg("gbnf-validator").output();
    let why = match out {
        Ok(out) if out.status.success() => {
            let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
            if path.is_file() {
                return Some(path);
            }
            format!("it printed `{}`, which is not a file", path.display())
        }
        Ok(out) => String::from_utf8_lossy(&out.stderr).into_owned(),
        Err(e) => format!("cannot run {}: {e}", script.display()),
    };
    tiss_test_support::skip::missing("llama.cpp gbnf-validator", &why);
    None
}

/// `tissc grammar --format gbnf`, written into `dir`.
fn grammar_file(dir: &Path) -> PathBuf {
    let out =
        Command::new(env!("CARGO_BIN_EXE_tissc")).args(["grammar", "--format", "gbnf"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let path = dir.join("tiss.gbnf");
    std::fs::write(&path, &out.stdout).unwrap();
    path
}

/// Whether the grammar accepts `plan`, by the recogniser's own verdict.
pub(super) fn accepts(validator: &Path, grammar: &Path, dir: &Path, plan: &str) -> bool {
    let input = dir.join("input.tiss");
    std::fs::write(&input, plan).unwrap();
    let out = Command::new(validator).arg(grammar).arg(&input).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    match stdout.lines().next() {
        Some("Input string is valid according to the grammar.") => true,
        Some("Input string is invalid according to the grammar.") => false,
        _ => panic!(
            "the recogniser gave no verdict on\n{plan}\nstdout: {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// Whether the parser (decoding, lexer and parser, before the checks that
/// need names and types) accepts `plan`.
fn parses(plan: &str) -> bool {
    let (text, decoding) = tiss_compiler::source_file::decode(plan.as_bytes().to_vec());
    decoding.is_empty() && tiss_compiler::parser::parse(&text).1.is_empty()
}

/// Whether the front end refuses `plan`.
fn refused(plan: &str) -> bool {
    tiss_compiler::frontend("plan.tiss", plan.as_bytes()).has_errors()
}

/// `TASK "t"` and one step holding `body`, as the parser's tests write them.
fn in_step(body: &str) -> String {
    format!("TASK \"t\"\nSTEP \"s\" {{\n{body}\n}}\n")
}

/// The plans of the parser's unit tests (`compiler/src/parser/tests.rs`)
/// that it accepts, whole or as a step's body.
fn parser_test_plans() -> Vec<String> {
    let whole = [
        "#TISS! Language=Python\n#TISS_VERSION ^1.0\nTASK \"t\"\nSET_BUDGET RUN_COUNT = 3\nSETUP \"prep\" { LOG \"a\" }\nSTEP \"one\" { }\nDEFINE_TASK \"sub\" { LOG \"b\" }\n",
        "TASK \"t\" SETUP { }",
        "TASK \"t\" STEP \"a\" { RUN \"x\" ASSERT LAST_RUN.EXIT_CODE == 0 }",
        // TissLang 1.1: types of model answers.
        "#TISS_VERSION >= 1.1\nTASK \"review a change\"\nTYPE Review = { verdict: \"approve\" | \"reject\", reasons: LIST OF STRING, risk: INT, files?: LIST OF STRING }\n",
        "TASK \"t\"\nTYPE T = STRING\nTYPE U=INT TYPE V = BOOL\nTYPE E = \"one\"\nTYPE L = LIST OF LIST OF T\nTYPE N = Other\n",
        "TASK \"t\"\nTYPE R = {\n    a: { b: BOOL },\n    KIND ? : LIST OF{c:\"x\"|\"y $5 {z}\"},\n    type: STRING,\n}\n",
    ];
    let bodies = [
        "READ \"a.txt\" AS content",
        "WRITE \"m.py\" <<PY\nx = 1\nPY",
        "WRITE \"o\" FROM LAST_RUN.STDOUT",
        "APPEND \"log\" <<~EOF\n  line\n  EOF",
        "APPEND \"log\" FROM x",
        "MKDIR \"build/out\"",
        "DELETE \"tmp\" RECURSIVE",
        "DELETE \"tmp\"",
        "RUN \"make\" IN \"sub\" TIMEOUT 30s",
        "RUN \"make\" TIMEOUT 2m IN \"sub\"",
        "RUN \"ls\"",
        "ENV RUST_LOG = \"debug\"",
        "LOG \"hi ${x}\"",
        "ASSERT LAST_RUN.EXIT_CODE == 0 MESSAGE \"build failed\"",
        "VAR n = 3",
        "VAR t = 5s",
        "VAR b = TRUE",
        "VAR c = COST",
        "ASSERT FILE \"a\" EXISTS",
        "ASSERT FILE \"a\" IS_EMPTY",
        "ASSERT FILE \"a\" CONTAINS \"x\"",
        "ASSERT LAST_RUN.STDERR IS_EMPTY",
        "ASSERT x NOT CONTAINS \"y\"",
        "ASSERT x STARTS_WITH \"y\"",
        "ASSERT x ENDS_WITH \"y\"",
        "ASSERT x MATCHES \"^a+$\"",
        "ASSERT a != 1",
        "ASSERT a < 1",
        "ASSERT a <= 1",
        "ASSERT a > 1",
        "ASSERT a >= 1",
        "ASSERT flag",
        "ASSERT NOT flag",
        "ASSERT a OR b AND c",
        "ASSERT (a OR b) AND c",
        "ASSERT COST < 5m",
        "IF a THEN { LOG \"1\" } ELSE IF b { LOG \"2\" } ELSE { LOG \"3\" }",
        "IF a { }",
        "TRY { RUN \"x\" } CATCH AS e { LOG \"${e.MESSAGE}\" }",
        "TRY { } CATCH { }",
        "CALL \"sub\"",
        "PROMPT_AGENT \"fix it\" WITH a, b INTO answer",
        "PROMPT_AGENT \"q\"",
        "PAUSE \"look\"",
        "REQUEST_REVIEW \"ok?\" INTO r",
        "CHOOSE \"how?\" { OPTION \"fast\" { } STEP \"slow\" { } }",
        "ESTIMATE_COST INTO est { RUN \"x\" }",
        "ESTIMATE_COST { }",
        "PROMPT_AGENT \"q\" WITH diff INTO r AS Review",
        "PROMPT_AGENT \"q\" INTO r AS { ok: BOOL, notes?: LIST OF STRING }",
        "PROMPT_AGENT \"q\" INTO r AS\"a\"|\"b\"",
        "PROMPT_AGENT \"q\" INTO n AS INT LOG \"${n}\"",
        "ASSERT r.files EXISTS",
        "ASSERT NOT r.files EXISTS AND r.files CONTAINS \"a.py\" OR r.reasons IS_EMPTY",
        "SET_BUDGET EXECUTION_TIME = 5m",
        "STEP \"inner\" { STEP \"deeper\" { } }",
        // The lexer's own cases: escapes, `$` and braces in strings, numbers, comments.
        "LOG \"tab\\there \\\"q\\\" \\\\ \\$HOME \\u{1F600} cost: $5 {x} {{.State}} a$\"",
        "LOG \"$${x}\" # a comment after a statement",
        "VAR big = -9_223_372_036_854_775_808",
        "VAR ms = 1_500ms",
        "WRITE \"c.sh\" <<SH   # the rest of the line is a comment\necho \"$HOME\" # kept\n\nSH",
        "ASSERT LAST_RUN . EXIT_CODE == 0",
    ];
    let mut plans: Vec<String> = whole.iter().map(|s| s.to_string()).collect();
    plans.extend(bodies.iter().map(|b| in_step(b)));
    plans.push("\u{FEFF}#!/usr/bin/env tissvm run\r\nTASK \"crlf\"\r\nSTEP \"a\" {\r\n    WRITE \"f\" <<EOF\r\nx\r\nEOF\r\n}\r\n# no line end at the end".into());
    plans
}

/// Plans the compiler refuses for their syntax or their structure (the
/// TASK first, statements only in blocks).
pub(super) fn invalid_plans() -> Vec<String> {
    let whole = [
        "STEP \"a\" { }",
        "TYPE T = INT\nTASK \"t\"",
        "TASK \"t\" STEP \"a\" { RUN \"x\"",
        "TASK t",
        "TASK \"t\" LOG \"top level\"",
        "TASK \"t\" STEP \"a\" { PARALLEL { } }",
    ];
    let bodies = [
        "Step \"a\" { }",
        "RUN 'make'",
        "LOG \"unterminated",
        "LOG \"a\\qb\"",
        "LOG \"${x y}\"",
        "ASSERT a && b",
        "ASSERT a = 1",
        "WRITE \"f\" \"text\"",
        "WRITE \"f\" <<EOF\nno terminator",
        "WRITE \"f\" <<eof\nx\neof",
        "RUN \"x\" TIMEOUT \"30s\"",
        "RUN \"x\" TIMEOUT 30",
        "RUN \"x\" TIMEOUT 1.5s",
        "RUN \"x\" IN \"a\" IN \"b\"",
        "VAR x == 1",
        "x = 1",
        "SET_BUDGET COST = 3",
        "ASSERT FILE \"a\" NOT EXISTS",
        "DEFINE_TASK \"inner\" { }",
        "VAR d = -5s",
        // TissLang 1.1: types written wrong.
        "TYPE T = INT",
        "PROMPT_AGENT \"q\" INTO r AS { }",
        "PROMPT_AGENT \"q\" INTO r AS LIST STRING",
        "PROMPT_AGENT \"q\" INTO r AS \"a\" | b",
        "PROMPT_AGENT \"q\" INTO r AS \"a ${x}\"",
        "PROMPT_AGENT \"q\" INTO r AS STRING | INT",
        "PROMPT_AGENT \"q\" INTO r AS { a INT }",
    ];
    let mut plans: Vec<String> = whole.iter().map(|s| s.to_string()).collect();
    plans.extend(bodies.iter().map(|b| in_step(b)));
    plans
}

#[test]
fn the_grammar_accepts_every_plan_the_parser_accepts() {
    let Some(validator) = validator() else { return };
    let dir = tempfile::tempdir().unwrap();
    let grammar = grammar_file(dir.path());
    let mut plans: Vec<(String, String)> = Vec::new();
    for entry in std::fs::read_dir(repo().join("examples")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "tiss") {
            plans.push((path.display().to_string(), std::fs::read_to_string(&path).unwrap()));
        }
    }
    assert!(plans.len() >= 8, "the examples: {plans:?}");
    plans.extend(parser_test_plans().into_iter().map(|p| ("a parser test plan".to_string(), p)));
    let mut refused = Vec::new();
    for (name, plan) in &plans {
        assert!(parses(plan), "the parser refuses {name}:\n{plan}");
        if !accepts(&validator, &grammar, dir.path(), plan) {
            refused.push(format!("{name}:\n{plan}"));
        }
    }
    assert!(refused.is_empty(), "the grammar refuses plans that parse:\n\n{}", refused.join("\n\n"));
}

#[test]
fn the_grammar_refuses_plans_with_syntax_errors() {
    let Some(validator) = validator() else { return };
    let dir = tempfile::tempdir().unwrap();
    let grammar = grammar_file(dir.path());
    let mut accepted = Vec::new();
    for plan in invalid_plans() {
        assert!(refused(&plan), "the compiler accepts\n{plan}");
        if accepts(&validator, &grammar, dir.path(), &plan) {
            accepted.push(plan);
        }
    }
    assert!(accepted.is_empty(), "the grammar accepts plans that do not parse:\n\n{}", accepted.join("\n\n"));
}

#[test]
fn the_ebnf_is_the_same_rules() {
    let out =
        Command::new(env!("CARGO_BIN_EXE_tissc")).args(["grammar", "--format", "ebnf"]).output().unwrap();
    assert!(out.status.success());
    let ebnf = String::from_utf8(out.stdout).unwrap();
    let gbnf = tiss_compiler::generate::grammar::GBNF;
    let names = |text: &str| -> Vec<String> {
        text.lines().filter_map(|l| l.split_once(" ::= ").map(|(n, _)| n.to_string())).collect()
    };
    assert_eq!(names(&ebnf), names(gbnf));
    assert!(ebnf.contains("root ::= #xFEFF? ws \"TASK\" ws string"), "{ebnf}");
}
