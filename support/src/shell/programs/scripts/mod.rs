//! Scripts in a tool's own language, read for the commands they run:
//! sed's (`e CMD`), awk's (`system(CMD)`, `print | CMD`), and the SQL
//! shells' (sqlite3's `.shell CMD`, psql's `\! CMD`). Here, sed's and
//! awk's command lines: where their scripts are (options, files, operands).

pub(super) mod awk_program;
pub(super) mod sed_script;
pub(super) mod sql_clients;

use crate::shell::parse::Word;
use crate::shell::programs::given::{Given, attached, hides_an_option, literal_like, split_value, take};

/// What a sed command line runs: its scripts read by
/// [`sed_script::commands`]; a script from a file (`-f`) only running
/// tells, unless `--sandbox`, with which GNU sed refuses every command
/// that runs or writes (the only sed with such commands).
pub(in crate::shell::programs) fn sed(args: &[Word]) -> Vec<Given> {
    #[rustfmt::skip]
    const LONG: &[(&str, bool)] = &[
        ("expression", true), ("file", true), ("line-length", true), ("in-place", false),
        ("quiet", false), ("silent", false), ("debug", false), ("follow-symlinks", false),
        ("posix", false), ("regexp-extended", false), ("sandbox", false), ("separate", false),
        ("unbuffered", false), ("null-data", false), ("zero-terminated", false), ("binary", false),
        ("help", false), ("version", false),
    ];
    let (mut scripts, mut from_file, mut sandbox, mut operands) = (Vec::new(), false, false, Vec::new());
    let mut at = 0;
    let mut options = true;
    while let Some(word) = args.get(at) {
        at += 1;
        let text = word.text();
        if options && hides_an_option(word) {
            return vec![Given::Input];
        }
        if !options || text == "-" || !text.starts_with('-') {
            operands.push(word);
            continue;
        }
        if text == "--" {
            options = false;
        } else if let Some(option) = text.strip_prefix("--") {
            let Some((full, value)) = long_option(option, word, LONG, args, &mut at) else {
                return vec![Given::Input];
            };
            match full {
                "expression" => scripts.push(value),
                "file" => from_file = true,
                "sandbox" => sandbox = true,
                _ => {}
            }
        } else {
            let cluster = &text[1..];
            for (i, letter) in cluster.char_indices() {
                let rest = &cluster[i + letter.len_utf8()..];
                match letter {
                    // `-i` takes the rest as its suffix (`-ie` is suffix `e`).
                    'i' => break,
                    'e' | 'f' | 'l' => {
                        let value = attached(word, rest, args, &mut at);
                        match letter {
                            'e' => scripts.push(value),
                            'f' => from_file = true,
                            _ => {}
                        }
                        break;
                    }
                    _ => {}
                }
            }
        }
    }
    if sandbox {
        return Vec::new();
    }
    if scripts.is_empty() && !from_file {
        scripts.push(operands.first().map(|w| (*w).clone()));
    }
    if from_file {
        return vec![Given::Input];
    }
    read_script(scripts, sed_script::commands)
}

