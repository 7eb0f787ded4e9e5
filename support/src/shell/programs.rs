//! The programs a command line runs, found as the shell finds them: each
//! simple command's first word ([`parse`]), a path being the program its
//! last part names (`/bin/rm` is `rm`), looked through the wrappers that
//! run another command after their own options (`sudo -u x`, `env A=1`,
//! `timeout 5`, `nice`, `xargs`, ...) and the runners' subcommands (`uv run`,
//! `bundle exec`, `npx`: [`runners`]), and `sh -c 'LINE'`,
//! `find -exec … ;` and the commands other tools are given in an option
//! or a script (`tar --to-command=CMD`, sed's `e CMD`, awk's
//! `system("CMD")`: [`tool_commands`]) read as the commands they run. A path that expands
//! names the program its last part names when that part is written out
//! (`"$HOME/bin/tool"` is `tool`); `trap 'LINE' EXIT` runs LINE. A program
//! whose name only running it would tell (`$CMD`, `$DIR/$TOOL`, `eval …`,
//! `sh -c "$x"`, a line that defines an alias) has no name.
//!
//! The command policy (book: reference/policy.md) and the risky-command list read commands
//! here, so they never disagree about what a command runs.

use std::sync::Arc;

use super::parse::{self, Simple, Word};
use given::Given;
use runners::{Besides, Runs, Start};
use tool_commands::Tool;

mod awk_program;
mod bash_builtins;
pub mod code_variables;
mod containers;
mod git_commands;
mod given;
mod runners;
mod sed_script;
mod slurm;
mod tool_commands;

/// How deep `sh -c '…'` inside `sh -c '…'` is read.
const MAX_NESTING: usize = 8;

/// The most wrappers one program is read through, `sh -c` lines around it
/// included: each holds the words from it on, so a line of thousands
/// (`sudo sudo … rm x`) would hold its text thousands of times.
pub const MAX_WRAPPERS: usize = 32;

