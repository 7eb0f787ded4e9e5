//! The programs a command line runs, found as the shell finds them: each
//! simple command's first word ([`parse`]), a path being the program its
//! last part names (`/bin/rm` is `rm`), looked through the wrappers that
//! run another command after their own options (`sudo -u x`, `env A=1`,
//! `timeout 5`, `nice`, `xargs`, ...), and `sh -c 'LINE'` and
//! `find -exec … ;` read as the commands they run. A path that expands
//! names the program its last part names when that part is written out
//! (`"$HOME/bin/tool"` is `tool`); `trap 'LINE' EXIT` runs LINE. A program
//! whose name only running it would tell (`$CMD`, `$DIR/$TOOL`, `eval …`,
//! `sh -c "$x"`, a line that defines an alias) has no name.
//!
//! The command policy (book: reference/policy.md) and the risky-command list read commands
//! here, so they never disagree about what a command runs.

use std::sync::Arc;

use super::parse::{self, Simple, Word};

/// How deep `sh -c '…'` inside `sh -c '…'` is read.
const MAX_NESTING: usize = 8;

/// The most wrappers one program is read through, `sh -c` lines around it
/// included: each holds the words from it on, so a line of thousands
/// (`sudo sudo … rm x`) would hold its text thousands of times.
pub const MAX_WRAPPERS: usize = 32;

/// Programs that run the command after their own options and arguments:
/// (name, the options of theirs that take a value, how many arguments they
/// take before the command).
const WRAPPERS: &[(&str, &[&str], usize)] = &[
    ("sudo", &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"], 0),
    ("doas", &["-u", "-C"], 0),
    ("env", &["-u", "-C"], 0),
    ("xargs", &["-I", "-n", "-P", "-d", "-L", "-s", "-a", "-E"], 0),
    ("nohup", &[], 0),
    ("exec", &["-a"], 0),
    ("time", &["-f", "-o"], 0),
    ("nice", &["-n"], 0),
    ("ionice", &["-c", "-n", "-p"], 0),
    ("timeout", &["-s", "-k"], 1),
    ("command", &[], 0),
    ("builtin", &[], 0),
    ("stdbuf", &["-i", "-o", "-e"], 0),
    ("setsid", &[], 0),
    ("chroot", &["--userspec", "--groups"], 1),
    ("taskset", &[], 1),
    ("flock", &["-w", "-E"], 1),
    ("busybox", &[], 0),
    ("pkexec", &["--user"], 0),
    ("runuser", &["-u", "-g", "-G", "-w", "-s"], 0),
    ("chrt", &[], 1),
    ("unshare", &["-S", "-G", "-R", "-w"], 0),
    ("nsenter", &["-t", "-S", "-G", "-r", "-w"], 0),
    ("setpriv", &[], 0),
    ("strace", &["-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S", "-X"], 0),
    ("ltrace", &["-o", "-e", "-p", "-s", "-u", "-n", "-a", "-l", "-L", "-x"], 0),
    ("valgrind", &[], 0),
    ("systemd-run", &["-p", "-u", "-E", "-M", "-H", "-G"], 0),
    ("firejail", &[], 0),
    ("faketime", &["-f"], 1),
    ("fakeroot", &["-i", "-s", "-l", "--faked"], 0),
];

/// Programs whose `-c LINE` runs LINE through a shell, as a shell's does.
const RUN_LINE: &[&str] = &["su", "runuser", "script", "flock"];

/// Programs that join the words after their own options (and `sg`'s
/// group) into a line a shell runs, with the options of theirs that take a
/// value.
const JOIN_LINE: &[(&str, &[&str])] = &[("watch", &["-n", "-q", "--interval"]), ("sg", &[])];

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
}

