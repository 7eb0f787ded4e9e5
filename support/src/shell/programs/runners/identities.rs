//! Programs that run a command as another identity or in another security
//! context, whose words a wrapper's table cannot say: Kerberos's `ksu
//! [USER] [OPTIONS] -e CMD ARGS…` ([`ksu`]) and SELinux's `runcon CONTEXT
//! CMD…` / `runcon -t TYPE CMD…` ([`runcon`]).

use super::{Runs, Start, getopt_end};
use crate::shell::parse::Word;

/// The programs read here.
pub(super) const NAMES: &[&str] = &["ksu", "runcon"];

/// What a line of `name` runs.
pub(super) fn start(name: &str, words: &[Word]) -> Option<Start> {
    match name {
        "ksu" => ksu(words),
        _ => runcon(words),
    }
}

/// `ksu [USER] [OPTIONS] [-e CMD ARGS… | -a ARGS…]` (MIT Kerberos 1.21's
/// `src/clients/ksu/main.c`, getopt `n:c:r:a:zZDfFpPkql:e:`): `-e` takes
/// every word after it as the command (run as it is); `-a` gives the words
/// to the target's login shell (`-a -c LINE`), and without either ksu
/// starts that shell, which runs its input. A word that expands where an
/// option may be passes no list.
fn ksu(words: &[Word]) -> Option<Start> {
    let mut at = 1;
    // The target user, unless the first word is an option.
    if words.get(at).is_some_and(|w| w.literal().is_some_and(|t| !t.starts_with('-'))) {
        at += 1;
    }
    while let Some(word) = words.get(at) {
        let Some(text) = word.literal() else { return Some(Start::Runs(Runs::Unknown)) };
        let Some(letters) = text.strip_prefix('-').filter(|l| !l.is_empty()) else {
            // A word that is no option before `-e`: ksu refuses the line.
            return None;
        };
        // Flags, then the first letter that takes a value (the rest of the
        // word, or the next).
        let valued = letters.char_indices().find(|&(_, l)| "ncrael".contains(l));
        match valued {
            Some((i, 'e')) => {
                let rest = &letters[i + 1..];
                let mut command: Vec<Word> = words[at + 1..].to_vec();
                if !rest.is_empty() {
                    command.insert(0, Word::Literal(rest.to_string()));
                }
                return (!command.is_empty())
                    .then_some(Start::Runs(Runs::Command { besides: Vec::new(), command }));
            }
            Some((_, 'a')) => return Some(Start::Runs(Runs::Unknown)),
            Some((i, _)) if i + 1 == letters.len() => at += 2,
            _ => at += 1,
        }
    }
    Some(Start::Runs(Runs::Input))
}

/// runcon's options that take a value (coreutils 9's `+r:t:u:l:c`).
const RUNCON: &[&str] = &["-r", "-t", "-u", "-l", "--role", "--type", "--user", "--range"];

/// `runcon CONTEXT CMD…`, or `runcon [-c] [-u USER] [-r ROLE] [-t TYPE] [-l
/// RANGE] CMD…`: the context is a word of its own only when no option is
/// given; the command follows. A word that expands where an option may be
/// passes no list.
fn runcon(words: &[Word]) -> Option<Start> {
    let Some((at, options)) = getopt_end(words, 1, RUNCON) else { return Some(Start::Runs(Runs::Unknown)) };
    let at = if options { at } else { at + 1 };
    (at < words.len()).then_some(Start::At(at))
}

#[cfg(test)]
mod tests {
    use super::super::super::tests::{passes_no_list, texts};

    #[test]
    fn another_identitys_command_is_read_as_the_command_it_runs() {
        for line in [
            "ksu root -e /bin/rm x",
            "ksu -q -n user@REALM -e /bin/rm x",
            "ksu admin -zq -e/bin/rm x",
            "runcon system_u:system_r:unconfined_t:s0 rm x",
            "runcon -t unconfined_t rm x",
            "runcon -c -u system_u -- rm x",
        ] {
            assert_eq!(texts(line).last().map(String::as_str), Some("rm x"), "{line}");
        }
        assert_eq!(texts("runcon"), ["runcon"]);
    }

    #[test]
    fn what_only_running_tells_passes_no_list() {
        // The target's shell: with `-a`, its words (`-a -c LINE`); without, its input.
        for line in ["ksu root -a -c 'rm x'", "ksu root", "ksu \"$U\" -e ls", "runcon \"$OPT\" rm x"] {
            passes_no_list(line);
        }
    }
}
