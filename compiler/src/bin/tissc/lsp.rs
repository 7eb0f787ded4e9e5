//! `tissc lsp`: the language server (book: guide/editors.md), on stdin/stdout.

use tiss_compiler::lsp::protocol::transport;
use tiss_compiler::lsp::{self, Ending};

/// Run the TissLang language server on stdin/stdout, for editors.
///
/// It speaks LSP (JSON-RPC with Content-Length framing): diagnostics as you
/// type (errors and lint warnings), hover, completion, go to definition,
/// find references, document symbols and formatting (as `tissc fmt`).
/// Positions are in UTF-16 code units. Exit status: 0 after `shutdown` then
/// `exit`, 1 when `exit` comes without `shutdown` or the input ends first
/// (as LSP says), 70 when stdout cannot be written.
#[derive(clap::Args)]
pub struct LspArgs {
    /// Talk over stdin/stdout: the default and only transport (editor
    /// clients such as VS Code's add this flag).
    #[arg(long)]
    stdio: bool,
}

/// LSP's exit status when `exit` comes without `shutdown` first.
const EXIT_WITHOUT_SHUTDOWN: u8 = 1;

pub fn lsp(args: &LspArgs) -> u8 {
    // stdio is the only transport: the flag changes nothing.
    let LspArgs { stdio: _ } = args;
    let (connection, transport) = transport::stdio();
    let ending = lsp::serve(&connection);
    // The writer ends once the connection's sender is gone.
    drop(connection);
    if let Err(e) = transport.join() {
        eprintln!("tissc lsp: cannot write to stdout: {e}");
        return super::status::INTERNAL;
    }
    match ending {
        Ending::Clean => super::status::OK,
        Ending::Abrupt => EXIT_WITHOUT_SHUTDOWN,
    }
}
