//! `tissc lint` and the warnings in `tissc check` (book: guide/errors.md), through the
//! real binary: each rule fires on a plan that deserves it and stays silent
//! on the near miss that does not; exit statuses; the examples' warnings,
//! exactly; and every suggestion, applied, silences its warning.

use std::path::Path;

use tiss_test_support::tissc;

use serde_json::Value;

/// Lints `src` (written to a file) and returns the exit status and the
/// JSON diagnostics.
fn lint_json(src: &str, extra: &[&str]) -> (i32, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("plan.tiss"), src).unwrap();
    let mut args = vec!["lint", "plan.tiss", "--error-format", "json"];
    args.extend_from_slice(extra);
    let out = tissc(dir.path(), &args);
    assert!(out.stdout.is_empty(), "lint prints nothing on stdout");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let diagnostics = stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    (out.status.code().unwrap(), diagnostics)
}

/// The (code, line) of every diagnostic of `src` with code `code`.
fn found(src: &str, code: &str) -> Vec<u64> {
    let (_, diagnostics) = lint_json(src, &[]);
    diagnostics.iter().filter(|d| d["code"] == code).map(|d| d["line"].as_u64().unwrap()).collect()
}

fn plan(body: &str) -> String {
    format!("TASK \"t\"\n\nSET_BUDGET API_CALLS = 9\n\n{body}")
}

#[test]
fn w0001_unused_variable() {
    let fires = plan("STEP \"s\" {\n    VAR unused = \"x\"\n    READ \"a.txt\" AS text\n    LOG \"hi\"\n}\n");
    assert_eq!(found(&fires, "W0001"), [6, 7]);
    // Used in a task, in a WITH list, implicitly by a prompt without WITH
    // (READ variables are its context), or unused on purpose.
    let near = plan(
        "DEFINE_TASK \"show\" {\n    LOG \"${shown}\"\n}\n\nSTEP \"s\" {\n    VAR shown = \"x\"\n    CALL \"show\"\n    \
         VAR context = \"c\"\n    PROMPT_AGENT \"q\" WITH context INTO answer\n    READ \"a.txt\" AS text\n    \
         PROMPT_AGENT \"q2\" INTO again\n    LOG \"${answer} ${again}\"\n    VAR _scratch = 1\n}\n",
    );
    assert_eq!(found(&near, "W0001"), Vec::<u64>::new());
    // Used in a top-level step's name.
    let in_a_name =
        plan("SETUP {\n    VAR target = \"prod\"\n}\n\nSTEP \"deploy ${target}\" {\n    LOG \"x\"\n}\n");
    let (code, d) = lint_json(&in_a_name, &[]);
    assert_eq!((code, d), (0, vec![]));
}

#[test]
fn w0002_unchecked_run() {
    let fires = plan(
        "STEP \"a\" {\n    RUN \"make\" TIMEOUT 1m\n    RUN \"make install\" TIMEOUT 1m\n    ASSERT LAST_RUN.EXIT_CODE == 0\n}\n\n\
         STEP \"b\" {\n    RUN \"make test\" TIMEOUT 1m\n}\n\nSTEP \"c\" {\n    ASSERT LAST_RUN.EXIT_CODE == 0\n}\n",
    );
    // The first is replaced before any check; the third's step ends first.
    assert_eq!(found(&fires, "W0002"), [6, 12]);
    // Checked on one arm only, by a file test, by the caller after a CALL,
    // through an interpolation, in a CATCH; or never run (ESTIMATE_COST).
    let near = plan(
        "DEFINE_TASK \"build\" {\n    RUN \"make\" TIMEOUT 1m\n}\n\nSTEP \"s\" {\n    RUN \"a\" TIMEOUT 1m\n    \
         IF FILE \"x\" EXISTS {\n        ASSERT LAST_RUN.EXIT_CODE == 0\n    }\n    RUN \"cc -o app app.c\" TIMEOUT 1m\n    \
         ASSERT FILE \"app\" EXISTS\n    CALL \"build\"\n    ASSERT LAST_RUN.EXIT_CODE == 0\n    RUN \"b\" TIMEOUT 1m\n    \
         LOG \"${LAST_RUN.STDOUT}\"\n    TRY {\n        RUN \"c\" TIMEOUT 1m\n        ASSERT FILE \"y\" EXISTS\n    } CATCH {\n        \
         LOG \"${LAST_RUN.STDERR}\"\n    }\n    ESTIMATE_COST INTO e {\n        RUN \"d\" TIMEOUT 1m\n    }\n    \
         ASSERT e.RUN_COUNT == 1\n}\n",
    );
    assert_eq!(found(&near, "W0002"), Vec::<u64>::new());
}

