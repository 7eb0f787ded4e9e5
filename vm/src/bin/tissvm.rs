//! `tissvm`: runs TissLang plans. The machine itself arrives with the VM
//! issue; until then this binary only describes itself.

use clap::Parser;

/// Run TissLang plans (.tbc bytecode, or .tiss compiled in memory) on a
/// metered, sandboxed stack VM.
///
/// The subcommands (run, inspect, estimate, debug, resume, disasm) arrive with
/// the VM; this build of tissvm has none yet.
#[derive(Parser)]
#[command(name = "tissvm", version = concat!(env!("CARGO_PKG_VERSION"), " (TissLang 1.0.0)"))]
struct Cli {}

fn main() {
    let _ = Cli::parse();
    eprintln!("tissvm: no subcommands are available in this build yet; see `tissvm --help`");
    std::process::exit(2);
}
