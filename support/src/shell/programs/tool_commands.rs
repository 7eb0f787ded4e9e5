//! Commands a program runs that its line gives it other than as a command
//! after its options: in an option's value (`tar --to-command=CMD`, `rsync
//! -e CMD`, `ssh -o ProxyCommand=CMD`) and in the script of sed (`e CMD`,
//! `s///e`) and awk (`system(CMD)`, `print | CMD`). Options are read as
//! getopt reads them, a long one also by a prefix of its name (`--to-com`),
//! so a word is read as the option more often than the program would, and
//! never less.

use super::given::{Given, attached, hides_an_option, is_prefix, literal_like, split_value, take};
use super::scripts::{self, sql_clients};
use super::{git_commands, remote_commands, tool_values};
use crate::shell::parse::Word;
use ssh::{SSH, SSH_VALUED, ssh_option, ssh_remote_command, sshfs_options};

mod code_options;
pub use code_options::{is_c_compiler, loads_plugins};
mod make;
mod ssh;

/// Programs that run the value of one of their options as a command: its
/// names, and the options, short and long, whose value is the command.
/// Those of [`PASSES_NO_LIST`] and [`RUNS_A_COMMAND`] are read for their
/// options too (`openssl -engine`, `snap run`, make's `--eval`, sshfs's
/// `-o`): [`read_for_options`].
#[rustfmt::skip]
const COMMAND_OPTIONS: &[(&str, &[char], &[&str])] = &[
    ("tar", &['I', 'F'], &["--use-compress-program", "--to-command", "--info-script",
        "--new-volume-script", "--rsh-command"]),
    ("sort", &[], &["--compress-program"]),
    // split's filter (each part piped to `sh -c LINE`), cpio's remote shell.
    ("split", &[], &["--filter"]),
    ("cpio", &[], &["--rsh-command"]),
    // pandoc's filter (run with the output format after it); the program
    // coreutils' install strips each file it installs with (`install -s
    // --strip-program=/bin/rm a v` removed `v`).
    ("pandoc", &['F'], &["--filter"]),
    ("install", &[], &["--strip-program"]),
    // Backup tools' password command and remote shell (restic's `-o
    // sftp.command=CMD` below; rclone's own flags; borg's ssh, and the
    // filter `export-tar` and `import-tar` pipe a tarball through; its
    // `with-lock` and the commands `create` backs up, below).
    ("restic", &[], &["--password-command"]),
    ("rclone", &[], &["--password-command", "--auth-proxy", "--sftp-ssh"]),
    ("borg", &[], &["--rsh", "--remote-path", "--tar-filter"]),
    // Mercurial's ssh and remote hg (its `--config`, hooks and extensions,
    // below), Subversion's editor and diff programs (its `--config-option`
    // and `--config-dir`, which may name an ssh tunnel's, below).
    ("hg", &['e'], &["--ssh", "--remotecmd"]),
    ("svn", &[], &["--editor-cmd", "--diff-cmd", "--diff3-cmd"]),
    // aria2's hooks, each a program it runs on an event of a download (its
    // `--conf-path`, which may name them, below).
    ("aria2c", &[], &["--on-download-start", "--on-download-pause", "--on-download-complete",
        "--on-download-stop", "--on-download-error", "--on-bt-download-complete"]),
    // GnuPG's helper programs, each run when it is needed (`gpg
    // --agent-program PGM` started PGM as the agent), the photo viewer, and
    // gpg-agent's pinentry and smartcard daemon (its `--daemon CMD`, its
    // `--options FILE` and gpg-connect-agent's `--exec`, below).
    ("gpg", &[], &["--agent-program", "--dirmngr-program", "--keyboxd-program", "--photo-viewer"]),
    ("gpg2", &[], &["--agent-program", "--dirmngr-program", "--keyboxd-program", "--photo-viewer"]),
    ("gpgsm", &[], &["--agent-program", "--dirmngr-program", "--keyboxd-program"]),
    ("gpg-agent", &[], &["--pinentry-program", "--scdaemon-program"]),
    // GitHub's CLI: its aliases and settings that run commands (below).
    ("gh", &[], &[]),
    // The Go tool's programs that run the test binary or the compiler's
    // tools (`go test -exec CMD`, `-toolexec`, `vet -vettool`), and cargo's
    // `--config` of a key that names a program (below). A word of theirs
    // that may expand to an option passes no list, as every tool's here:
    // a value glued to its option is read (`--package="$P"`).
    ("go", &[], &[]),
    ("cargo", &[], &[]),
    // helm's post-renderer, a program it pipes the manifests through.
    ("helm", &[], &["--post-renderer"]),
    // Maven's exec plugin runs the program `-Dexec.executable` names (below).
    ("mvn", &[], &[]),
    ("mvnw", &[], &[]),
    ("rsync", &['e'], &["--rsh", "--rsync-path"]),
    ("scp", &['S'], &[]),
    ("rg", &[], &["--pre"]),
    ("zip", &[], &["--unzip-command"]),
    ("tcpdump", &['z'], &[]),
    // man-db's pager, and the browser of `-H`/`--html` (read below).
    ("man", &['P'], &["--pager"]),
    ("wget", &[], &["--use-askpass"]),
    ("diff3", &[], &["--diff-program"]),
    ("sdiff", &[], &["--diff-program"]),
    // netcat's `-e PROGRAM` and `-c LINE` run with the socket as their
    // input and output (ncat, netcat-traditional).
    ("ncat", &['e', 'c'], &["--exec", "--sh-exec"]),
    ("nc", &['e', 'c'], &["--exec", "--sh-exec"]),
    ("netcat", &['e', 'c'], &["--exec", "--sh-exec"]),
    ("nc.traditional", &['e', 'c'], &[]),
];

