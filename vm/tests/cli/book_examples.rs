//! Every ```tiss block of the README and the book (`docs/src/**/*.md`) is
//! compiled, and run where it says so. The info string says how
//! (`docs/src/testing.md` documents it for writers):
//!
//! - `tiss`: a whole plan; it compiles without errors;
//! - `tiss,fragment`: statements, compiled inside `TASK` and one `STEP`;
//! - `tiss,items`: top-level items, compiled after a `TASK`;
//! - `,error=CODE`: it fails to compile with that code (a `W` code: `tissc
//!   lint` warns with it);
//! - `,run` / `,run=N`: the plan is also run by `tissvm run --workdir EMPTY
//!   --non-interactive`, and exits 0 (or N).

/// One ```tiss block: where it is, what its info string asks, its text.
struct Block {
    place: String,
    options: Vec<String>,
    body: String,
}

impl Block {
    fn option(&self, name: &str) -> Option<Option<&str>> {
        self.options.iter().find_map(|o| match o.split_once('=') {
            Some((key, value)) if key == name => Some(Some(value)),
            None if o == name => Some(None),
            _ => None,
        })
    }

    /// The plan the block stands for, as the compiler sees it.
    fn plan(&self) -> String {
        if self.option("fragment").is_some() {
            format!("TASK \"example\"\nSTEP \"example\" {{\n{}}}\n", self.body)
        } else if self.option("items").is_some() {
            format!("TASK \"example\"\n{}", self.body)
        } else {
            self.body.clone()
        }
    }
}

/// The ```tiss blocks of one Markdown file. A fence may be indented (inside
/// a list item); its indentation is taken off the block's lines.
fn tiss_blocks(text: &str, shown: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, usize, Vec<String>, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```")
                    && (info == "tiss" || info.starts_with("tiss,"))
                {
                    let options = info.split(',').skip(1).map(str::to_string).collect();
                    open = Some((i + 1, indent, options, String::new()));
                }
            }
            Some((_, fence_indent, _, body)) if trimmed != "```" => {
                body.push_str(&line[indent.min(*fence_indent)..]);
                body.push('\n');
            }
            Some(_) => {
                let (at, _, options, body) = open.take().unwrap();
                blocks.push(Block { place: format!("{shown}:{at}"), options, body });
            }
        }
    }
    assert!(open.is_none(), "{shown}: a ```tiss block is never closed");
    blocks
}

fn all_blocks() -> Vec<Block> {
    tiss_test_support::docs::markdown_pages()
        .iter()
        .flat_map(|(shown, text)| tiss_blocks(text, shown))
        .collect()
}

/// Compiles (or, with `run`, runs) one block; what is wrong with it, if anything.
fn check(block: &Block) -> Option<String> {
    const KNOWN: [&str; 4] = ["fragment", "items", "error", "run"];
    if let Some(bad) = block.options.iter().find(|o| !KNOWN.contains(&o.split('=').next().unwrap_or(""))) {
        return Some(format!("unknown option `{bad}` (known: {KNOWN:?})"));
    }
    let plan = block.plan();
    let fe = tiss_compiler::frontend("example.tiss", plan.as_bytes());
    let shown = |codes: &[&str]| format!("{codes:?}\n{plan}");
    if let Some(expected) = block.option("error") {
        let Some(code) = expected else { return Some("`error` needs a code: `error=E0101`".into()) };
        let mut codes: Vec<&str> = fe.diagnostics.iter().map(|d| d.code.as_str()).collect();
        if code.starts_with('W') && !fe.has_errors() {
            let warnings = tiss_compiler::lint::lint_source("example.tiss", &plan);
            codes = warnings.iter().map(|d| d.code.as_str()).collect();
        }
        return (!codes.contains(&code)).then(|| format!("expected {code}, got {}", shown(&codes)));
    }
    if fe.has_errors() {
        let codes: Vec<&str> =
            fe.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.code.as_str()).collect();
        let messages: Vec<&str> = fe.diagnostics.iter().map(|d| d.message.as_str()).collect();
        return Some(format!("does not compile: {messages:?} {}", shown(&codes)));
    }
    let run = block.option("run")?;
    let expected: i32 = match run {
        None => 0,
        Some(n) => match n.parse() {
            Ok(n) => n,
            Err(_) => return Some(format!("`run={n}`: the exit status is a number")),
        },
    };
    // The tests' own fixture: a fresh workspace, and a hermetic tissvm
    // (none of the caller's TISS_* settings, stdin not a terminal).
    let run = crate::common::Fixture::new().run(&plan, &["--non-interactive"]);
    (run.code != Some(expected)).then(|| {
        format!(
            "ran with {:?}, expected {expected}\nstdout: {}\nstderr: {}",
            run.code, run.stdout, run.stderr
        )
    })
}

