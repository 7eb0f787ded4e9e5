//! What a program is given to run besides its own arguments: the command
//! line of `sh -c LINE` and of the programs that hand one to a shell (`su
//! -c`, `env -S`, `watch`, `sg`, a trap's action), or its input (`… | sh`);
//! what a runner runs ([`Start`], [`Runs`], [`Besides`]); and the reading
//! of an option's value that the tools' and runners' readers share
//! ([`take`], [`attached`], [`hides_an_option`]), here so none of them
//! imports another.

use super::SHELLS;
use crate::shell::parse::{self, Word};

/// Programs whose `-c LINE` runs LINE through a shell, as a shell's does.
pub(super) const RUN_LINE: &[&str] = &["su", "runuser", "script", "flock"];

/// The options of [`RUN_LINE`]'s programs that take a value besides
/// `-c`: short letters, long names (util-linux 2.38's `--help`). In a
/// cluster such a letter takes the rest as its value (`su -sc LINE user`
/// runs the shell `c`; `script -T -c F` starts a shell that reads its
/// input), else the next word.
#[rustfmt::skip]
const LINE_VALUED: &[(&str, &str, &[&str])] = &[
    ("su", "gGsw", &["group", "supp-group", "shell", "whitelist-environment"]),
    ("runuser", "gGswu", &["group", "supp-group", "shell", "whitelist-environment", "user"]),
    ("script", "IOBTmEo",
        &["log-in", "log-out", "log-io", "log-timing", "logging-format", "echo", "output-limit"]),
    ("flock", "wE", &["timeout", "conflict-exit-code"]),
];

/// Programs that start a shell when they are given no command, which then
/// runs its input (`echo 'rm x' | sudo -s`, `su`, `unshare -r`).
#[rustfmt::skip]
pub(super) const STARTS_A_SHELL: &[&str] = &[
    "sudo", "su", "runuser", "doas", "pkexec", "unshare", "nsenter", "chroot", "script", "sg", "newgrp",
    "firejail", "fakeroot", "login", "systemd-run", "torsocks", "systemd-nspawn", "lxc-attach", "run0",
    "proot", "fakechroot", "schroot", "sudo-rs", "arch-chroot", "tsocks",
];

/// Programs that join the words after their own options (and `sg`'s
/// group) into a line a shell runs, with the options of theirs that take a
/// value.
const JOIN_LINE: &[(&str, &[&str])] = &[("watch", &["-n", "-q", "--interval", "--equexit"]), ("sg", &[])];

