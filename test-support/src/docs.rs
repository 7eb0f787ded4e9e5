//! The user documentation the doc tests read: the README and every page of
//! the book (`docs/src/**/*.md`), in a stable order, each with the path it
//! is shown by (relative to the repository root).

use std::path::{Path, PathBuf};

/// The repository root: this crate's parent directory.
pub fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the repository root").to_path_buf()
}

/// `(shown path, text)` of the README, then the book's pages, sorted.
pub fn markdown_pages() -> Vec<(String, String)> {
    let root = repository_root();
    let mut files = vec![root.join("README.md")];
    collect(&root.join("docs/src"), &mut files);
    let pages: Vec<(String, String)> = files
        .iter()
        .map(|file| {
            let shown = file.strip_prefix(&root).unwrap_or(file).display().to_string();
            let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{shown}: {e}"));
            (shown, text)
        })
        .collect();
    assert!(pages.len() > 20, "found only {} pages of documentation", pages.len());
    pages
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}
