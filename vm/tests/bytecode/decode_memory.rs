//! Decoding never amplifies memory (issue 16, defect 3): hostile files —
//! a snapshot of ten million empty variable slots, a 40 MB snapshot of
//! empty LOG messages, a `.tbc` of twenty million one-byte instructions, a
//! file larger than any container — go through the real `tissvm` as child
//! processes, whose peak RSS `wait4` reports. Each is refused (exit 2, in
//! words), its peak at most twice the file's size plus 40 MiB: the file is
//! read once, and what it claims is refused before it is allocated; the
//! 40 MiB are the binary, its allocator and the small process it is started
//! from. Before the fix, these files took 10 to 40 times their size.
//!
//! The files are built from real ones by splicing the encoded bytes (a
//! marker value's encoding replaced by a long run of its hostile
//! counterpart) and re-sealing, never through an in-memory machine or
//! module of that size.

use std::fs::File;
use std::path::Path;
use std::time::Duration;

use crate::resealed::{harmless_plan, host, snapshot_of, tbc_of};
use tiss_test_support::measured;
use tiss_vm::machine::program::Program;
use tiss_vm::machine::value::Value;
use tiss_vm::machine::{LogRecord, Machine, Outcome};

/// `header` and `payload` as one file, its trailer written for the payload.
fn reseal(header: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut file = [header, payload].concat();
    tisslang::codec::seal::seal(&mut file, header.len());
    file
}

pub(crate) use tiss_test_support::measured::MIB;

/// What a `tissvm` child did, and its stderr.
pub(crate) struct Measured {
    pub code: i32,
    pub stderr: String,
    pub peak: u64,
    pub elapsed_ms: u64,
}

/// How long a measured `tissvm` may run before it is killed.
const DEADLINE: Duration = Duration::from_secs(30);

/// Runs `tissvm ARGS` in `dir` and measures its peak RSS
/// (`tiss_test_support::measured`: from a small process, this binary
/// running [`measuring_parent`] alone).
pub(crate) fn tissvm(dir: &Path, args: &[&str]) -> Measured {
    let run = measured::measure(module_path!(), &tiss_test_support::binary("tissvm"), dir, args, DEADLINE);
    Measured {
        code: run.code,
        stderr: std::fs::read_to_string(dir.join("stderr")).unwrap(),
        peak: run.peak,
        elapsed_ms: run.elapsed_ms,
    }
}

/// Not a test of its own: the small process [`tissvm`] measures from.
#[test]
fn measuring_parent() {
    measured::measuring_parent();
}

/// Asserts the run was refused in words with exit 2 saying `says`, its
/// peak within twice `file` bytes plus 40 MiB.
fn assert_refused_within(case: &str, run: &Measured, file: u64, says: &str) {
    eprintln!(
        "{case}: file {:.1} MiB, peak RSS {:.1} MiB ({:.2}x the file)",
        file as f64 / MIB as f64,
        run.peak as f64 / MIB as f64,
        run.peak as f64 / file as f64
    );
    assert_eq!(run.code, 2, "{case}: exit status\n{}", run.stderr);
    assert!(run.stderr.contains(says), "{case}: {}", run.stderr);
    crate::resealed::assert_in_words(case, &run.stderr);
    assert!(!run.stderr.contains("panicked"), "{case}: {}", run.stderr);
    let bound = 2 * file + 40 * MIB;
    assert!(run.peak <= bound, "{case}: peak RSS {} bytes, over {bound} ({} bytes of file)", run.peak, file);
}

/// `bytes` with the one occurrence of `from` replaced by `to`.
fn splice(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let at = bytes.windows(from.len()).position(|w| w == from).expect("the marker is encoded");
    assert!(bytes[at + 1..].windows(from.len()).all(|w| w != from), "the marker is encoded once");
    let mut out = Vec::with_capacity(bytes.len() - from.len() + to.len());
    out.extend_from_slice(&bytes[..at]);
    out.extend_from_slice(to);
    out.extend_from_slice(&bytes[at + from.len()..]);
    out
}

/// bincode's varint of a length above 65,535 and below 2^32.
fn varint_u32(n: u32) -> Vec<u8> {
    [&[0xFCu8][..], &n.to_le_bytes()].concat()
}

/// A string value's encoding, as a collection's one element: length 1, then
/// what `element` adds before the string, then the string.
fn one_string(element: &[u8], marker: &str) -> Vec<u8> {
    [&[1u8][..], element, &[marker.len() as u8], marker.as_bytes()].concat()
}

/// The harmless plan's `.tbc`, its program, and its machine at the first
/// question, where a snapshot is written.
fn suspended() -> (Vec<u8>, Program, Machine) {
    let bytecode = tbc_of("harmless", harmless_plan());
    let program = Program::new(tisslang::container::load(&bytecode).unwrap()).unwrap();
    let mut machine = Machine::new(&program);
    let outcome = machine.run(&program, &mut host());
    assert!(matches!(outcome, Outcome::Suspended(_)), "{outcome:?}");
    (bytecode, program, machine)
}