/// The command line a program runs through a shell, if it is given one: a
/// shell's first operand when `c` is among its flags (`sh -c LINE`, `sh
/// -ec LINE`, `bash -o pipefail -c LINE`); the value of `-c` of `su`,
/// `runuser`, `script` and `flock` (`-c LINE`, `-qc LINE`, `-cLINE`,
/// `--command=LINE`); `Line(None)`: given, but missing. A word that
/// expands before it may be `-c` itself: then that word, which names no
/// program. A shell given neither LINE nor a script (or given `-s`) runs
/// its input.
pub(super) fn command_line(name: &str, args: &[Word]) -> Option<Given> {
    let flags = |text: &str| {
        text.len() > 1 && text.starts_with(['-', '+']) && text[1..].bytes().all(|b| b.is_ascii_alphabetic())
    };
    if SHELLS.contains(&name) {
        let (mut c, mut s) = (false, false);
        let mut at = 0;
        while let Some(arg) = args.get(at) {
            match arg.literal() {
                // A lone `-` ends the options as `--` does (`sh -c - LINE`).
                Some("--" | "-") => {
                    return Some(match args.get(at + 1) {
                        _ if c => Given::Line(args.get(at + 1).cloned()),
                        Some(_) if !s => return None,
                        _ => Given::Input,
                    });
                }
                Some("--version" | "--help") => return None,
                Some("--rcfile" | "--init-file") => at += 2,
                // `-o NAME` and bash's `-O NAME` take the next word, also
                // in a cluster (`bash -euo pipefail -c LINE`).
                Some(text) if flags(text) => {
                    if text.starts_with('-') {
                        c |= text.contains('c');
                        s |= text.contains('s');
                    }
                    at += 1 + text.matches(['o', 'O']).count();
                }
                Some(text) if text.starts_with(['-', '+']) && text.len() > 1 => at += 1,
                Some(_) if c => return Some(Given::Line(Some(arg.clone()))),
                // A script, unless `-s` reads the commands from the input
                // or the script is the input (`sh /dev/stdin <<EOF`).
                Some(script) => return (s || is_input(script)).then_some(Given::Input),
                // Last and one word (`sh -e "$f"`): a script, or a flag
                // with nothing after it.
                None if !c && at + 1 == args.len() && !parse::may_split(arg.text()) => {
                    return s.then_some(Given::Input);
                }
                // It may be `-c` (`sh "$A" "$B"`): what runs is not known.
                None => return Some(Given::Line(Some(arg.clone()))),
            }
        }
        return Some(if c { Given::Line(None) } else { Given::Input });
    }
    // `. /dev/stdin <<EOF` runs its input as a script.
    if matches!(name, "." | "source") {
        return args.first().and_then(Word::literal).is_some_and(is_input).then_some(Given::Input);
    }
    if !RUN_LINE.contains(&name) {
        return None;
    }
    // getopt takes options after the user name too, and the last `-c`
    // wins: `su -c ls root -c 'rm x'` runs `rm x` (su, runuser and script
    // did; flock refuses a second).
    let (short, long) = LINE_VALUED
        .iter()
        .find(|(program, _, _)| *program == name)
        .map_or(("", &[][..]), |&(_, s, l)| (s, l));
    let mut found = None;
    // The next word is an option's value; none after `--` (what follows
    // goes to the shell, where `-c` is still a line).
    let (mut value, mut ended) = (false, false);
    for (at, arg) in args.iter().enumerate() {
        if std::mem::take(&mut value) {
            // Split, it moves the words after it (`su -s $S root`, where
            // `S` is `sh -c rm`): that word stands for the line.
            if arg.splits() {
                return Some(Given::Line(Some(arg.clone())));
            }
            continue;
        }
        let Some(text) = arg.literal() else {
            // Last and one word, with no `-c` before it: a user name or a
            // file, or `-cLINE`: without a line, the shell reads its input.
            if found.is_none() && at + 1 == args.len() && !parse::may_split(arg.text()) {
                return None;
            }
            return Some(Given::Line(Some(arg.clone())));
        };
        // `--command`, su's and runuser's `--session-command`, or a prefix
        // of either (getopt_long takes any that names one: `--comm`).
        let names: &[&str] = match name {
            "su" | "runuser" => &["command", "session-command"],
            _ => &["command"],
        };
        ended |= text == "--";
        if let Some(option) = long_option(text, names) {
            found = Some(Given::Line(match option {
                Some(line) => Some(Word::Literal(line.to_string())),
                None => args.get(at + 1).cloned(),
            }));
        } else if let Some(given) = text.strip_prefix("--") {
            value = !ended
                && !given.is_empty()
                && !given.contains('=')
                && long.iter().any(|w| w.starts_with(given));
        } else if text.starts_with('-') {
            for (i, letter) in text.char_indices().skip(1) {
                // A letter may be several bytes (`-oՎ`): the rest starts after all of them.
                let rest = &text[i + letter.len_utf8()..];
                if letter == 'c' {
                    found = Some(Given::Line(if rest.is_empty() {
                        args.get(at + 1).cloned()
                    } else {
                        Some(Word::Literal(rest.to_string()))
                    }));
                    break;
                }
                if !ended && short.contains(letter) {
                    value = rest.is_empty();
                    break;
                }
            }
        }
    }
    found
}

/// Whether `text` is one of the long options `names` (without `--`) or a
/// prefix of one, as getopt_long takes them: `Some(Some(value))` when its
/// value is glued (`--command=LINE`), `Some(None)` when it is the next word.
fn long_option<'a>(text: &'a str, names: &[&str]) -> Option<Option<&'a str>> {
    let given = text.strip_prefix("--")?;
    let (name, value) = match given.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (given, None),
    };
    (!name.is_empty() && names.iter().any(|whole| whole.starts_with(name))).then_some(value)
}

/// Whether a script's path is the input or another descriptor of the
/// process (`/dev/stdin`, `/dev/fd/0`, `/proc/self/fd/0`).
fn is_input(script: &str) -> bool {
    script.starts_with("/dev/") || script.starts_with("/proc/")
}

/// What a program is given to run besides its arguments.
pub(super) enum Given {
    /// A command line (or a word that may be one), read as `sh -c` reads it.
    Line(Option<Word>),
    /// The commands of its input.
    Input,
}

