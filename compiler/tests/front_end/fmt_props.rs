//! Property test of `tissc fmt`: random valid plans (every statement form,
//! nested blocks, heredocs, TYPEs short and too long for a line, typed
//! prompts), their words joined by random layout (blanks,
//! line breaks, blank lines, end-of-line and own-line comments), always
//! format without a fault, to the same plan (checked inside
//! `format_source`), idempotently, and the layout of the source does not
//! matter: two layouts of the same words without comments format alike.

use proptest::prelude::*;
use tiss_compiler::fmt::format_source;

/// A statement's words; a heredoc is one word.
fn statement(depth: u32) -> BoxedStrategy<Vec<String>> {
    let words = |ws: &[&str]| ws.iter().map(|w| w.to_string()).collect::<Vec<_>>();
    let leaf = prop_oneof![
        Just(words(&["RUN", "\"make\"", "TIMEOUT", "5s"])),
        Just(words(&["RUN", "\"ls ${x}\"", "IN", "\"sub\""])),
        Just(words(&["LOG", "\"a  b\""])),
        Just(words(&["VAR", "x", "=", "LAST_RUN", ".", "STDOUT"])),
        Just(words(&["ENV", "NAME", "=", "\"v\""])),
        Just(words(&["ASSERT", "LAST_RUN", ".", "EXIT_CODE", "==", "0", "MESSAGE", "\"m\""])),
        Just(words(&["ASSERT", "NOT", "(", "TRUE", "OR", "FALSE", ")", "AND", "FILE", "\"f\"", "EXISTS"])),
        Just(words(&["ASSERT", "x", "NOT", "CONTAINS", "\"q\"", "AND", "COST", "<", "5m"])),
        Just(words(&["PROMPT_AGENT", "\"q\"", "WITH", "x", ",", "y", "INTO", "z"])),
        Just(words(&["REQUEST_REVIEW", "\"ok?\"", "INTO", "r"])),
        Just(words(&["DELETE", "\"d\"", "RECURSIVE"])),
        Just(words(&["CALL", "\"sub\""])),
        Just(words(&["SET_BUDGET", "RUN_COUNT", "=", "3"])),
        Just(words(&["WRITE", "\"f.py\"", "<<PY\nx = 1   \n  # not a comment\nPY"])),
        Just(words(&["APPEND", "\"f\"", "<<~EOF # a comment\n    a\n      b\n    EOF"])),
        Just(words(&["WRITE", "\"g\"", "FROM", "e", ".", "MESSAGE"])),
        Just(words(&[
            "PROMPT_AGENT",
            "\"q\"",
            "INTO",
            "t",
            "AS",
            "{",
            "ok",
            ":",
            "BOOL",
            ",",
            "why",
            "?",
            ":",
            "STRING",
            "}"
        ])),
        Just(words(&[
            "PROMPT_AGENT",
            "\"a longer question for the model, which takes a good part of the line\"",
            "INTO",
            "u",
            "AS",
            "LIST",
            "OF",
            "{",
            "path",
            ":",
            "STRING",
            ",",
            "kind",
            ":",
            "\"add\"",
            "|",
            "\"remove\"",
            ",",
            "}",
        ])),
        Just(words(&["ASSERT", "t", ".", "why", "EXISTS", "OR", "NOT", "u", "IS_EMPTY"])),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    let block = move || block(depth - 1);
    prop_oneof![
        3 => leaf,
        1 => (block(), prop::option::of(block())).prop_map(|(then, otherwise)| {
            let mut w = vec!["IF".into(), "x".into(), "==".into(), "\"a\"".into(), "THEN".into()];
            w.extend(then);
            if let Some(otherwise) = otherwise {
                w.extend(["ELSE".into(), "IF".into(), "TRUE".into(), "{".into(), "}".into(), "ELSE".into()]);
                w.extend(otherwise);
            }
            w
        }),
        1 => (block(), block()).prop_map(|(body, handler)| {
            let mut w = vec!["TRY".to_string()];
            w.extend(body);
            w.extend(["CATCH".into(), "AS".into(), "e".into()]);
            w.extend(handler);
            w
        }),
        1 => (block(), block()).prop_map(|(a, b)| {
            let mut w = vec!["CHOOSE".to_string(), "\"which\"".into(), "{".into(), "OPTION".into(), "\"a\"".into()];
            w.extend(a);
            w.extend(["STEP".into(), "\"b\"".into()]);
            w.extend(b);
            w.push("}".into());
            w
        }),
        1 => block().prop_map(|b| {
            let mut w = vec!["ESTIMATE_COST".to_string(), "INTO".into(), "est".into()];
            w.extend(b);
            w
        }),
        1 => block().prop_map(|b| {
            let mut w = vec!["STEP".to_string(), "\"inner\"".into()];
            w.extend(b);
            w
        }),
    ]
    .boxed()
}

fn block(depth: u32) -> BoxedStrategy<Vec<String>> {
    prop::collection::vec(statement(depth), 0..4)
        .prop_map(|statements| {
            let mut w = vec!["{".to_string()];
            w.extend(statements.into_iter().flatten());
            w.push("}".into());
            w
        })
        .boxed()
}

fn plan() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(
        prop_oneof![
            block(2).prop_map(|b| [vec!["STEP".to_string(), "\"s\"".into()], b].concat()),
            block(1).prop_map(|b| [vec!["DEFINE_TASK".to_string(), "\"sub\"".into()], b].concat()),
            Just(vec!["SET_BUDGET".to_string(), "API_CALLS".into(), "=".into(), "2".into()]),
            Just(["TYPE", "Short", "=", "\"a\"", "|", "\"b\""].map(String::from).to_vec()),
            Just(
                [
                    "TYPE",
                    "Long",
                    "=",
                    "{",
                    "first_field_with_a_long_name",
                    ":",
                    "STRING",
                    ",",
                    "second_field_with_a_long_name",
                    "?",
                    ":",
                    "LIST",
                    "OF",
                    "STRING",
                    ",",
                    "nested",
                    ":",
                    "{",
                    "inner",
                    ":",
                    "INT",
                    ",",
                    "more",
                    ":",
                    "{",
                    "deep",
                    ":",
                    "BOOL",
                    "}",
                    "}",
                    ",",
                    "}",
                ]
                .map(String::from)
                .to_vec(),
            ),
        ],
        0..4,
    )
    .prop_map(|items| {
        let mut w = vec!["#TISS! Language=Python".to_string(), "TASK".into(), "\"t\"".into()];
        w.extend(items.into_iter().flatten());
        w
    })
}

