//! Any text as a RUN's command line, through the one shell reader: the
//! simple commands it runs and the programs a policy and the risky-command
//! list read (`tiss_support::shell`), and what the policy asks of their
//! words (which hide their text). Never a panic but the parser's own,
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
    // What the policy asks of each word: a word the shell may split has
    // text only running tells; a literal is known whole.
    for word in found.iter().flatten().flat_map(|program| &program.args) {
        match (word.expansion(), word.literal()) {
            (Some(it), None) => {
                assert!(!it.hidden_words || it.unknown_text, "{line:?}: {word:?}");
                assert_eq!(it.known_start, word.known_start(), "{line:?}: {word:?}");
            }
            (None, Some(text)) => assert_eq!(word.known_start(), text, "{line:?}: {word:?}"),
            _ => panic!("{line:?}: {word:?} is neither a literal nor expands"),
        }
    }
});
