//! Machines' commands. LXD's and Incus's clients: `lxc exec INSTANCE [--]
//! CMD…` (and `incus exec …`) runs CMD in the instance; `lxc shell
//! INSTANCE` starts a login shell there, which runs its input. systemd's
//! `machinectl shell [NAME [PROGRAM ARGS…]]` runs PROGRAM in the machine,
//! or a shell that runs its input ([`machinectl`]).
//!
//! Their options are read as cobra's pflag reads them (Incus 6's
//! `cmd/incus/exec.go` and the client's persistent options; LXD's are the
//! same): anywhere before a `--`, among the instance and the command's
//! words too (`incus exec c ls -n` runs `ls`, `-n` being `--disable-stdin`),
//! no abbreviations, a long one's value after `=` or in the next word,
//! short ones in clusters. The command is the words that are no option
//! after the instance. An option the tables do not know, a word that
//! expands where an option may be, and `--env` of a variable that steers a
//! program (or whose name expands) pass no list.

use super::super::code_variables;
use super::super::wrapper_options::{Reads, option_value, option_words};
use super::pflag::{self, Table};
use super::{Runs, Start};
use crate::shell::parse::Word;

/// The clients' names.
pub(super) const NAMES: &[&str] = &["lxc", "incus"];

/// Options that take a value: the client's own (persistent: before the
/// subcommand or after it) and `exec`'s.
const VALUED: &[&str] = &["--project", "--env", "--mode", "--user", "--group", "--cwd"];

/// Options that take none.
#[rustfmt::skip]
const FLAGS: &[&str] = &[
    "-h", "--help", "--version", "--all", "--debug", "--force-local", "-q", "--quiet", "-v", "--verbose",
    "--sub-commands", "-t", "--force-interactive", "-T", "--force-noninteractive", "-n", "--disable-stdin",
];

/// What `words`, a client's line, runs: `None` for a subcommand that runs
/// no command (`lxc list`, `incus launch`).
pub(super) fn start(words: &[Word]) -> Option<Start> {
    let unknown = Some(Start::Runs(Runs::Unknown));
    // The subcommand: the first word that is no option.
    let mut at = 1;
    let shell = loop {
        let word = words.get(at)?;
        match word.literal() {
            Some("exec") => break false,
            Some("shell") => break true,
            Some(text) if text.starts_with('-') => match option(words, at) {
                Ok(taken) => at += taken,
                Err(()) => return unknown,
            },
            Some(_) => return None,
            None => return unknown,
        }
    };
    let mut operands = Vec::new();
    at += 1;
    while let Some(word) = words.get(at) {
        let start = word.known_start();
        match word.literal() {
            Some("--") => {
                operands.extend(words[at + 1..].iter().cloned());
                break;
            }
            _ if start.starts_with('-') && start != "-" => match option(words, at) {
                Ok(taken) => at += taken,
                Err(()) => return unknown,
            },
            // `"$F"` may be `--env=LD_PRELOAD=…`.
            None if start.is_empty() => return unknown,
            _ => {
                operands.push(word.clone());
                at += 1;
            }
        }
    }
    match (shell, operands.split_first()) {
        // The instance, then the command (`exec` without one runs nothing).
        (false, Some((_, command))) if !command.is_empty() => {
            Some(Start::Runs(Runs::Command { besides: Vec::new(), command: command.to_vec() }))
        }
        (true, Some(_)) => Some(Start::Runs(Runs::Input)),
        _ => None,
    }
}

/// The clients' options.
const CLIENT: Table = Table { valued: VALUED, flags: FLAGS };

/// How many words the option at `words[at]` takes; `Err` for one the
/// tables do not know, one that expands past its name, a value the shell
/// may split, and `--env` of a variable that may steer the command.
fn option(words: &[Word], at: usize) -> Result<usize, ()> {
    let reads = pflag::read(words, at, &CLIENT)?;
    let steers = |read: &pflag::Read| {
        read.name == "--env"
            && read.value.as_ref().is_some_and(|(known, whole)| code_variables::may_steer(known, *whole))
    };
    if reads.iter().any(steers) {
        return Err(());
    }
    Ok(pflag::taken(&reads))
}

/// machinectl's options that take a value (systemd 252's `hp:als:H:M:qn:o:E:`;
/// `machinectl -X` alone asks for a value of each).
#[rustfmt::skip]
const MACHINECTL_VALUED: &[&str] = &[
    "-p", "-s", "-H", "-M", "-n", "-o", "-E", "--property", "--signal", "--host", "--machine", "--lines",
    "--output", "--setenv", "--uid", "--kill-whom", "--format", "--max-addresses", "--verify",
];

