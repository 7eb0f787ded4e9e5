//! `tissvm completions SHELL` and `tissvm man DIR`: generated from the full
//! clap definition (`Cli`, never the `run` fast path's `RunOnly`), so they
//! list every subcommand and flag.

use std::path::Path;

use clap::CommandFactory;
use tiss_support::cli::write_stdout;
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
