//! Keeps `tissc explain` honest: in every explanation, the first ```tiss block
//! (the example) must trigger its code, and every later block (the fixes) must
//! compile cleanly. A fragment without `TASK` is checked with one prepended.
//! A warning's (`W...`) example is linted, and its fixes must be free of
//! every warning too.

use tiss_compiler::diagnostics::{codes, explain};

/// The ```tiss blocks of a Markdown text.
fn tiss_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line.trim_end()) {
            (None, "```tiss") => current = Some(String::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

fn diagnostic_codes(src: &str) -> Vec<&'static str> {
    let fe = tiss_compiler::frontend("example.tiss", src.as_bytes());
    fe.diagnostics.iter().map(|d| d.code.as_str()).collect()
}

fn lint_codes(src: &str) -> Vec<&'static str> {
    tiss_compiler::lint::lint_source("example.tiss", src).iter().map(|d| d.code.as_str()).collect()
}

#[test]
fn examples_trigger_their_code_and_fixes_compile() {
    let mut failures = Vec::new();
    for (code, _) in codes::ALL {
        // E0900 is a fault of the formatter: no plan triggers it.
        if *code == codes::FORMATTER_FAULT {
            continue;
        }
        let text = explain::explanation(*code).expect("every code has an explanation");
        let blocks = tiss_blocks(text);
        assert!(blocks.len() >= 2, "{code}: needs an example and a fix");
        for (i, block) in blocks.iter().enumerate() {
            // E0102 is about the missing TASK: its example must stay as written.
            let src = if block.contains("TASK") || *code == codes::MISSING_TASK {
                block.clone()
            } else {
                format!("TASK \"t\"\n{block}")
            };
            let got = if code.as_str().starts_with('W') { lint_codes(&src) } else { diagnostic_codes(&src) };
            if i == 0 {
                // E0001's example is about bytes that a Markdown file cannot hold.
                if *code != codes::INVALID_UTF8 && !got.contains(&code.as_str()) {
                    failures.push(format!("{code}: the example gives {got:?}\n{src}"));
                }
            } else if !got.is_empty() {
                failures.push(format!("{code}: fix #{i} gives {got:?}\n{src}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn latin1_text_is_e0001() {
    let got = diagnostic_codes("TASK \"Open the caf\u{E9}\"\n");
    assert!(got.is_empty());
    let fe = tiss_compiler::frontend("latin1.tiss", b"TASK \"Open the caf\xE9\"\n");
    let got: Vec<_> = fe.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(got, [codes::INVALID_UTF8]);
}
