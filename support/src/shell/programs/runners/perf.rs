//! perf (6.1): `perf stat|record|trace|ftrace [OPTIONS] CMD` runs CMD,
//! and so do `perf stat record`, `perf trace record` and `perf ftrace
//! trace|latency`; `perf stat --pre LINE --post LINE` runs each LINE
//! through a shell (`system(3)`). Its other subcommands that may run a
//! command (`perf mem record CMD`, `perf lock contention CMD`, `perf
//! script record SCRIPT CMD`) are not read: they pass no list.
//!
//! Each table is the real perf's: an option alone says "requires a value"
//! of one that takes the next word (`perf stat -r`, `perf record --uid`),
//! and `perf SUB --list-opts` names the hidden ones; perf's parse-options
//! takes a long option by any prefix, which `skip_options` reads as getopt's.

use super::super::wrapper_options::value_word;
use super::{Besides, Runs, Start, skip_options};
use crate::shell::parse::Word;

/// perf's own options before the subcommand that take the next word
/// (perf.c compares whole words).
const GLOBAL_VALUED: &[&str] = &["--buildid-dir", "--debug", "--debugfs-dir"];

#[rustfmt::skip]
const STAT: &[&str] = &["-e", "-o", "-p", "-r", "-t", "-x", "-C", "-D", "-G", "-I", "-M", "--cgroup",
    "--control", "--cpu", "--cputype", "--delay", "--event", "--field-separator", "--filter",
    "--for-each-cgroup", "--interval-count", "--interval-print", "--log-fd", "--metrics", "--output",
    "--pid", "--post", "--pre", "--repeat", "--td-level", "--tid", "--timeout"];

#[rustfmt::skip]
const RECORD: &[&str] = &["-c", "-e", "-j", "-k", "-m", "-o", "-p", "-r", "-t", "-u", "-C", "-D", "-F",
    "-G", "--affinity", "--branch-filter", "--call-graph", "--cgroup", "--clang-opt", "--clang-path",
    "--clockid", "--control", "--count", "--cpu", "--delay", "--event", "--filter", "--freq",
    "--max-size", "--mmap-flush", "--mmap-pages", "--num-thread-synthesize", "--output", "--pid",
    "--proc-map-timeout", "--realtime", "--switch-max-files", "--switch-output-event", "--synth", "--tid",
    "--uid", "--vmlinux"];

// `-F`/`--pf` takes the next word unless it is the last (`perf trace -F
// all touch M` ran touch).
#[rustfmt::skip]
const TRACE: &[&str] = &["-e", "-i", "-m", "-o", "-p", "-t", "-u", "-C", "-D", "-F", "-G", "--call-graph",
    "--cgroup", "--cpu", "--delay", "--duration", "--event", "--expr", "--filter", "--filter-pids",
    "--input", "--map-dump", "--max-events", "--max-stack", "--min-stack", "--mmap-pages", "--output",
    "--pf", "--pid", "--proc-map-timeout", "--switch-off", "--switch-on", "--tid", "--uid"];

// `--pid` and `--cpu` are its hidden common options; `-F`/`--funcs` takes
// the next word unless it is the last.
#[rustfmt::skip]
const FTRACE: &[&str] = &["-g", "-m", "-p", "-t", "-C", "-D", "-F", "-G", "-N", "-T", "--buffer-size",
    "--delay", "--func-opts", "--funcs", "--graph-funcs", "--graph-opts", "--nograph-funcs",
    "--notrace-funcs", "--trace-funcs", "--tracer", "--pid", "--cpu"];

/// Subcommands that run a command after words of their own (`perf mem
/// record`, `perf kvm stat record`, `perf lock contention`, `perf script
/// record SCRIPT`, `perf iostat PORTS --`), each taking those words by
/// prefixes of its own: not read.
const NOT_READ: &[&str] =
    &["mem", "c2c", "lock", "sched", "kmem", "kwork", "timechart", "kvm", "script", "iostat"];

