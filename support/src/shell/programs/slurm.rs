//! Slurm's launchers: `srun [OPTIONS] PROGRAM [ARGS]` runs PROGRAM on the
//! cluster's nodes, `salloc [OPTIONS] [PROGRAM [ARGS]]` here once the nodes
//! are given (a shell without one), `sbatch --wrap=LINE` runs LINE, and
//! sbatch without a script runs its input (`sbatch <<EOF`); a script's
//! commands are the script's own. srun's `--prolog`, `--epilog`,
//! `--task-prolog` and `--task-epilog` name programs it runs too.
//!
//! The options are read as Slurm reads them, with getopt_long, stopping at
//! the first word that is no option: a long one also by a prefix of its
//! name, a value after `=` or in the next word (an optional one only after
//! `=`), short ones in clusters. The tables below are Slurm's own
//! (`src/common/slurm_opt.c`, each option with the programs that take it).
//! An option a table does not know, a word that expands where an option may
//! be, `--multi-prog` (a file of programs) and `--export-file` (a file of
//! variables, which may set `LD_PRELOAD`) pass no list.

use super::given::{Besides, Runs, Start};
use crate::shell::parse::Word;

/// A launcher's options by how they take a value: in the next word or
/// after `=`, only after `=`, or none.
struct Table {
    value: &'static [&'static str],
    glued: &'static [&'static str],
    flags: &'static [&'static str],
    short_value: &'static str,
    short_glued: &'static str,
    short_flags: &'static str,
}

/// srun's options whose value is a program it runs.
const PROGRAMS: &[&str] = &["prolog", "epilog", "task-prolog", "task-epilog"];

/// Options whose file may say what runs: only running tells.
const OPAQUE: &[&str] = &["multi-prog", "export-file"];

/// What `words`, a launcher's line (`words[0]` names `name`), runs.
pub(super) fn start(name: &str, words: &[Word]) -> Option<Start> {
    let table = match name {
        "srun" => &SRUN,
        "sbatch" => &SBATCH,
        _ => &SALLOC,
    };
    let unknown = Some(Start::Runs(Runs::Unknown));
    let mut besides = Vec::new();
    let mut no_shell = false;
    let mut at = 1;
    while let Some(word) = words.get(at) {
        let Some(text) = word.literal() else { return unknown };
        at += 1;
        if text == "--" {
            break;
        }
        if !text.starts_with('-') || text == "-" {
            at -= 1;
            break;
        }
        let Some(long) = text.strip_prefix("--") else {
            match short_cluster(&text[1..], table) {
                Some(Taken::Next) => {
                    let value = words.get(at)?;
                    if value.splits() {
                        return unknown;
                    }
                    at += 1;
                }
                Some(Taken::Word) => {}
                None => return unknown,
            }
            continue;
        };
        let (written, glued) = match long.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (long, None),
        };
        let Some((option, takes)) = resolve(written, table) else { return unknown };
        if OPAQUE.contains(&option) {
            return unknown;
        }
        let value = match (takes, glued) {
            (Takes::Value, None) => {
                let value = words.get(at)?;
                if value.splits() {
                    return unknown;
                }
                at += 1;
                Some(value.clone())
            }
            (_, glued) => glued.map(|value| Word::Literal(value.to_string())),
        };
        // `srun --export "$E" ls`: `E` may set `LD_PRELOAD` (written out, the
        // line names it).
        if option == "export" && value.as_ref().is_some_and(|value| value.literal().is_none()) {
            return unknown;
        }
        no_shell |= option == "no-shell";
        match (option, value) {
            ("wrap", Some(line)) => besides.push(Besides::Line(line)),
            (option, Some(program)) if PROGRAMS.contains(&option) => {
                besides.push(Besides::Command(vec![program]))
            }
            _ => {}
        }
    }
    let command = &words[at.min(words.len())..];
    match name {
        // A batch script is the script's own; without one (nor `--wrap`),
        // sbatch reads it from its input.
        "sbatch" if command.is_empty() && besides.is_empty() => Some(Start::Runs(Runs::Input)),
        "sbatch" => Some(Start::Runs(Runs::Command { besides, command: Vec::new() })),
        // Without a program salloc starts a shell, which runs its input.
        "salloc" if command.is_empty() && !no_shell => Some(Start::Runs(Runs::Input)),
        _ => Some(Start::Runs(Runs::Command { besides, command: command.to_vec() })),
    }
}

/// How a long option takes a value.
#[derive(Clone, Copy, PartialEq)]
enum Takes {
    Value,
    Glued,
    Nothing,
}

/// The option `written` names in `table`: itself, or the one it is the
/// start of (getopt_long takes an unambiguous prefix); `None` for none or
/// more than one.
fn resolve(written: &str, table: &Table) -> Option<(&'static str, Takes)> {
    let all = || {
        let tagged = |names: &'static [&'static str], takes| names.iter().map(move |name| (*name, takes));
        tagged(table.value, Takes::Value)
            .chain(tagged(table.glued, Takes::Glued))
            .chain(tagged(table.flags, Takes::Nothing))
    };
    if let Some(exact) = all().find(|(name, _)| *name == written) {
        return Some(exact);
    }
    let mut matches = all().filter(|(name, _)| !written.is_empty() && name.starts_with(written));
    let first = matches.next()?;
    matches.next().is_none().then_some(first)
}

