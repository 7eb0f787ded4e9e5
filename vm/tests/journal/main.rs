//! Journals (book: cookbook/journal.md): what a run records, `tissvm replay` of it, and a
//! restart from a step.
//!
//! One test binary per concern (linked once, not once per file); each
//! file is a module of it.

#[path = "../common/mod.rs"]
mod common;

mod recording;
mod replay;
mod restart;
mod signed;

/// Runs `plan` journaled in `journal` (`args` added) to a gate, where it
/// suspends: the run, and its snapshot's path.
fn suspend(fx: &common::Fixture, plan: &str, journal: &str, args: &[&str]) -> (common::Run, String) {
    let run = fx.run(
        plan,
        &[&["--journal", journal, "--non-interactive", "--output-format", "json"][..], args].concat(),
    );
    run.expect(3);
    let snapshot = run.json()["snapshot"].as_str().unwrap().to_string();
    (run, snapshot)
}