/// Programs that run the command after their own options and arguments:
/// (name, the options of theirs that take a value, short and long, how many
/// arguments they take before the command). Options are read as getopt
/// reads them ([`option_words`]).
#[rustfmt::skip]
const WRAPPERS: &[(&str, &[&str], usize)] = &[
    ("sudo", &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group",
        "--close-from", "--chdir", "--host", "--prompt", "--role", "--type", "--other-user",
        "--command-timeout", "-R", "--chroot"], 0),
    ("doas", &["-u", "-C"], 0),
    ("env", &["-u", "-C", "-a", "--unset", "--chdir", "--argv0"], 0),
    ("xargs", &["-I", "-n", "-P", "-d", "-L", "-s", "-a", "-E", "--arg-file", "--delimiter",
        "--max-args", "--max-procs", "--max-chars", "--process-slot-var"], 0),
    ("nohup", &[], 0),
    ("exec", &["-a"], 0),
    ("time", &["-f", "-o", "--format", "--output"], 0),
    ("nice", &["-n", "--adjustment"], 0),
    ("ionice", &["-c", "-n", "-p", "-P", "-u", "--class", "--classdata", "--pid", "--pgid", "--uid"], 0),
    ("timeout", &["-s", "-k", "--signal", "--kill-after"], 1),
    ("command", &[], 0),
    ("builtin", &[], 0),
    ("stdbuf", &["-i", "-o", "-e", "--input", "--output", "--error"], 0),
    ("setsid", &[], 0),
    ("chroot", &["--userspec", "--groups"], 1),
    ("taskset", &[], 1),
    ("flock", &["-w", "-E", "--timeout", "--wait", "--conflict-exit-code"], 1),
    ("busybox", &[], 0),
    ("toybox", &[], 0),
    ("pkexec", &["--user"], 0),
    ("runuser", &["-u", "-g", "-G", "-w", "-s", "--user", "--group", "--supp-group", "--shell",
        "--whitelist-environment"], 0),
    ("chrt", &["-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"], 1),
    ("unshare", &["-S", "-G", "-R", "-w", "--setuid", "--setgid", "--root", "--wd", "--propagation",
        "--map-user", "--map-group", "--map-users", "--map-groups", "--setgroups", "--monotonic",
        "--boottime"], 0),
    // Its `-r`/`--root` and `-w`/`--wd` take a value only glued (`-r/jail`):
    // `nsenter -t 1 -r rm x` runs `rm x`.
    ("nsenter", &["-t", "-S", "-G", "-W", "--target", "--setuid", "--setgid", "--wdns"], 0),
    ("setpriv", &["--reuid", "--regid", "--ruid", "--rgid", "--euid", "--egid", "--groups",
        "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig",
        "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule"], 0),
    // strace 6.1's and ltrace 0.7's, each probed (`strace --trace X true`
    // runs `true` when `--trace` takes X).
    ("strace", &["-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S", "-U", "-X",
        "--output", "--attach", "--user", "--env", "--string-limit", "--abbrev", "--columns",
        "--const-print-style", "--decode-pids", "--detach-on", "--fault", "--inject", "--interruptible",
        "--kvm", "--raw", "--read", "--signal", "--status", "--summary-columns", "--summary-sort-by",
        "--summary-syscall-overhead", "--trace-path", "--trace", "--verbose", "--write",
        "--syscall-limit", "--trace-fds"], 0),
    ("ltrace", &["-o", "-e", "-p", "-s", "-u", "-n", "-a", "-l", "-x", "-A", "-D", "-F", "-w", "--output",
        "--align", "--debug", "--config", "--library", "--indent", "--where"], 0),
    ("valgrind", &[], 0),
    // systemd 257's run.c (`+hrC:H:M:E:p:tPqGdSu:`: `-G` is `--collect`, a flag).
    ("systemd-run", &["-p", "-u", "-E", "-M", "-H", "-C", "--property", "--unit", "--setenv",
        "--machine", "--host", "--capsule", "--uid", "--gid", "--working-directory", "--slice",
        "--description", "--nice", "--expand-environment", "--service-type", "--on-active", "--on-boot",
        "--on-startup", "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--timer-property",
        "--path-property", "--socket-property", "--job-mode", "--background", "--json"], 0),
    ("firejail", &[], 0),
    ("faketime", &["-f"], 1),
    ("fakeroot", &["-i", "-s", "-l", "--faked"], 0),
    // bash's keyword, where `sh` is bash: `coproc rm x` runs `rm x`.
    ("coproc", &[], 0),
    ("numactl", &["-i", "-p", "-C", "-N", "-m", "-P", "-w", "--interleave", "--preferred", "--physcpubind",
        "--cpunodebind", "--membind", "--preferred-many", "--weighted-interleave"], 0),
    ("prlimit", &["-p", "-o", "--pid", "--output"], 0),
    ("setarch", &[], 1),
    ("linux32", &[], 0),
    ("linux64", &[], 0),
    ("cgexec", &["-g"], 0),
    ("eatmydata", &[], 0),
    ("nocache", &[], 0),
    ("catchsegv", &[], 0),
    ("unbuffer", &[], 0),
    ("proxychains", &["-f"], 0),
    ("proxychains4", &["-f"], 0),
    ("sshpass", &["-p", "-f", "-d", "-P"], 0),
    ("ssh-agent", &["-a", "-E", "-O", "-P", "-t"], 0),
    ("systemd-inhibit", &["--what", "--who", "--why", "--mode"], 0),
    ("dbus-run-session", &["--config-file", "--dbus-daemon"], 0),
    ("xvfb-run", &["-e", "-f", "-n", "-p", "-s", "-w", "--error-file", "--auth-file", "--server-num",
        "--xauth-protocol", "--server-args", "--wait"], 0),
    ("chronic", &[], 0),
    ("ifne", &[], 0),
    ("lckdo", &[], 1),
    // A container's init and user switchers (`tini -- CMD`, `gosu USER CMD`).
    ("tini", &["-p", "-e"], 0),
    ("tini-static", &["-p", "-e"], 0),
    ("dumb-init", &["-r", "--rewrite"], 0),
    ("gosu", &[], 1),
    ("su-exec", &[], 1),
    ("setuidgid", &[], 1),
    ("s6-setuidgid", &[], 1),
    ("chpst", &["-u", "-U", "-b", "-e", "-/", "-n", "-l", "-L", "-m", "-d", "-o", "-p", "-f", "-c", "-t"], 0),
];

