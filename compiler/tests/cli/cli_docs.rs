//! `tissc completions SHELL` and `tissc man DIR` through the binary: every
//! shell's script names the subcommands (bash's parses with `bash -n`), and a
//! man page is written for the program and each subcommand, readable by
//! `man -l` where man is installed (else only its roff title is checked).

use std::path::Path;
use std::process::{Command, Output};

const SUBCOMMANDS: &[&str] = &[
    "check",
    "parse",
    "compile",
    "disasm",
    "explain",
    "grammar",
    "schema",
    "generate",
    "fmt",
    "completions",
    "man",
    "lint",
    "fix",
    "lsp",
];

fn tissc(args: &[&str]) -> Output {
    tiss_test_support::tissc(Path::new("."), args)
}

#[test]
fn every_shell_gets_a_script_naming_every_subcommand() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = tissc(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", String::from_utf8_lossy(&o.stderr));
        let script = String::from_utf8(o.stdout).expect("UTF-8 script");
        assert!(script.contains("tissc"), "{shell}: the script does not name tissc");
        for sub in SUBCOMMANDS {
            assert!(script.contains(sub), "{shell}: the script does not complete `{sub}`");
        }
        // Flags of subcommands are completed too (fish names them without dashes).
        assert!(script.contains("diff") && script.contains("embed-source"), "{shell}: no subcommand flags");
        if shell == "bash" {
            let dir = tempfile::tempdir().expect("temp dir");
            let path = dir.path().join("tissc.bash");
            std::fs::write(&path, &script).expect("write script");
            let syntax = Command::new("bash").arg("-n").arg(&path).output().expect("run bash -n");
            assert!(syntax.status.success(), "bash -n: {}", String::from_utf8_lossy(&syntax.stderr));
        }
    }
    let o = tissc(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn man_pages_for_the_program_and_every_subcommand() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("man/man1");
    let o = tissc(&["man", out.to_str().expect("UTF-8 path")]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let mut pages = vec!["tissc".to_string()];
    pages.extend(SUBCOMMANDS.iter().map(|sub| format!("tissc-{sub}")));
    for page in &pages {
        let path = out.join(format!("{page}.1"));
        let roff = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(roff.contains(&format!(".TH {} 1", page.to_uppercase())), "{page}: wrong title");
        read_with_man(&path, &page.replace('-', " "));
    }
    let written = std::fs::read_dir(&out).expect("man dir").count();
    assert_eq!(written, pages.len(), "unexpected pages in {}", out.display());
}

/// `man -l` renders the page, and its NAME section names the command.
fn read_with_man(path: &Path, command: &str) {
    if !man_available() {
        eprintln!("SKIP: man or nroff is not installed; {} checked by its roff title only", path.display());
        return;
    }
    let o = Command::new("man")
        .arg("-l")
        .arg(path)
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "80")
        .output()
        .expect("run man");
    // Justified text: compare with the blanks collapsed.
    let text = String::from_utf8_lossy(&o.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(o.status.success(), "man -l {}: {}", path.display(), String::from_utf8_lossy(&o.stderr));
    assert!(
        text.contains("NAME") && text.contains(&format!("{command} -")),
        "man -l {}:\n{text}",
        path.display()
    );
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
    tiss_test_support::assert_help_fits_and_cites_no_spec("tissc", SUBCOMMANDS);
}

/// docs/src/cli/tissc.md is what `tissc __markdown-reference` renders from
/// tissc's definition, with a section per subcommand; the command also
/// writes it to a FILE, and says so when it cannot.
#[test]
fn cli_reference_page_is_the_definition() {
    tiss_test_support::cli_reference::assert_reference_is_current("tissc", "tiss-compiler", SUBCOMMANDS);
    let page = tiss_test_support::cli_reference::render("tissc");
    for status in [0, 1, 2, 70] {
        assert!(page.contains(&format!("\n| {status} | ")), "no exit status {status}");
    }
    assert!(page.contains("<a id=\"tissc-compile--output\"></a>`-o, --output <OUT>`"), "no -o of compile");
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("tissc.md");
    let o = tissc(&["__markdown-reference", file.to_str().expect("UTF-8 path")]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let written = std::fs::read_to_string(&file).expect("the page written");
    assert_eq!(written, page);
    let o =
        tissc(&["__markdown-reference", dir.path().join("no/such/dir/tissc.md").to_str().expect("UTF-8")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("tissc: cannot write"), "{o:?}");
}