/// How many more words a short cluster takes.
enum Taken {
    /// The next word is the value of its last letter.
    Next,
    /// None: its letters are flags, or the rest of the word is a value.
    Word,
}

/// Reads `-LETTERS` as getopt does: `None` for a letter the table does not know.
fn short_cluster(letters: &str, table: &Table) -> Option<Taken> {
    for (i, letter) in letters.char_indices() {
        let last = i + letter.len_utf8() == letters.len();
        if table.short_value.contains(letter) {
            return Some(if last { Taken::Next } else { Taken::Word });
        }
        if table.short_glued.contains(letter) {
            return Some(Taken::Word);
        }
        table.short_flags.contains(letter).then_some(())?;
    }
    Some(Taken::Word)
}

/// `srun`'s options.
#[rustfmt::skip]
const SRUN: Table = Table {
    value: &[
        "accel-bind", "account", "acctg-freq", "autocomplete", "bb", "bbf", "bcast-exclude", "begin",
        "chdir", "cluster", "cluster-constraint", "clusters", "comment", "constraint", "container",
        "container-id", "context", "core-spec", "cores-per-socket", "cpu-bind", "cpu-freq", "cpu_bind",
        "cpus-per-gpu", "cpus-per-task", "deadline", "delay-boot", "dependency", "distribution",
        "epilog", "error", "exclude", "export", "extra", "extra-node-info", "gpu-bind", "gpu-freq",
        "gpus", "gpus-per-node", "gpus-per-socket", "gpus-per-task", "gres", "gres-flags", "het-group",
        "hint", "ignore-signals", "input", "job-name", "jobid", "licenses", "mail-type", "mail-user",
        "mcs-label", "mem", "mem-bind", "mem-per-cpu", "mem-per-gpu", "mem-update", "mincpus", "mpi",
        "msg-timeout", "network", "nodefile", "nodelist", "nodes", "ntasks", "ntasks-per-core",
        "ntasks-per-gpu", "ntasks-per-node", "ntasks-per-socket", "ntasks-per-tres", "open-mode",
        "output", "pack-group", "partition", "prefer", "priority", "profile", "prolog", "qos",
        "relative", "reservation", "resources", "runtime", "segment", "signal", "slurmd-debug",
        "sockets-per-node", "switches", "task-epilog", "task-prolog", "tasks-per-node", "thread-spec",
        "threads", "threads-per-core", "time", "time-min", "tmp", "treewidth", "tres-bind",
        "tres-per-task", "wait", "wckey",
    ],
    glued: &[
        "bcast", "compress", "exclusive", "external-launcher", "immediate", "kill-on-bad-exit", "nice",
        "no-kill", "oom-kill-step", "overlap", "propagate", "pty", "resv-ports", "send-libs", "x11",
    ],
    flags: &[
        "async", "consolidate-segments", "contiguous", "debugger-test", "disable-status", "exact",
        "help", "hold", "interactive", "label", "multi-prog", "no-allocate", "overcommit",
        "oversubscribe", "parsable", "preserve-env", "quiet", "quit-on-interrupt", "reboot",
        "spread-job", "spread-segments", "stepmgr", "test-only", "unbuffered", "usage", "use-min-nodes",
        "verbose", "version", "wait-for-children", "whole",
    ],
    short_value: "ABCDFGJLMNSTWbcdeimnopqrtwx",
    short_glued: "IKk",
    short_flags: "EHOQVXZhlsuv",
};

/// `sbatch`'s options.
#[rustfmt::skip]
const SBATCH: Table = Table {
    value: &[
        "account", "acctg-freq", "array", "autocomplete", "batch", "bb", "bbf", "begin", "chdir",
        "cluster", "cluster-constraint", "clusters", "comment", "constraint", "container",
        "container-id", "context", "core-spec", "cores-per-socket", "cpu-freq", "cpus-per-gpu",
        "cpus-per-task", "deadline", "delay-boot", "dependency", "distribution", "error", "exclude",
        "export", "export-file", "extra", "extra-node-info", "gid", "gpu-bind", "gpu-freq", "gpus",
        "gpus-per-node", "gpus-per-socket", "gpus-per-task", "gres", "gres-flags", "hint", "input",
        "job-name", "kill-on-invalid-dep", "licenses", "mail-type", "mail-user", "mcs-label", "mem",
        "mem-bind", "mem-per-cpu", "mem-per-gpu", "mem-update", "mincpus", "network", "nodefile",
        "nodelist", "nodes", "ntasks", "ntasks-per-core", "ntasks-per-gpu", "ntasks-per-node",
        "ntasks-per-socket", "ntasks-per-tres", "open-mode", "output", "partition", "prefer",
        "priority", "profile", "qos", "reservation", "resources", "runtime", "segment", "signal",
        "sockets-per-node", "switches", "tasks-per-node", "thread-spec", "threads-per-core", "time",
        "time-min", "tmp", "tres-bind", "tres-per-task", "uid", "wait-all-nodes", "wckey", "wrap",
    ],
    glued: &[
        "exclusive", "nice", "no-kill", "oom-kill-step", "propagate", "requeue", "resv-ports",
    ],
    flags: &[
        "consolidate-segments", "contiguous", "external", "get-user-env", "help", "hold", "ignore-pbs",
        "no-requeue", "overcommit", "oversubscribe", "parsable", "quiet", "reboot", "spread-job",
        "spread-segments", "stepmgr", "test-only", "usage", "use-min-nodes", "verbose", "version",
        "wait",
    ],
    short_value: "ABCDFGJLMNSabcdeimnopqtwx",
    short_glued: "k",
    short_flags: "HOQVWhsv",
};