/// What stands for the words xargs puts after a command: its input.
const XARGS_INPUT: &str = "\"$@\"";

/// Shells, whose `-c LINE` runs LINE.
pub const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "ash", "mksh"];

/// One program a command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// Its name, or `None` when only running the command would tell.
    pub name: Option<String>,
    /// Its arguments.
    pub args: Vec<Word>,
    /// The wrappers it runs through, outermost first, each with the words
    /// from it on: `sudo env rm x` gives `sudo env rm x` and `env rm x`.
    /// Shared: every program of `sh -c 'LINE'` is read through the same
    /// `sh -c LINE` (one allocation, however many programs LINE runs).
    pub wrappers: Vec<Arc<str>>,
    /// A single `|` feeds its simple command the output of the one before.
    pub piped: bool,
    /// It runs the commands of its input, not ones the line names (`… |
    /// sh`, `sh <<EOF`, `bash -s`, `sudo -s`, `xargs -I{} sh -c '{}'`):
    /// only running tells what they are.
    pub input: bool,
    /// It is what bash runs when it evaluates a variable's value as code
    /// (arithmetic naming a variable, `${!x}`, `${x@P}`: [`parse::evaluated`];
    /// `let x`, `unset 'a[x]'`: [`bash_builtins::evaluates_values`]), rather
    /// than a program whose name expands (`${CMD} x`).
    pub evaluates: bool,
}

impl Program {
    /// A program whose name only running `words` would tell.
    fn unnamed(words: &[Word], wrappers: Vec<Arc<str>>, piped: bool) -> Program {
        Program { name: None, args: words.to_vec(), wrappers, piped, input: false, evaluates: false }
    }

    /// A program that runs the commands of its input ([`Program::input`]).
    fn reading_input(name: Option<String>, args: Vec<Word>, wrappers: Vec<Arc<str>>, piped: bool) -> Program {
        Program { name, args, wrappers, piped, input: true, evaluates: false }
    }

    /// What the commands it runs that only running tells come from, when
    /// [`Program::input`], and what to write instead.
    pub fn runs_what(&self) -> (&'static str, &'static str) {
        let named = "name the program in the command itself";
        match self.name.as_deref().map(tool_commands::kind) {
            Some(Some(Tool::Sed)) => (
                "the commands its script makes (`e` alone, `s///e`, a script from a file or one that expands)",
                "write the command out, `e CMD`; with `--sandbox` GNU sed refuses every command that runs",
            ),
            Some(Some(Tool::Awk)) => (
                "the commands its program makes (`system()` or a pipe of a command not written as one \
                 string, `@`, a program from a file or one that expands)",
                "write the command as one string, `system(\"CMD\")`",
            ),
            Some(Some(Tool::Commands)) => (
                "commands of its own, from its input, its options or templates (`!CMD`, `{}`)",
                "leave it out of an allowed command; it runs what it reads",
            ),
            Some(Some(Tool::Git)) => (
                "the commands its configuration or options name (`-c core.pager=…`, `-c alias.x='!…'`, \
                 `git config` of such a key, `--upload-pack`, an option that expands)",
                "leave the setting out (write what it would run as a RUN of its own); put `--` before operands that expand",
            ),
            Some(Some(Tool::Options)) => (
                "the commands its options make (an option, or its value, that expands)",
                "write the option and its command out in the command itself, or put `--` before the operands",
            ),
            _ => ("the commands it reads from its input (a pipe, a here-document, a file)", named),
        }
    }

