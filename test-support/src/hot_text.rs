//! The check of a binary linked with the functions it runs first
//! (compiler/build.rs, book: performance.md): the list still names the
//! binary's functions (a list gone stale after renames would order nothing,
//! silently), and the listed functions of the workspace's own crates lie
//! before a part of the binary that the recorded runs never enter. Read with
//! binutils' `nm`. A build linked without the list (`TISS_HOT_TEXT=0`, gold
//! or mold: the build script says which) and a machine without `nm` skip,
//! visibly, and fail in CI ([`crate::skip`]).

use std::path::Path;
use std::process::Command;

/// Checks `binary` (a package's binary) against its list,
/// `MANIFEST_DIR/link/NAME-hot.txt`: at least 80% of the list's names are
/// in it, and every listed function whose name starts with one of `ours`
/// lies before the first whose name contains `cold` (a module the recorded
/// runs never enter). `linked`: what the build script said of the list
/// (`TISS_HOT_TEXT_LINKED`: `yes`, or why not).
pub fn check(binary: &str, manifest_dir: &str, linked: Option<&str>, ours: &[&str], cold: &str) {
    let binary = Path::new(binary);
    let name = binary.file_stem().and_then(|n| n.to_str()).expect("a binary's name");
    let list = Path::new(manifest_dir).join("link").join(format!("{name}-hot.txt"));
    if linked != Some("yes") {
        let why = linked.unwrap_or("the build script did not say");
        return crate::skip::cannot(&format!("{name} was linked without its list of hot functions: {why}"));
    }
    let Some(symbols) = Command::new("nm")
        .arg("--defined-only")
        .arg(binary)
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
    else {
        return crate::skip::missing("nm (binutils)", "the check reads the binary's symbols with it");
    };
    // (address, name) of each function.
    let functions: Vec<(u64, &str)> = symbols
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let address = u64::from_str_radix(words.next()?, 16).ok()?;
            matches!(words.next()?, "t" | "T").then_some(())?;
            Some((address, words.next()?))
        })
        .collect();
    let list = std::fs::read_to_string(&list).expect("the list of functions");
    // Its functions and statics; not the sections of data at its end
    // (`.rodata...`), which `nm` does not show.
    let entries: Vec<&str> =
        list.lines().filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('.')).collect();
    let listed = |name: &str| entries.iter().any(|entry| name.starts_with(entry));
    // A function, or a C static the list names (any symbol counts).
    let names: Vec<&str> = symbols.lines().filter_map(|line| line.split_whitespace().nth(2)).collect();
    let found = entries.iter().filter(|entry| names.iter().any(|name| name.starts_with(*entry))).count();
    // The tests run a debug build, whose inlining differs from the release
    // build the list was made from: most names, not all, are in both.
    eprintln!("{found} of {} listed functions are in {}", entries.len(), binary.display());
    assert!(
        found * 10 >= entries.len() * 8,
        "only {found} of {} listed functions are in {}: run benches/hot_text.sh",
        entries.len(),
        binary.display()
    );
    // The standard library's come precompiled, some under another name of
    // the same code, whose section the list may not name: ours only.
    let last_hot = functions
        .iter()
        .filter(|(_, name)| ours.iter().any(|prefix| name.starts_with(prefix)) && listed(name))
        .map(|&(at, _)| at)
        .max()
        .expect("a listed function of the workspace's crates");
    let first_cold = functions
        .iter()
        .filter(|(_, name)| name.contains(cold))
        .map(|&(at, _)| at)
        .min()
        .expect("a function of the module the runs never enter");
    assert!(last_hot < first_cold, "a listed function at {last_hot:#x}, `{cold}` from {first_cold:#x}");
}
