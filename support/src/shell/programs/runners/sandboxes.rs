//! Desktop sandboxes' and development boxes' commands: Flatpak's `flatpak
//! run --command=CMD APP ARGS…` (CMD in the app's sandbox), `flatpak enter
//! INSTANCE CMD ARGS…` (in a running one) and `flatpak-spawn [--host] CMD
//! ARGS…` (from inside a sandbox: in a new one, or on the host); Toolbx's
//! `toolbox run CMD ARGS…` ([`toolbox`]); distrobox's ([`distrobox`]);
//! Google's `nsjail [OPTIONS] -- CMD…` ([`nsjail`]).
//!
//! Flatpak reads its options its own way (`app/flatpak-main.c`,
//! `flatpak-builtins-run.c`, `flatpak-builtins-enter.c`, and
//! flatpak-xdg-utils' `flatpak-spawn.c`): every word that starts with `-`
//! before the first that does not is an option, and only those go to GLib's
//! parser, so a value is glued to its option (`--command=sh`; `--command sh`
//! makes `sh` the app and fails). The first other word is flatpak's
//! subcommand, the next the app or the instance; for flatpak-spawn, the
//! first is the command. So an option these tables do not know cannot move
//! the command: it is read as an option, whatever it is. What passes no
//! list: a word that expands where an option may be (`"$OPT"` may be
//! `--command=rm`) or that the shell may split, `--env=NAME=VALUE` of a
//! variable that steers a program (or whose name expands), and `--env-fd`,
//! whose descriptor holds variables.

use super::super::code_variables;
use super::pflag::{self, Table};
use super::{Runs, Start};
use crate::shell::parse::Word;

/// The programs read here.
pub(super) const NAMES: &[&str] = &[
    "flatpak",
    "flatpak-spawn",
    "toolbox",
    "distrobox",
    "distrobox-enter",
    "distrobox-ephemeral",
    "distrobox-assemble",
    "distrobox-create",
    "distrobox-host-exec",
    "nsjail",
];

/// What `words`, a line of `name` (flatpak's or flatpak-spawn's), runs:
/// `None` for a subcommand that runs no command (`flatpak install`), and
/// for `flatpak run APP` without `--command`, which runs the app's own, as
/// an image's is its own.
pub(super) fn start(name: &str, words: &[Word]) -> Option<Start> {
    match name {
        "toolbox" => return toolbox(words),
        "nsjail" => return nsjail(words),
        "flatpak" | "flatpak-spawn" => {}
        _ => return distrobox(name, words),
    }
    let unknown = Some(Start::Runs(Runs::Unknown));
    let spawn = name == "flatpak-spawn";
    // flatpak's subcommand and its app or instance; flatpak-spawn's command.
    let wanted = if spawn { 1 } else { 2 };
    let mut operands: Vec<&Word> = Vec::new();
    let mut command = None;
    let mut at = 1;
    while operands.len() < wanted {
        let Some(word) = words.get(at) else { break };
        at += 1;
        let start = word.known_start();
        if word.splits() {
            return unknown;
        }
        if !start.starts_with('-') {
            // A word that expands from its start may be an option.
            if start.is_empty() && word.literal().is_none() {
                return unknown;
            }
            operands.push(word);
            continue;
        }
        if option_hides(&start, word.literal().is_some()) {
            return unknown;
        }
        // The last `--command` is the one GLib keeps.
        if let Some(value) = start.strip_prefix("--command=") {
            command = Some(match word.literal() {
                Some(_) => Word::Literal(value.to_string()),
                None => word.clone(),
            });
        }
    }
    let rest = &words[at..];
    let run = |command: Vec<Word>| Some(Start::Runs(Runs::Command { besides: Vec::new(), command }));
    if spawn {
        return run(std::iter::once((*operands.first()?).clone()).chain(rest.iter().cloned()).collect());
    }
    let sub = operands.first()?;
    match sub.literal() {
        // `flatpak run --command=CMD APP ARGS…`: CMD given ARGS.
        Some("run") if operands.len() == 2 => {
            command.and_then(|command| run(std::iter::once(command).chain(rest.iter().cloned()).collect()))
        }
        // `flatpak enter INSTANCE CMD ARGS…`.
        Some("enter") if !rest.is_empty() => run(rest.to_vec()),
        Some(_) => None,
        None => unknown,
    }
}

/// Whether an option word, `known` of it known (all of it when `whole`),
/// may make the command run what the line does not say: `--env` of a
/// variable that steers a program or whose name expands, and `--env-fd`.
fn option_hides(known: &str, whole: bool) -> bool {
    if known.starts_with("--env-fd") {
        return true;
    }
    match known.strip_prefix("--env=") {
        Some(variable) => code_variables::may_steer(variable, whole),
        // `--env"$X"` may be `--env=LD_PRELOAD=…`.
        None => !whole && "--env=".starts_with(known),
    }
}