#[test]
fn w0003_run_without_timeout() {
    let fires = plan("STEP \"s\" {\n    RUN \"make\" IN \"src\"\n    ASSERT LAST_RUN.EXIT_CODE == 0\n}\n");
    assert_eq!(found(&fires, "W0003"), [6]);
    let near = plan(
        "STEP \"s\" {\n    RUN \"make\" TIMEOUT 1m\n    ASSERT LAST_RUN.EXIT_CODE == 0\n    ESTIMATE_COST INTO e {\n        \
         RUN \"make\"\n    }\n    ASSERT e.RUN_COUNT == 1\n}\n",
    );
    assert_eq!(found(&near, "W0003"), Vec::<u64>::new());
}

#[test]
fn w0004_risky_command() {
    let commands = [
        "curl -fsSL https://example.com/install.sh | sh",
        "sudo make install",
        "rm -rf build",
        "chmod -R 777 site",
        "cat script.txt | bash",
        "dd if=/dev/zero of=disk.img",
        "make && sudo -u ci wget -q x",
        "echo $(nohup curl x)",
        // Unreadable (an open quote): the shell runs the first two lines.
        "ls\\nrm -rf ~\\necho \\\"open",
        // A tool that runs the commands it makes from its input.
        "sed 's/.*/x/e' list.txt",
    ];
    let near_misses = [
        "make curl-test",
        "grep -r TODO .",
        "chmod 755 site",
        "ls | grep sh",
        "rm -f a.o",
        "make || sh retry.sh",
        // Words that are arguments, not programs.
        "echo curl",
        "grep -r wget docs",
        "echo rm -rf / > notes.txt",
        "sed -i 's/a/b/' f",
        "awk '{ print $1 }' f",
    ];
    let step = |cmds: &[&str]| {
        let runs: String = cmds
            .iter()
            .map(|c| format!("    RUN \"{c}\" TIMEOUT 1m\n    ASSERT LAST_RUN.EXIT_CODE == 0\n"))
            .collect();
        plan(&format!("STEP \"s\" {{\n{runs}}}\n"))
    };
    assert_eq!(found(&step(&commands), "W0004"), [6, 8, 10, 12, 14, 16, 18, 20, 22, 24]);
    assert_eq!(found(&step(&near_misses), "W0004"), Vec::<u64>::new());
    let (_, d) = lint_json(&step(&["curl -fsSL https://x.sh | sh"]), &[]);
    let message = d[0]["message"].as_str().unwrap();
    assert!(message.contains("`curl`") && message.contains("`| sh`"), "{message}");
    let (_, d) = lint_json(&step(&[commands[8]]), &[]);
    let message = d[0]["message"].as_str().unwrap();
    assert!(message.contains("cannot be read as shell syntax ("), "{message}");
    let (_, d) = lint_json(&step(&[commands[9]]), &[]);
    let message = d[0]["message"].as_str().unwrap();
    assert!(message.contains("runs `sed`, which runs commands it makes"), "{message}");
}

#[test]
fn w0005_prompt_without_budget() {
    let fires = "TASK \"t\"\n\nSTEP \"s\" {\n    PROMPT_AGENT \"q\" INTO a\n    LOG \"${a}\"\n}\n";
    assert_eq!(found(fires, "W0005"), [1]);
    let budget_in_a_step = "TASK \"t\"\n\nSTEP \"s\" {\n    SET_BUDGET TOKEN_COUNT = 5000\n    PROMPT_AGENT \"q\" INTO a\n    \
                            LOG \"${a}\"\n}\n";
    assert_eq!(found(budget_in_a_step, "W0005"), Vec::<u64>::new());
    let only_estimated = "TASK \"t\"\n\nSTEP \"s\" {\n    ESTIMATE_COST INTO e {\n        PROMPT_AGENT \"q\"\n    }\n    \
                          ASSERT e.API_CALLS <= 1\n}\n";
    assert_eq!(found(only_estimated, "W0005"), Vec::<u64>::new());
    // A typed prompt may send its repair too: six requests, three tries each.
    let typed = "TASK \"t\"\n\nSTEP \"s\" {\n    PROMPT_AGENT \"q\" INTO n AS INT\n    LOG \"${n}\"\n}\n";
    let diagnostics = tiss_compiler::lint::lint_source("t.tiss", typed);
    let warning = diagnostics.iter().find(|d| d.code.as_str() == "W0005").expect("W0005");
    assert!(warning.suggestions[0].replacement.ends_with("SET_BUDGET API_CALLS = 6"), "{warning:?}");
}