/// The snapshot of `machine`, with the encoding of `marker` replaced by
/// `hostile`, re-sealed.
fn hostile_snapshot(
    bytecode: &[u8],
    program: &Program,
    machine: &Machine,
    marker: &[u8],
    hostile: &[u8],
) -> Vec<u8> {
    let snap = snapshot_of(machine, bytecode, program);
    let header = tiss_vm::session::snapshot::HEADER_LEN;
    reseal(&snap[..header], &splice(&snap[header..], marker, hostile))
}

const MARKER: &str = "decode-memory-marker";

#[test]
fn a_snapshot_of_ten_million_empty_slots_is_refused_for_its_bytecode() {
    let dir = tempfile::tempdir().unwrap();
    let (bytecode, program, mut machine) = suspended();
    machine.slots = vec![Some(Value::Str(MARKER.into()))];
    // Some, then the Str variant, then the string: ten million Nones instead.
    let n = 10_000_000;
    let hostile = [varint_u32(n), vec![0u8; n as usize]].concat();
    let snap = hostile_snapshot(&bytecode, &program, &machine, &one_string(&[1, 0], MARKER), &hostile);
    let path = dir.path().join("slots.snap");
    std::fs::write(&path, &snap).unwrap();
    let run =
        tissvm(dir.path(), &["resume", path.to_str().unwrap(), "--workdir", dir.path().to_str().unwrap()]);
    let slots = program.module.slots.len();
    let says = format!("10,000,000 variable slots, the bytecode has {slots}");
    assert_refused_within("10,000,000 empty slots", &run, snap.len() as u64, &says);
}

#[test]
fn a_40_mb_snapshot_of_empty_log_messages_is_refused_by_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let (bytecode, program, mut machine) = suspended();
    machine.logs = vec![LogRecord { step: 0, message: MARKER.into() }];
    // Step 0 and an empty message, two bytes each, 32 in memory.
    let n = 20_000_000;
    let hostile = [varint_u32(n), vec![0u8; 2 * n as usize]].concat();
    let snap = hostile_snapshot(&bytecode, &program, &machine, &one_string(&[0], MARKER), &hostile);
    let path = dir.path().join("logs.snap");
    std::fs::write(&path, &snap).unwrap();
    let run =
        tissvm(dir.path(), &["resume", path.to_str().unwrap(), "--workdir", dir.path().to_str().unwrap()]);
    let says = "it claims 20,000,000 LOG messages, 640,000,000 bytes in memory";
    assert_refused_within("40 MB of empty LOG messages", &run, snap.len() as u64, says);
}

#[test]
fn a_tbc_of_twenty_million_one_byte_instructions_is_refused_by_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let bytecode = tbc_of("harmless", harmless_plan());
    let module = tisslang::container::decode(&bytecode).unwrap();
    // The code section (its length, then its bytes) replaced by POPs.
    let code = tisslang::isa::encode_all(&module.code);
    let section = |len: u32, code: &[u8]| {
        let len =
            if len < 251 { vec![len as u8] } else { [&[0xFBu8][..], &(len as u16).to_le_bytes()].concat() };
        [&len[..], code].concat()
    };
    assert!(code.len() < 65_536);
    let n = 20_000_000;
    let pop = tisslang::isa::encode_all(&[tisslang::isa::Instr::Pop {}]);
    let hostile = [varint_u32(n), pop.repeat(n as usize)].concat();
    let header = tisslang::container::HEADER_LEN;
    let payload = splice(&bytecode[header..], &section(code.len() as u32, &code), &hostile);
    let tbc = reseal(&bytecode[..header], &payload);
    let path = dir.path().join("pops.tbc");
    std::fs::write(&path, &tbc).unwrap();
    let says = "it claims 20,000,000 instructions, 240,000,000 bytes in memory";
    for command in ["run", "disasm"] {
        let run = tissvm(dir.path(), &[command, path.to_str().unwrap()]);
        assert_refused_within(&format!("tissvm {command}: 20,000,000 POPs"), &run, tbc.len() as u64, says);
    }
}

#[test]
fn a_file_larger_than_any_container_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let (bytecode, program, machine) = suspended();
    // Sparse: 300 MB that take no disk, a real header at their start.
    let big = 300_000_000;
    let tbc = dir.path().join("big.tbc");
    std::fs::write(&tbc, &bytecode).unwrap();
    File::options().write(true).open(&tbc).unwrap().set_len(big).unwrap();
    let snap = dir.path().join("big.snap");
    std::fs::write(&snap, snapshot_of(&machine, &bytecode, &program)).unwrap();
    File::options().write(true).open(&snap).unwrap().set_len(big).unwrap();
    for (case, args, says) in [
        ("tissvm run", vec!["run", tbc.to_str().unwrap()], "larger than any plan tissvm reads"),
        (
            "tissvm resume",
            vec!["resume", snap.to_str().unwrap()],
            "TissLang snapshot too large: 300000000 bytes",
        ),
    ] {
        let run = tissvm(dir.path(), &args);
        eprintln!("{case}: a 300 MB file, peak RSS {:.1} MiB", run.peak as f64 / MIB as f64);
        assert_eq!(run.code, 2, "{case}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{case}: {}", run.stderr);
        assert!(run.peak <= 40 * MIB, "{case}: peak RSS {} bytes for a file never read", run.peak);
    }
}
