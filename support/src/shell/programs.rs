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
use given::{Besides, Runs, Start};
use tool_commands::Tool;
use wrapper_options::Ends;

mod bash_builtins;
pub mod code_variables;
mod containers;
mod finders;
mod git_commands;
mod given;
mod remote_commands;
mod runners;
mod scripts;
mod slurm;
mod tool_commands;
mod tool_values;
mod wrapper_options;

/// How deep `sh -c '…'` inside `sh -c '…'` is read.
const MAX_NESTING: usize = 8;

/// The most wrappers one program is read through, `sh -c` lines around it
/// included: each holds the words from it on, so a line of thousands
/// (`sudo sudo … rm x`) would hold its text thousands of times.
pub const MAX_WRAPPERS: usize = 32;

/// What stands for the words xargs puts after a command: its input.
const XARGS_INPUT: &str = "\"$@\"";

/// Shells, whose `-c LINE` runs LINE: the common ones, then the other
/// shells of the Bourne and Korn families and their restricted and static
/// builds (each reads `-c` as sh does).
#[rustfmt::skip]
pub const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "ash", "mksh",
    "yash", "posh", "oksh", "loksh", "lksh", "pdksh", "ksh93", "mksh-static", "hush", "sash", "bosh",
    "osh", "brush", "rbash", "rksh", "rzsh", "bash-static", "zsh-static",
];

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
    /// Where it, or a wrapper, runner or shell it runs through, is named by
    /// a path outside the system's program directories (`./ls`,
    /// `venv/bin/pytest`, `./env rm x`): a program the plan may have
    /// written, which an allow list matches only by that path.
    pub path: Option<NamedByPath>,
}

/// A program word that names its program by a path outside the system's
/// program directories ([`SYSTEM_DIRS`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedByPath {
    /// The word as written (`./ls`, `"$HOME/bin/tool"`).
    pub written: String,
    /// It names the program itself, not a wrapper, runner or shell that
    /// runs it (`./ls -l`, not `./env ls`).
    pub its_own: bool,
    /// It expands (`"$HOME/bin/tool"`, `~/bin/tool`): no pattern names it.
    pub expands: bool,
}

/// The directories of the system's programs, whose paths name a program by
/// its last part under an allow list too (`/usr/bin/ls` is `ls`): a plan
/// in the sandbox cannot write there. git's exec path holds its
/// subcommands (`/usr/lib/git-core/git-rebase` is `git rebase`).
pub const SYSTEM_DIRS: &[&str] = &[
    "/bin",
    "/sbin",
    "/usr/bin",
    "/usr/sbin",
    "/usr/local/bin",
    "/usr/local/sbin",
    "/usr/lib/git-core",
    "/usr/libexec/git-core",
];

impl NamedByPath {
    /// `word` if it names a program by a path outside [`SYSTEM_DIRS`].
    fn of(word: &Word, its_own: bool) -> Option<NamedByPath> {
        let text = word.text();
        if !text.contains('/') {
            return None;
        }
        let system = word
            .literal()
            .is_some_and(|path| path.rsplit_once('/').is_some_and(|(dir, _)| SYSTEM_DIRS.contains(&dir)));
        let expands = word.literal().is_none();
        (!system).then(|| NamedByPath { written: text.to_string(), its_own, expands })
    }
}

impl Program {
    /// A program whose name only running `words` would tell.
    fn unnamed(words: &[Word], wrappers: Vec<Arc<str>>, piped: bool) -> Program {
        Program {
            name: None,
            args: words.to_vec(),
            wrappers,
            piped,
            input: false,
            evaluates: false,
            path: None,
        }
    }

    /// A program that runs the commands of its input ([`Program::input`]).
    fn reading_input(name: Option<String>, args: Vec<Word>, wrappers: Vec<Arc<str>>, piped: bool) -> Program {
        Program { name, args, wrappers, piped, input: true, evaluates: false, path: None }
    }

