//! How a wrapper reads its own options and arguments before the command it
//! runs (`sudo -u root`, `timeout -s KILL 5`, `faketime -m TIME`): most as
//! getopt does, a few a word at a time (faketime, pkexec), by Tcl's
//! prefixes (unbuffer) or as proxychains does ([`Reads`]). Where a word
//! that decides which word is the command expands (`env -$A`, `timeout "$T"
//! 5`, `env A=$X`), only running the line would tell: the reader's error.

use super::{code_variables, given};
use crate::shell::parse::Word;
pub(super) use tables::table_name;
use tables::{OWN_WAYS, PERMUTES, WRAPPERS};

mod flags;
mod tables;

/// How a wrapper reads its options.
#[derive(Clone, Copy)]
pub(super) enum Reads {
    /// As getopt does ([`option_words`]), knowing those that take a value.
    Getopt(&'static [&'static str]),
    /// A word each, named whole; the first word that is none of them ends
    /// them (`--` is no end of options to them). One of `shell` starts a
    /// shell that reads its input, whatever words follow (`torsocks --shell`).
    Whole { valued: &'static [&'static str], flags: &'static [&'static str], shell: &'static [&'static str] },
    /// A word each, taken by any prefix (Tcl's flags: unbuffer hands its
    /// words to expect's `spawn`, so `unbuffer -i INT rm x` runs `rm x`).
    Prefixed(&'static [&'static str]),
    /// proxychains': at most two, each known by its second letter (`-q…` a
    /// flag, `-f…` the next word its value: `-qf rm x` runs `rm x`).
    SecondLetter,
    /// A word each, named whole, each taking a set number of the words after
    /// it (bwrap's `--bind SRC DEST`); any other word starting with `-` is
    /// one only the program knows (it dies on it, or a later one reads it).
    Counted(&'static [(&'static str, usize)]),
}

/// How the wrapper `name` reads its options and how many arguments it
/// takes before the command, if `name` is a wrapper.
pub(super) fn wrapper(name: &str) -> Option<(Reads, usize)> {
    let name = tables::table_name(name);
    let &(_, valued, positional) = WRAPPERS.iter().find(|(wrapper, _, _)| *wrapper == name)?;
    let own = OWN_WAYS.iter().find(|(wrapper, _)| *wrapper == name).map(|&(_, reads)| reads);
    Some((own.unwrap_or(Reads::Getopt(valued)), positional))
}

/// Where a wrapper's own words end.
pub(super) enum Ends {
    /// At this word, the command's first (or past the last: none).
    At(usize),
    /// At the line `env -S` splits into a command line of its own.
    EnvSplit(Option<Word>),
}

