//! Shell completion scripts, man pages and the book's command-line
//! reference, generated from a binary's clap definition (`tissc completions
//! SHELL`, `tissc man DIR`, the hidden `tissc __markdown-reference [FILE]`,
//! the same for `tissvm`), so they always match the arguments the binary
//! accepts.

use std::io;
use std::path::{Path, PathBuf};

pub use clap_complete::Shell;

use crate::atomic_write::write_atomically;
use crate::cli::{USAGE, write_stdout};
use crate::io_message::io_message;

mod markdown;
pub use markdown::{Page, reference as markdown_reference};

/// The name of the hidden subcommand that prints the book's command-line
/// reference of a binary, or writes it to FILE: the same in both binaries.
pub const MARKDOWN_REFERENCE: &str = "__markdown-reference";

/// `PROGRAM __markdown-reference [FILE]`: the reference page of `command`
/// on stdout, or written atomically to `file`. Returns the exit status: 0,
/// or 2 for a file that cannot be written (70 for stdout, as everywhere).
pub fn write_markdown_reference(
    program: &str,
    command: clap::Command,
    page: &Page,
    file: Option<&Path>,
) -> u8 {
    let text = markdown_reference(command, page);
    match file {
        None => write_stdout(program, &text, 0),
        Some(path) => match write_atomically(path, text.as_bytes(), None) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("{program}: cannot write `{}`: {}", path.display(), io_message(&e));
                USAGE
            }
        },
    }
}

/// The completion script of `command` for `shell`.
pub fn completions(mut command: clap::Command, shell: Shell) -> String {
    let name = command.get_name().to_string();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, name, &mut script);
    String::from_utf8_lossy(&script).into_owned()
}

/// Writes a man page (section 1) for `command` and each of its subcommands
/// into `dir` (created if missing): `tissc.1`, `tissc-fmt.1`, ... Each file is
/// written atomically. Returns the paths written, in order.
pub fn write_man_pages(command: clap::Command, dir: &Path) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut command = command;
    command.build();
    let mut written = Vec::new();
    write_pages(&command, command.get_name(), dir, &mut written)?;
    Ok(written)
}

/// The page of `command` as `name.1`, then those of its subcommands as `name-SUB.1`.
fn write_pages(
    command: &clap::Command,
    name: &str,
    dir: &Path,
    written: &mut Vec<PathBuf>,
) -> io::Result<()> {
    // The page's title and usage line name the full command (`tissc fmt`).
    let title = name.replace('-', " ");
    let page_command = command.clone().display_name(title.clone()).bin_name(title);
    let mut roff = Vec::new();
    clap_mangen::Man::new(page_command)
        .title(name.to_uppercase())
        .source(format!("TissLang {}", env!("CARGO_PKG_VERSION")))
        .manual("TissLang Manual")
        .render(&mut roff)?;
    let path = dir.join(format!("{name}.1"));
    write_atomically(&path, &roff, None)?;
    written.push(path);
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set() && sub.get_name() != "help") {
        write_pages(sub, &format!("{name}-{}", sub.get_name()), dir, written)?;
    }
    Ok(())
}