/// The line `watch` or `sg` joins its words into (`watch 'ls; rm x'`,
/// `watch -n 1 rm x`, `sg wheel 'rm x'`); a line with a word that expands
/// is that word, which names no program.
pub(super) fn joined_line(name: &str, args: &[Word]) -> Option<Option<Word>> {
    let &(_, valued) = JOIN_LINE.iter().find(|(program, _)| *program == name)?;
    let mut at = 0;
    // `sg [-] GROUP [-c] LINE`: the group first.
    let mut group = name == "sg";
    // `watch -x CMD ARGS…` runs its words as they are, not through a shell.
    let mut exec = false;
    while let Some(text) = args.get(at).map(Word::text) {
        if text == "--" {
            at += 1;
            break;
        }
        // A value or a group the shell may split puts words in the line:
        // `watch -n $N ls` runs `rm ls` when `N` is `1 rm`; that word,
        // which names no program, stands for the line.
        let splits = |at: usize| args.get(at).filter(|word| word.splits()).cloned().map(Some);
        if let Some(letters) = text.strip_prefix('-') {
            exec |=
                name == "watch" && (text == "--exec" || (!letters.starts_with('-') && letters.contains('x')));
            let taken = if valued.contains(&text) { 2 } else { 1 };
            if taken == 2
                && let Some(value) = splits(at + 1)
            {
                return Some(value);
            }
            at += taken;
        } else if group {
            if let Some(group) = splits(at) {
                return Some(group);
            }
            group = false;
            at += 1;
        } else {
            break;
        }
    }
    let words = args.get(at..)?;
    if exec && words.iter().all(|word| word.literal().is_some()) {
        let quoted: Vec<String> =
            words.iter().map(|word| crate::shell::quote::shell_word(word.text())).collect();
        return (!quoted.is_empty()).then(|| Some(Word::Literal(quoted.join(" "))));
    }
    line_of(words).map(Some)
}

/// The line a shell runs of `words` joined (`watch rm x`, `ssh host rm
/// x`); a word that expands is that word, which names no program. `None`
/// without words.
pub(super) fn line_of(words: &[Word]) -> Option<Word> {
    if let Some(expands) = words.iter().find(|word| word.literal().is_none()) {
        return Some(expands.clone());
    }
    let line: Vec<&str> = words.iter().map(Word::text).collect();
    (!line.is_empty()).then(|| Word::Literal(line.join(" ")))
}

/// The line `env` splits and runs, when `text` is its option that gives
/// one: `-S LINE`, `-SLINE`, `-iS LINE`, `--split-string LINE`,
/// `--split-string=LINE` (`next` is the word after `text`).
pub(super) fn env_split(text: &str, next: Option<&Word>) -> Option<Option<Word>> {
    // Also by a prefix (`--sp`): no other long option of env's starts so.
    if let Some(option) = long_option(text, &["split-string"]) {
        return Some(match option {
            Some(line) => Some(Word::Literal(line.to_string())),
            None => next.cloned(),
        });
    }
    let cluster = text.strip_prefix('-').filter(|rest| !rest.starts_with('-'))?;
    for (at, letter) in cluster.char_indices() {
        match letter {
            'S' => {
                let rest = &cluster[at + 1..];
                return Some(if rest.is_empty() {
                    next.cloned()
                } else {
                    Some(Word::Literal(rest.to_string()))
                });
            }
            // These take the rest, or the next word, as their value.
            'u' | 'C' | 'a' => return None,
            _ => {}
        }
    }
    None
}

/// The action of `trap ACTION CONDITION…`, when it is a command line:
/// not `-` or a number (conditions reset), an empty action (ignored), an
/// option (`-p`, `-l`) or a lone operand.
pub(super) fn trap_action(args: &[Word]) -> Option<&Word> {
    let args = match args.first().and_then(Word::literal) {
        Some("--") => &args[1..],
        _ => args,
    };
    if args.len() < 2 {
        return None;
    }
    match args[0].literal() {
        Some(text)
            if text.is_empty() || text.starts_with('-') || text.bytes().all(|b| b.is_ascii_digit()) =>
        {
            None
        }
        _ => args.first(),
    }
}

/// Whether `name` runs a command line it is given (a shell, `su -c`, …).
pub(super) fn runs_a_line(name: &str) -> bool {
    SHELLS.contains(&name)
        || RUN_LINE.contains(&name)
        || JOIN_LINE.iter().any(|(program, _)| *program == name)
}

/// The replace string of xargs' options `options` (`-I R`, `-IR`, `-i`,
/// `-iR`, `--replace`, `--replace=R`; `{}` where it is not given).
pub(super) fn xargs_replace(options: &[Word]) -> Option<String> {
    options.iter().enumerate().find_map(|(at, option)| {
        let text = option.text();
        match text {
            "-I" => options.get(at + 1).map(|value| value.text().to_string()),
            "-i" | "--replace" => Some("{}".to_string()),
            _ => text
                .strip_prefix("--replace=")
                .or_else(|| text.strip_prefix("-I"))
                .or_else(|| text.strip_prefix("-i"))
                .map(str::to_string),
        }
    })
}

