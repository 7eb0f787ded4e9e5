//! book: reference/policy.md: text a command or a model produced reaches the terminal with its
//! control characters written out (`\x1b`, `\r`, `\x07`) and its lines
//! indented under ours, so it can neither clear the screen, retitle the
//! terminal nor forge a `passed` line; JSON keeps it exact.

use crate::common::Fixture;

/// A command that clears the screen, retitles the terminal, returns the
/// cursor and prints a line that reads like the report's.
const PLAN: &str = r#"TASK "t"
STEP "s" {
    RUN "printf '\\033[2J\\033]0;pwned\\007\\r\\npassed: forged\\n'; exit 3"
    LOG "${LAST_RUN.STDOUT}"
    ASSERT LAST_RUN.EXIT_CODE == 0 MESSAGE "got ${LAST_RUN.STDOUT}"
}
"#;

#[test]
fn human_output_writes_control_characters_out_and_json_keeps_them() {
    let fx = Fixture::new();
    let run = fx.run(PLAN, &["--color", "never"]);
    run.expect(1);
    for (name, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        for raw in ['\x1b', '\x07', '\r'] {
            assert!(!text.contains(raw), "{name} holds {raw:?} raw:\n{text}");
        }
        assert!(
            !text.lines().any(|l| l.starts_with("passed")),
            "{name} has a line that reads like the report's:\n{text}"
        );
    }
    assert!(run.stdout.contains("LOG \\x1b[2J\\x1b]0;pwned\\x07\\r"), "{}", run.stdout);
    assert!(
        run.stdout.contains("    \\x1b[2J\\x1b]0;pwned\\x07"),
        "the stdout lines of the failure:\n{}",
        run.stdout
    );
    // JSON is for programs: the exact text.
    let json = fx.run(PLAN, &["--output-format", "json"]);
    json.expect(1);
    let message = json.json()["failure"]["message"].as_str().unwrap().to_string();
    assert!(message.contains("\x1b[2J\x1b]0;pwned\x07\r\npassed: forged"), "{message:?}");
}

/// A plan whose strings carry escape sequences, a bell and a bidi override:
/// it is read by a person before it runs (`tissc check`, `tissc lint`,
/// `tissvm inspect`, `tissvm debug`), and none of them may pass the
/// characters on raw; the compiler keeps the columns of the file.
const HOSTILE_PLAN: &str = "TASK \"t\x1b[2J\"\nSTEP \"s\x1b]0;pwned\x07\" {\n    RUN \"echo \x1b[31mred \u{202e}txt.exe\" TIMEOUT 5s BOGUS\n}\n";

fn assert_no_raw_controls(what: &str, text: &str) {
    for raw in ['\x1b', '\x07', '\u{202e}'] {
        assert!(!text.contains(raw), "{what} passes {raw:?} on raw:\n{text}");
    }
}

#[test]
fn reviewing_a_hostile_plan_shows_its_control_characters_written_out() {
    let fx = Fixture::new();
    let plan = fx.write_plan(HOSTILE_PLAN);
    let check = tiss_test_support::command("tissc", fx.root.path(), &["check", &plan]).output().unwrap();
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert_eq!(check.status.code(), Some(1), "{stderr}");
    assert_no_raw_controls("tissc check", &stderr);
    // The column is the file's (characters, as editors count them), and
    // the caret stands under `BOGUS`.
    assert!(stderr.contains("plan.tiss:3:45"), "{stderr}");
    let source = stderr.lines().find(|l| l.starts_with("3 |")).unwrap();
    let caret = stderr.lines().skip_while(|l| !l.starts_with("3 |")).nth(1).unwrap();
    let column = |line: &str, at: usize| line.char_indices().position(|(i, _)| i == at).unwrap();
    assert_eq!(column(caret, caret.find('^').unwrap()), column(source, source.find("BOGUS").unwrap()));

    let valid = HOSTILE_PLAN.replace(" BOGUS", "");
    let plan = fx.write_plan(&valid);
    let lint = tiss_test_support::command("tissc", fx.root.path(), &["lint", &plan]).output().unwrap();
    assert_no_raw_controls("tissc lint", &String::from_utf8_lossy(&lint.stderr));
    let inspect = fx.tissvm(&["inspect", &plan, "--color", "never"]);
    inspect.expect(0);
    assert_no_raw_controls("tissvm inspect", &inspect.stdout);
    assert!(inspect.stdout.contains("echo \\x1b[31mred \\u{202e}txt.exe"), "{}", inspect.stdout);
    let debug = crate::common::command()
        .args(["debug", &plan, "--workdir", fx.ws().to_str().unwrap(), "--sandbox-profile", "none"])
        .current_dir(fx.root.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child_stdin(&debug).write_all(b"list\nstep\nquit\n").unwrap();
    let out = debug.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_no_raw_controls("tissvm debug", &stdout);
    assert!(stdout.contains("RUN \"echo \\x1b[31mred"), "{stdout}");
}

fn child_stdin(child: &std::process::Child) -> &std::process::ChildStdin {
    child.stdin.as_ref().unwrap()
}
