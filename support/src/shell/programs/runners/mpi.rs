//! Open MPI's launcher: `mpirun [OPTIONS] PROGRAM [ARGS] [: [OPTIONS]
//! PROGRAM [ARGS]]…` (also as `mpiexec` and `orterun`) runs each PROGRAM on
//! the job's nodes, an application context for each part between `:`.
//!
//! Its options are read as Open MPI 4.1's `mpirun` reads them (the table
//! below is `mpirun --help all`'s, each option with how many words it
//! takes): a name with one dash or two, written out whole, never glued to
//! its value; the first word that is no option is the program, `--` ends
//! them. An option it does not list, a word that expands where an option
//! may be, a value that may split, and the options whose value or effect
//! may run what the line does not name pass no list: an appfile (`--app`),
//! a file of options or MCA parameters (`-tune`, `-am`), a debugger or an
//! xterm it starts, the daemon it launches (`--launch-agent`, `--prefix`),
//! an MCA parameter outside the frameworks below (`--mca orte_fork_agent
//! CMD` runs `CMD PROGRAM`; run here), and `-x` of a variable that steers
//! a program (`LD_PRELOAD`). MPICH's `mpiexec` reads other options, which
//! this table does not know: its lines pass no list.

use super::super::code_variables;
use super::{Besides, Runs, Start};
use crate::shell::parse::Word;

/// The launcher's names.
pub(super) const NAMES: &[&str] = &["mpirun", "mpiexec", "orterun"];

/// Options that take the next word (`mpirun --help all`, Open MPI 4.1.4).
#[rustfmt::skip]
const ONE: &[&str] = &[
    "--app", "--bind-to", "--cartofile", "--cpu-list", "--cpu-set", "--cpus-per-proc",
    "--cpus-per-rank", "--debugger", "--default-hostfile", "--help", "--hnp", "--host", "--hostfile",
    "--launch-agent", "--machinefile", "--map-by", "--max-restarts", "--max-vm-size", "--n", "--np",
    "--npernode", "--npersocket", "--ompi-server", "--output-filename", "--path", "--personality",
    "--ppr", "--prefix", "--preload-files", "--rank-by", "--rankfile", "--report-events",
    "--report-pid", "--report-uri", "--stdin", "--timeout", "--wd", "--wdir", "--xml-file", "--xterm",
    "-H", "-N", "-am", "-c", "-cf", "-cpu-list", "-cpu-set", "-cpus-per-proc", "-cpus-per-rank",
    "-debugger", "-default-hostfile", "-h", "-hnp", "-host", "-hostfile", "-launch-agent",
    "-machinefile", "-max-restarts", "-max-vm-size", "-n", "-np", "-npernode", "-npersocket",
    "-ompi-server", "-output-filename", "-path", "-personality", "-report-events", "-report-pid",
    "-report-uri", "-rf", "-stdin", "-timeout", "-tune", "-wd", "-wdir", "-x", "-xml-file", "-xterm",
];

/// Options that take the next two words: an MCA parameter and its value.
const TWO: &[&str] = &["--gmca", "--mca", "-gmca", "-mca"];

/// Options that take none.
#[rustfmt::skip]
const NONE: &[&str] = &[
    "--allow-run-as-root", "--bind-to-core", "--bind-to-socket", "--bycore", "--bynode", "--byslot",
    "--continuous", "--debug", "--debug-daemons", "--debug-daemons-file", "--debug-devel",
    "--disable-recovery", "--display-allocation", "--display-devel-allocation", "--display-devel-map",
    "--display-diffable-map", "--display-map", "--display-topo", "--do-not-launch", "--do-not-resolve",
    "--dvm", "--enable-instant-on-support", "--enable-recovery", "--fwd-mpirun-port",
    "--get-stack-traces", "--index-argv-by-rank", "--leave-session-attached", "--merge-stderr-to-stdout",
    "--nolocal", "--nooversubscribe", "--noprefix", "--novm", "--output-proctable", "--oversubscribe",
    "--pernode", "--preload-binary", "--quiet", "--report-bindings", "--report-child-jobs-separately",
    "--report-state-on-timeout", "--set-cwd-to-session-dir", "--show-progress", "--tag-output",
    "--timestamp-output", "--tv", "--use-hwthread-cpus", "--use-regexp", "--verbose", "--version",
    "--xml", "-V", "-allow-run-as-root", "-bind-to-core", "-bind-to-socket", "-bycore", "-bynode",
    "-byslot", "-continuous", "-d", "-debug", "-debug-daemons", "-debug-daemons-file", "-debug-devel",
    "-disable-recovery", "-display-allocation", "-display-devel-allocation", "-display-devel-map",
    "-display-diffable-map", "-display-map", "-display-topo", "-do-not-launch", "-do-not-resolve",
    "-dvm", "-enable-instant-on-support", "-enable-recovery", "-fwd-mpirun-port", "-get-stack-traces",
    "-index-argv-by-rank", "-leave-session-attached", "-merge-stderr-to-stdout", "-nolocal",
    "-nooversubscribe", "-novm", "-output-proctable", "-oversubscribe", "-pernode", "-q",
    "-report-bindings", "-report-child-jobs-separately", "-report-state-on-timeout", "-s",
    "-set-cwd-to-session-dir", "-show-progress", "-tag-output", "-timestamp-output", "-tv",
    "-use-hwthread-cpus", "-use-regexp", "-v", "-xml",
];