/// Of [`COMMAND_OPTIONS`], those whose program the tool runs with words of
/// its own after the value: `rsync -e ssh` runs `ssh HOST rsync --server
/// …`, `rg --pre CMD` runs `CMD FILE`, `tar -I PROG` runs `PROG -d`, tar's
/// and cpio's remote shell `RSH HOST -l USER /etc/rmt`. The value is read
/// with a word after it that may be anything, as xargs's command is
/// (`rsync -e /bin/rm victim:x .` ran `/bin/rm victim rsync --server …`
/// under `deny = ["rm *"]`, which `/bin/rm` alone does not match).
#[rustfmt::skip]
const APPENDS_WORDS: &[(&str, &[char], &[&str])] = &[
    ("tar", &['I'], &["--use-compress-program", "--rsh-command"]),
    ("pandoc", &['F'], &["--filter"]),
    ("install", &[], &["--strip-program"]),
    ("sort", &[], &["--compress-program"]),
    ("cpio", &[], &["--rsh-command"]),
    ("rclone", &[], &["--sftp-ssh"]),
    ("borg", &[], &["--rsh", "--remote-path"]),
    ("hg", &['e'], &["--ssh", "--remotecmd"]),
    ("svn", &[], &["--editor-cmd", "--diff-cmd", "--diff3-cmd"]),
    ("aria2c", &[], &["--on-download-start", "--on-download-pause", "--on-download-complete",
        "--on-download-stop", "--on-download-error", "--on-bt-download-complete"]),
    ("gpg", &[], &["--agent-program", "--dirmngr-program", "--keyboxd-program"]),
    ("gpg2", &[], &["--agent-program", "--dirmngr-program", "--keyboxd-program"]),
    ("gpgsm", &[], &["--agent-program", "--dirmngr-program", "--keyboxd-program"]),
    ("gpg-agent", &[], &["--pinentry-program", "--scdaemon-program"]),
    ("helm", &[], &["--post-renderer"]),
    ("rsync", &['e'], &["--rsh", "--rsync-path"]),
    ("scp", &['S'], &[]),
    ("rg", &[], &["--pre"]),
    ("zip", &[], &["--unzip-command"]),
    ("tcpdump", &['z'], &[]),
    ("wget", &[], &["--use-askpass"]),
    ("diff3", &[], &["--diff-program"]),
    ("sdiff", &[], &["--diff-program"]),
];

/// Whether `name`'s option (its short `letter`, or a long one of which
/// `option` is a prefix) runs its value with words after it ([`APPENDS_WORDS`]).
fn appends_words(name: &str, letter: Option<char>, option: &str) -> bool {
    APPENDS_WORDS.iter().filter(|(tool, _, _)| *tool == name).any(|(_, short, long)| match letter {
        Some(letter) => short.contains(&letter),
        None => long.iter().any(|full| is_prefix(option, &full[2..])),
    })
}

/// `value` as a line with the words its tool adds after it: `"$@"`, what
/// may be anything. ssh is left as written: what these tools add to it is
/// a host, which they refuse to start with a dash (rsync 3.4: "hostnames
/// may not start with '-'"), and a command of their own that runs there
/// (`rsync --server …`), so `rsync -e 'ssh -p 22'` is judged as that ssh.
pub(super) fn with_words(value: Word) -> Word {
    let program = value.text().split_whitespace().next().map(super::program_name);
    match value {
        _ if program == Some("ssh") => value,
        Word::Literal(line) => Word::Literal(format!("{line} \"$@\"")),
        Word::Expands(line) => Word::Expands(format!("{line} \"$@\"")),
    }
}