    /// Whether it is what bash runs when it evaluates a variable's value as
    /// code (arithmetic naming a variable, `${!x}`, `${x@P}`, `let x`,
    /// `unset 'a[x]'`: [`parse::evaluated`]), rather than a program whose
    /// name expands.
    pub fn bash_evaluates(&self) -> bool {
        self.evaluates
    }

    /// Whether it is a tool that runs commands it makes or reads as it runs
    /// (`sed 's/x/y/e'`, `awk '{ system($0) }'`, `vim`, `tar "$OPTS"`):
    /// what [`Program::input`] says of a program the table of tools reads
    /// (a shell running its input is another matter: a pipe, a
    /// here-document).
    pub fn makes_its_commands(&self) -> bool {
        self.input && self.name.as_deref().is_some_and(reads_its_commands)
    }

    /// The command this program runs, as policy patterns match it: its name
    /// and its arguments (a literal word's text, any other as written),
    /// separated by one space; without a name, the words as written.
    pub fn text(&self) -> String {
        let mut text = self.name.clone().unwrap_or_default();
        for arg in &self.args {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(arg.text());
        }
        text
    }
}

/// Whether `name` is a tool read for the commands it runs (sed, awk, the
/// programs with an option whose value is a command, the editors and
/// debuggers that run commands of their own): [`tool_commands`].
pub fn reads_its_commands(name: &str) -> bool {
    tool_commands::kind(name).is_some()
}

/// The names [`reads_its_commands`] knows.
pub fn tools_read_for_commands() -> impl Iterator<Item = &'static str> {
    tool_commands::names()
}

/// What an allow pattern that starts with a wrapper or a runner stands for
/// ([`looked_through`]).
#[derive(Debug, PartialEq, Eq)]
pub enum LookedThrough {
    /// The pattern of the command it runs (`pytest*` of `uv run pytest*`).
    Command(String),
    /// A container engine's `run`, `create` or `exec` whose image or
    /// container is a pattern (`docker run *`): what follows it is no
    /// command, and it matches only a container that runs its image's own.
    Container,
}

/// An allow list judges what wrappers and runners run, so an allow pattern
/// that starts with one (`sudo *`, `uv run pytest*`) matches no command:
/// what it stands for, when every program the pattern reads as runs
/// through one, or it names an engine's subcommand that runs a command.
pub fn looked_through(pattern: &str) -> Option<LookedThrough> {
    let found = programs(pattern).ok()?;
    if !found.is_empty() && found.iter().all(|program| !program.wrappers.is_empty()) {
        return Some(LookedThrough::Command(found[0].text()));
    }
    let first = parse::simple_commands(pattern).ok()?.into_iter().next()?;
    containers::runs_a_command(&first.words).then_some(LookedThrough::Container)
}

/// The programs `line` runs, or why it cannot be read as shell syntax.
pub fn programs(line: &str) -> Result<Vec<Program>, String> {
    let mut found = Vec::new();
    read_line(line, &mut found, 0)?;
    Ok(found)
}

fn read_line(line: &str, found: &mut Vec<Program>, depth: usize) -> Result<(), String> {
    for simple in parse::simple_commands(line)? {
        read_simple(&simple, found, depth, false)?;
    }
    Ok(())
}

