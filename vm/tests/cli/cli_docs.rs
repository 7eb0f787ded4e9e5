//! `tissvm completions SHELL` and `tissvm man DIR` through the binary,
//! generated from the full command definition: every shell's script names
//! every subcommand (`run` included, whose arguments have a fast path of
//! their own) and its flags; bash's parses with `bash -n`; a man page is
//! written for the program and each subcommand and `man -l` renders it.

use std::process::{Command, Output};

const SUBCOMMANDS: &[&str] = &[
    "run",
    "resume",
    "replay",
    "inspect",
    "disasm",
    "estimate",
    "debug",
    "dap",
    "mcp",
    "providers",
    "collect",
    "slurm",
    "completions",
    "man",
];

fn tissvm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tissvm")).args(args).output().expect("run tissvm")
}

#[test]
fn every_shell_gets_a_script_naming_every_subcommand() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = tissvm(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", String::from_utf8_lossy(&o.stderr));
        let script = String::from_utf8(o.stdout).expect("UTF-8 script");
        // fish names a long flag without its dashes (`-l workdir`).
        for word in SUBCOMMANDS.iter().chain(&["tissvm", "workdir", "budget", "raise-budget"]) {
            assert!(script.contains(word), "{shell}: the script does not complete `{word}`");
        }
        if shell == "bash" {
            let dir = tempfile::tempdir().expect("temp dir");
            let path = dir.path().join("tissvm.bash");
            std::fs::write(&path, &script).expect("write script");
            let syntax = Command::new("bash").arg("-n").arg(&path).output().expect("run bash -n");
            assert!(syntax.status.success(), "bash -n: {}", String::from_utf8_lossy(&syntax.stderr));
        }
    }
}

#[test]
fn man_pages_for_the_program_and_every_subcommand() {
    let dir = tempfile::tempdir().expect("temp dir");
    let o = tissvm(&["man", dir.path().to_str().expect("UTF-8 path")]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let pages: Vec<String> = std::iter::once("tissvm".to_string())
        .chain(SUBCOMMANDS.iter().map(|s| format!("tissvm-{s}")))
        .collect();
    for page in &pages {
        let path = dir.path().join(format!("{page}.1"));
        let roff = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(roff.contains(&format!(".TH {} 1", page.to_uppercase())), "{page}: no roff title");
        if !man_available() {
            eprintln!("SKIP: man or nroff is not installed; {page} checked by its roff title only");
            continue;
        }
        let man = Command::new("man")
            .arg("-l")
            .arg(&path)
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "80")
            .output()
            .expect("run man");
        // Justified text: compare with the blanks collapsed.
        let text = String::from_utf8_lossy(&man.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            man.status.success() && text.contains(&format!("{} -", page.replace('-', " "))),
            "{page}:\n{text}"
        );
    }
    assert_eq!(std::fs::read_dir(dir.path()).expect("ls").count(), pages.len());
    // The run page documents run's options (from the full definition).
    let run = std::fs::read_to_string(dir.path().join("tissvm-run.1")).expect("run page");
    assert!(run.contains("workdir") && run.contains("dry\\-run"), "tissvm-run.1 lacks run's options");
}

/// `man -l` needs man and a roff formatter; a minimized system has neither, or a stub `man`.
fn man_available() -> bool {
    ["man", "nroff"]
        .iter()
        .all(|tool| Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success()))
}

/// `-h` is a summary that fits a screen; `--help` keeps the detail; no help
/// text cites the specification, which a user of the tool does not have.
#[test]
fn short_help_fits_a_screen_and_no_help_cites_the_spec() {
    tiss_test_support::assert_help_fits_and_cites_no_spec("tissvm", SUBCOMMANDS);
    let short = tissvm(&["run", "-h"]);
    let short = String::from_utf8_lossy(&short.stdout);
    assert!(short.contains("More options") && short.contains("tissvm run --help"), "{short}");
    assert!(!short.contains("--from-step") && !short.contains("--base-url"), "{short}");
    let long = tissvm(&["run", "--help"]);
    let long = String::from_utf8_lossy(&long.stdout);
    assert!(long.contains("--from-step") && long.contains("--base-url") && !long.contains("More options"));
}

/// docs/src/cli/tissvm.md is what `tissvm __markdown-reference` renders from
/// the full definition (`run`'s options included), with a section per
/// subcommand and the exit statuses, 0 to 5 and 70.
#[test]
fn cli_reference_page_is_the_definition() {
    tiss_test_support::cli_reference::assert_reference_is_current("tissvm", "tiss-vm", SUBCOMMANDS);
    let page = tiss_test_support::cli_reference::render("tissvm");
    for anchor in ["tissvm-run--workdir", "tissvm-run--from-step", "tissvm-run--base-url", "tissvm-run--jobs"]
    {
        assert!(page.contains(&format!("<a id=\"{anchor}\"></a>")), "no {anchor}");
    }
    for status in [0, 1, 2, 3, 4, 5, 70] {
        assert!(page.contains(&format!("\n| {status} | ")), "no exit status {status}");
    }
}