/// Programs that read commands of their own, which may run a shell's
/// (`!CMD`), from their input (vim takes its keys from a pipe) or their
/// options (`vim -c`, `gdb -ex`), or make them of templates (GNU parallel's
/// `{}` and `:::`, hyperfine's `{x}` and `--prepare`): only running tells
/// what they run.
/// sftp, ftp, lftp and smbclient run a local shell's `!CMD` read from their
/// input or a batch file; tmux and screen run the commands of their own
/// they are given (`tmux new -d 'LINE'`, `send-keys`, `screen -X stuff`),
/// dtach and abduco the command of a session they start (`dtach -n S
/// CMD`) and the keys of the one they attach; GNU parallel's `sem` and
/// `niceload` run a command as parallel makes it; `crontab FILE` (or its
/// input) gives cron the lines it runs later. ClusterShell's clush, Salt's
/// `salt`, `salt-call` and `salt-ssh` (`cmd.run LINE`, and every module
/// that runs one), and mosh run a command on machines, here too; watchexec,
/// nodemon and reflex run theirs each time a file changes (from options, a
/// configuration file, or the words after theirs, through a shell or not);
/// a terminal emulator runs its `-e` command or the user's shell, which
/// runs what is typed in it. dotenv, dotenvx and env-cmd run their command
/// with the variables of a file (`.env` by default), which may be
/// `LD_PRELOAD`. dex and gtk-launch run the `Exec` line of a desktop file
/// (`gio launch FILE` too, below). xe and rush run a command they make of
/// a template and their input, as parallel does (xe also a shell's line,
/// `-s`; GNU's `rush`, a restricted shell, the lines its rules allow), as
/// GNU pexec does; moreutils' pee and mispipe run each of their words as a
/// shell's line, and its zrun the command with its files' names replaced;
/// nq, task-spooler's tsp and pueue queue a command that runs later;
/// expect runs what its script spawns; schedtool its `-e` command among
/// options of its own; run-parts every program of a directory; libslack's
/// daemon its command as a daemon; zellij and byobu (tmux's or screen's)
/// the commands of their sessions; hwloc-bind its command after locations
/// only it can tell from a command's name; retry (of several authors, each
/// with options of its own) and caffeinate theirs. GNU dc runs `!LINE`,
/// m4 its `syscmd` and `esyscmd`, gnuplot `system(…)` and `!LINE`, from
/// any of their input, as ed does. The dynamic loader, run by its name
/// (`/lib64/ld-linux-x86-64.so.2 /bin/rm x`), runs the program after its
/// options, which may load any library (`--preload`, `--audit`); glibc's
/// memusage and xtrace run theirs after options of their own; cset its
/// `--exec` command in a cpuset; Charliecloud's ch-run its command in an
/// image, and lima its in the virtual machine; fzf its `--preview` and
/// `--bind` commands; scl its command after any number of collections;
/// PBS's qsub and LSF's bsub the job they are given, from their words or
/// input (Slurm's sbatch and srun are read: `slurm.rs`). envchain and
/// summon run their command with variables from a keychain or a secrets
/// file (which may be `LD_PRELOAD`, as envdir's); concurrently runs each
/// word as a shell's line. pkgx runs its command after `+PKG` words (a
/// program of a package it fetches), Blink an x86-64 program, SELinux's
/// sandbox and landrun (Landlock) theirs after options not read here.
#[rustfmt::skip]
const READS_COMMANDS: &[&str] = &["ed", "ex", "at", "batch", "gdb", "vim", "vi", "nvim", "view", "vimdiff",
    "lldb", "parallel", "hyperfine", "sftp", "ftp", "lftp", "smbclient", "tmux", "screen", "dtach", "abduco", "sem",
    "niceload", "crontab", "clush", "salt", "salt-call", "salt-ssh", "mosh", "watchexec", "nodemon", "reflex",
    "xterm", "uxterm", "x-terminal-emulator", "gnome-terminal", "konsole", "kitty", "alacritty", "wezterm",
    "foot", "urxvt", "rxvt", "terminator", "tilix", "xfce4-terminal", "lxterminal", "mate-terminal",
    "qterminal", "dotenv", "dotenvx", "env-cmd", "dex", "gtk-launch", "xe", "rush", "pexec", "pee", "mispipe",
    "zrun", "nq", "tsp", "expect", "schedtool", "run-parts", "daemon", "pueue", "zellij", "byobu", "hwloc-bind", "retry",
    "caffeinate", "dc", "m4", "gnuplot", "ld.so", "ld-linux.so.2", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
    "ld-linux-armhf.so.3", "ld-linux-riscv64-lp64d.so.1", "ld64.so.1", "ld64.so.2", "ld-musl-x86_64.so.1",
    "ld-musl-aarch64.so.1", "memusage", "xtrace", "cset", "ch-run", "lima", "fzf", "scl", "qsub", "bsub",
    "envchain", "summon", "concurrently", "pkgx", "blink", "sandbox", "landrun"];

const SED: &[&str] = &["sed", "gsed"];
const AWK: &[&str] = &["awk", "gawk", "mawk", "nawk", "original-awk"];

/// Every tool read here, by name.
pub(super) fn names() -> impl Iterator<Item = &'static str> {
    let options = COMMAND_OPTIONS.iter().map(|&(program, _, _)| program);
    let options = options
        .chain(PASSES_NO_LIST.iter().map(|&(program, _, _)| program))
        .chain(RUNS_A_COMMAND.iter().map(|&(program, _)| program))
        .chain(code_options::C_COMPILERS.iter().chain(code_options::APT).copied())
        .chain(code_options::PLUGIN_LOADERS.iter().copied());
    let remote = remote_commands::NAMES.iter().chain(sql_clients::NAMES);
    let read = SED.iter().chain(AWK).chain(SSH).chain(READS_COMMANDS).chain(remote).copied();
    read.chain(options).chain(["git", "socat"])
}