/// `find`: the command is one of `find -exec`'s, whose `{}` find replaces
/// by each path it finds, within a word too (`sh -c 'echo {}'`, where a
/// file may be named `$(rm x)`): such a word's text is the paths'.
fn read_simple(simple: &Simple, found: &mut Vec<Program>, depth: usize, find: bool) -> Result<(), String> {
    if simple.evaluates {
        found.push(Program { evaluates: true, ..Program::unnamed(&simple.words, Vec::new(), simple.piped) });
        return Ok(());
    }
    let substituted: Vec<Word>;
    let mut words = &simple.words[..];
    if find && words.iter().any(|word| word.text() != "{}" && word.text().contains("{}")) {
        substituted = words.iter().map(with_paths).collect();
        words = &substituted;
    }
    let mut wrappers: Vec<Arc<str>> = Vec::new();
    // `xargs -I R`'s R: each line of its input takes R's place.
    let mut replace = None;
    // Whether xargs runs the command: without `-I`, it puts its input
    // after the command's words.
    let mut xargs = false;
    // The name of the last wrapper read (`sudo` of `sudo -s`).
    let mut last_wrapper: Option<String> = None;
    loop {
        let Some(first) = words.first() else {
            // `echo 'rm x' | sudo -s`: without a command, some start a shell.
            if let Some(name) = last_wrapper.filter(|name| given::STARTS_A_SHELL.contains(&name.as_str())) {
                let (name, piped) = (Some(name), simple.piped);
                found.push(Program::reading_input(name, Vec::new(), wrappers, piped));
            }
            return Ok(());
        };
        // `eval`'s words are a command line only running it makes.
        let Some(name) = name_of(first).filter(|name| name != "eval") else {
            found.push(Program::unnamed(words, wrappers, simple.piped));
            return Ok(());
        };
        let name = name.as_str();
        // `runuser -l USER -c LINE` runs LINE, as `su` does (below).
        let line = given::RUN_LINE.contains(&name) && given::command_line(name, &words[1..]).is_some();
        // `command -v NAME` says where NAME is; it runs nothing.
        let describes = name == "command" && describes(&words[1..]);
        let wrapper = WRAPPERS.iter().find(|(w, _, _)| *w == name).filter(|_| !line && !describes);
        let Some(&(_, valued, positional)) = wrapper else {
            match runners::start(name, words) {
                None => break,
                Some(Start::At(at)) => {
                    // entr gives an argument `/_` a path from its input.
                    if name == "entr" {
                        replace = Some("/_".to_string());
                    }
                    wrappers = through(&wrappers, vec![joined(words)])?;
                    last_wrapper = Some(name.to_string());
                    words = &words[at.min(words.len())..];
                    continue;
                }
                Some(Start::Runs(runs)) => return runner(runs, words, wrappers, simple.piped, found, depth),
            }
        };
        if wrappers.len() == MAX_WRAPPERS {
            return Err(too_many_wrappers());
        }
        wrappers.push(joined(words));
        last_wrapper = Some(name.to_string());
        let mut at = 1;
        let mut positional = positional;
        while let Some(word) = words.get(at) {
            let text = word.text();
            if text == "--" {
                at += 1;
                break;
            }
            if text.starts_with('-') && text.len() > 1 {
                // `env -S 'a b'` splits its value into a command line of its own.
                if name == "env"
                    && let Some(line) = given::env_split(text, words.get(at + 1))
                {
                    return nested(line.as_ref(), &wrappers, simple.piped, found, depth);
                }
                at += option_words(text, valued).ok_or_else(|| abbreviated(name, text, valued))?;
            } else if name == "env" && is_assignment(text) {
                at += 1;
            } else if positional > 0 {
                positional -= 1;
                at += 1;
            } else {
                break;
            }
        }
        if name == "xargs" {
            replace = given::xargs_replace(&words[1..at.min(words.len())]).or(replace);
            xargs = true;
        }
        words = &words[at.min(words.len())..];
    }
    // The words xargs adds may be anything: an option (`--to-command=…`),
    // a shell's line (`xargs -0 sh -c`), a tool's script.
    let with_input: Vec<Word>;
    if xargs && replace.is_none() {
        with_input = words.iter().cloned().chain([Word::Expands(XARGS_INPUT.to_string())]).collect();
        words = &with_input;
    }
    // What xargs puts in the name, or in a shell's line or a tool's
    // script or options, is its input's.
    if let Some(replace) = replace
        && words.iter().any(|word| word.text().contains(replace.as_str()))
        && (words[0].text().contains(replace.as_str())
            || name_of(&words[0])
                .is_some_and(|name| given::runs_a_line(&name) || tool_commands::kind(&name).is_some()))
    {
        let (name, args, piped) = (name_of(&words[0]), words[1..].to_vec(), simple.piped);
        found.push(Program::reading_input(name, args, wrappers, piped));
        return Ok(());
    }
    let name = name_of(&words[0]).unwrap_or_default();
    let args = &words[1..];
    let given = given::command_line(&name, args).or_else(|| given::joined_line(&name, args).map(Given::Line));
    // A shell fed a pipe may run it (`… | sh "$f"`, where `f` is `-s`).
    let given = given.or_else(|| (simple.piped && SHELLS.contains(&name.as_str())).then_some(Given::Input));
    match given {
        Some(Given::Line(line)) => {
            let shell = through(&wrappers, vec![joined(words)])?;
            return nested(line.as_ref(), &shell, simple.piped, found, depth);
        }
        Some(Given::Input) => {
            let (args, piped) = (args.to_vec(), simple.piped);
            found.push(Program::reading_input(Some(name), args, wrappers, piped));
            return Ok(());
        }
        None if given::STARTS_A_SHELL.contains(&name.as_str())
            && !WRAPPERS.iter().any(|(w, _, _)| *w == name) =>
        {
            // `su`, `newgrp`, `sg GROUP`, `script` without a line: a shell
            // that reads its input.
            let (args, piped) = (args.to_vec(), simple.piped);
            found.push(Program::reading_input(Some(name), args, wrappers, piped));
            return Ok(());
        }
        None => {}
    }
    // `export "$N=…"` may set a variable that makes a later program run
    // what its line does not name.
    if code_variables::sets_a_hidden_variable(&name, args) {
        found.push(Program::unnamed(words, wrappers, simple.piped));
        return Ok(());
    }
    if name == "find" {
        find_exec(args, &wrappers, found, depth)?;
    }
    // A path find gives a tool is no option (it starts with where find
    // looked), but what it says is the file's name.
    let paths: Vec<Word>;
    let tool_args = if find && args.iter().any(|arg| arg.text() == "{}") {
        let path = |arg: &Word| if arg.text() == "{}" { Word::Expands("./{}".into()) } else { arg.clone() };
        paths = args.iter().map(path).collect();
        &paths[..]
    } else {
        args
    };
    let commands = tool_commands::commands(&name, tool_args);
    if commands.iter().any(|given| matches!(given, Given::Input)) {
        let (args, piped) = (args.to_vec(), simple.piped);
        found.push(Program::reading_input(Some(name), args, wrappers, piped));
        return Ok(());
    }
    if !commands.is_empty() {
        let tool = through(&wrappers, vec![joined(words)])?;
        for given in commands {
            if let Given::Line(line) = given {
                nested(line.as_ref(), &tool, simple.piped, found, depth)?;
            }
        }
    }
    if name == "trap" {
        let trap = through(&wrappers, vec![joined(words)])?;
        trap_action(args, &trap, simple.piped, found, depth)?;
    }
    // An alias defined here changes what a later word runs (dash expands
    // it on the lines after `alias r=rm`), and so do some of bash's
    // builtins: only running the line tells.
    if (name == "alias" && args.iter().any(|a| a.literal().is_none_or(|text| text.contains('='))))
        || bash_builtins::hides_what_runs(&name, args)
    {
        found.push(Program::unnamed(words, wrappers, simple.piped));
        return Ok(());
    }
    if bash_builtins::evaluates_values(&name, args) {
        found.push(Program { evaluates: true, ..Program::unnamed(words, wrappers, simple.piped) });
        return Ok(());
    }
    found.push(Program {
        name: Some(name),
        args: args.to_vec(),
        wrappers,
        piped: simple.piped,
        input: false,
        evaluates: false,
    });
    Ok(())
}