    /// What the commands it runs that only running tells come from, when
    /// [`Program::input`], and what to write instead.
    pub fn runs_what(&self) -> (&'static str, &'static str) {
        let named = "name the program in the command itself";
        if matches!(self.name.as_deref(), Some("dotenv" | "dotenvx" | "env-cmd")) {
            return (
                "its command with the variables of a file (`.env`), which may be `LD_PRELOAD` and make a named \
                 program run code the line does not name",
                "give the variables in the line itself (`A=1 CMD`)",
            );
        }
        match self.name.as_deref() {
            Some("gio" | "dex" | "gtk-launch") => {
                return (
                    "the `Exec` line of a desktop file it launches (`gio launch FILE`, `dex FILE`, `gtk-launch APP`)",
                    named,
                );
            }
            Some("borg" | "gpg-agent" | "gpg-connect-agent" | "restic") => {
                return (
                    "a command given after its own words (`borg with-lock REPO CMD`, `borg create \
                     --content-from-command`, `gpg-agent --daemon CMD`, `gpg-connect-agent --exec`, `restic \
                     backup --stdin-from-command`), a program an option names, or an option that expands",
                    "give that command a RUN of its own; write options out, glued if they expand (`--repo=\"$R\"`)",
                );
            }
            Some("make" | "gmake") => {
                return (
                    "the lines of a makefile its words give it (`--eval TEXT`, a variable defined by `!=` or \
                     holding a `$`, `X:=$(shell …)`, or a word that expands and may become one), or an option \
                     that expands",
                    "write the variable's value out, or give it through the plan's `${…}`; run what `$(shell …)` \
                     would run as a RUN of its own",
                );
            }
            Some("gh") => {
                return (
                    "what a later `gh` runs: an alias's shell line, a program a setting names, an extension it \
                     installs (`gh extension install`)",
                    "leave the setting or the extension out; run what it would run as a RUN of its own",
                );
            }
            _ => {}
        }
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
            Some(Some(Tool::Options))
                if matches!(
                    self.name.as_deref(),
                    Some("openssl" | "mvn" | "mvnw" | "hg" | "svn" | "cargo" | "aria2c")
                ) =>
            {
                (
                    "the commands its options make or the code they load (an option, or its value, that \
                     expands; a library, a setting or a program an option names: `openssl -engine`, `mvn \
                     -Dexec.executable`, `hg --config`, `cargo --config`)",
                    "write the option and its value out, glued if it expands (`--package=\"$P\"`), or leave \
                     the setting out",
                )
            }
            Some(Some(Tool::Options)) if self.name.as_deref().is_some_and(tool_commands::loads_code) => (
                "the programs its options run or the code they load (`gcc -wrapper`, `-fplugin=`, `-B`, \
                 `nm --plugin`, a linker's `-plugin`, APT's `-o` hooks), or an option or operand that expands",
                "leave that option out; start an operand that expands with `./` (`ar rcs lib.a ./*.o`, `gcc -c \
                 ./*.c`)",
            ),
            Some(Some(Tool::Options)) => (
                "the commands its options make (an option, or its value, that expands)",
                "write the option and its command out in the command itself, or put `--` before the operands",
            ),
            Some(Some(Tool::Remote)) => (
                "a command on another machine (with `pdsh -R exec`, here) that it reads from its input when the \
                 line gives none, or hands to ssh in words of its own",
                "give the command in the line itself (`pdsh -w HOSTS CMD`, `vagrant ssh -c LINE`, `--command LINE`)",
            ),
            Some(Some(Tool::Sql)) => (
                "commands of its own (`.shell`, `\\!`, `system`), code it loads (`load_extension`, `.load`, \
                 plugins), or the commands it reads from its input or a file",
                "give each statement in the line (`sqlite3 DB 'select …'`, `psql -c 'select …'`, `mysql -e \
                 'select …'`); sqlite3's `-safe` refuses what runs a program",
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
    /// The program with its own options before its subcommand left out, for
    /// git (`git -C . rm x` is `git rm x`): what a pattern on a subcommand,
    /// `git rm *`, is about. `None` for any other program, or without such
    /// options.
    pub fn subcommand_text(&self) -> Option<String> {
        if self.name.as_deref() != Some("git") {
            return None;
        }
        let at = git_commands::subcommand_after_options(&self.args)?;
        let words: Vec<&str> = self.args[at..].iter().map(Word::text).collect();
        Some(format!("git {}", words.join(" ")))
    }

    pub fn text(&self) -> String {
        self.text_as(self.name.as_deref().unwrap_or_default())
    }

    /// Its words, with `name` for its name (`./ls -l` for the path it was
    /// named by: [`Program::path`]).
    pub fn text_as(&self, name: &str) -> String {
        let mut text = name.to_string();
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

/// Whether `name` is a C compiler's, versioned or cross (`gcc-12`,
/// `aarch64-linux-gnu-gcc`), whose options that run or load code are read.
pub fn is_c_compiler(name: &str) -> bool {
    tool_commands::is_c_compiler(name)
}

/// Whether `name` is binutils' or a linker's that loads the plugin an
/// option names (`nm --plugin`, `ld -plugin`), under a cross or gcc's name too.
pub fn loads_plugins(name: &str) -> bool {
    tool_commands::loads_plugins(name)
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
    let start = found.len();
    let mut outer = None;
    let read = read_named(simple, found, depth, find, &mut outer);
    // Each program the command runs runs through the wrapper or the
    // shell its path names (the program's own path is set where it is found).
    if let Some(outer) = outer {
        for program in &mut found[start..] {
            program.path.get_or_insert_with(|| outer.clone());
        }
    }
    read
}

/// [`read_simple`], noting in `outer` the first word that names a wrapper,
/// a runner or the program itself by a path outside the system's
/// ([`NamedByPath`]; the program's own only for what runs through it).
fn read_named(
    simple: &Simple,
    found: &mut Vec<Program>,
    depth: usize,
    find: bool,
    outer: &mut Option<NamedByPath>,
) -> Result<(), String> {
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
    // A build's program named by a variable (`CC=… make`, `make CC=…`):
    // make's built-in rules run it, with words of their own after it.
    let builds = code_variables::build_programs(&simple.assigns, words);
    if !builds.is_empty() {
        let build = vec![joined(words)];
        for line in builds {
            nested(Some(&line), &build, simple.piped, found, depth)?;
        }
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
        let wrapper = wrapper_options::wrapper(name).filter(|_| !line && !describes);
        let Some((reads, positional)) = wrapper else {
            match runners::start(name, words) {
                None => break,
                Some(Start::At(at)) => {
                    note_path(outer, first);
                    // entr gives an argument `/_` a path from its input.
                    if name == "entr" {
                        replace = Some("/_".to_string());
                    }
                    wrappers = through(&wrappers, vec![joined(words)])?;
                    last_wrapper = Some(name.to_string());
                    words = &words[at.min(words.len())..];
                    continue;
                }
                Some(Start::Runs(runs)) => {
                    note_path(outer, first);
                    return runner(runs, words, wrappers, simple.piped, found, depth);
                }
            }
        };
        if wrappers.len() == MAX_WRAPPERS {
            return Err(too_many_wrappers());
        }
        note_path(outer, first);
        wrappers.push(joined(words));
        last_wrapper = Some(name.to_string());
        let at = match wrapper_options::own_words(name, words, reads, positional)? {
            Ends::At(at) => at,
            // `env -S 'a b'` splits its value into a command line of its own.
            Ends::EnvSplit(line) => return nested(line.as_ref(), &wrappers, simple.piped, found, depth),
        };
        if name == "xargs" {
            replace = given::xargs_replace(&words[1..at.min(words.len())]).or(replace);
            xargs = true;
        }
        words = &words[at.min(words.len())..];
    }
    // The program's own path; for what it runs (a shell's line, a tool's
    // commands), the path of what they run through.
    let own = if outer.is_none() { NamedByPath::of(&words[0], true) } else { None };
    *outer = outer.take().or_else(|| own.clone().map(|own| NamedByPath { its_own: false, ..own }));
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
    // `git-SUB ARGS` is `git SUB ARGS`: git's exec path holds its
    // subcommands as programs (`/usr/lib/git-core/git-rebase -x 'rm v'
    // HEAD~1` removed `v` under `deny = ["rm *"]`), and `git SUB` runs an
    // external `git-SUB` (`git-lfs`).
    let dashed: Vec<Word>;
    if let Some(sub) = name_of(&words[0])
        .and_then(|name| Some(name.strip_prefix("git-").filter(|s| !s.is_empty())?.to_string()))
    {
        let git = [Word::Literal("git".to_string()), Word::Literal(sub)];
        dashed = git.into_iter().chain(words[1..].iter().cloned()).collect();
        words = &dashed;
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
            && wrapper_options::wrapper(&name).is_none() =>
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
    if let Some(commands) = finders::commands(&name, args) {
        for words in commands? {
            let mut programs = Vec::new();
            read_simple(&Simple { words, ..Simple::default() }, &mut programs, depth, name == "find")?;
            for mut program in programs {
                program.wrappers = through(&wrappers, program.wrappers)?;
                found.push(program);
            }
        }
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
    if name == "git" {
        git_commands::own_values_one_word(args)?;
    }
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
        path: own,
    });
    Ok(())
}

/// Notes in `outer` a wrapper's or runner's `word` that names it by a path
/// outside the system's, if none was noted.
fn note_path(outer: &mut Option<NamedByPath>, word: &Word) {
    if outer.is_none() {
        *outer = NamedByPath::of(word, false);
    }
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
                    path: None,
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
    read_simple(&Simple { words, piped, ..Simple::default() }, &mut inner, depth + 1, false)?;
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

/// A word of `find -exec`'s with `{}` in it among other text: it expands
/// (what it holds is the path's), as written.
fn with_paths(word: &Word) -> Word {
    match word.text() {
        text if text != "{}" && text.contains("{}") => Word::Expands(text.to_string()),
        _ => word.clone(),
    }
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