/// Reads the options and arguments of the wrapper `words[0]` names.
pub(super) fn own_words(name: &str, words: &[Word], reads: Reads, positional: usize) -> Result<Ends, String> {
    let (mut at, mut positional, mut options) = (1, positional, 0);
    // Whether a `--` ended its options.
    let mut ended = false;
    while let Some(word) = words.get(at) {
        let text = word.text();
        if text == "--" && !matches!(reads, Reads::Whole { .. }) {
            (at, ended) = (at + 1, true);
            // What is left of its arguments, then the command.
            while positional > 0 && at < words.len() {
                one_word(name, &words[at])?;
                (positional, at) = (positional - 1, at + 1);
            }
            break;
        }
        // (A word that expands is judged below: `-$S` may be `-u`.)
        if name == "env"
            && word.literal().is_some()
            && let Some(line) = given::env_split(text, words.get(at + 1))
        {
            return Ok(Ends::EnvSplit(line));
        }
        if let Reads::Whole { shell, .. } = reads
            && shell.contains(&text)
        {
            return Ok(Ends::At(words.len()));
        }
        // `run0 -i CMD` runs CMD's words, joined, through the user's shell.
        if name == "run0" && runs_via_shell(&word.known_start()) {
            return Err(format!(
                "`run0 {text}` runs its command's words joined into a line for the user's shell: what \
                 that runs only running it would tell: write `run0 sh -c 'LINE'`"
            ));
        }
        if let Some(taken) = option_at(name, reads, word, options)? {
            // `nice -n $N ls x` runs `rm ls x` when `N` is `5 rm`.
            for value in words.iter().skip(at + 1).take(taken - 1) {
                value_word(name, text, value)?;
            }
            // `systemd-run -E "$V" ls` runs `ls` with `LD_PRELOAD` set when `V` sets it.
            if code_variables::reads_options_of(name)
                && let Some(given) = option_value(reads, word, words.get(at + 1))
            {
                code_variables::set_by_option(name, &given.option, &given.known, given.whole, &given.shown)?;
            }
            (at, options) = (at + taken, options + 1);
        } else if (matches!(name, "env" | "cross-env") && is_assignment(text))
            || (matches!(name, "sudo" | "sudo-rs") && sudo_assignment(word))
        {
            one_word(name, word)?;
            code_variables::variable_set(&word.known_start(), word.literal().is_some(), text)?;
            at += 1;
        } else if positional > 0 {
            // `timeout "$T" 5 rm x` runs `rm x` when `T` is `-v`.
            if word.literal().is_none() && !word.known_start().starts_with(|c: char| c != '-') {
                return Err(format!(
                    "`{name} {text}`: a word that expands may start with `-` and be an option, and then \
                     another word is the command: only running it would tell which, so write it out{}",
                    if matches!(reads, Reads::Getopt(_)) { ", or put `--` before it" } else { "" }
                ));
            }
            one_word(name, word)?;
            (positional, at) = (positional - 1, at + 1);
        } else {
            break;
        }
    }
    if PERMUTES.contains(&name)
        && !ended
        && let Some(option) = words.iter().skip(at + 1).find(|word| maybe_option(word))
    {
        return Err(format!(
            "`{name}` takes options from among its command's words too (`{}`: getopt moves them \
             before the command), so which words are the command's only running it would tell: \
             put `--` before the command",
            option.text()
        ));
    }
    Ok(Ends::At(at))
}

/// An option given a value: the option, what of its value is known before
/// it runs, whether that is all of it, and the words as written.
pub(super) struct Valued {
    pub(super) option: String,
    pub(super) known: String,
    pub(super) whole: bool,
    pub(super) shown: String,
}

/// The option `word` gives a value to, with the value, as `reads` reads
/// it (`-E NAME=x`, `-xENAME=x`, `--setenv=NAME=x`, `--setenv NAME`;
/// bwrap's `--setenv NAME VALUE`, NAME; QEMU's `-plugin P`, a whole word);
/// `None` for a flag or no option.
pub(super) fn option_value(reads: Reads, word: &Word, next: Option<&Word>) -> Option<Valued> {
    let start = word.known_start();
    let whole = word.literal().is_some();
    let in_next = |option: String| {
        let next = next?;
        let shown = format!("{} {}", word.text(), next.text());
        Some(Valued { option, known: next.known_start(), whole: next.literal().is_some(), shown })
    };
    let glued = |option: String, known: &str| {
        Some(Valued { option, known: known.to_string(), whole, shown: word.text().to_string() })
    };
    let valued = match reads {
        Reads::Getopt(valued) => valued,
        Reads::Counted(table) if whole && table.iter().any(|&(option, n)| option == start && n > 0) => {
            return in_next(start);
        }
        Reads::Whole { valued, .. } if whole && valued.contains(&start.as_str()) => return in_next(start),
        _ => return None,
    };
    if let Some(long) = start.strip_prefix("--") {
        return match long.split_once('=') {
            Some((name, value)) => glued(format!("--{name}"), value),
            None if whole && valued.iter().any(|option| option.starts_with(start.as_str())) => in_next(start),
            None => None,
        };
    }
    let letters = start.strip_prefix('-')?;
    let (at, letter) = letters.char_indices().find(|&(_, letter)| takes_value(letter, valued))?;
    let rest = &letters[at + letter.len_utf8()..];
    match rest.is_empty() && whole {
        true => in_next(format!("-{letter}")),
        false => glued(format!("-{letter}"), rest),
    }
}

/// Whether a word is or may be an option: it starts with `-` or may, when
/// it expands.
fn maybe_option(word: &Word) -> bool {
    let start = word.known_start();
    start.starts_with('-') || (word.literal().is_none() && start.is_empty())
}