#[test]
fn every_tiss_block_of_the_readme_and_the_book_compiles_and_runs_as_marked() {
    let blocks = all_blocks();
    let failures: Vec<String> =
        blocks.iter().filter_map(|b| check(b).map(|why| format!("{}: {why}", b.place))).collect();
    assert!(
        failures.is_empty(),
        "{} of {} blocks are wrong:\n\n{}",
        failures.len(),
        blocks.len(),
        failures.join("\n\n")
    );
    // The book promises at least 30 tested plans; fewer means the scan broke.
    assert!(blocks.len() >= 30, "only {} ```tiss blocks found", blocks.len());
    let ran = blocks.iter().filter(|b| b.option("run").is_some()).count();
    assert!(ran >= 3, "only {ran} blocks are run");
}

#[test]
fn a_wrong_block_is_caught() {
    let block = |options: &[&str], body: &str| Block {
        place: "t".into(),
        options: options.iter().map(|s| s.to_string()).collect(),
        body: body.into(),
    };
    assert!(check(&block(&[], "TASK \"t\"\nSTEP \"a\" { ASERT TRUE }\n")).is_some());
    assert!(check(&block(&["fragment"], "ASSERT TRUE\n")).is_none());
    assert!(check(&block(&["fragment", "error=E0101"], "ASSERT TRUE\n")).is_some());
    assert!(check(&block(&["items", "run"], "STEP \"a\" { ASSERT TRUE }\n")).is_none());
    assert!(check(&block(&["items", "run"], "STEP \"a\" { ASSERT FALSE }\n")).is_some());
    assert!(check(&block(&["items", "run=1"], "STEP \"a\" { ASSERT FALSE }\n")).is_none());
    assert!(check(&block(&["fragmnet"], "ASSERT TRUE\n")).is_some());
    let found = tiss_blocks("text\n  ```tiss,fragment\n  LOG \"a\"\n  ```\n", "t");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].body, "LOG \"a\"\n", "a list item's indentation is taken off");
}

#[test]
fn the_readme_is_short_and_no_page_cites_a_document_users_do_not_have() {
    let pages = tiss_test_support::docs::markdown_pages();
    let (_, readme) = pages.iter().find(|(shown, _)| shown == "README.md").expect("the README");
    let lines = readme.lines().count();
    assert!(
        lines <= 350,
        "the README is {lines} lines; keep it at most 350 and move the detail into the book"
    );
    for (shown, text) in &pages {
        for (i, line) in text.lines().enumerate() {
            assert!(
                !line.contains("SPEC") && !line.contains('§'),
                "{shown}:{}: cites the specification, which users do not have; link the book's page instead:\n{line}",
                i + 1
            );
        }
    }
}

#[test]
fn every_page_of_the_book_is_in_its_table_of_contents() {
    let root = tiss_test_support::docs::repository_root();
    let summary = std::fs::read_to_string(root.join("docs/src/SUMMARY.md")).unwrap();
    for (shown, _) in tiss_test_support::docs::markdown_pages() {
        let Some(page) = shown.strip_prefix("docs/src/") else { continue };
        if page == "SUMMARY.md" {
            continue;
        }
        assert!(
            summary.contains(&format!("]({page})")),
            "{shown} is not in docs/src/SUMMARY.md, so the book does not show it"
        );
    }
}