/// What kind of tool `name` is read as, if it is read here.
pub(super) fn kind(name: &str) -> Option<Tool> {
    if name == "git" {
        Some(Tool::Git)
    } else if name == "socat" {
        Some(Tool::Socat)
    } else if name == "ansible" {
        Some(Tool::Ansible)
    } else if SED.contains(&name) {
        Some(Tool::Sed)
    } else if AWK.contains(&name) {
        Some(Tool::Awk)
    } else if read_for_options(name) {
        Some(Tool::Options)
    } else if READS_COMMANDS.contains(&name) {
        Some(Tool::Commands)
    } else if remote_commands::NAMES.contains(&name) {
        Some(Tool::Remote)
    } else if sql_clients::NAMES.contains(&name) {
        Some(Tool::Sql)
    } else {
        None
    }
}

/// Whether `name`'s options may load code or run programs by their paths:
/// a C compiler's, binutils' plugin loaders', APT's ([`code_options`]).
pub(super) fn loads_code(name: &str) -> bool {
    code_options::is_c_compiler(name)
        || code_options::loads_plugins(name)
        || code_options::APT.contains(&name)
}

/// Whether `name` is read for its options ([`Tool::Options`]).
fn read_for_options(name: &str) -> bool {
    SSH.contains(&name)
        || COMMAND_OPTIONS.iter().any(|&(program, _, _)| program == name)
        || PASSES_NO_LIST.iter().any(|&(program, _, _)| program == name)
        || RUNS_A_COMMAND.iter().any(|&(program, _)| program == name)
        || loads_code(name)
}

/// The tools read here.
pub(super) enum Tool {
    /// sed, whose script may run commands.
    Sed,
    /// awk, whose program may run commands.
    Awk,
    /// A program with options whose value is a command.
    Options,
    /// A program that runs commands of its own, from its input or options.
    Commands,
    /// git, whose configuration and options may name commands.
    Git,
    /// socat, whose `EXEC:` and `SYSTEM:` addresses run commands.
    Socat,
    /// ansible's ad-hoc commands (`-m shell -a LINE`).
    Ansible,
    /// A tool that runs a command line on other machines ([`remote_commands`]).
    Remote,
    /// An SQL shell, whose own commands may run one ([`sql_clients`]).
    Sql,
}

