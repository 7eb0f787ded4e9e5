//! Property tests: no input makes the front end panic, and every input ends
//! in either a clean plan or at least one diagnostic with a valid span.

use proptest::prelude::*;
use tiss_compiler::frontend;
use tiss_compiler::syntax::ast::Item;

/// Pieces a plan is made of, valid and invalid, for token soups.
const VOCABULARY: &[&str] = &[
    "TASK",
    "SETUP",
    "STEP",
    "DEFINE_TASK",
    "CALL",
    "READ",
    "AS",
    "WRITE",
    "APPEND",
    "FROM",
    "MKDIR",
    "DELETE",
    "RECURSIVE",
    "RUN",
    "IN",
    "TIMEOUT",
    "ENV",
    "LOG",
    "ASSERT",
    "MESSAGE",
    "VAR",
    "IF",
    "THEN",
    "ELSE",
    "TRY",
    "CATCH",
    "PROMPT_AGENT",
    "WITH",
    "INTO",
    "PAUSE",
    "REQUEST_REVIEW",
    "CHOOSE",
    "OPTION",
    "ESTIMATE_COST",
    "SET_BUDGET",
    "COST",
    "LAST_RUN",
    "FILE",
    "EXISTS",
    "IS_EMPTY",
    "CONTAINS",
    "STARTS_WITH",
    "ENDS_WITH",
    "MATCHES",
    "AND",
    "OR",
    "NOT",
    "TRUE",
    "FALSE",
    "STDOUT",
    "EXIT_CODE",
    "RUN_COUNT",
    "EXECUTION_TIME",
    "PARALLEL",
    "run",
    "Step",
    "x",
    "e",
    "\"a\"",
    "\"${x}\"",
    "\"${LAST_RUN.STDOUT}\"",
    "\"{{x}}\"",
    "\"\\q\"",
    "\"/etc/passwd\"",
    "\"../up\"",
    "\"(\"",
    "\"unterminated",
    "<<EOF\nbody\nEOF\n",
    "<<~T\n  a\n  T\n",
    "<<EOF\n",
    "{",
    "}",
    "(",
    ")",
    ".",
    ",",
    "=",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "0",
    "-1",
    "99999999999999999999",
    "5s",
    "10ms",
    "3x",
    "1.5s",
    "2m30s",
    "1.0001s",
    "2.5",
    "-1.5s",
    "1d",
    "30sec",
    "sec",
    "=>",
    "=<",
    "<>",
    "===",
    "!==",
    "STPE",
    "#TISS! Language=Python\n",
    "#tiss! Language=Python\n",
    "#Tiss_Version >= 1.0\n",
    "#tissue\n",
    "#TISS_VERSION >= 1.0\n",
    "#TISS_VERSION >= 2.0\n",
    "# comment\n",
    "\n",
    "\r\n",
    "'q'",
    "&&",
    "@",
    "é",
    "\u{FEFF}",
    // Forms of other dialects (`parser/dialect.rs`).
    "//",
    "-- ",
    "->",
    "$x",
    "${x}",
    "[\"a\", \"b\"]",
    "[",
    "]",
    "FILE_EXISTS",
    "FILE_NOT_EXISTS",
    "FILE_CONTAINS",
    "ENDIF",
    "END",
    "ENDSTEP",
    "ELIF",
    "EXPECT",
    "PRINT",
    "SET",
    "THINK",
    "True",
    "\"{x}\"",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec((0..VOCABULARY.len(), prop::bool::ANY), 0..80).prop_map(|picks| {
        let mut out = String::new();
        for (i, newline) in picks {
            out.push_str(VOCABULARY[i]);
            out.push(if newline { '\n' } else { ' ' });
        }
        out
    })
}

fn assert_sound(bytes: &[u8]) {
    let mut fe = frontend("fuzz.tiss", bytes);
    // The linter's warnings (for a plan without errors) are held to the same.
    tiss_compiler::lint::add_warnings(&mut fe);
    let has_task = fe.plan.items.iter().any(|i| matches!(i, Item::Task { .. }));
    assert!(!fe.diagnostics.is_empty() || has_task, "neither a plan with a TASK nor a diagnostic");
    for d in &fe.diagnostics {
        assert!(d.span.start <= d.span.end, "inverted span {:?}", d.span);
        assert!((d.span.end as usize) <= fe.file.text.len(), "span past the end: {:?}", d.span);
        let pos = fe.file.line_col(d.span.start as usize);
        assert!(pos.line >= 1 && pos.column >= 1);
        for s in &d.suggestions {
            assert!((s.span.end as usize) <= fe.file.text.len());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        assert_sound(&bytes);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        assert_sound(text.as_bytes());
    }

    #[test]
    fn token_soups_never_panic(text in soup()) {
        assert_sound(text.as_bytes());
    }

    #[test]
    fn valid_prefix_with_soup_never_panics(text in soup()) {
        let src = format!("TASK \"t\"\nSTEP \"s\" {{\n{text}\n}}\n");
        assert_sound(src.as_bytes());
    }
}

/// `tissc fix` on the input: never panics, says it compiles exactly when
/// the front end finds no error in its text, and changes nothing in a plan
/// that compiles already (its suggestions are never certain).
fn assert_fix_sound(src: &str) {
    let before = frontend("fuzz.tiss", src.as_bytes());
    let fixed = tiss_compiler::fix::fix("fuzz.tiss", src);
    assert_eq!(fixed.compiles(), !frontend("fuzz.tiss", fixed.text.as_bytes()).has_errors());
    if !before.has_errors() {
        assert_eq!(fixed.text, src, "a plan that compiles was changed");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn fixing_token_soups_is_sound(text in soup()) {
        let src = format!("TASK \"t\"\nSTEP \"s\" {{\n{text}\n}}\n");
        assert_fix_sound(&src);
    }
}

#[test]
fn empty_and_tiny_inputs() {
    for src in ["", "\u{FEFF}", "\n", "TASK", "TASK \"t\"", "\u{FEFF}TASK \"t\"\n"] {
        assert_sound(src.as_bytes());
    }
    assert_sound(b"\xff\xfe\x00");
    assert_sound(b"TASK \"\xc3\x28\"");
}