/// How many words `word`, an option of `name`'s, takes with its value;
/// `None` when it is no option (an argument, or the command). `options`:
/// how many of `name`'s came before it.
fn option_at(name: &str, reads: Reads, word: &Word, options: usize) -> Result<Option<usize>, String> {
    let text = word.text();
    let start = word.known_start();
    let maybe_option = start.starts_with('-') || (start.is_empty() && !matches!(reads, Reads::Getopt(_)));
    if word.literal().is_none() && maybe_option && (word.splits() || !decided(&start, reads)) {
        // `-P"$(nproc)"`: its value, if empty, would be the next word.
        if let Reads::Getopt(valued) = reads
            && !word.splits()
            && !start.starts_with("--")
            && start.chars().last().is_some_and(|last| start.len() > 1 && takes_value(last, valued))
            && let Some(value) = text.strip_prefix(start.as_str())
        {
            return Err(format!(
                "`{name} {text}`: should its value be empty, the next word would be its value, and \
                 another word the command: write the value as a word of its own, `{start} {value}`"
            ));
        }
        return Err(format!(
            "`{name} {text}` expands where {name} reads its options: which it gives, and so which word is \
             the command, only running it would tell: write the option out"
        ));
    }
    let words = match reads {
        Reads::Getopt(valued) if start.starts_with('-') && start.len() > 1 => {
            if let Some(flags) = flags::of(name)
                && !flags::known(name, &start, valued, flags)
            {
                return Err(format!(
                    "`{name} {text}`: {name} has no such option as tissvm reads it; a newer {name}'s may take \
                     a value, and then another word is the command, which only running it would tell: leave \
                     it out, or write the command without {name}"
                ));
            }
            if flags::ends_in_optional(name, &start, valued) {
                return Ok(Some(1));
            }
            Some(option_words(&start, valued).ok_or_else(|| abbreviated(name, text, valued))?)
        }
        Reads::Whole { valued, .. } if valued.contains(&text) => Some(2),
        Reads::Whole { flags, .. } if flags.contains(&text) => Some(1),
        Reads::Counted(_) if text == "--args" => {
            return Err(format!(
                "`{name} --args`: {name} reads more of its arguments from a file descriptor, and the command \
                 may be among them: only running it would tell: write them out"
            ));
        }
        Reads::Counted(table) if text.starts_with('-') && text.len() > 1 => {
            match table.iter().find(|(option, _)| *option == text) {
                Some(&(_, args)) => Some(1 + args),
                None => {
                    return Err(format!(
                        "`{name} {text}`: an option this reader does not know, so how many words it takes, \
                         and which word is the command, only {name} would tell"
                    ));
                }
            }
        }
        Reads::Prefixed(valued) if text.starts_with('-') && text.len() > 1 => {
            Some(if valued.iter().any(|option| option.starts_with(text)) { 2 } else { 1 })
        }
        Reads::SecondLetter if options < 2 => match text.as_bytes() {
            [b'-', b'q', ..] => Some(1),
            [b'-', b'f', ..] => Some(2),
            _ => None,
        },
        _ => None,
    };
    Ok(words)
}

/// Whether what an option word that expands starts with (`start`) decides
/// how many words it takes, whatever follows: a long option's name and
/// `=` (`--user=$U`), or a letter that takes a value with some of the value
/// written (`-ux$U`; of `-u$U` the value may be empty and the next word).
fn decided(start: &str, reads: Reads) -> bool {
    let Reads::Getopt(valued) = reads else { return false };
    if start.starts_with("--") {
        return start.contains('=');
    }
    let letters = start.get(1..).unwrap_or_default();
    letters
        .char_indices()
        .any(|(at, letter)| takes_value(letter, valued) && at + letter.len_utf8() < letters.len())
}

/// An argument the shell may make more than one word of (`$T` unquoted):
/// then which word is the command only running tells.
pub(super) fn one_word(name: &str, word: &Word) -> Result<(), String> {
    match word.splits() {
        true => Err(format!(
            "`{name} {}`: the shell may make more than one word of it, and then another word is the \
             command: quote it",
            word.text()
        )),
        false => Ok(()),
    }
}