/// What `machinectl [OPTIONS] shell [OPTIONS] [[USER@]NAME [PROGRAM ARGS…]]`
/// runs: its getopt takes options from before the verb and between it and
/// the machine (`machinectl shell -q c`), none after the machine (`machinectl
/// shell c ls -l` runs `ls -l`: probed). Without a program it starts a
/// shell, as `machinectl login` does a login: their input runs. Its `-E`
/// is read as systemd-run's; other verbs run no command.
pub(super) fn machinectl(words: &[Word]) -> Option<Start> {
    let unknown = Some(Start::Runs(Runs::Unknown));
    let mut verb: Option<&str> = None;
    let mut at = 1;
    let mut ended = false;
    while let Some(word) = words.get(at) {
        let start = word.known_start();
        if !ended && word.literal() == Some("--") {
            (ended, at) = (true, at + 1);
            continue;
        }
        if !ended && start.starts_with('-') && start != "-" {
            let (Some(_), Some(taken)) = (word.literal(), option_words(&start, MACHINECTL_VALUED)) else {
                return unknown;
            };
            if taken == 2 && words.get(at + 1).is_none_or(Word::splits) {
                return unknown;
            }
            if let Some(given) = option_value(Reads::Getopt(MACHINECTL_VALUED), word, words.get(at + 1))
                && code_variables::set_by_option(
                    "machinectl",
                    &given.option,
                    &given.known,
                    given.whole,
                    &given.shown,
                )
                .is_err()
            {
                return unknown;
            }
            at += taken;
            continue;
        }
        // A word that expands may be an option, the verb or the machine.
        if word.literal().is_none() && (start.is_empty() || !ended) {
            return unknown;
        }
        match verb {
            None => match word.literal() {
                Some("shell") => verb = Some("shell"),
                Some("login") => return Some(Start::Runs(Runs::Input)),
                _ => return None,
            },
            // The machine: what follows is the program's.
            Some(_) if words.len() > at + 1 => {
                let command = words[at + 1..].to_vec();
                return Some(Start::Runs(Runs::Command { besides: Vec::new(), command }));
            }
            Some(_) => break,
        }
        at += 1;
    }
    verb.map(|_| Start::Runs(Runs::Input))
}

#[cfg(test)]
mod tests {
    use super::super::super::tests::{passes_no_list, texts};

    #[test]
    fn an_instances_command_is_read_as_the_command_it_runs() {
        for line in [
            "lxc exec c -- rm x",
            "incus exec c rm x",
            "incus exec --project p c --env A=1 --env=B=\"$X\" --cwd /tmp -tn -- rm x",
            "lxc --force-local exec c rm x -T",
            "incus exec c\"$N\" -- rm x",
            "incus exec c --user 0 rm x --mode=non-interactive",
        ] {
            assert_eq!(texts(line).last().map(String::as_str), Some("rm x"), "{line}");
        }
        // `--` ends the options: what follows is the command's.
        assert_eq!(texts("incus exec c -- rm -f x").last().map(String::as_str), Some("rm -f x"));
        // Subcommands that run no command, and `exec` without one.
        for line in ["lxc list", "incus launch images:debian/12 c", "incus exec c", "lxc"] {
            assert_eq!(texts(line), [line], "{line}");
        }
    }

    #[test]
    fn a_machines_program_is_read_as_the_command_it_runs() {
        for line in [
            "machinectl shell c rm x",
            "machinectl -q shell --uid=0 -E A=1 root@c rm x",
            "machinectl shell c rm -f x",
            "machinectl shell -- c rm x",
        ] {
            assert_eq!(
                texts(line).last().map(String::as_str),
                Some(&line[line.find("rm").unwrap()..]),
                "{line}"
            );
        }
        assert_eq!(texts("machinectl list"), ["machinectl list"]);
    }

    #[test]
    fn what_only_running_tells_passes_no_list() {
        for line in [
            // A shell that runs its input.
            "lxc shell c",
            "echo 'rm x' | incus shell c",
            // An option it may have that the tables do not know; a word
            // that may be an option; a value that may split.
            "incus exec --new c rm x",
            "incus exec c rm -f x",
            "incus exec c \"$OPTS\" rm x",
            "incus exec \"$C\" -- rm x",
            "incus \"$SUB\" c rm x",
            "incus exec c --cwd $D rm x",
            // A variable that steers the command, or may.
            "incus exec c --env LD_PRELOAD=/x.so -- ls",
            "incus exec c --env=\"$V\" -- ls",
            "lxc exec c --env \"$V\" ls",
            // machinectl's: a shell or a login, a word that may be an
            // option, a value that may split, a steering variable.
            "machinectl shell",
            "machinectl shell c",
            "echo 'rm x' | machinectl login c",
            "machinectl shell \"$M\" rm x",
            "machinectl shell -M $M c rm x",
            "machinectl shell -E \"$V\" c ls",
            "machinectl shell --setenv=LD_PRELOAD=/x.so c ls",
            "machinectl shell -ELD_PRELOAD=/x.so c ls",
        ] {
            passes_no_list(line);
        }
    }
}