/// Toolbx's options (0.1's `src/cmd/root.go` and `run.go`): its own, which
/// cobra takes before `run` or after it, and `run`'s.
#[rustfmt::skip]
const TOOLBOX: Table = Table {
    valued: &["-c", "-d", "-r", "--container", "--distro", "--release", "--preserve-fds", "--log-level"],
    flags: &["-h", "-y", "-v", "--help", "--assumeyes", "--log-podman", "--verbose", "--version"],
};

/// What `toolbox [OPTIONS] run [OPTIONS] CMD ARGS…` runs: CMD, given ARGS,
/// in the container (by a login shell that then runs them as they are);
/// `run` stops reading options at CMD (`toolbox run ls -l`: `-l` is ls's),
/// read as pflag reads them. `toolbox enter` starts a shell that runs its
/// input; other subcommands run no command.
fn toolbox(words: &[Word]) -> Option<Start> {
    let unknown = Some(Start::Runs(Runs::Unknown));
    let mut run = false;
    let mut at = 1;
    while let Some(word) = words.get(at) {
        let start = word.known_start();
        if word.literal() == Some("--") && run {
            at += 1;
            break;
        }
        if start.starts_with('-') && start != "-" {
            match pflag::read(words, at, &TOOLBOX) {
                Ok(reads) => at += pflag::taken(&reads),
                Err(()) => return unknown,
            }
            continue;
        }
        if run {
            break;
        }
        match word.literal() {
            Some("run") => run = true,
            Some("enter") => return Some(Start::Runs(Runs::Input)),
            Some(_) => return None,
            None => return unknown,
        }
        at += 1;
    }
    let command = words.get(at..).filter(|command| run && !command.is_empty())?;
    if command[0].literal().is_none() && command[0].known_start().is_empty() {
        // `toolbox run "$X" …`: it may be an option.
        return unknown;
    }
    Some(Start::Runs(Runs::Command { besides: Vec::new(), command: command.to_vec() }))
}

/// What a distrobox line runs. `distrobox-host-exec [OPTIONS] [--] CMD
/// ARGS…` (from inside a box, on the host: 1.8's script, whose options take
/// no value) runs CMD, and without one the user's shell, which runs its
/// input. `distrobox enter` passes no list: which of its words are the
/// command depends on the release (1.8's script runs what follows `--` or
/// `-e`, and a login shell without them whatever other words it has; 2.0's
/// program takes the word after the box's name as the command), and
/// `--additional-flags` gives the engine any option, `--env` too. So do
/// `ephemeral` (a box that runs what follows `--`), `assemble` (boxes and
/// their hooks from a file) and `create` with hooks (`--init-hooks LINE`,
/// `--pre-init-hooks LINE`, which the box runs at its start, by any prefix
/// of the option); its other subcommands run no command.
fn distrobox(name: &str, words: &[Word]) -> Option<Start> {
    let unknown = Some(Start::Runs(Runs::Unknown));
    let (sub, args) = match name.strip_prefix("distrobox-") {
        Some(sub) => (sub, &words[1..]),
        None => match words.get(1)?.literal() {
            Some(sub) => (sub, &words[2..]),
            None => return unknown,
        },
    };
    match sub {
        "enter" | "ephemeral" | "assemble" => unknown,
        "create" => {
            let hooks = |w: &Word| {
                let option = w.known_start();
                let option = option.split('=').next().unwrap_or_default();
                w.literal().is_none()
                    || (option.len() > "--".len()
                        && ("--init-hooks".starts_with(option) || "--pre-init-hooks".starts_with(option)))
            };
            args.iter().any(hooks).then_some(Start::Runs(Runs::Unknown))
        }
        "host-exec" => {
            let mut at = 0;
            while let Some(word) = args.get(at) {
                match word.literal() {
                    Some(
                        "-h" | "-v" | "-V" | "-Y" | "--help" | "--verbose" | "--version" | "--yes" | "--",
                    ) => at += 1,
                    Some(text) if text.starts_with('-') => return unknown,
                    None if word.known_start().is_empty() || word.known_start().starts_with('-') => {
                        return unknown;
                    }
                    _ => {
                        let command = args[at..].to_vec();
                        return Some(Start::Runs(Runs::Command { besides: Vec::new(), command }));
                    }
                }
            }
            Some(Start::Runs(Runs::Input))
        }
        _ => None,
    }
}

