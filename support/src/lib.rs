//! `tiss-support`: plumbing the TissLang crates share that is neither
//! language nor execution: the binaries' start-up and command line
//! ([`cli`], [`cli_docs`]), files replaced atomically ([`atomic_write`]),
//! I/O errors in messages ([`io_message`]), GitHub Actions annotations and
//! step summaries ([`github`]), "did you mean" ([`suggest`]),
//! MATCHES patterns compiled within bounds ([`regex_limits`]), shell
//! syntax ([`shell`]) and outside text made safe for a terminal
//! ([`terminal_text`]). It depends on no crate of the workspace.

pub mod atomic_write;
pub mod cli;
pub mod cli_docs;
pub mod github;
pub mod io_message;
pub mod private_dir;
pub mod regex_limits;
pub mod secret;
pub mod shell;
pub mod start_arena;
pub mod suggest;
pub mod terminal_text;