/// What an awk command line runs: its program read by
/// [`awk_program::commands`]; a program from a file (`-f`, `-E`,
/// `--include`) or a library (`-l`) only running tells. Options end at
/// the first word that is not one, as awk reads them.
pub(in crate::shell::programs) fn awk(args: &[Word]) -> Vec<Given> {
    #[rustfmt::skip]
    const LONG: &[(&str, bool)] = &[
        ("assign", true), ("field-separator", true), ("file", true), ("source", true),
        ("exec", true), ("include", true), ("load", true), ("characters-as-bytes", false),
        ("traditional", false), ("copyright", false), ("dump-variables", false), ("debug", false),
        ("gen-pot", false), ("help", false), ("lint", false), ("bignum", false),
        ("use-lc-numeric", false), ("non-decimal-data", false), ("optimize", false),
        ("no-optimize", false), ("pretty-print", false), ("profile", false), ("posix", false),
        ("re-interval", false), ("sandbox", false), ("lint-old", false), ("version", false),
        ("csv", false), ("persist", false), ("usage", false), ("interactive", false),
        ("posix_space", false), ("dump", false), ("random", false), ("sprintf", false),
    ];
    // A program from a file (or a library) is kept as a word that expands:
    // only running tells what it runs.
    let mut programs = Vec::new();
    let mut at = 0;
    let long = |option: &str, word: &Word, at: &mut usize, programs: &mut Vec<Option<Word>>| {
        let Some((full, value)) = long_option(option, word, LONG, args, at) else { return false };
        match full {
            "source" => programs.push(value),
            "file" | "exec" | "include" | "load" => programs.push(Some(Word::Expands(full.to_string()))),
            _ => {}
        }
        true
    };
    while let Some(word) = args.get(at) {
        let text = word.text();
        if text == "--" {
            at += 1;
            break;
        }
        if text == "-" || !text.starts_with('-') {
            break;
        }
        // `-v"$X"` and `-F"$X"` give a value; any other word that expands
        // may be any option.
        if word.literal().is_none() && !text.starts_with("-v") && !text.starts_with("-F") {
            return vec![Given::Input];
        }
        at += 1;
        if let Some(option) = text.strip_prefix("--") {
            if !long(option, word, &mut at, &mut programs) {
                return vec![Given::Input];
            }
            continue;
        }
        let cluster = &text[1..];
        for (i, letter) in cluster.char_indices() {
            let rest = &cluster[i + letter.len_utf8()..];
            match letter {
                'F' | 'v' | 'f' | 'e' | 'E' | 'i' | 'l' | 'W' | 'Z' => {
                    let value = attached(word, rest, args, &mut at);
                    match letter {
                        'e' => programs.push(value),
                        'f' | 'E' | 'i' | 'l' => programs.push(Some(Word::Expands(text.to_string()))),
                        // `-W NAME[=VALUE]` is `--NAME[=VALUE]`; a value in
                        // the next word (`-W source PROG`) is not followed.
                        'W' => match value {
                            Some(Word::Literal(option)) => {
                                let mut probe = at;
                                if !long(&option, word, &mut probe, &mut programs) || probe != at {
                                    return vec![Given::Input];
                                }
                            }
                            _ => return vec![Given::Input],
                        },
                        _ => {}
                    }
                    break;
                }
                // Their value, if any, is the rest of the word.
                'd' | 'o' | 'p' | 'D' | 'L' => break,
                _ => {}
            }
        }
    }
    if programs.is_empty() {
        programs.push(args.get(at).cloned());
    }
    read_script(programs, awk_program::commands)
}

/// The command lines of scripts joined by newlines, as read by `read`;
/// a script that expands, or one `read` cannot follow, runs what only
/// running tells.
fn read_script(scripts: Vec<Option<Word>>, read: fn(&str) -> Option<Vec<String>>) -> Vec<Given> {
    let mut joined = String::new();
    for script in scripts {
        match script {
            Some(Word::Literal(text)) => {
                joined.push_str(&text);
                joined.push('\n');
            }
            Some(Word::Expands(_)) => return vec![Given::Input],
            // A missing script: the program refuses to start.
            None => return Vec::new(),
        }
    }
    match read(&joined) {
        Some(lines) => lines.into_iter().map(|line| Given::Line(Some(Word::Literal(line)))).collect(),
        None => vec![Given::Input],
    }
}

/// The long option `option` (a word's text after `--`) names in `table`
/// (each option's name, and whether it takes a value), and its value
/// (after `=`, else the next word); `None` when it names none or more than
/// one, which the program refuses.
fn long_option(
    option: &str,
    word: &Word,
    table: &'static [(&'static str, bool)],
    args: &[Word],
    at: &mut usize,
) -> Option<(&'static str, Option<Word>)> {
    let (option, value) = split_value(option);
    let &(full, valued) = resolve(option, table)?;
    let value = if valued { value.map(|v| literal_like(word, v)).or_else(|| take(args, at)) } else { None };
    Some((full, value))
}

/// The option `given` names: the one named so, else the one its name
/// begins (getopt takes a prefix that names one option only).
fn resolve<'a>(given: &str, options: &'a [(&'a str, bool)]) -> Option<&'a (&'a str, bool)> {
    if let Some(exact) = options.iter().find(|(name, _)| *name == given) {
        return Some(exact);
    }
    let mut matching = options.iter().filter(|(name, _)| !given.is_empty() && name.starts_with(given));
    let first = matching.next()?;
    matching.next().is_none().then_some(first)
}
