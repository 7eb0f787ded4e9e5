//! What `tissc generate` tells the model: a system message holding a compact
//! language reference and an example plan, the goal, and for a repair the
//! model's own plan (as its earlier turn) and the compiler's diagnostics as
//! JSON lines, the form the compiler's suggestions are most exact in.
//! Compact because small local models have small contexts (2,048 tokens for
//! the one the tests use): the reference and the example are about 600.

use tiss_providers::chat::{Message, Role};

/// The system message: the reference, then the example.
pub fn system() -> String {
    format!("{REFERENCE}\nExample:\n{EXAMPLE}")
}

const REFERENCE: &str = r#"You write plans in TissLang, a small language for CI jobs and agents. Answer with one whole plan and nothing else: no explanation, no Markdown.

A plan is `TASK "what it does"` (first, once), then steps that run in order: `STEP "name" { statements }`.
Statements:
  RUN "shell command" TIMEOUT 30s       runs it; the result is in LAST_RUN
  ASSERT LAST_RUN.EXIT_CODE == 0        fails the plan when false
  ASSERT LAST_RUN.STDOUT CONTAINS "text"
  ASSERT FILE "path" EXISTS
  WRITE "path" <<EOF                    writes the lines up to the line EOF
  READ "path" AS name                   reads a file into a variable
  VAR name = "text"
  LOG "message with ${name}"
  IF condition { ... } ELSE { ... }
  TRY { ... } CATCH AS err { LOG "${err.MESSAGE}" }
  MKDIR "dir"
  DELETE "path"
Keywords are UPPERCASE. Strings are in double quotes on one line; ${name} puts a variable in. Durations: 500ms, 30s, 2m. Conditions compare with == != < <= > >= and join with AND, OR, NOT. LAST_RUN has STDOUT, STDERR, EXIT_CODE.
"#;

/// An example plan; a unit test holds it to compiling.
pub const EXAMPLE: &str = r#"TASK "Create and test a Python script"

STEP "Write the script" {
    WRITE "hello.py" <<PYTHON
print("Hello, world")
PYTHON
}

STEP "Run the script" {
    RUN "python3 hello.py" TIMEOUT 30s
    ASSERT LAST_RUN.EXIT_CODE == 0
    ASSERT LAST_RUN.STDOUT CONTAINS "Hello"
}
"#;

/// The first request's messages.
pub fn first(goal: &str) -> Vec<Message> {
    vec![Message::new(Role::System, system()), Message::new(Role::User, ask(goal))]
}

fn ask(goal: &str) -> String {
    format!("Write a TissLang plan for this goal: {goal}")
}

/// The most diagnostics a repair sends back: an answer that is not TissLang
/// at all has dozens, which would overflow a small model's context (45 of
/// them are about 2,700 tokens) and say nothing the first few do not.
pub const MAX_ERRORS_SENT: usize = 8;

/// A repair's messages: the goal, the plan the model wrote, and the
/// compiler's `errors` (JSON lines; the first [`MAX_ERRORS_SENT`]) with the
/// request to write it again.
pub fn repair(goal: &str, plan: &str, errors: &[String]) -> Vec<Message> {
    let count = match errors.len() {
        1 => "1 error".to_string(),
        n if n > MAX_ERRORS_SENT => format!("{n} errors (the first {MAX_ERRORS_SENT} follow)"),
        n => format!("{n} errors"),
    };
    let sent = &errors[..errors.len().min(MAX_ERRORS_SENT)];
    let report = format!(
        "The TissLang compiler rejected that plan with {count} (JSON, one per line; each names the line and \
         column, and a suggestion gives the exact replacement):\n{}\nWrite the whole corrected plan.",
        sent.join("\n")
    );
    vec![
        Message::new(Role::System, system()),
        Message::new(Role::User, ask(goal)),
        Message::new(Role::Assistant, plan),
        Message::new(Role::User, report),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_compiles() {
        let fe = crate::frontend("example.tiss", EXAMPLE.as_bytes());
        assert!(fe.diagnostics.is_empty(), "{:#?}", fe.diagnostics);
    }

    #[test]
    fn a_repair_carries_the_plan_and_the_errors() {
        let m = repair("g", "TASK x", &["{\"code\":\"E0001\"}".into()]);
        assert_eq!(m.len(), 4);
        assert_eq!((m[2].role, m[2].content.as_str()), (Role::Assistant, "TASK x"));
        assert!(
            m[3].content.contains("with 1 error (JSON") && m[3].content.contains("\n{\"code\":\"E0001\"}\n")
        );
        assert_eq!(first("g")[1].content, "Write a TissLang plan for this goal: g");
    }

    #[test]
    fn a_repair_sends_the_first_errors_only() {
        let errors: Vec<String> = (1..=45).map(|n| format!("{{\"line\":{n}}}")).collect();
        let m = repair("g", "x", &errors);
        let report = &m[3].content;
        assert!(report.contains("with 45 errors (the first 8 follow)"), "{report}");
        assert!(report.contains("{\"line\":8}\n") && !report.contains("{\"line\":9}"), "{report}");
    }
}
