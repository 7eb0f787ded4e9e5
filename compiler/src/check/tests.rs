//! The checks, driven through the real front end on small plans.

use crate::frontend;

/// (code, line, column, suggested replacements) of every diagnostic.
fn diags(src: &str) -> Vec<(String, usize, usize, Vec<String>)> {
    let fe = frontend("t.tiss", src.as_bytes());
    fe.diagnostics
        .iter()
        .map(|d| {
            let lc = fe.file.line_col(d.span.start as usize);
            let reps = d.suggestions.iter().map(|s| s.replacement.clone()).collect();
            (d.code.to_string(), lc.line, lc.column, reps)
        })
        .collect()
}

const SPEC_EXAMPLE: &str = r#"#TISS! Language=Python
#TISS_VERSION >= 1.0

TASK "Create and test a simple Python hello world script"

SET_BUDGET RUN_COUNT = 10

STEP "Create the main application file" {
    WRITE "main.py" <<PYTHON
import sys

def main():
    print(f"Hello, {sys.argv[1]}!")

if __name__ == "__main__":
    main()
PYTHON
}

STEP "Run the script and verify its output" {
    RUN "python3 main.py TissLang" TIMEOUT 30s
    ASSERT LAST_RUN.EXIT_CODE == 0
    ASSERT LAST_RUN.STDOUT CONTAINS "Hello, TissLang!"
    ASSERT FILE "main.py" EXISTS
}
"#;

#[test]
fn spec_example_is_clean() {
    assert_eq!(diags(SPEC_EXAMPLE), vec![]);
}