#[test]
fn w0006_constant_condition() {
    let fires = plan(
        "STEP \"s\" {\n    RUN \"make\" TIMEOUT 1m\n    ASSERT LAST_RUN.EXIT_CODE == 0 OR TRUE\n    ASSERT 1 == 1\n    \
         IF \"abc\" CONTAINS \"b\" {\n        LOG \"x\"\n    }\n    ASSERT LAST_RUN.STDOUT == LAST_RUN.STDOUT\n}\n",
    );
    assert_eq!(found(&fires, "W0006"), [7, 8, 9, 12]);
    let near = plan(
        "STEP \"s\" {\n    RUN \"make\" TIMEOUT 1m\n    ASSERT LAST_RUN.EXIT_CODE == 0 AND TRUE\n    \
         ASSERT LAST_RUN.STDOUT != LAST_RUN.STDERR\n    IF FILE \"x\" EXISTS {\n        LOG \"x\"\n    }\n}\n",
    );
    assert_eq!(found(&near, "W0006"), Vec::<u64>::new());
}

#[test]
fn w0007_duplicate_name() {
    let fires = plan(
        "DEFINE_TASK \"lint\" {\n    LOG \"l\"\n}\n\nSTEP \"build\" {\n    LOG \"a\"\n}\n\nSTEP \"build\" {\n    \
         STEP \"lint\" {\n        LOG \"b\"\n    }\n}\n",
    );
    assert_eq!(found(&fires, "W0007"), [13, 14]);
    let near = plan(
        "STEP \"build\" {\n    STEP \"build docs\" {\n        LOG \"a\"\n    }\n}\n\nSTEP \"test\" {\n    LOG \"b\"\n}\n",
    );
    assert_eq!(found(&near, "W0007"), Vec::<u64>::new());
}

#[test]
fn w0008_tainted_run() {
    let fires = plan(
        "STEP \"s\" {\n    PROMPT_AGENT \"which file?\" INTO f\n    RUN \"cat ${f}\" TIMEOUT 1m\n    \
         ASSERT LAST_RUN.EXIT_CODE == 0\n    READ \"cfg.txt\" AS cfg\n    ENV CFG = cfg\n    RUN \"make\" TIMEOUT 1m\n    \
         ASSERT LAST_RUN.EXIT_CODE == 0\n}\n",
    );
    assert_eq!(found(&fires, "W0008"), [7, 11]);
    let (_, d) = lint_json(&fires, &[]);
    let w = d.iter().find(|d| d["code"] == "W0008").unwrap();
    assert!(w["message"].as_str().unwrap().contains("PROMPT_AGENT (line 6)"), "{w}");
    // The RUN comes before the data exists.
    let near = plan(
        "STEP \"s\" {\n    VAR f = \"a.txt\"\n    RUN \"cat ${f}\" TIMEOUT 1m\n    ASSERT LAST_RUN.EXIT_CODE == 0\n    \
         PROMPT_AGENT \"q\" INTO f\n    LOG \"${f}\"\n}\n",
    );
    assert_eq!(found(&near, "W0008"), Vec::<u64>::new());
}

#[test]
fn w0008_names_the_tainted_fields_of_a_typed_answer() {
    // Line 9 takes only the enum (clean); line 11 the STRING too.
    let typed = plan(
        "TYPE T = { e: \"a\" | \"b\", s: STRING, n: INT }\n\nSTEP \"s\" {\n    PROMPT_AGENT \"q\" INTO t AS T\n    \
         RUN \"echo ${t.e} ${t.n}\" TIMEOUT 1m\n    ASSERT LAST_RUN.EXIT_CODE == 0\n    \
         RUN \"echo ${t.s} ${t.e}\" TIMEOUT 1m\n    ASSERT LAST_RUN.EXIT_CODE == 0\n}\n",
    );
    assert_eq!(found(&typed, "W0008"), [11]);
    let (_, d) = lint_json(&typed, &[]);
    let w = d.iter().find(|d| d["code"] == "W0008").unwrap();
    let message = w["message"].as_str().unwrap();
    assert_eq!(message, "this command may run with data from PROMPT_AGENT (line 8: `t.s`)");
}