impl Program {
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

/// The programs `line` runs, or why it cannot be read as shell syntax.
pub fn programs(line: &str) -> Result<Vec<Program>, String> {
    let mut found = Vec::new();
    read_line(line, &mut found, 0)?;
    Ok(found)
}

fn read_line(line: &str, found: &mut Vec<Program>, depth: usize) -> Result<(), String> {
    for simple in parse::simple_commands(line)? {
        read_simple(&simple, found, depth)?;
    }
    Ok(())
}

fn read_simple(simple: &Simple, found: &mut Vec<Program>, depth: usize) -> Result<(), String> {
    let mut words = &simple.words[..];
    let mut wrappers = Vec::new();
    loop {
        let Some(first) = words.first() else { return Ok(()) };
        let Some(name) = name_of(first) else {
            found.push(Program { name: None, args: words.to_vec(), wrappers, piped: simple.piped });
            return Ok(());
        };
        let name = name.as_str();
        if name == "eval" {
            found.push(Program { name: None, args: words.to_vec(), wrappers, piped: simple.piped });
            return Ok(());
        }
        // `runuser -l USER -c LINE` runs LINE, as `su` does (below).
        let line = RUN_LINE.contains(&name) && command_line(name, &words[1..]).is_some();
        let wrapper = WRAPPERS.iter().find(|(w, _, _)| *w == name).filter(|_| !line);
        let Some(&(_, valued, positional)) = wrapper else {
            break;
        };
        if wrappers.len() == MAX_WRAPPERS {
            return Err(too_many_wrappers());
        }
        wrappers.push(joined(words));
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
                    && let Some(line) = env_split(text, words.get(at + 1))
                {
                    return nested(line.as_ref(), &wrappers, simple.piped, found, depth);
                }
                at += if valued.contains(&text) { 2 } else { 1 };
            } else if name == "env" && is_assignment(text) {
                at += 1;
            } else if positional > 0 {
                positional -= 1;
                at += 1;
            } else {
                break;
            }
        }
        words = &words[at.min(words.len())..];
    }
    let name = name_of(&words[0]).unwrap_or_default();
    let args = &words[1..];
    if let Some(line) = command_line(&name, args).or_else(|| joined_line(&name, args)) {
        let shell = through(&wrappers, vec![joined(words)])?;
        return nested(line.as_ref(), &shell, simple.piped, found, depth);
    }
    if name == "find" {
        find_exec(args, &wrappers, found, depth)?;
    }
    if name == "trap" {
        let trap = through(&wrappers, vec![joined(words)])?;
        trap_action(args, &trap, simple.piped, found, depth)?;
    }
    // An alias defined here changes what a later word runs (dash expands
    // it on the lines after `alias r=rm`): only running the line tells.
    if name == "alias" && args.iter().any(|a| a.literal().is_none_or(|text| text.contains('='))) {
        found.push(Program { name: None, args: words.to_vec(), wrappers, piped: simple.piped });
        return Ok(());
    }
    found.push(Program { name: Some(name), args: args.to_vec(), wrappers, piped: simple.piped });
    Ok(())
}

/// The command line a program runs through a shell, if it is given one: a
/// shell's first operand when `c` is among its flags (`sh -c LINE`, `sh
/// -ec LINE`, `bash -o pipefail -c LINE`); the value of `-c` of `su`,
/// `runuser`, `sg` and `script` (`-c LINE`, `-qc LINE`, `-cLINE`,
/// `--command=LINE`). `Some(None)`: given, but missing. A word that
/// expands before it may be `-c` itself: then that word, which names no
/// program.
fn command_line(name: &str, args: &[Word]) -> Option<Option<Word>> {
    let flags = |text: &str| {
        text.len() > 1 && text.starts_with('-') && text[1..].bytes().all(|b| b.is_ascii_alphabetic())
    };
    if SHELLS.contains(&name) {
        let mut c = false;
        let mut at = 0;
        while let Some(arg) = args.get(at) {
            match arg.literal() {
                Some("--") => return c.then(|| args.get(at + 1).cloned()),
                Some("-o" | "+o") => at += 2,
                Some(text) if flags(text) => {
                    c |= text.contains('c');
                    at += 1;
                }
                Some(text) if text.starts_with(['-', '+']) && text.len() > 1 => at += 1,
                Some(_) => return c.then(|| Some(arg.clone())),
                // It may be `-c` (`sh "$A" "$B"`): what runs is not known.
                None => return Some(Some(arg.clone())),
            }
        }
        return c.then_some(None);
    }
    if !RUN_LINE.contains(&name) {
        return None;
    }
    for (at, arg) in args.iter().enumerate() {
        let Some(text) = arg.literal() else { return Some(Some(arg.clone())) };
        if text == "--command" {
            return Some(args.get(at + 1).cloned());
        }
        if let Some(line) = text.strip_prefix("--command=") {
            return Some(Some(Word::Literal(line.to_string())));
        }
        if text.starts_with('-')
            && !text.starts_with("--")
            && let Some(c) = text.find('c')
        {
            let rest = &text[c + 1..];
            return Some(if rest.is_empty() {
                args.get(at + 1).cloned()
            } else {
                Some(Word::Literal(rest.to_string()))
            });
        }
    }
    None
}