/// An option's value in the next word that the shell may make more than
/// one word of (`nice -n $N ls x` runs `rm ls x` when `N` is `5 rm`).
pub(super) fn value_word(name: &str, option: &str, value: &Word) -> Result<(), String> {
    match value.splits() {
        true => Err(format!(
            "`{name} {option} {value}`: the shell may make more than one word of `{value}`, and then \
             another word is the command: quote it",
            value = value.text()
        )),
        false => Ok(()),
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
pub(super) fn option_words(text: &str, valued: &[&str]) -> Option<usize> {
    if text.starts_with("--") {
        if valued.contains(&text) {
            return Some(2);
        }
        return (text.contains('=') || abbreviates(text, valued).is_empty()).then_some(1);
    }
    let letters = &text[1..];
    match letters.char_indices().find(|&(_, letter)| takes_value(letter, valued)) {
        // The last letter: its value is the next word; else the rest is.
        Some((at, letter)) if at + letter.len_utf8() == letters.len() => Some(2),
        _ => Some(1),
    }
}

/// Whether `-LETTER` is among `valued` (or, for [`flags::known`], among
/// the flags: any list of options).
fn takes_value(letter: char, valued: &[&str]) -> bool {
    valued.iter().any(|option| option.strip_prefix('-').is_some_and(|short| short.chars().eq([letter])))
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
pub(super) fn abbreviated(program: &str, option: &str, valued: &[&str]) -> String {
    let whole: Vec<String> = abbreviates(option, valued).iter().map(|whole| format!("`{whole}`")).collect();
    format!(
        "`{program} {option}` may be {} abbreviated (a long option is taken by any prefix that names one), \
         so which word is the command only running it would tell: write the option out whole",
        whole.join(" or ")
    )
}

/// run0's options that run the command through the user's shell: `-i`
/// (alone or in a cluster before a letter that takes a value), `--login`,
/// `--via-shell` (by a prefix too).
fn runs_via_shell(start: &str) -> bool {
    if let Some(long) = start.strip_prefix("--") {
        let name = long.split('=').next().unwrap_or(long);
        return !name.is_empty() && ["login", "via-shell"].iter().any(|whole| whole.starts_with(name));
    }
    let letters = start.strip_prefix('-').unwrap_or_default();
    letters.chars().take_while(|letter| !"ugD".contains(*letter)).any(|letter| letter == 'i')
}

/// A variable sudo sets for its command (`sudo A=1 rm x` runs `rm x`):
/// among its options, a word with `=` that does not start with `/`
/// (sudo's `parse_args.c`, `is_envar`), whatever its name.
fn sudo_assignment(word: &Word) -> bool {
    let start = word.known_start();
    start.contains('=') && !start.starts_with('/')
}

/// `NAME=value` (after `env`).
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::super::programs;
    use super::super::tests::texts;

    /// Where the reader named another program before. Each option's value
    /// was probed with the real tool (Debian 12's: `TOOL -X` alone asks for
    /// an argument), and `touch` ran past them but for pkexec (no polkit
    /// here: from its source) and numactl's shared-memory options (then it
    /// runs no command at all: read as running one, it is judged the more).
    #[test]
    fn each_wrapper_is_read_as_the_tool_reads_it() {
        for line in [
            "faketime -f +0 rm x",
            "faketime -m -p 5 --date-prog date 2020-01-01 rm x",
            "fakeroot -b 3 --lib l -f faked rm x",
            "nocache -n 1 -D /dev/null rm x",
            "numactl -c 0 --shm k --offset 0 --length 1 --shmmode 600 --shmid 1 rm x",
            "chpst -r 100 rm x",
            "lckdo -W 1 lock rm x",
            "with-lock-ex -w lock rm x",
            "with-lock-ex -f -t 5 lock rm x",
            "with-lock-ex lock rm x",
            // Emulators and steam-run take no options; cross-env sets the
            // variables before its command (cross-env 7).
            "box64 /bin/rm x",
            "FEXInterpreter /bin/rm x",
            "steam-run rm x",
            "cross-env NODE_ENV=production A=1 rm x",
            // QEMU's user-mode emulators (QEMU 9's linux-user options).
            "qemu-x86_64 -cpu max -strace rm x",
            "qemu-aarch64-static --cpu max -L /usr/aarch64-linux-gnu rm x",
            "qemu-riscv64 -E A=1 -U B -0 argv0 -d in_asm -D log rm x",
            "pkexec -u root rm x",
            "pkexec --keep-cwd --user root rm x",
            "unbuffer -ignore INT rm x",
            "unbuffer -i INT -nottycopy rm x",
            "unbuffer -p -noecho rm x",
            "proxychains4 -qf rm x",
            "proxychains4 -fX conf rm x",
            "proxychains -f conf -q rm x",
            // torsocks 2.3 (a shell script, run: each ran `touch`).
            "torsocks -u me -p pw -a 127.0.0.1 -P 9050 -q rm x",
            "torsocks -i rm x",
            "torsocks --user me --isolate -6 -d rm x",
            // bubblewrap 0.8 (each ran `touch`, with `--bind / /`).
            "bwrap --bind / / --dev /dev --proc /proc --unshare-pid rm x",
            "bwrap --bind / / -- rm x",
            "bwrap --bind / / --setenv A '1 2' --dir /tmp/bwd --chmod 0700 /tmp/bwd rm x",
            "bwrap --bind / / --symlink a /tmp/lnk --perms 0700 --tmpfs /mnt rm x",
            // (0.11's overlays, from its source.)
            "bwrap --overlay-src a --overlay rw work /x rm x",
            // LimitCPU 2.8 (Debian's cpulimit): each ran `touch`.
            "cpulimit -f -l 50 -c 1 rm x",
            "cpulimit --limit 50 -- rm x",
            // systemd-nspawn 252 and LXC 5.0: options probed (`-D` alone asks
            // for an argument; a command's `-c` after its name is no option
            // of nspawn's, and one of lxc-attach's).
            "systemd-nspawn -q -D /srv/c -E A=1 --bind /a:/b -u root rm x",
            "systemd-nspawn --directory=/srv/c --private-network -x rm x",
            "lxc-attach -n c -- rm x",
            "lxc-attach --name c --clear-env -v A=1 -- rm x",
            "lxc-execute -n c -s lxc.x=1 -- rm x",
            // After `--`, its arguments, then the command.
            "timeout -- 5 rm x",
            "flock -- lock rm x",
            "taskset -- 1 rm x",
            "timeout -- \"$T\" rm x",
        ] {
            assert_eq!(texts(line).last().map(String::as_str), Some("rm x"), "{line}");
        }
        // faketime takes the first word that is none of its options as the
        // time (`-x`, `--`), pkexec as the command; proxychains reads two.
        assert_eq!(texts("faketime -- rm x"), ["rm x"]);
        // cross-env's variables are read as env's: one that makes a program
        // run code passes no list.
        assert!(programs("cross-env LD_PRELOAD=./x.so ls").is_err());
        // QEMU's: a variable, a plugin or libraries that run code; its
        // tools and system emulators are no wrappers.
        for line in [
            "qemu-x86_64 -E LD_PRELOAD=./x.so ls",
            "qemu-x86_64 --E LD_PRELOAD=./x.so ls",
            "qemu-x86_64 -plugin ./p.so ls",
            "qemu-x86_64 -L ./sysroot ls",
            "qemu-x86_64 -L /usr/../tmp/s ls",
        ] {
            assert!(programs(line).is_err(), "{line}");
        }
        assert!(super::code_variables::named("QEMU_SET_ENV=LD_PRELOAD=./x.so qemu-x86_64 ls").is_some());
        assert_eq!(texts("qemu-img convert a b"), ["qemu-img convert a b"]);
        assert_eq!(texts("qemu-system-x86_64 -kernel k"), ["qemu-system-x86_64 -kernel k"]);
        assert_eq!(texts("pkexec --us root rm x"), ["--us root rm x"]);
        assert_eq!(texts("proxychains4 -q -q -q rm x"), ["-q rm x"]);
        // torsocks: `--` and a glued value are its command's name.
        assert_eq!(texts("torsocks -- rm x"), ["-- rm x"]);
        assert_eq!(texts("torsocks -ume rm x"), ["-ume rm x"]);
        // cpulimit's and tini's getopt take their options from among the
        // command's words too (`cpulimit -l 50 touch M -q` ran `touch M`,
        // `tini touch M -s` too).
        // (`-l --`: `--` is its value, no end of its options.)
        for line in [
            "cpulimit -l 50 rm -v x",
            "cpulimit -l -- rm -f x",
            "cpulimit -l 50 rm \"$A\" x",
            "tini rm -v x",
            "tini -s rm x -s",
            "lxc-attach -n c rm -f x",
            "lxc-execute -n c rm x -q",
        ] {
            let why = programs(line).expect_err(line);
            assert!(why.contains("put `--` before the command"), "{line}: {why}");
        }
    }

    #[test]
    fn a_word_that_expands_where_options_are_read_leaves_the_command_unknown() {
        // Each runs a program the line does not name when the variable is
        // `-u`, `-S`, `-v`, or splits (`A="1 rm"`).
        for (line, says) in [
            ("env -$A rm x", "`env -$A` expands where env reads its options"),
            ("env --$A rm x", "write the option out"),
            ("env -i$A rm x", "write the option out"),
            ("env -u$A rm x", "write the option out"),
            ("xargs -0 -P\"$(nproc)\" rm", "write the value as a word of its own, `-P \"$(nproc)\"`"),
            ("nice -n\"$N\" rm x", "`-n \"$N\"`"),
            ("env -{u,i} rm x", "write the option out"),
            ("env -$S ls x", "write the option out"),
            ("env -S\"$L\" ls x", "write the option out"),
            ("env --unset=$A ls x", "write the option out"),
            ("sudo -$A root rm x", "write the option out"),
            ("faketime -m \"$T\" rm x", "write the option out"),
            ("unbuffer \"$A\" INT rm x", "write the option out"),
            ("proxychains4 $A rm x", "write the option out"),
            ("timeout \"$T\" 5 rm x", "`timeout \"$T\"`: a word that expands may start with `-`"),
            ("timeout $T rm x", "or put `--` before it"),
            ("chroot \"$DIR\" rm x", "or put `--` before it"),
            ("timeout -- $T rm x", "the shell may make more than one word of it"),
            ("env A=$X ls x", "`env A=$X`: the shell may make more than one word of it"),
            ("sh -c 'env -$A rm x'", "write the option out"),
            // An option's value that splits: `N='5 rm'` runs `rm ls x`.
            ("nice -n $N ls x", "`nice -n $N`: the shell may make more than one word of `$N`"),
            ("sudo -u $U ls x", "quote it"),
            ("faketime -p $P 1 ls x", "quote it"),
            ("unbuffer -ignore $S ls x", "quote it"),
            ("proxychains4 -f $C ls x", "quote it"),
            ("torsocks -u $U ls x", "quote it"),
            ("bwrap --bind / $D ls x", "quote it"),
            // bwrap's: more arguments from a descriptor; an option it may
            // have that this reader does not know.
            ("bwrap --args 3 ls x", "reads more of its arguments"),
            ("bwrap --new-option x ls", "an option this reader does not know"),
            ("bwrap --bind / / \"$C\" x", "write the option out"),
        ] {
            let why = programs(line).expect_err(line);
            assert!(why.contains(says), "{line}: {why}");
        }
        // What decides the word count is written out: read.
        for line in [
            "env --unset=\"$A\" rm x",
            "env -ux\"$A\" rm x",
            "sudo -u \"$U\" rm x",
            "nice -n \"$N\" rm x",
            "env A=\"$X\" rm x",
            "timeout \"5$T\" rm x",
            "timeout -- \"$T\" rm x",
            "faketime \"2020-$D\" rm x",
        ] {
            assert_eq!(texts(line).last().map(String::as_str), Some("rm x"), "{line}");
        }
        // A word that expands as the command names no program.
        assert_eq!(programs("env -i $CMD x").unwrap()[0].name, None);
    }
}
