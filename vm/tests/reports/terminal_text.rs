//! SPEC §8: text a command or a model produced reaches the terminal with its
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