/// Options whose file, program or setting may run what the line does not
/// name (without their dashes): an appfile, files of options or MCA
/// parameters, a debugger (`--debug` starts the one an MCA parameter
/// names), an xterm, the daemon it launches or where it is found.
#[rustfmt::skip]
const OPAQUE: &[&str] = &[
    "app", "am", "tune", "debugger", "debug", "tv", "xterm", "launch-agent", "prefix", "personality",
];

/// The MCA frameworks whose parameters choose transports, collectives and
/// placement, none a program to run: `--mca btl self,vader`. Any other
/// parameter may name one (`orte_fork_agent`, `plm_rsh_agent`,
/// `orte_launch_agent`, `mca_base_param_files`).
#[rustfmt::skip]
const MCA_FRAMEWORKS: &[&str] = &[
    "btl", "pml", "mtl", "coll", "osc", "io", "fs", "fcoll", "sharedfp", "topo", "op", "bml", "rmaps",
    "hwloc_base", "oob", "mpi",
];

/// What `words`, an `mpirun` line, runs: the first context's program, the
/// others' besides.
pub(super) fn mpirun(words: &[Word]) -> Option<Start> {
    let unknown = Some(Start::Runs(Runs::Unknown));
    let contexts = words[1..].split(|word| word.literal() == Some(":"));
    let mut command = None;
    let mut besides = Vec::new();
    for context in contexts {
        let Some(program) = read_context(context) else { return unknown };
        match (command.is_none(), program) {
            (_, None) => {}
            (true, Some(program)) => command = Some(program.to_vec()),
            (false, Some(program)) => besides.push(Besides::Command(program.to_vec())),
        }
    }
    // Without a program (`mpirun --version`) it runs none.
    let command = command?;
    Some(Start::Runs(Runs::Command { besides, command }))
}

/// The program of one context and its words (`Some(None)`: none), after
/// its options; `None` for what only running tells.
fn read_context(words: &[Word]) -> Option<Option<&[Word]>> {
    let mut at = 0;
    while let Some(word) = words.get(at) {
        let text = word.literal()?;
        if text == "--" {
            at += 1;
            break;
        }
        if !text.starts_with('-') || text == "-" {
            break;
        }
        let takes = if NONE.contains(&text) {
            0
        } else if ONE.contains(&text) {
            1
        } else if TWO.contains(&text) {
            2
        } else {
            return None;
        };
        // Missing its value, the option is an error, or help: no program.
        let Some(values) = words.get(at + 1..at + 1 + takes) else { return Some(None) };
        if OPAQUE.contains(&text.trim_start_matches('-')) || values.iter().any(Word::splits) {
            return None;
        }
        let value = |i: usize| values.get(i).and_then(Word::literal);
        if TWO.contains(&text) && !value(0).is_some_and(safe_parameter) {
            return None;
        }
        // `-x NAME[=VALUE]` sets NAME for the program.
        if text == "-x"
            && value(0).is_none_or(|given| code_variables::runs_code(given.split('=').next().unwrap_or("")))
        {
            return None;
        }
        at += 1 + takes;
    }
    Some(words.get(at..).filter(|rest| !rest.is_empty()))
}

/// Whether an MCA parameter is of [`MCA_FRAMEWORKS`]: the name, or it and `_`.
fn safe_parameter(name: &str) -> bool {
    MCA_FRAMEWORKS.iter().any(|framework| {
        name.strip_prefix(framework).is_some_and(|rest| rest.is_empty() || rest.starts_with('_'))
    })
}
