//! Any text as a RUN's command line, through the one shell reader: the
//! simple commands it runs and the programs a policy and the risky-command
//! list read (`tiss_support::shell`). Never a panic but the parser's own,
//! which the reader contains; and, as libFuzzer watches each input, never
//! more than its memory limit or timeout: brush-parser 0.4 looped without
//! end, allocating, on seven bytes (`$(<< <#`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tiss_support::shell::{parse, programs};

fuzz_target!(|data: &[u8]| {
    tisslang_fuzz::contain_parser_panics();
    let Ok(line) = std::str::from_utf8(data) else { return };
    let read = parse::simple_commands(line);
    let found = programs::programs(line);
    // A line the reader refuses, the policy cannot read either (it would
    // then match no allow pattern): never programs from a refused line.
    if read.is_err() {
        assert!(found.is_err(), "{line:?}");
    }
});