/// `salloc`'s options.
#[rustfmt::skip]
const SALLOC: Table = Table {
    value: &[
        "account", "acctg-freq", "autocomplete", "bb", "bbf", "begin", "chdir", "cluster",
        "cluster-constraint", "clusters", "comment", "constraint", "container", "container-id",
        "context", "core-spec", "cores-per-socket", "cpu-freq", "cpus-per-gpu", "cpus-per-task",
        "deadline", "delay-boot", "dependency", "distribution", "exclude", "extra", "extra-node-info",
        "gpu-bind", "gpu-freq", "gpus", "gpus-per-node", "gpus-per-socket", "gpus-per-task", "gres",
        "gres-flags", "hint", "job-name", "licenses", "mail-type", "mail-user", "mcs-label", "mem",
        "mem-bind", "mem-per-cpu", "mem-per-gpu", "mem-update", "mincpus", "network", "nodefile",
        "nodelist", "nodes", "ntasks", "ntasks-per-core", "ntasks-per-gpu", "ntasks-per-node",
        "ntasks-per-socket", "ntasks-per-tres", "partition", "prefer", "priority", "profile", "qos",
        "reservation", "resources", "runtime", "segment", "signal", "sockets-per-node", "switches",
        "tasks-per-node", "thread-spec", "threads-per-core", "time", "time-min", "tmp", "tres-bind",
        "tres-per-task", "wait-all-nodes", "wckey",
    ],
    glued: &[
        "exclusive", "immediate", "kill-command", "nice", "no-kill", "oom-kill-step", "resv-ports",
        "x11",
    ],
    flags: &[
        "bell", "consolidate-segments", "contiguous", "help", "hold", "no-bell", "no-shell",
        "overcommit", "oversubscribe", "quiet", "reboot", "spread-job", "spread-segments", "stepmgr",
        "usage", "use-min-nodes", "verbose", "version",
    ],
    short_value: "ABCDFGJLMNSbcdmnpqtwx",
    short_glued: "IKk",
    short_flags: "HOQVhsv",
};

#[cfg(test)]
mod tests {
    use crate::shell::programs::tests::{hidden, texts};

    /// What Slurm runs is read as any command (Slurm 22.05's srun removed a
    /// victim on a node of the local cluster, `tools/local-slurm`).
    #[test]
    fn what_slurm_runs_is_read_as_a_command() {
        for (line, inner) in [
            ("srun rm x", &["rm x"][..]),
            ("srun -N2 -n 4 --mem=1G -p debug rm x", &["rm x"]),
            ("srun --nodes 2 --ntasks=4 --time 5 -- rm x", &["rm x"]),
            ("srun --ntasks-per-n 2 --pty rm x", &["rm x"]),
            ("srun -lN2 rm x", &["rm x"]),
            ("srun --prolog=/tmp/p --task-epilog ./e rm x", &["p", "e", "rm x"]),
            ("salloc -N1 rm x", &["rm x"]),
            ("sbatch --wrap='ls; rm x'", &["ls", "rm x", "sbatch --wrap=ls; rm x"]),
            ("sbatch -N1 --wrap 'rm x'", &["rm x", "sbatch -N1 --wrap rm x"]),
            ("sbatch -N1 job.sh", &["sbatch -N1 job.sh"]),
            ("sbatch --wait job.sh", &["sbatch --wait job.sh"]),
            ("srun --help", &["srun --help"]),
            ("salloc -N1 --no-shell", &["salloc -N1 --no-shell"]),
        ] {
            assert_eq!(texts(line), inner, "{line}");
        }
        for line in [
            "srun \"$OPTS\" rm x",
            "srun -n $N rm x",
            "srun --new-option rm x",
            "srun -Y rm x",
            "srun --n 2 rm x",
            "srun --multi-prog tasks.conf",
            "sbatch --export-file=e job.sh",
            "sbatch <<EOF\nrm x\nEOF",
            "salloc -N1",
            "srun --prolog=\"$P\" ls",
        ] {
            assert!(hidden(line), "{line}: {:?}", texts(line));
        }
    }
}