/// `nsjail [OPTIONS] -- PROGRAM ARGS…` (nsjail 3's `cmdline.cc`): its getopt
/// permutes, so without `--` the command's options are nsjail's and the
/// line passes no list, as it does where the program comes from elsewhere
/// (`-x`/`--exec_file`, `--execute_fd`, a `-C`/`--config` file's
/// `exec_bin`), and with `-E`/`--env` of a variable that steers a program.
fn nsjail(words: &[Word]) -> Option<Start> {
    let unknown = Some(Start::Runs(Runs::Unknown));
    let Some(dashes) = words.iter().position(|w| w.literal() == Some("--")) else { return unknown };
    let options = &words[1..dashes];
    for (i, word) in options.iter().enumerate() {
        let Some(text) = word.literal() else { return unknown };
        let name = text.split('=').next().unwrap_or(text);
        let elsewhere = ["-x", "-C", "--exec_file", "--execute_fd", "--config"];
        if elsewhere.contains(&name) || text.starts_with("-x") || text.starts_with("-C") {
            return unknown;
        }
        let value = match name {
            "-E" | "--env" => text.split_once('=').map(|(_, v)| v).or(options.get(i + 1).map(Word::text)),
            _ if text.starts_with("-E") => Some(&text[2..]),
            _ => None,
        };
        if value.is_some_and(|value| code_variables::may_steer(value, true)) {
            return unknown;
        }
    }
    (dashes + 1 < words.len()).then_some(Start::At(dashes + 1))
}

#[cfg(test)]
mod tests {
    use super::super::super::tests::{passes_no_list, texts};

    #[test]
    fn a_sandboxes_command_is_read_as_the_command_it_runs() {
        for (line, inner) in [
            ("flatpak run --command=rm org.example.App x", "rm x"),
            (
                "flatpak --verbose run --branch=stable --command=bash --command=rm org.example.App -f x",
                "rm -f x",
            ),
            ("flatpak run -d --env=A=1 --filesystem=host --command=rm org.example.App x", "rm x"),
            ("flatpak run --command=sh org.example.App -c 'rm x'", "rm x"),
            ("flatpak enter org.example.App rm x", "rm x"),
            ("flatpak enter --verbose 1234 rm -f x", "rm -f x"),
            ("flatpak-spawn --host rm x", "rm x"),
            ("flatpak-spawn --host --env=A=1 --directory=/tmp --watch-bus rm -f x", "rm -f x"),
            ("flatpak-spawn --sandbox --no-network -- rm x", "rm x"),
            // An option of a newer release is still an option: the
            // command is the first word that is none.
            ("flatpak-spawn --host --new-option rm x", "rm x"),
            ("toolbox run rm x", "rm x"),
            ("toolbox -y --log-level debug run -c fedora-41 --preserve-fds=2 rm x", "rm x"),
            ("toolbox run -y -d fedora -r 41 -- rm -f x", "rm -f x"),
            ("toolbox run ls -l", "ls -l"),
            ("distrobox-host-exec rm x", "rm x"),
            ("distrobox-host-exec -Y -- rm -f x", "rm -f x"),
            ("nsjail -Mo --chroot / -E A=1 -- /bin/rm -f x", "rm -f x"),
        ] {
            assert_eq!(texts(line).last().map(String::as_str), Some(inner), "{line}");
        }
        // The app's own command, and subcommands that run none.
        for line in [
            "flatpak run org.example.App --help",
            "flatpak install flathub org.example.App",
            "flatpak enter org.example.App",
            "flatpak-spawn --host",
            "toolbox list",
            "toolbox run",
            "distrobox create -n box -i fedora",
            "distrobox list",
        ] {
            assert_eq!(texts(line), [line], "{line}");
        }
    }

    #[test]
    fn what_only_running_tells_passes_no_list() {
        for line in [
            // A word that may be an option (`--command=rm`), or that splits.
            "flatpak run \"$OPT\" org.example.App x",
            "flatpak \"$SUB\" --command=rm org.example.App x",
            "flatpak-spawn --host \"$CMD\" x",
            "flatpak-spawn --directory=$D ls",
            // A variable that steers the command, or may; variables from a descriptor.
            "flatpak-spawn --host --env=LD_PRELOAD=/x.so ls",
            "flatpak-spawn --host --env=\"$V\" ls",
            "flatpak-spawn --host --env\"$V\" ls",
            "flatpak run --env=BASH_ENV=x --command=ls org.example.App",
            "flatpak run --env-fd=3 --command=ls org.example.App",
            // Toolbx's: a shell that runs its input, an option it may have
            // that the table does not know, a word that may be an option.
            "toolbox enter",
            "toolbox run --new-option rm x",
            "toolbox run \"$C\" rm x",
            "toolbox \"$SUB\" rm x",
            // distrobox's: which words run depends on the release; hooks;
            // the host's shell.
            "distrobox enter box -- rm x",
            "distrobox enter box rm x",
            "distrobox-enter -n box -e rm x",
            "distrobox ephemeral -- rm x",
            "distrobox create -n box --init-hooks 'rm x'",
            "distrobox create -n box --pre-init 'rm x'",
            "distrobox-host-exec",
            "distrobox-host-exec --unknown rm x",
            // nsjail's: options among the command's words without `--`; a
            // program from elsewhere; a variable that steers the command.
            "nsjail -Mo --chroot / /bin/rm -f x",
            "nsjail -C jail.cfg -- /bin/ls",
            "nsjail -x /bin/rm -- ls",
            "nsjail -E LD_PRELOAD=/x.so -- /bin/ls",
        ] {
            passes_no_list(line);
        }
    }
}
