//! `tissvm completions SHELL`, `tissvm man DIR` and the book's reference
//! (the hidden `tissvm __markdown-reference [FILE]`): generated from the
//! full clap definition (`Cli`, never the `run` fast path's `RunOnly`), so
//! they list every subcommand and flag.

use std::path::Path;

use clap::CommandFactory;
use tiss_support::cli::{self, write_stdout};
use tiss_support::cli_docs::{self, Shell};
use tiss_support::io_message::io_message;

use tiss_vm::runner::{PROGRAM, status};

use super::Cli;

pub fn completions(shell: Shell) -> u8 {
    write_stdout(PROGRAM, &cli_docs::completions(Cli::command(), shell), status::OK)
}

pub fn man(dir: &Path) -> u8 {
    match cli_docs::write_man_pages(Cli::command(), dir) {
        Ok(_) => status::OK,
        Err(e) => {
            eprintln!("{PROGRAM}: cannot write man pages into `{}`: {}", dir.display(), io_message(&e));
            status::INVALID
        }
    }
}

/// The exit statuses as the book's command-line reference tells them.
const TOLD: &[(u8, &str)] = &[
    (
        status::OK,
        "Success: the plan passed (with many plans, every one did); for `debug`, also a session \
         that ended before the plan did; for `dap` and `mcp`, the client is gone; for `slurm`, the \
         jobs were submitted (with `--wait`, the worst plan's status).",
    ),
    (
        1,
        "The plan failed: an assertion, a command error, a rejected review, a provider error or an invalid \
         typed answer that no TRY caught; for `replay`, a plan that diverged from its journal.",
    ),
    (
        status::INVALID,
        "Usage error, or a plan that does not compile, or bytecode, a snapshot or a journal \
         that is invalid, corrupt or of an unsupported version; for `resume`, also a snapshot \
         resumed before (without `--force`) or a workspace refused.",
    ),
    (
        status::SUSPENDED,
        "Suspended: a human interaction without an answer, or Ctrl-C; a snapshot was \
         written and the command that continues it printed.",
    ),
    (4, "A budget was exceeded (`SET_BUDGET` or `--budget`)."),
    (
        status::SECURITY,
        "A security violation: a path outside the workspace, a command the policy denies, \
         or a sandbox profile that cannot be enforced here.",
    ),
    (status::INTERNAL, "Internal error, a bug in tissvm."),
];

/// `tissvm __markdown-reference [FILE]`: docs/src/cli/tissvm.md, which
/// vm/tests/cli/cli_docs.rs holds to this definition.
pub fn markdown_reference(file: Option<&Path>) -> u8 {
    let page = cli_docs::Page {
        generated_by: "cargo run -p tiss-vm --bin tissvm -- __markdown-reference docs/src/cli/tissvm.md",
        exit_statuses: TOLD,
        exit_note: Some(
            "With many plans the status is the worst plan's: 5, then 4, 1, 3 and 0; a plan that could not \
         run (2 or 70) is worse than any.",
        ),
    };
    let command = cli::command::<Cli>(tisslang::version::LANGUAGE_VERSION);
    cli_docs::write_markdown_reference(PROGRAM, command, &page, file)
}