/// Where the command of a perf line starts, and the lines `--pre` and
/// `--post` run besides; `None` for a subcommand that runs none (`perf
/// report`).
pub(super) fn perf(words: &[Word]) -> Option<Start> {
    let mut at = 1;
    let sub = loop {
        let Some(text) = words.get(at)?.literal() else { return Some(Start::Runs(Runs::Unknown)) };
        if !text.starts_with('-') {
            break text;
        }
        if !GLOBAL_VALUED.contains(&text) {
            at += 1;
            continue;
        }
        if let Some(value) = words.get(at + 1)
            && let Err(why) = value_word("perf", text, value)
        {
            return Some(Start::Runs(Runs::Unreadable(why)));
        }
        at += 2;
    };
    let next = words.get(at + 1).and_then(Word::literal);
    // (its options, where they start, whether it is perf record's)
    let (table, from, record) = match (sub, next) {
        ("stat", _) => (STAT, at + 1, false),
        ("record", _) => (RECORD, at + 1, true),
        // Only right after `trace`: with options between, `record` is the command.
        ("trace", Some("record")) => (RECORD, at + 2, true),
        ("trace", _) => (TRACE, at + 1, false),
        ("ftrace", Some("trace" | "latency")) => (FTRACE, at + 2, false),
        ("ftrace", _) => (FTRACE, at + 1, false),
        _ if NOT_READ.contains(&sub) => {
            return Some(Start::Runs(Runs::Unreadable(format!(
                "`perf {sub}` may run a command after words of its own, which are not read: run the \
                 command under `perf record` or `perf stat`, which are"
            ))));
        }
        _ => return None,
    };
    let unreadable = |why: String| Some(Start::Runs(Runs::Unreadable(why)));
    let mut at = match skip_options("perf", words, from, table) {
        Ok(at) => at,
        Err(why) => return unreadable(why),
    };
    // `perf stat rec -o FILE CMD`: stat's `record` by any prefix of three
    // letters or more, and its options again; `perf stat rep…` reports.
    let stat_sub = words.get(at).and_then(Word::literal).filter(|word| sub == "stat" && word.len() > 2);
    if stat_sub.is_some_and(|word| "record".starts_with(word)) {
        at = match skip_options("perf", words, at + 1, table) {
            Ok(at) => at,
            Err(why) => return unreadable(why),
        };
    } else if stat_sub.is_some_and(|word| "report".starts_with(word)) {
        return None;
    }
    let options = &words[from..at.min(words.len())];
    if record && options.iter().any(|word| word.text().starts_with("--clang-")) {
        return unreadable(
            "`perf record --clang-path`/`--clang-opt`: perf builds a shell line of them to compile an event, \
             which is not read: leave them out"
                .to_string(),
        );
    }
    let besides = if sub == "stat" { lines(options) } else { Vec::new() };
    if besides.is_empty() {
        return Some(Start::At(at));
    }
    let command = words[at.min(words.len())..].to_vec();
    Some(Start::Runs(Runs::Command { besides, command }))
}

/// The values of `perf stat`'s `--pre` and `--post` (`--pre LINE`,
/// `--pre=LINE`), which perf runs through a shell before and after the
/// command. (`options` are literal words and their values: the options
/// end at a word that expands, `--pre="$L"` too, which is then the command
/// and names no program.)
fn lines(options: &[Word]) -> Vec<Besides> {
    let mut found = Vec::new();
    let mut words = options.iter();
    while let Some(word) = words.next() {
        let text = word.text();
        if matches!(text, "--pre" | "--post") {
            found.extend(words.next().cloned().map(Besides::Line));
        } else if let Some(line) = text.strip_prefix("--pre=").or(text.strip_prefix("--post=")) {
            found.push(Besides::Line(Word::Literal(line.to_string())));
        }
    }
    found
}
