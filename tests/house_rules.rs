//! The shape of the code, kept as the design card and ARCHITECTURE.md say:
//! no source file over 800 lines, no folder with more than 12 source files,
//! ARCHITECTURE.md a short map (at most 350 lines) whose every path exists;
//! no source file cites the specification, which users do not have.

use std::path::{Path, PathBuf};

const MAX_LINES: usize = 800;
const MAX_FILES: usize = 12;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every folder of the checkout that holds source, build output and
/// installed packages left out.
fn folders(dir: &Path, out: &mut Vec<PathBuf>) {
    out.push(dir.to_path_buf());
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let skipped = name.starts_with('.') || matches!(name.as_str(), "target" | "node_modules" | "corpus");
        if path.is_dir() && !path.is_symlink() && !skipped {
            folders(&path, out);
        }
    }
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    files
}

#[test]
fn no_source_file_is_over_800_lines_and_no_folder_holds_more_than_12() {
    let mut all = Vec::new();
    folders(&root(), &mut all);
    let mut long = Vec::new();
    let mut crowded = Vec::new();
    for dir in &all {
        let files = rust_files(dir);
        if files.len() > MAX_FILES {
            crowded.push(format!("{} ({} files)", dir.strip_prefix(root()).unwrap().display(), files.len()));
        }
        for file in files {
            let lines = std::fs::read_to_string(&file).unwrap().lines().count();
            if lines > MAX_LINES {
                long.push(format!("{} ({lines} lines)", file.strip_prefix(root()).unwrap().display()));
            }
        }
    }
    assert!(long.is_empty(), "over {MAX_LINES} lines, usually two concerns in one file: {long:?}");
    assert!(crowded.is_empty(), "more than {MAX_FILES} source files in one folder: {crowded:?}");
}

#[test]
fn architecture_is_a_short_map_whose_paths_exist() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    assert!(
        text.lines().count() <= 350,
        "ARCHITECTURE.md is {} lines: a map, not a manual",
        text.lines().count()
    );
    let tops = [
        "src/",
        "compiler/",
        "vm/",
        "host/",
        "providers/",
        "support/",
        "test-support/",
        "tests/",
        "benches/",
    ];
    let tops = [&tops[..], &["fuzz/", "editors/", "docs/", "tools/", "examples/", ".ci/"]].concat();
    let mut named = 0;
    for (i, quoted) in text.split('`').enumerate() {
        // Odd pieces are inside backquotes.
        if i % 2 == 0 || quoted.contains(char::is_whitespace) || !tops.iter().any(|t| quoted.starts_with(t)) {
            continue;
        }
        let path = quoted.split("::").next().unwrap();
        assert!(root().join(path).exists(), "ARCHITECTURE.md names `{quoted}`, which does not exist");
        named += 1;
    }
    assert!(named >= 10, "ARCHITECTURE.md names only {named} paths");
    for invariant in text.lines().filter(|l| l.starts_with("**Architecture Invariant:**")) {
        assert!(invariant.len() > 40, "an invariant says something: {invariant}");
    }
}

/// Every source file of the checkout (`.rs`, `.ts`, `.js`, `.toml`, `.sh`,
/// `.json`, the grammar, the texts of `tissc explain` and the book's pages),
/// build output, installed packages and the fuzz corpus left out.
fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() && !path.is_symlink() {
            if !matches!(name.as_str(), ".git" | "target" | "node_modules" | "corpus") {
                source_files(&path, out);
            }
        } else {
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            let shown =
                ext == "md" && (dir.ends_with("diagnostics/explain") || dir.starts_with(root().join("docs")));
            if shown || ["rs", "ts", "js", "toml", "sh", "json", "gbnf"].contains(&ext) {
                out.push(path);
            }
        }
    }
}

/// Comments cite the book's pages (`book: reference/costs.md`), never the
/// specification's sections: a user of the tools does not have it (issue 32).
#[test]
fn no_source_file_cites_the_spec() {
    // Spelled in two pieces, so that this file does not cite it either.
    let citations = [concat!("SPEC", " \u{a7}"), concat!("SPEC", ".md")];
    let mut files = Vec::new();
    source_files(&root(), &mut files);
    let mut citing = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        for (i, line) in text.lines().enumerate() {
            if citations.iter().any(|c| line.contains(c)) {
                citing.push(format!(
                    "{}:{}: {}",
                    file.strip_prefix(root()).unwrap().display(),
                    i + 1,
                    line.trim()
                ));
            }
        }
    }
    // Not vacuous: the whole checkout was read.
    assert!(files.len() >= 400, "only {} source files found under {}", files.len(), root().display());
    assert!(
        files.iter().any(|f| f.ends_with("vm/src/runner/mod.rs"))
            && files.iter().any(|f| f.ends_with("editors/vscode/package.json"))
            && files.iter().any(|f| f.ends_with("docs/src/cli/tissc.md")),
        "the walk missed the crates, the editor extension or the book"
    );
    assert!(
        citing.is_empty(),
        "cite the book's page instead (`(book: reference/costs.md)`; docs/src/SUMMARY.md lists them):\n{}",
        citing.join("\n")
    );
}