/// Whether `command`'s options `args` ask where a program is (`-v`, `-V`,
/// `-pv`): it then runs nothing.
fn describes(args: &[Word]) -> bool {
    args.iter()
        .map_while(|arg| arg.literal().filter(|text| text.starts_with('-') && *text != "--"))
        .any(|option| option.contains(['v', 'V']))
}

/// What a runner `words` runs other than a command among its words
/// ([`runners::start`]); `wrappers` are those around it.
fn runner(
    runs: Runs,
    words: &[Word],
    wrappers: Vec<Arc<str>>,
    piped: bool,
    found: &mut Vec<Program>,
    depth: usize,
) -> Result<(), String> {
    let name = name_of(&words[0]);
    match runs {
        Runs::Line(line) => {
            let runner = through(&wrappers, vec![joined(words)])?;
            nested(line.as_ref(), &runner, piped, found, depth)
        }
        Runs::Input => {
            found.push(Program::reading_input(name, words[1..].to_vec(), wrappers, piped));
            Ok(())
        }
        Runs::Command { besides, command } => {
            let runner = through(&wrappers, vec![joined(words)])?;
            for also in besides {
                match also {
                    Besides::Line(line) => nested(Some(&line), &runner, piped, found, depth)?,
                    Besides::Command(words) => contained(words, &runner, piped, found, depth)?,
                }
            }
            // Without a command the image's own runs: the runner's line is judged.
            if command.is_empty() {
                found.push(Program {
                    name,
                    args: words[1..].to_vec(),
                    wrappers,
                    piped,
                    input: false,
                    evaluates: false,
                });
                return Ok(());
            }
            contained(command, &runner, piped, found, depth)
        }
        Runs::Unknown => {
            found.push(Program::unnamed(words, wrappers, piped));
            Ok(())
        }
        Runs::Unreadable(why) => Err(why),
    }
}

