//! Tracers that run the program they record (perf's are in [`super::perf`]):
//! rr's `rr [OPTIONS] [record [OPTIONS]] PROGRAM ARGS…` ([`rr`]) and
//! uftrace's `uftrace [record|live] [OPTIONS] PROGRAM ARGS…` ([`uftrace`]).
//! Both run the program as its words.

use super::super::code_variables;
use super::super::wrapper_options::option_words;
use super::{Runs, Start};
use crate::shell::parse::Word;

/// The programs read here.
pub(super) const NAMES: &[&str] = &["rr", "uftrace"];

/// What a line of `name` runs.
pub(super) fn start(name: &str, words: &[Word]) -> Option<Start> {
    match name {
        "rr" => rr(words),
        _ => uftrace(words),
    }
}

/// rr 5.9's options that take a value, its own and `record`'s
/// (`src/main.cc`, `RecordCommand.cc`: each read before the subcommand or
/// after it).
#[rustfmt::skip]
const RR: &[&str] = &[
    "-A", "-C", "-D", "-T", "-c", "-i", "-p", "-o", "-t", "-v", "--resource-path", "--log", "--microarch",
    "--checksum", "--dump-on", "--dump-at", "--num-cpu-ticks", "--ignore-signal", "--print-trace-dir",
    "--output-trace-dir", "--continue-through-signal", "--env", "--syscall-buffer-size", "--nested",
    "--bind-to-cpu", "--disable-cpuid-features", "--disable-cpuid-features-ext",
    "--disable-cpuid-features-xsave", "--num-cores", "--trace-id", "--syscall-buffer-sig",
];

/// rr's subcommands that run no program of the line's.
#[rustfmt::skip]
const RR_OTHERS: &[&str] = &["replay", "dump", "ps", "sources", "traceinfo", "buildid", "cpufeatures",
    "explicit-sources", "gdbinit", "help", "pack", "rerun", "mark", "serve-files", "ls", "rm"];

/// `rr [OPTIONS] [record [OPTIONS]] PROGRAM ARGS…`: a first word that is no
/// option nor subcommand is recorded, as `record` does. `-v`/`--env` of a
/// variable that steers a program passes no list, as a word that expands
/// where an option or the subcommand may be.
fn rr(words: &[Word]) -> Option<Start> {
    let unknown = Some(Start::Runs(Runs::Unknown));
    let mut record = false;
    let mut at = 1;
    while let Some(word) = words.get(at) {
        let Some(text) = word.literal() else {
            return if record && !word.known_start().is_empty() && !word.known_start().starts_with('-') {
                Some(Start::At(at))
            } else {
                unknown
            };
        };
        if text.starts_with('-') && text.len() > 1 {
            let taken = option_words(text, RR).unwrap_or(1);
            let name = text.split('=').next().unwrap_or(text);
            let value = match (name, text.split_once('=')) {
                ("-v" | "--env", Some((_, value))) => Some(value),
                ("-v" | "--env", None) => words.get(at + 1).map(Word::text),
                _ if text.starts_with("-v") => Some(&text[2..]),
                _ => None,
            };
            if value.is_some_and(|value| code_variables::may_steer(value, true)) {
                return unknown;
            }
            at += taken;
            continue;
        }
        match text {
            "record" if !record => record = true,
            _ if !record && RR_OTHERS.contains(&text) => return None,
            _ => return Some(Start::At(at)),
        }
        at += 1;
    }
    None
}