/// The line `watch` or `sg` joins its words into (`watch 'ls; rm x'`,
/// `watch -n 1 rm x`, `sg wheel 'rm x'`); a line with a word that expands
/// is that word, which names no program.
fn joined_line(name: &str, args: &[Word]) -> Option<Option<Word>> {
    let &(_, valued) = JOIN_LINE.iter().find(|(program, _)| *program == name)?;
    let mut at = 0;
    // `sg [-] GROUP [-c] LINE`: the group first.
    let mut group = name == "sg";
    while let Some(text) = args.get(at).map(Word::text) {
        if text == "--" {
            at += 1;
            break;
        }
        if text.starts_with('-') {
            at += if valued.contains(&text) { 2 } else { 1 };
        } else if group {
            group = false;
            at += 1;
        } else {
            break;
        }
    }
    let words = args.get(at..).filter(|words| !words.is_empty())?;
    if let Some(expands) = words.iter().find(|word| word.literal().is_none()) {
        return Some(Some(expands.clone()));
    }
    let line: Vec<&str> = words.iter().map(Word::text).collect();
    Some(Some(Word::Literal(line.join(" "))))
}

/// The line `env` splits and runs, when `text` is its option that gives
/// one: `-S LINE`, `-SLINE`, `-iS LINE`, `--split-string LINE`,
/// `--split-string=LINE` (`next` is the word after `text`).
fn env_split(text: &str, next: Option<&Word>) -> Option<Option<Word>> {
    if text == "--split-string" {
        return Some(next.cloned());
    }
    if let Some(line) = text.strip_prefix("--split-string=") {
        return Some(Some(Word::Literal(line.to_string())));
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

/// `trap ACTION CONDITION…`: the shell runs ACTION, a command line, when a
/// condition comes (`trap 'rm x' EXIT`), so it is read as `sh -c` reads
/// its line. `-` and a number (conditions reset), an empty action (ignored),
/// an option (`-p`, `-l`) and a single operand run nothing.
fn trap_action(
    args: &[Word],
    wrappers: &[Arc<str>],
    piped: bool,
    found: &mut Vec<Program>,
    depth: usize,
) -> Result<(), String> {
    let args = match args.first().and_then(Word::literal) {
        Some("--") => &args[1..],
        _ => args,
    };
    if args.len() < 2 {
        return Ok(());
    }
    if let Some(text) = args[0].literal()
        && (text.is_empty() || text.starts_with('-') || text.bytes().all(|b| b.is_ascii_digit()))
    {
        return Ok(());
    }
    nested(args.first(), wrappers, piped, found, depth)
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
    let unnamed = |args: Vec<Word>| Program { name: None, args, wrappers: wrappers.to_vec(), piped };
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
            found.push(unnamed(vec![word.clone()]));
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
        let simple = Simple { words: inner[..end].to_vec(), piped: false };
        let mut programs = Vec::new();
        read_simple(&simple, &mut programs, depth)?;
        for mut program in programs {
            program.wrappers = through(wrappers, program.wrappers)?;
            found.push(program);
        }
        rest = &inner[end..];
    }
    Ok(())
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