/// The command a runner makes of words (a container's, srun's), read as a
/// simple command, up to [`MAX_NESTING`] deep (`docker run i docker run i …`).
fn contained(
    words: Vec<Word>,
    runner: &[Arc<str>],
    piped: bool,
    found: &mut Vec<Program>,
    depth: usize,
) -> Result<(), String> {
    if depth >= MAX_NESTING {
        found.push(Program::unnamed(&words, runner.to_vec(), piped));
        return Ok(());
    }
    let mut inner = Vec::new();
    read_simple(&Simple { words, piped, evaluates: false }, &mut inner, depth + 1, false)?;
    for mut program in inner {
        program.wrappers = through(runner, program.wrappers)?;
        found.push(program);
    }
    Ok(())
}

/// `trap ACTION CONDITION…`: the shell runs ACTION when a condition
/// comes, read as `sh -c` reads its line ([`given::trap_action`]).
fn trap_action(
    args: &[Word],
    wrappers: &[Arc<str>],
    piped: bool,
    found: &mut Vec<Program>,
    depth: usize,
) -> Result<(), String> {
    match given::trap_action(args) {
        Some(action) => nested(Some(action), wrappers, piped, found, depth),
        None => Ok(()),
    }
}

/// The command line of `sh -c LINE` or `env -S LINE`: read when it is a
/// literal, else a program without a name.
fn nested(
    line: Option<&Word>,
    wrappers: &[Arc<str>],
    piped: bool,
    found: &mut Vec<Program>,
    depth: usize,
) -> Result<(), String> {
    match line {
        Some(Word::Literal(line)) if depth < MAX_NESTING => {
            let mut inner = Vec::new();
            read_line(line, &mut inner, depth + 1)?;
            for mut program in inner {
                program.wrappers = through(wrappers, program.wrappers)?;
                program.piped |= piped;
                found.push(program);
            }
            Ok(())
        }
        Some(word) => {
            found.push(Program::unnamed(std::slice::from_ref(word), wrappers.to_vec(), piped));
            Ok(())
        }
        None => Ok(()),
    }
}

/// `find … -exec CMD … ;`: the words up to `;` or `+` run as a command.
fn find_exec(
    args: &[Word],
    wrappers: &[Arc<str>],
    found: &mut Vec<Program>,
    depth: usize,
) -> Result<(), String> {
    let mut rest = args;
    while let Some(exec) =
        rest.iter().position(|a| matches!(a.literal(), Some("-exec" | "-execdir" | "-ok" | "-okdir")))
    {
        let inner = &rest[exec + 1..];
        let end = inner.iter().position(|a| matches!(a.literal(), Some(";" | "+"))).unwrap_or(inner.len());
        let simple = Simple { words: inner[..end].to_vec(), ..Simple::default() };
        let mut programs = Vec::new();
        read_simple(&simple, &mut programs, depth, true)?;
        for mut program in programs {
            program.wrappers = through(wrappers, program.wrappers)?;
            found.push(program);
        }
        rest = &inner[end..];
    }
    Ok(())
}

