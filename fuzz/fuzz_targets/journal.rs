//! A journal as an attacker would hand it over (journals travel between
//! machines as snapshots do): the input is the whole file, and the target
//! first makes each frame's CRC-32 right again, since anyone can, so the
//! fuzzer's bytes reach the entry decoder and the replay. `tissvm replay`
//! then runs it (its report to a file, nothing else written, no command run,
//! no model or human asked): it is refused in words (exit 2), diverges
//! (exit 1) or ends as the recorded run did. Never a panic, never exit 70.
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use tiss_compiler::diagnostics::render::ErrorFormat;
use tiss_compiler::diagnostics::render::termcolor::{ColorChoice, StandardStream};
use tiss_vm::runner::options::{OutputFormat, ReportOptions};
use tiss_vm::runner::plan::Diagnostics;
use tiss_vm::runner::replay::{ReplayOptions, replay};

/// Magic and version, then frames: a 4-byte length, a 4-byte CRC, the body
/// (from format 3 a signature, then the payload; the CRC covers both).
const HEADER: usize = 10;

fn reseal(file: &mut [u8]) {
    let mut at = HEADER;
    while at + 8 <= file.len() {
        let len = u32::from_le_bytes(file[at..at + 4].try_into().unwrap_or_default()) as usize;
        let end = at.saturating_add(8).saturating_add(len);
        if end > file.len() {
            break;
        }
        let crc = tisslang::codec::crc32::crc32(&file[at + 8..end]);
        file[at + 4..at + 8].copy_from_slice(&crc.to_le_bytes());
        at = end;
    }
}

fuzz_target!(|data: &[u8]| {
    let mut file = data.to_vec();
    reseal(&mut file);
    // One directory per fuzzing process, its files written over each time.
    let dir = std::env::temp_dir().join(format!("tiss-fuzz-journal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory for the journal");
    let journal = dir.join("run.journal");
    std::fs::File::create(&journal).and_then(|mut f| f.write_all(&file)).expect("the journal written");
    let options = ReplayOptions {
        journal,
        plan: None,
        strict: false,
        report: ReportOptions { output_format: OutputFormat::Json, report: Some(dir.join("report.json")) },
    };
    let mut out =
        Diagnostics { format: ErrorFormat::Human, stderr: StandardStream::stderr(ColorChoice::Never) };
    let status = replay(&mut out, &options);
    assert!(status <= 5, "exit {status}");
});