/// What may stand between two words.
const SEPARATORS: &[&str] =
    &[" ", "  ", "\t", "\n", "\n\n\n", "\n    ", " # end of line\n", "\n# own line\n", "\r\n"];

/// The words joined by the chosen separators (a pragma or a heredoc ends its line).
fn layout(words: &[String], picks: &[usize], comments: bool) -> String {
    let mut out = String::new();
    for (i, word) in words.iter().enumerate() {
        out.push_str(word);
        let pick = picks[i % picks.len()] % SEPARATORS.len();
        let mut sep = SEPARATORS[pick];
        if !comments && sep.contains('#') {
            sep = "\n";
        }
        // Nothing may follow a pragma or a heredoc's terminator on its line.
        if (word.starts_with('#') || word.starts_with("<<")) && !sep.starts_with('\n') {
            sep = "\n";
        }
        out.push_str(sep);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_layouts_format_idempotently(words in plan(), picks in prop::collection::vec(any::<usize>(), 1..64)) {
        let src = layout(&words, &picks, true);
        let once = format_source(&src).map_err(|d| TestCaseError::fail(format!("{d:?}\n{src}")))?;
        let twice = format_source(&once).map_err(|d| TestCaseError::fail(format!("{d:?}\n{once}")))?;
        prop_assert_eq!(&twice, &once, "not idempotent:\n{}", src);
        prop_assert_eq!(once.matches("# end of line").count(), src.matches("# end of line").count());
        prop_assert_eq!(once.matches("# own line").count(), src.matches("# own line").count());
    }

    #[test]
    fn the_source_layout_does_not_matter(words in plan(), a in prop::collection::vec(any::<usize>(), 1..64), b in prop::collection::vec(any::<usize>(), 1..64)) {
        let one = format_source(&layout(&words, &a, false)).map_err(|d| TestCaseError::fail(format!("{d:?}")))?;
        let other = format_source(&layout(&words, &b, false)).map_err(|d| TestCaseError::fail(format!("{d:?}")))?;
        // Blank lines are the one thing kept from the source; compare without them.
        let strip = |s: &str| s.lines().filter(|l| !l.is_empty()).collect::<Vec<_>>().join("\n");
        prop_assert_eq!(strip(&one), strip(&other));
    }
}
