//! A `.tbc` file as an attacker would hand it over: the input is the whole
//! file, and the target re-seals it first (writes the payload's length and
//! CRC-32 into the header, `tisslang::codec::seal::seal`), since anyone can, so
//! the fuzzer's bytes reach the decoder and the verifier. A module that
//! `container::load` refuses is refused in words; one it accepts goes through
//! everything `tissvm` does with bytecode without running a command — the
//! listing (`disasm`), `estimate`, `inspect`, `run --dry-run` — and is then
//! run to its end on the in-memory scripted host (no real effect: files,
//! commands and answers are scripted; at most 200,000 instructions),
//! answering every question through a snapshot that must read back, and
//! reported. Never a panic, never a `Trapped` outcome (`tissvm`'s exit 70).
#![no_main]

#[path = "../../vm/tests/resealed/mod.rs"]
mod resealed;

use libfuzzer_sys::fuzz_target;
use tiss_vm::analysis::estimate::{CostModel, estimate};
use tiss_vm::analysis::{dry_run::dry_run, inspect::write_inspect_json};
use tiss_vm::machine::program::Program;
use tisslang::container::{self, HEADER_LEN};

fuzz_target!(|data: &[u8]| {
    let mut file = data.to_vec();
    if file.len() >= HEADER_LEN {
        tisslang::codec::seal::seal(&mut file, HEADER_LEN);
    }
    let module = match container::load(&file) {
        Ok(module) => module,
        Err(refusal) => return resealed::assert_in_words("the input", &refusal.to_string()),
    };
    tisslang::disasm::disassemble(&module, &container::content_hash(&module));
    if let Ok(bounds) = estimate(&module, &CostModel::default()) {
        bounds.to_json(&module);
    }
    // A regex that does not compile is refused here, as `tissvm` refuses it.
    let Ok(program) = Program::new(module) else { return };
    dry_run(&program, None);
    // Written as it is made, the document is still one JSON value.
    let mut manifest = Vec::new();
    write_inspect_json(&program, None, None, &mut manifest).expect("a Vec takes everything");
    serde_json::from_slice::<serde_json::Value>(&manifest).expect("inspect writes one JSON document");
    resealed::run_to_the_end("the input", &file, program);
});