/// A word of `find -exec`'s with `{}` in it among other text: it expands
/// (what it holds is the path's), as written.
fn with_paths(word: &Word) -> Word {
    match word.text() {
        text if text != "{}" && text.contains("{}") => Word::Expands(text.to_string()),
        _ => word.clone(),
    }
}

/// How many words an option takes, as getopt reads it: two when it takes
/// a value given in the next word (`-u root`, `--user root`, `-iu root`:
/// `i` a flag, `u` the option with a value), else one (`--user=root`,
/// `-uroot`, a flag, an option this list does not know). `None` for a long
/// option that may be one of the list's abbreviated (`--us` of `--user`):
/// getopt_long takes a long option by any prefix that names one option, so
/// `sudo --us root rm x` runs `rm x`, but whether it is that one, or a flag
/// the list does not hold, only the program's whole table tells.
fn option_words(text: &str, valued: &[&str]) -> Option<usize> {
    if text.starts_with("--") {
        if valued.contains(&text) {
            return Some(2);
        }
        return (text.contains('=') || abbreviates(text, valued).is_empty()).then_some(1);
    }
    let letters = &text[1..];
    let takes_value = |letter: char| {
        valued.iter().any(|option| option.strip_prefix('-').is_some_and(|short| short.chars().eq([letter])))
    };
    match letters.char_indices().find(|&(_, letter)| takes_value(letter)) {
        // The last letter: its value is the next word; else the rest is.
        Some((at, letter)) if at + letter.len_utf8() == letters.len() => Some(2),
        _ => Some(1),
    }
}

/// The long options of `valued` that `text` is a shorter prefix of.
fn abbreviates<'a>(text: &str, valued: &[&'a str]) -> Vec<&'a str> {
    valued
        .iter()
        .copied()
        .filter(|whole| whole.starts_with("--") && whole.len() > text.len() && whole.starts_with(text))
        .collect()
}

/// Why `program`'s command is not known when its `option` may abbreviate
/// one that takes a value ([`option_words`]).
fn abbreviated(program: &str, option: &str, valued: &[&str]) -> String {
    let whole: Vec<String> = abbreviates(option, valued).iter().map(|whole| format!("`{whole}`")).collect();
    format!(
        "`{program} {option}` may be {} abbreviated (a long option is taken by any prefix that names one), \
         so which word is the command only running it would tell: write the option out whole",
        whole.join(" or ")
    )
}

/// The name of the program `word` runs: a literal's last part, or what a
/// word that expands still names by its path ([`parse::named_by_path`]).
fn name_of(word: &Word) -> Option<String> {
    match word {
        Word::Literal(text) => Some(program_name(text).to_string()),
        Word::Expands(written) => parse::named_by_path(written),
    }
}

/// A program's name from the word that names it: `/usr/bin/curl` is `curl`.
fn program_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// `NAME=value` (after `env`).
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The wrappers `outer`, then a program's own `inner`: at most
/// [`MAX_WRAPPERS`].
fn through(outer: &[Arc<str>], inner: Vec<Arc<str>>) -> Result<Vec<Arc<str>>, String> {
    if outer.len() + inner.len() > MAX_WRAPPERS {
        return Err(too_many_wrappers());
    }
    Ok(outer.iter().cloned().chain(inner).collect())
}

fn too_many_wrappers() -> String {
    format!("the command runs a program through more than {MAX_WRAPPERS} wrappers")
}

fn joined(words: &[Word]) -> Arc<str> {
    let mut text = String::new();
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        let literal = word.literal().map(|w| if i == 0 { program_name(w) } else { w });
        text.push_str(literal.unwrap_or(word.text()));
    }
    text.into()
}

#[cfg(test)]
mod tests;