/// uftrace 0.16's options that take a value (`+aA:b:C:d:D:eE:f:F:…` and
/// their long names); those that load code or a program pass no list.
#[rustfmt::skip]
const UFTRACE: &[&str] = &[
    "-A", "-b", "-C", "-d", "-D", "-E", "-f", "-F", "-H", "-K", "-L", "-N", "-p", "-P", "-r", "-R", "-s",
    "-S", "-t", "-T", "-U", "-W", "-Z", "--libmcount-path", "--library-path", "--filter", "--notrace",
    "--depth", "--time-filter", "--caller-filter", "--argument", "--trigger", "--retval", "--patch",
    "--unpatch", "--size-filter", "--debug-domain", "--data", "--buffer", "--logfile", "--tid",
    "--max-stack", "--host", "--port", "--sort", "--color", "--trace", "--demangle", "--column-offset",
    "--sample-time", "--diff", "--format", "--sort-column", "--num-thread", "--rt-prio", "--kernel-depth",
    "--kernel-buffer", "--output-fields", "--time-range", "--Event", "--run-cmd", "--opt-file", "--script",
    "--diff-policy", "--match", "--watch", "--signal", "--hide", "--loc-filter", "--loc-filter-warning",
    "--clock", "--with-syms", "--pid",
];

/// uftrace's options that load a library or a script into the program, or
/// give options or a program from elsewhere.
const UFTRACE_OPAQUE: &[&str] =
    &["-S", "--libmcount-path", "--library-path", "--script", "--opt-file", "--run-cmd"];

/// `uftrace [OPTIONS] [record|live] [OPTIONS] PROGRAM ARGS…` (getopt with
/// `+`: options end at the program; the mode may come among the options,
/// and without one it is `live`). Other modes run no program.
fn uftrace(words: &[Word]) -> Option<Start> {
    let unknown = Some(Start::Runs(Runs::Unknown));
    let mut mode = None;
    let mut at = 1;
    while let Some(word) = words.get(at) {
        let Some(text) = word.literal() else {
            return if mode.is_some() && !word.known_start().is_empty() && !word.known_start().starts_with('-')
            {
                Some(Start::At(at))
            } else {
                unknown
            };
        };
        if text == "--" {
            at += 1;
            break;
        }
        if text.starts_with('-') && text.len() > 1 {
            let name = text.split('=').next().unwrap_or(text);
            let glued = !text.starts_with("--") && text.len() > 2;
            if UFTRACE_OPAQUE.iter().any(|o| *o == name || (glued && o.len() == 2 && text.starts_with(o))) {
                return unknown;
            }
            at += option_words(text, UFTRACE).unwrap_or(1);
            continue;
        }
        match text {
            "record" | "live" if mode.is_none() => mode = Some(true),
            "replay" | "report" | "info" | "dump" | "graph" | "script" | "tui" | "recv" if mode.is_none() => {
                mode = Some(false)
            }
            _ => break,
        }
        at += 1;
    }
    (mode != Some(false) && at < words.len()).then_some(Start::At(at))
}

#[cfg(test)]
mod tests {
    use super::super::super::tests::{passes_no_list, texts};

    #[test]
    fn a_traced_program_is_read_as_the_command_it_runs() {
        for line in [
            "rr record rm x",
            "rr --log all record -n -o trace rm x",
            "rr record --env A=1 rm x",
            "uftrace rm x",
            "uftrace record -D 3 rm x",
            "uftrace -F main live --depth=2 -- rm x",
        ] {
            assert_eq!(texts(line).last().map(String::as_str), Some("rm x"), "{line}");
        }
        // A program without `record` is recorded; `rr rm TRACE` removes a trace.
        assert_eq!(texts("rr make x").last().map(String::as_str), Some("make x"));
        for line in ["rr replay", "rr ps", "rr rm trace-1", "uftrace report", "uftrace replay -t 1us"] {
            assert_eq!(texts(line), [line], "{line}");
        }
    }

    #[test]
    fn what_only_running_tells_passes_no_list() {
        for line in [
            "rr record -v LD_PRELOAD=/x.so ls",
            "rr \"$OPT\" ls",
            "uftrace --script s.py ls",
            "uftrace -S s.py ls",
            "uftrace --libmcount-path=./lib ls",
            "uftrace record \"$OPT\" ls",
        ] {
            passes_no_list(line);
        }
    }
}