/// What `name` given `args` runs besides itself: each command line it is
/// given (a word that expands is one only running tells), or
/// [`Given::Input`] when it runs what only running tells.
pub(super) fn commands(name: &str, args: &[Word]) -> Vec<Given> {
    match kind(name) {
        None => return Vec::new(),
        Some(Tool::Sed) => return scripts::sed(args),
        Some(Tool::Awk) => return scripts::awk(args),
        Some(Tool::Commands) if name == "crontab" => return crontab(args),
        Some(Tool::Commands) => return own_commands(args),
        Some(Tool::Git) => return git_commands::commands(args),
        Some(Tool::Socat) => return socat(args),
        Some(Tool::Ansible) => return ansible(args),
        Some(Tool::Remote) => return remote_commands::given(name, args),
        Some(Tool::Sql) => return sql_clients::given(name, args),
        Some(Tool::Options) if name == "gh" => return gh(args),
        // `gpg-agent --daemon CMD ARGS` runs CMD beside the agent; a word
        // that is no option may be it (or an option's value: refusing more).
        Some(Tool::Options)
            if name == "gpg-agent"
                && args.iter().any(|w| w.literal() == Some("--daemon"))
                && args.iter().any(|w| !w.text().starts_with('-')) =>
        {
            return vec![Given::Input];
        }
        Some(Tool::Options)
            if RUNS_A_COMMAND
                .iter()
                .any(|&(tool, sub)| tool == name && args.iter().any(|w| w.literal() == Some(sub))) =>
        {
            return vec![Given::Input];
        }
        Some(Tool::Options) => {}
    }
    let mut found = Vec::new();
    let options = COMMAND_OPTIONS.iter().find(|(program, _, _)| *program == name);
    let ssh = SSH.contains(&name);
    let (short, long) = options.map_or((&[][..], &[][..]), |&(_, short, long)| (short, long));
    // tar's first word without a dash is a cluster of its options, whose
    // values follow in order: not followed.
    if name == "tar"
        && args.first().is_some_and(|w| !w.text().starts_with('-') && w.text().contains(['I', 'F']))
    {
        return vec![Given::Input];
    }
    if matches!(name, "make" | "gmake") && make::defines_code(args) {
        return vec![Given::Input];
    }
    // ssh's options stop where its remote command starts (`ssh h grep -F x`).
    let mut args = args;
    if name == "ssh" {
        let (command, given) = ssh_remote_command(args);
        found.extend(given);
        args = &args[..command];
    }
    let mut at = 0;
    while let Some(word) = args.get(at) {
        at += 1;
        let (text, value_at) = (word.text(), at);
        if text == "--" {
            break;
        }
        if hides_an_option(word) && !tool_values::value_glued(name, args, text) {
            return vec![Given::Input];
        }
        if passes_no_list(name, word, args.get(at)) {
            return vec![Given::Input];
        }
        if (name == "cargo" && cargo_config_runs(word, args, &mut at))
            || (name == "go" && go_links_with(word, args, &mut at))
        {
            return vec![Given::Input];
        }
        if name == "go"
            && let Some(program) = go_program(word, args, &mut at)
        {
            found.push(Given::Line(program));
            continue;
        }
        if let Some(option) = text.strip_prefix("--") {
            let (option, value) = split_value(option);
            if name == "wget" && is_prefix(option, "config") {
                // A wgetrc of the plan's may say `use_askpass = CMD`.
                return vec![Given::Input];
            }
            if name == "wget" && is_prefix(option, "execute") {
                let value = value.map(|v| literal_like(word, v)).or_else(|| take(args, &mut at));
                found.extend(wgetrc_command(value));
                continue;
            }
            if name == "restic" && option == "option" {
                let value = value.map(|v| literal_like(word, v)).or_else(|| take(args, &mut at));
                found.extend(value.and_then(|value| restic_option(&value)));
                continue;
            }
            // man's browser for `--html[=BROWSER]` (its value only glued).
            if name == "man" && option.len() > 1 && is_prefix(option, "html") {
                found.extend(value.map(|v| Given::Line(Some(literal_like(word, v)))));
                continue;
            }
            // `--checkpoint` is an option of its own (its value only after `=`).
            let checkpoint =
                name == "tar" && option != "checkpoint" && is_prefix(option, "checkpoint-action");
            if checkpoint || long.iter().any(|full| is_prefix(option, &full[2..])) {
                let value = value.map(|v| literal_like(word, v)).or_else(|| take(args, &mut at));
                match value {
                    // tar's `exec=CMD` action; its others run nothing.
                    Some(Word::Literal(action)) if checkpoint => {
                        if let Some(line) = action.strip_prefix("exec=") {
                            found.push(Given::Line(Some(Word::Literal(line.to_string()))));
                        }
                    }
                    value if appends_words(name, None, option) => {
                        found.push(Given::Line(value.map(with_words)))
                    }
                    value => found.push(Given::Line(value)),
                }
            }
        } else if name == "zip" && text.starts_with("-TT") {
            // The archive's name goes after the command (or where `{}` is).
            found.push(Given::Line(attached(word, &text[3..], args, &mut at).map(with_words)));
        } else if let Some(cluster) = text.strip_prefix('-') {
            for (i, letter) in cluster.char_indices() {
                let rest = &cluster[i + letter.len_utf8()..];
                if short.contains(&letter) {
                    let value = attached(word, rest, args, &mut at);
                    let appends = appends_words(name, Some(letter), "");
                    found.push(Given::Line(if appends { value.map(with_words) } else { value }));
                    break;
                }
                if name == "wget" && letter == 'e' {
                    found.extend(wgetrc_command(attached(word, rest, args, &mut at)));
                    break;
                }
                // `man -HBROWSER`: the rest of the word, if any, runs the page.
                if name == "man" && letter == 'H' {
                    found.extend((!rest.is_empty()).then(|| Given::Line(Some(literal_like(word, rest)))));
                    break;
                }
                if PASSES_NO_LIST.iter().any(|&(tool, letters, _)| tool == name && letters.contains(letter)) {
                    return vec![Given::Input];
                }
                if name == "restic" && letter == 'o' {
                    found.extend(attached(word, rest, args, &mut at).and_then(|value| restic_option(&value)));
                    break;
                }
                if ssh && letter == 'o' {
                    if let Some(value) = attached(word, rest, args, &mut at) {
                        found.extend(ssh_option(&value));
                    }
                    break;
                }
                if name == "sshfs" && letter == 'o' {
                    found.extend(
                        attached(word, rest, args, &mut at).map_or_else(Vec::new, |v| sshfs_options(&v)),
                    );
                    break;
                }
                // The rest of the word is the value of ssh's option (`-lFred`).
                if ssh && SSH_VALUED.contains(letter) {
                    break;
                }
            }
        }
        // The next word is the value of an option that takes one there
        // (`tar -czf "$OUT"`): no option, if it stays one word.
        let next_is_value =
            |next: &Word| !next.splits() && !next.literal().is_some_and(|t| t.starts_with('-'));
        if at == value_at
            && word.literal().is_some()
            && tool_values::value_follows(name, args, text)
            && args.get(at).is_some_and(next_is_value)
        {
            at += 1;
        }
    }
    found
}

/// What socat's addresses run: `EXEC:CMD` and `SYSTEM:LINE` (socat 1.8's
/// `SHELL:LINE` too, any case, either side of a `!!`), up to the address's
/// options after a `,`, read as a command line. One written with socat's
/// own quoting or escapes, and a word that expands (it may be such an
/// address), are what only running tells.
/// What `gh` keeps to run later: `gh alias set NAME --shell LINE` (or an
/// expansion that starts with `!`) makes `gh NAME` run LINE through a
/// shell (gh 2.23 ran the canary so), `gh alias import` takes such aliases
/// from a file, and `gh config set` of `editor`, `pager` or `browser` names
/// a program it runs: no list, as `git config alias.x '!…'` passes none.
/// So does `gh extension install` (a repository's or a directory's program,
/// which `gh NAME` runs: gh 2.23 ran the canary so), `exec` and `upgrade`.
fn gh(args: &[Word]) -> Vec<Given> {
    let operands: Vec<&Word> = args.iter().filter(|w| !w.text().starts_with('-')).collect();
    let text = |i: usize| operands.get(i).map(|w| w.literal());
    let runs_later = match (text(0), text(1)) {
        (Some(None), _) | (Some(Some("alias" | "config")), Some(None)) => true,
        (Some(Some("alias")), Some(Some("set"))) => {
            args.iter().any(|w| matches!(w.text(), "-s" | "--shell"))
                || text(3).is_some_and(|expansion| expansion.is_none_or(|e| e.starts_with('!')))
        }
        (Some(Some("alias")), Some(Some("import"))) => true,
        // An extension is a repository's program (`gh extension install .`
        // takes a directory's), which `gh NAME` and `extension exec` run.
        (
            Some(Some("extension" | "extensions" | "ext")),
            Some(None | Some("install" | "exec" | "upgrade")),
        ) => true,
        (Some(Some("config")), Some(Some("set"))) => {
            text(2).is_some_and(|key| key.is_none_or(|k| matches!(k, "editor" | "pager" | "browser")))
        }
        _ => false,
    };
    if runs_later { vec![Given::Input] } else { Vec::new() }
}