/// Whether `word` may run as an option that is not written out: it
/// expands, and before its first expansion is no text that would make it
/// an operand (`"$F"`, `*`: a file may be named `--to-command=CMD`), or
/// the option's name is not all written out (`-n"$X"`, `--"$X"`). A long
/// option's value may expand (`--rsh="$R"`: the value is read as a word
/// that expands, which names no program).
pub(super) fn hides_an_option(word: &Word) -> bool {
    const EXPANDS: &[char] = &['$', '"', '\'', '\\', '`', '*', '?', '[', '{', '~'];
    let Word::Expands(text) = word else { return false };
    let Some(option) = text.strip_prefix('-') else {
        return text.starts_with(EXPANDS) || text.is_empty();
    };
    match option.strip_prefix('-') {
        Some(long) => split_value(long).0.contains(EXPANDS),
        None => option.contains(EXPANDS),
    }
}

/// `NAME=VALUE` split at its first `=`.
pub(super) fn split_value(option: &str) -> (&str, Option<&str>) {
    match option.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (option, None),
    }
}

/// Whether `given` names `full` or begins it, as getopt reads a long option.
pub(super) fn is_prefix(given: &str, full: &str) -> bool {
    !given.is_empty() && full.starts_with(given)
}

/// The value of a short option: the rest of its word, else the next word.
pub(super) fn attached(word: &Word, rest: &str, args: &[Word], at: &mut usize) -> Option<Word> {
    if rest.is_empty() { take(args, at) } else { Some(literal_like(word, rest)) }
}

/// The next word, the value of the option before it.
pub(super) fn take(args: &[Word], at: &mut usize) -> Option<Word> {
    let word = args.get(*at).cloned();
    *at += usize::from(word.is_some());
    word
}

/// `part` of `word`'s text as a word of its own: literal when `word` is.
pub(super) fn literal_like(word: &Word, part: &str) -> Word {
    match word {
        Word::Literal(_) => Word::Literal(part.to_string()),
        Word::Expands(_) => Word::Expands(part.to_string()),
    }
}

/// What a runner runs besides its command.
pub(super) enum Besides {
    /// A line a shell runs (`--health-cmd LINE`, `sbatch --wrap LINE`).
    Line(Word),
    /// A command's words (`--health-cmd '["CMD", "ARG"]'`).
    Command(Vec<Word>),
}

/// How a runner's command is given.
pub(super) enum Start {
    /// From this word on.
    At(usize),
    /// Otherwise.
    Runs(Runs),
}

/// What a runner runs other than a command among its words.
pub(super) enum Runs {
    /// A command line a shell runs (`npx -c LINE`, `nix-shell --run LINE`,
    /// `mise exec -c LINE`; the words from a word on joined, with `pnpm exec
    /// --shell-mode`): a word that expands names no program.
    Line(Option<Word>),
    /// Its input: a shell it starts (`nix-shell`, `nix develop`, `mise exec`
    /// without a command, `capsh --`).
    Input,
    /// A command made of these words, none when it is the runner's own (a
    /// container's, [`containers`]: its entrypoint and the words after the
    /// image; srun's, [`slurm`]; capsh's `bash ARGS`), and what else the runner runs besides
    /// (a container's health check, srun's `--prolog`, sbatch's `--wrap`).
    Command { besides: Vec<Besides>, command: Vec<Word> },
    /// Only running tells: a word that expands where the subcommand or an
    /// option of the runner's is (`uv "$SUB" rm x`).
    Unknown,
    /// Only running tells, for this reason: an option that may abbreviate
    /// one that takes a value (`npx --pack p rm x`).
    Unreadable(String),
}

#[cfg(test)]
mod tests {
    use crate::shell::programs::programs;

    /// A letter of several bytes in an option cluster (found by `cargo fuzz
    /// run shell`: the rest was cut inside it, a panic).
    #[test]
    fn a_letter_of_several_bytes_in_a_cluster() {
        let texts = |line| programs(line).unwrap().iter().map(|p| p.text()).collect::<Vec<_>>();
        assert_eq!(texts("su -oՎc 'rm x' root"), ["rm x"]);
        assert_eq!(texts("su -oՎ root"), ["su -oՎ root"]);
    }
}
