//! The book's command-line reference of a binary (`docs/src/cli/NAME.md`)
//! held to the binary's clap definition: its hidden `__markdown-reference`
//! renders the page, which must be the one checked in, deterministic, and
//! CommonMark that says what it means (every anchor once, no stray HTML,
//! every table row of its header's width).

use std::path::{Path, PathBuf};

pub use tiss_support::cli_docs::MARKDOWN_REFERENCE;

/// The checked-in page of binary `name`.
pub fn page_path(name: &str) -> PathBuf {
    crate::docs::repository_root().join("docs/src/cli").join(format!("{name}.md"))
}

/// `NAME __markdown-reference`'s output, which must exit 0.
pub fn render(name: &str) -> String {
    let out = crate::command(name, Path::new("."), &[MARKDOWN_REFERENCE]).output().expect("run it");
    assert_eq!(out.status.code(), Some(0), "{name} {MARKDOWN_REFERENCE}: {}", crate::stderr(&out));
    String::from_utf8(out.stdout).expect("a UTF-8 page")
}

/// The page `package`'s binary `name` renders is the one checked in, with
/// a section for each of `subcommands` and none for the hidden one. With
/// `TISS_BLESS=1` the page is written instead (and the test passes).
pub fn assert_reference_is_current(name: &str, package: &str, subcommands: &[&str]) {
    let page = render(name);
    assert_eq!(page, render(name), "{name}: the reference is not the same twice");
    assert_well_formed(&page);
    for sub in subcommands {
        assert!(page.contains(&format!("\n## {name} {sub}\n")), "{name}: no section for `{sub}`");
    }
    assert!(
        !page.contains(&format!("## {name} {MARKDOWN_REFERENCE}")),
        "{name}: the hidden command has a section"
    );
    let help = crate::command(name, Path::new("."), &["--help"]).output().expect("run it");
    assert!(!crate::stdout(&help).contains(MARKDOWN_REFERENCE), "{name} --help shows the hidden command");
    assert!(page.contains("\n## Exit status\n"), "{name}: no exit statuses");
    let path = page_path(name);
    if std::env::var_os("TISS_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &page).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    if checked_in != page {
        let line = checked_in.lines().zip(page.lines()).position(|(a, b)| a != b);
        let line = line.unwrap_or_else(|| checked_in.lines().count().min(page.lines().count())) + 1;
        panic!(
            "{} is not the reference of {name}'s command line (first difference at line {line}); \
             write it again with\n    TISS_BLESS=1 cargo test -p {package} --test cli cli_reference\n\
             or\n    cargo run -p {package} --bin {name} -- {MARKDOWN_REFERENCE} docs/src/cli/{name}.md",
            path.display()
        );
    }
}

/// The page is CommonMark that reads as meant: outside code, no `<` or `>`
/// but the anchors' and line breaks' HTML; every table row as wide as its
/// header; every anchor (a heading's, as mdBook makes it, or an `id`) once.
pub fn assert_well_formed(page: &str) {
    let mut anchors: Vec<String> = Vec::new();
    let mut in_fence = false;
    let mut columns = None;
    for (number, line) in page.lines().enumerate() {
        let at = format!("line {}: {line}", number + 1);
        if line.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if let Some(heading) = line.strip_prefix("# ").or_else(|| line.strip_prefix("## ")) {
            anchors.push(heading.to_lowercase().replace(' ', "-"));
        }
        let mut prose = without_code_spans(line);
        for id in prose.split("<a id=\"").skip(1) {
            anchors.push(id.split('"').next().unwrap_or("").to_string());
        }
        prose = strip_anchors(&prose).replace("<br>", "");
        let unescaped = |c: char| prose.match_indices(c).any(|(i, _)| !prose[..i].ends_with('\\'));
        assert!(!unescaped('<') && !unescaped('>'), "HTML or an unescaped angle bracket, {at}");
        if line.starts_with('|') {
            let cells = line.match_indices('|').filter(|(i, _)| !line[..*i].ends_with('\\')).count();
            assert_eq!(cells, *columns.get_or_insert(cells), "a row not as wide as its header, {at}");
        } else {
            columns = None;
        }
    }
    assert!(!in_fence, "a code fence is not closed");
    let mut sorted = anchors.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), anchors.len(), "an anchor is used twice: {anchors:?}");
    assert!(anchors.len() > 20, "only {} anchors", anchors.len());
}

/// `line` with its code spans (backquoted, not backslash-escaped) removed.
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`').filter(|i| !rest[..*i].ends_with('\\')) {
        out.push_str(&rest[..start]);
        let ticks = rest[start..].len() - rest[start..].trim_start_matches('`').len();
        let fence = "`".repeat(ticks);
        let after = &rest[start + ticks..];
        match after.find(&fence) {
            Some(end) => rest = &after[end + ticks..],
            None => {
                out.push_str(&rest[start..]);
                return out;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `text` without its `<a id="…"></a>` anchors.
fn strip_anchors(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("<a id=\"") {
        out.push_str(&rest[..start]);
        match rest[start..].find("</a>") {
            Some(end) => rest = &rest[start + end + "</a>".len()..],
            None => {
                out.push_str(&rest[start..]);
                return out;
            }
        }
    }
    out.push_str(rest);
    out
}