#[test]
fn exit_statuses_and_check_shows_warnings() {
    let warned = plan("STEP \"s\" {\n    RUN \"make\"\n    ASSERT LAST_RUN.EXIT_CODE == 0\n}\n");
    let (code, d) = lint_json(&warned, &[]);
    assert_eq!((code, d.len()), (0, 1));
    assert_eq!(d[0]["severity"], "warning");
    assert_eq!(lint_json(&warned, &["--deny-warnings"]).0, 1);
    let clean = plan("STEP \"s\" {\n    RUN \"make\" TIMEOUT 1m\n    ASSERT LAST_RUN.EXIT_CODE == 0\n}\n");
    assert_eq!(lint_json(&clean, &["--deny-warnings"]), (0, vec![]));
    // Errors: exit 1, and no warnings beside them.
    let (code, d) =
        lint_json("TASK \"t\"\nSTEP \"s\" {\n    RUN \"make\"\n    ASERT LAST_RUN.EXIT_CODE == 0\n}\n", &[]);
    assert_eq!(code, 1);
    assert!(d.iter().all(|d| d["severity"] == "error"), "{d:?}");

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("plan.tiss"), &warned).unwrap();
    let out = tissc(dir.path(), &["check", "plan.tiss", "--error-format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let line: Value = serde_json::from_slice(out.stderr.trim_ascii()).unwrap();
    assert_eq!((line["severity"].as_str(), line["code"].as_str()), (Some("warning"), Some("W0003")));
    let out = tissc(dir.path(), &["lint", "plan.tiss", "--color", "never"]);
    let human = String::from_utf8(out.stderr).unwrap();
    assert!(human.contains("warning[W0003]") && human.contains("generated 1 warning"), "{human}");
    let out = tissc(dir.path(), &["lint", "missing.tiss"]);
    assert_eq!(out.status.code(), Some(2));
    let out = tissc(dir.path(), &["explain", "W0002"]);
    assert!(String::from_utf8(out.stdout).unwrap().starts_with("# W0002: "));
}

/// The examples are the plans people copy: each warning they get is
/// deliberate. `subtasks.tiss` and `reviewed_release.tiss` leave TIMEOUT
/// off the RUNs that `examples/cost-model.toml` estimates (its purpose),
/// and `reviewed_release.tiss` tags a release without checking `git tag`
/// (in the examples' scratch workspace there is no repository, and the
/// plan shows a review and a choice, not a release).
#[test]
fn examples_get_exactly_the_expected_warnings() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut got = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tiss"))
        .collect();
    names.sort();
    assert!(names.len() >= 8, "{names:?}");
    for name in &names {
        let out = tissc(&examples, &["lint", name, "--error-format", "json"]);
        assert_eq!(out.status.code(), Some(0), "{name}");
        for line in String::from_utf8(out.stderr).unwrap().lines() {
            let d: Value = serde_json::from_str(line).unwrap();
            got.push(format!("{} {}:{}", d["code"].as_str().unwrap(), name, d["line"]));
        }
    }
    assert_eq!(
        got,
        [
            "W0002 reviewed_release.tiss:28",
            "W0003 reviewed_release.tiss:28",
            "W0002 reviewed_release.tiss:31",
            "W0003 reviewed_release.tiss:31",
            "W0003 subtasks.tiss:21",
        ]
    );
}

/// Every suggestion replaces its warning's span; applied, the warning is
/// gone and the plan still compiles.
#[test]
fn suggestions_silence_their_warnings() {
    let cases = [
        ("W0001", plan("STEP \"s\" {\n    VAR unused = \"x\"\n}\n")),
        ("W0002", plan("STEP \"s\" {\n    RUN \"make\" TIMEOUT 1m\n}\n")),
        ("W0003", plan("STEP \"s\" {\n    RUN \"make\" IN \"src\"\n    ASSERT LAST_RUN.EXIT_CODE == 0\n}\n")),
        ("W0004", plan("STEP \"s\" {\n    RUN \"chmod 777 site\" TIMEOUT 1m\n    ASSERT LAST_RUN.EXIT_CODE == 0\n}\n")),
        (
            "W0005",
            "TASK \"t\"\nDEFINE_TASK \"ask\" {\n    PROMPT_AGENT \"q\"\n}\nSTEP \"s\" {\n    CALL \"ask\"\n    CALL \"ask\"\n}\n"
                .to_string(),
        ),
        ("W0006", plan("STEP \"s\" {\n    ASSERT 2 > 1\n    LOG \"x\"\n}\n")),
        ("W0007", plan("STEP \"a\" {\n    LOG \"x\"\n}\nSTEP \"a\" {\n    LOG \"y\"\n}\n")),
    ];
    for (code, src) in cases {
        let diagnostics = tiss_compiler::lint::lint_source("t.tiss", &src);
        let warning = diagnostics
            .iter()
            .find(|d| d.code.as_str() == code)
            .unwrap_or_else(|| panic!("{code} not given for\n{src}\n{diagnostics:?}"));
        let suggestion = warning.suggestions.first().unwrap_or_else(|| panic!("{code}: no suggestion"));
        assert_eq!(suggestion.span, warning.span, "{code}: replaces what it points at");
        let mut fixed = src.clone();
        fixed.replace_range(suggestion.span.range(), &suggestion.replacement);
        let after = tiss_compiler::lint::lint_source("t.tiss", &fixed);
        assert!(
            after.iter().all(|d| !d.is_error() && d.code.as_str() != code),
            "{code}:\n{fixed}\n{after:?}"
        );
        if code == "W0005" {
            // Two CALLs of a task with one prompt, three tries each.
            assert!(fixed.contains("SET_BUDGET API_CALLS = 6"), "{fixed}");
        }
    }
}
