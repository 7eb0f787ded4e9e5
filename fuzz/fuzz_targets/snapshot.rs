//! A snapshot as an attacker would hand it over: the input is the whole
//! file, and the target re-seals it first ([`seal`]) so the fuzzer's bytes
//! reach the decoder and the state's validation (`read_snapshot`:
//! `session/snapshot.rs`, `snapshot/state.rs`). A refused snapshot is
//! refused in words; an accepted one is resumed to its end on the in-memory
//! scripted host (no real effect; at most 200,000 instructions), answering
//! every question through a snapshot that must read back, and reported, as
//! `tissvm resume` would. Never a panic, never a `Trapped` outcome
//! (`tissvm`'s exit 70).
#![no_main]

#[path = "../../vm/tests/resealed/mod.rs"]
mod resealed;

use libfuzzer_sys::fuzz_target;
use tiss_vm::machine::program::Program;
use tiss_vm::session::snapshot::{HEADER_LEN, read_snapshot};

/// What makes altered bytes a snapshot `read_snapshot` opens: the
/// checksum. `read_snapshot` validates every snapshot, signed or not; the
/// signature only decides whose workspace claim `tissvm resume` follows,
/// which `vm/tests/resume_workspace.rs` tests.
fn seal(file: &mut [u8]) {
    if file.len() >= HEADER_LEN {
        tisslang::codec::seal::seal(file, HEADER_LEN);
    }
}

fuzz_target!(|data: &[u8]| {
    let mut file = data.to_vec();
    seal(&mut file);
    match read_snapshot(&file) {
        Err(refusal) => resealed::assert_in_words("the input", &refusal.to_string()),
        Ok(read) => {
            // A regex that does not compile is refused here, as `tissvm resume` refuses it.
            if let Ok(program) = Program::new(read.module) {
                resealed::run_from("the input", &read.bytecode, program, read.machine);
            }
        }
    }
});