/// The program of `go test -exec PROG`, `go run -exec PROG`, `go build
/// -toolexec CMD` or `go vet -vettool=PROG`, when `word` is that flag: each
/// one the Go tool runs (the test binary, every compiler tool, the
/// analyzer given to it). Go's flags take one dash or two, the value after
/// `=` or in the next word.
fn go_program(word: &Word, args: &[Word], at: &mut usize) -> Option<Option<Word>> {
    let flag = word.text().strip_prefix('-').map(|f| f.strip_prefix('-').unwrap_or(f))?;
    let (name, value) = split_value(flag);
    matches!(name, "exec" | "toolexec" | "vettool")
        .then(|| value.map(|v| literal_like(word, v)).or_else(|| take(args, at)))
}

/// Whether `word` is the Go tool's `-ldflags` naming the external linker
/// or archiver the linker runs (`-extld=PROG`, `-extar=PROG`: `go build
/// -ldflags '-linkmode=external -extld=canary'` ran it), or one that
/// expands; its value is taken either way.
fn go_links_with(word: &Word, args: &[Word], at: &mut usize) -> bool {
    let Some(flag) = word.text().strip_prefix('-').map(|f| f.strip_prefix('-').unwrap_or(f)) else {
        return false;
    };
    let (name, value) = split_value(flag);
    if name != "ldflags" {
        return false;
    }
    match value.map(|v| literal_like(word, v)).or_else(|| take(args, at)) {
        Some(Word::Literal(flags)) => flags.contains("extld") || flags.contains("extar"),
        Some(Word::Expands(_)) => true,
        None => false,
    }
}

/// Whether `word` is cargo's `--config KEY=VALUE` of a key that names a
/// program it runs (`build.rustc-wrapper`, a target's `runner` or
/// `linker`, a credential provider, an alias, `doc.browser`) or sets its
/// programs' environment (`env.…`), or `--config FILE` (which may say any
/// of it). (`cargo build --config 'build.rustc-wrapper="canary"'` ran the
/// canary.)
fn cargo_config_runs(word: &Word, args: &[Word], at: &mut usize) -> bool {
    const RUNS: &[&str] = &[
        "build.rustc",
        "build.rustdoc",
        "target.",
        "host.",
        "registry.",
        "registries.",
        "credential",
        "alias.",
        "env.",
        "doc.browser",
        "cargo-new",
    ];
    let value = match word.text().strip_prefix("--config") {
        Some("") => take(args, at),
        Some(glued) if glued.starts_with('=') => Some(literal_like(word, &glued[1..])),
        _ => return false,
    };
    let Some(Word::Literal(value)) = value else { return true };
    let key = value.split_once('=').map(|(key, _)| key.trim().trim_matches('"'));
    key.is_none_or(|key| RUNS.iter().any(|runs| key.starts_with(runs)))
}

fn socat(args: &[Word]) -> Vec<Given> {
    let mut found = Vec::new();
    for word in args {
        let Some(text) = word.literal() else { return vec![Given::Input] };
        for address in text.split("!!") {
            let Some((kind, rest)) = address.split_once(':') else { continue };
            if !["exec", "system", "shell"].iter().any(|k| kind.eq_ignore_ascii_case(k)) {
                continue;
            }
            if rest.contains(['\\', '"', '\'', '[', '{', '(']) {
                return vec![Given::Input];
            }
            let line = rest.split(',').next().unwrap_or_default();
            found.push(Given::Line(Some(Word::Literal(line.to_string()))));
        }
    }
    found
}

/// What a program that runs commands of its own runs: what only running
/// tells, unless it is only asked its version or its help.
fn own_commands(args: &[Word]) -> Vec<Given> {
    match args {
        [only] if matches!(only.literal(), Some("--version" | "--help")) => Vec::new(),
        _ => vec![Given::Input],
    }
}

/// ansible's modules whose arguments are a command line (`shell`, and
/// `raw`, which the remote shell runs) or a command (`command`, the
/// default, whose words ansible splits as a shell would).
const ANSIBLE_COMMANDS: &[&str] = &["shell", "command", "raw"];

/// `ansible HOSTS [-m MODULE] -a ARGS`: on the hosts (the machine itself
/// with `localhost` or `-c local`), the command line of `-a` where the
/// module runs one; a module or arguments that expand, only running tells.
/// Its options are argparse's, anywhere, a long one by any prefix.
fn ansible(args: &[Word]) -> Vec<Given> {
    let (mut module, mut line) = (Some(Word::Literal("command".to_string())), None);
    let mut at = 0;
    while let Some(word) = args.get(at) {
        let text = word.text();
        let long = |whole: &str| text.len() > 3 && whole.starts_with(text.split('=').next().unwrap_or(text));
        let value = |short: &str, whole: &str| -> Option<Option<Word>> {
            if text == short || (text.starts_with("--") && !text.contains('=') && long(whole)) {
                return Some(args.get(at + 1).cloned());
            }
            let glued = match text.strip_prefix(short) {
                Some(rest) if !rest.is_empty() && !text.starts_with("--") => Some(rest),
                _ => text.split_once('=').filter(|_| text.starts_with("--") && long(whole)).map(|(_, v)| v),
            };
            glued.map(|v| Some(literal_like(word, v)))
        };
        if let Some(found) = value("-m", "--module-name") {
            module = found;
        } else if let Some(found) = value("-a", "--args") {
            line = found;
        }
        at += 1;
    }
    match module.as_ref().map(Word::literal) {
        None => Vec::new(),
        Some(None) => vec![Given::Input],
        Some(Some(name)) => {
            let name = name.rsplit('.').next().unwrap_or(name);
            if ANSIBLE_COMMANDS.contains(&name) { vec![Given::Line(line)] } else { Vec::new() }
        }
    }
}

/// `crontab [-u USER] [FILE | -]` installs the table of FILE or its input
/// (vixie cron, cronie, busybox: without a file too), whose lines cron
/// runs later: only reading it tells what. `-l`, `-r` and `-e` (the
/// editor's, as `EDITOR` says) install none.
fn crontab(args: &[Word]) -> Vec<Given> {
    let mut at = 0;
    while let Some(text) = args.get(at).and_then(Word::literal) {
        match text {
            "-u" => at += 2,
            _ if text.starts_with('-') && text.len() > 1 && text[1..].contains(['l', 'r', 'e', 'V']) => {
                return Vec::new();
            }
            _ if text.starts_with('-') && text.len() > 1 => at += 1,
            _ => break,
        }
    }
    vec![Given::Input]
}

/// What wget's `-e COMMAND` (a line of a wgetrc) runs: `use_askpass =
/// CMD` runs CMD (wget takes a command's name without case, `_` or `-`); a
/// command that expands, what only running tells.
fn wgetrc_command(command: Option<Word>) -> Option<Given> {
    let command = command?;
    let Some(text) = command.literal() else { return Some(Given::Input) };
    let (key, value) = text.split_once('=')?;
    let key: String = key.chars().filter(|c| !matches!(c, '_' | '-' | ' ' | '\t')).collect();
    key.eq_ignore_ascii_case("useaskpass").then(|| Given::Line(Some(Word::Literal(value.trim().to_string()))))
}

/// What restic's `-o KEY=VALUE` runs: `sftp.command`'s line (ssh's, by
/// default), `rclone.program`; `rclone.args` are rclone's, which may name
/// a command of their own (`--password-command`), and a key that expands
/// may be either.
fn restic_option(option: &Word) -> Option<Given> {
    let text = option.text();
    let (key, value) = text.split_once('=').unwrap_or((text, ""));
    match key {
        "sftp.command" | "rclone.program" => Some(Given::Line(Some(literal_like(option, value)))),
        "rclone.args" => Some(Given::Input),
        _ if option.literal().is_none() && key.contains(['$', '`', '\\', '"', '\'']) => Some(Given::Input),
        _ => None,
    }
}

/// Options whose word alone passes no list: a setting or a file of
/// settings that may name anything to run (`hg --config
/// hooks.pre-status=CMD`, `svn --config-option config:tunnels:x=CMD`,
/// aria2's `--conf-path`), a library loaded (openssl's `-engine ID`, which
/// may be a library's path: openssl 3.0 ran its constructor before it
/// found no engine in it; a directory of providers). A long one is taken
/// by any prefix of its name, as getopt_long takes one (refusing more,
/// never less); one with a single dash only whole, or before `=`. Each
/// tool's short letters that do so come first (`curl -sK FILE`, anywhere
/// in a cluster).
#[rustfmt::skip]
const PASSES_NO_LIST: &[(&str, &str, &[&str])] = &[
    // A subcommand's `-config` file loads the providers and engines it
    // names (`openssl genpkey -config x.cnf` ran one's constructor).
    ("openssl", "", &["-engine", "-keygen_engine", "-ssl_client_engine", "-provider-path", "-config"]),
    ("hg", "", &["--config"]),
    ("svn", "", &["--config-option", "--config-dir"]),
    ("aria2c", "", &["--conf-path"]),
    // ssh's and scp's `-F FILE` (a configuration) and ssh's `-I LIB` (a
    // PKCS#11 library).
    ("ssh", "FI", &[]),
    ("scp", "FI", &[]),
    // curl loads an engine by its path (`curl --engine /abs/e.so URL` ran its
    // constructor), and a file of options (`-K FILE`) may name one.
    ("curl", "K", &["--engine", "--config"]),
    // `borg create --content-from-command ARCHIVE -- CMD` runs CMD and backs
    // up its output (`--paths-from-command`: the paths it prints), as
    // argparse reads the words after the archive.
    ("borg", "", &["--content-from-command", "--paths-from-command"]),
    // restic 0.17's `backup --stdin-from-command CMD ARGS` runs CMD and backs
    // up its output (its changelog: `--stdin-from-command mysqldump …`).
    ("restic", "", &["--stdin-from-command"]),
    // GnuPG's files of options may name any of its programs; gpg's
    // `--exec-path` is where it looks for them; gpg-connect-agent's
    // `--exec` runs the words after it as its server.
    ("gpg", "", &["--options", "--exec-path"]),
    ("gpg2", "", &["--options", "--exec-path"]),
    ("gpgsm", "", &["--options"]),
    ("gpg-agent", "", &["--options"]),
    ("gpg-connect-agent", "E", &["--exec"]),
    // man-db's configuration file may define the pager and filters it runs.
    ("man", "C", &["--config-file"]),
    // make's `--eval TEXT` is read as a makefile's: its recipes are lines
    // a shell runs (`make --eval 'x:;rm v' x`).
    ("make", "E", &["--eval"]),
    ("gmake", "E", &["--eval"]),
    // sshfs's `-F FILE`, an ssh configuration (its `-o`, below).
    ("sshfs", "F", &[]),
    // just's `--command CMD…` runs CMD (with the variables of `.env`), and
    // its shell options name the program its recipes run with.
    ("just", "c", &["--command", "--shell", "--shell-arg", "--shell-command"]),
    // dpkg's hooks (each a line it runs with `sh -c`); npm's settings that
    // name a program it runs, or a file of settings that may.
    ("dpkg", "", &["--pre-invoke", "--post-invoke", "--status-logger"]),
    ("npm", "", &["--script-shell", "--node-options", "--userconfig", "--globalconfig", "--editor",
        "--browser", "--git", "--shell"]),
];

/// A subcommand that makes a tool run a command given after it, or one only
/// running tells: `borg with-lock REPO CMD ARGS` (with the lock held), `gio
/// launch FILE.desktop` (the file's `Exec` line), `snap run [--shell] APP`
/// (a snap's program, or a shell that reads its input), `tox exec -e ENV
/// -- CMD`, `volta run`, `fnm exec`, and those that run one in a machine or
/// a container: `multipass exec`, `runc exec`, `ddev exec` and `ssh`,
/// `enroot start` and `exec`, `limactl shell`, `podman-compose run` and
/// `exec`; `devbox run`, `spack build-env SPEC -- CMD`, `nx exec -- CMD`,
/// `lerna exec -- CMD` (in each package), `honcho run CMD` (with the
/// variables of `.env`) and `cargo watch` (`-s LINE`, `-x CMD`). Each after
/// options of its own, which are not read here.
#[rustfmt::skip]
const RUNS_A_COMMAND: &[(&str, &str)] = &[("borg", "with-lock"), ("gio", "launch"), ("snap", "run"),
    ("tox", "exec"), ("volta", "run"), ("fnm", "exec"), ("multipass", "exec"), ("runc", "exec"),
    ("ddev", "exec"), ("ddev", "ssh"), ("enroot", "start"), ("enroot", "exec"), ("limactl", "shell"),
    ("podman-compose", "run"), ("podman-compose", "exec"), ("devbox", "run"), ("spack", "build-env"),
    ("nx", "exec"), ("lerna", "exec"), ("honcho", "run"), ("cargo", "watch")];

/// Whether `word` of `name`'s (the word after it `next`) passes no list:
/// one of [`PASSES_NO_LIST`], a provider openssl loads by its path, or
/// Maven's `exec.executable` property (`mvn exec:exec
/// -Dexec.executable=rm -Dexec.args=x` runs `rm x`; `-D KEY=VALUE` and
/// `--define` too).
fn passes_no_list(name: &str, word: &Word, next: Option<&Word>) -> bool {
    let text = word.text();
    let listed =
        PASSES_NO_LIST.iter().find(|(tool, _, _)| *tool == name).map_or(&[][..], |&(_, _, options)| options);
    let named = |option: &&str| match (option.strip_prefix("--"), text.strip_prefix("--")) {
        (Some(full), Some(given)) => is_prefix(split_value(given).0, full),
        _ => text == *option || text.strip_prefix(*option).is_some_and(|rest| rest.starts_with('=')),
    };
    if listed.iter().any(named) {
        return true;
    }
    let next_text = || next.map_or("", Word::text);
    match name {
        "openssl" if text == "-provider" => {
            next.is_none_or(|value| value.literal().is_none_or(|p| p.contains('/')))
        }
        _ if code_options::is_c_compiler(name) => code_options::compiler_runs(word, next),
        _ if code_options::APT.contains(&name) => code_options::apt_option_runs(word, next),
        _ if code_options::loads_plugins(name) => code_options::plugin_option(word),
        "mvn" | "mvnw" => {
            let define = match text {
                "-D" | "--define" => next_text(),
                _ => text.strip_prefix("-D").or_else(|| text.strip_prefix("--define=")).unwrap_or(""),
            };
            define.starts_with("exec.executable")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests;
