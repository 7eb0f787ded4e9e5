//! Development environments that run a command inside themselves: `guix
//! shell [OPTIONS] [PACKAGES] -- CMD…` (and `guix environment`), `meson
//! devenv [OPTIONS] CMD…`, and those whose option parser permutes, so
//! their command is the words that are no option: `opam exec [--] CMD…`
//! (cmdliner), `stack exec CMD [-- ARGS]` (optparse-applicative), `cabal
//! exec [--] CMD…` (GetOpt's `Permute`). Each runs its command as its words.
//! So do the secret stores' runners, which give a command their secrets as
//! its environment ([`secrets`]): `op run -- CMD…`, `doppler run -- CMD…`,
//! `sops exec-env FILE LINE`.

use super::super::wrapper_options::option_words;
use super::{Runs, Start, getopt_end};
use crate::shell::parse::Word;

/// The programs read here.
pub(super) const NAMES: &[&str] = &[
    "guix",
    "meson",
    "opam",
    "stack",
    "cabal",
    "cmake",
    "libtool",
    "op",
    "doppler",
    "infisical",
    "aws-vault",
    "chamber",
    "teller",
    "berglas",
    "sops",
];

/// The secret stores' subcommands that run a command, and their options
/// that give it a line for a shell (`doppler run --command LINE`).
#[rustfmt::skip]
const SECRETS: &[(&str, &str, &[&str])] = &[
    ("op", "run", &[]), ("doppler", "run", &["--command"]), ("infisical", "run", &["--command"]),
    ("aws-vault", "exec", &[]), ("chamber", "exec", &[]), ("teller", "run", &[]), ("berglas", "exec", &[]),
];

/// opam's options that take a value (2.2's global ones); `--solver` names
/// a program it runs.
const OPAM: &[&str] = &[
    "--switch",
    "--root",
    "--cli",
    "--color",
    "--confirm-level",
    "--criteria",
    "--cudf",
    "--debug-level",
    "--json",
];

/// stack's (`stack exec --help`, and the global ones a line may give).
#[rustfmt::skip]
const STACK: &[&str] = &["--package", "--rts-options", "--cwd", "--stack-yaml", "--stack-root", "--work-dir",
    "--resolver", "--snapshot", "--compiler", "--with-gcc", "--with-hpack", "--arch", "--verbosity",
    "--color", "--colour", "--terminal-width", "--jobs", "-j", "--docker-image", "--nix-packages"];

/// cabal's (the nix-style build flags a line gives most).
#[rustfmt::skip]
const CABAL: &[&str] = &["-w", "--with-compiler", "--builddir", "--project-file", "--project-dir",
    "--with-hc-pkg", "--package-db", "--verbose", "-v", "--store-dir", "--config-file"];

/// What a line of `name` runs: `None` for a subcommand that runs no
/// command of the line's.
pub(super) fn start(name: &str, words: &[Word]) -> Option<Start> {
    if name == "libtool" {
        return libtool(words);
    }
    if name == "sops" || SECRETS.iter().any(|(store, _, _)| *store == name) {
        return secrets(name, words);
    }
    let sub = words.get(1)?;
    let Some(sub) = sub.literal() else { return Some(Start::Runs(Runs::Unknown)) };
    match (name, sub) {
        // Everything after the first `--` is the command; without one, a
        // shell that runs its input (and a project's `manifest.scm`, its own).
        ("guix", "shell" | "environment") => match words.iter().position(|w| w.literal() == Some("--")) {
            Some(at) if at + 1 < words.len() => Some(Start::At(at + 1)),
            _ => Some(Start::Runs(Runs::Input)),
        },
        ("meson", "devenv") => devenv(words),
        ("opam", "exec") => permuted(words, OPAM, &["--solver"]),
        ("stack", "exec") => permuted(words, STACK, &[]),
        ("cabal", "exec" | "v2-exec") => permuted(words, CABAL, &[]),
        ("cmake", "-E") => cmake_command(words),
        _ => None,
    }
}

/// `cmake -E env [--unset=NAME]… [--modify OP]… [NAME=VALUE]… [--] CMD…`,
/// `cmake -E time CMD…` and `cmake -E chdir DIR CMD…` run CMD; cmake's other
/// commands are its own (`cmake -E rm -rf x` removes without a program).
/// A variable env sets is the line's (the policy reads its names).
fn cmake_command(words: &[Word]) -> Option<Start> {
    let command = words.get(2)?;
    let Some(command) = command.literal() else { return Some(Start::Runs(Runs::Unknown)) };
    let mut at = match command {
        "time" | "env" => 3,
        "chdir" => 4,
        _ => return None,
    };
    if command == "env" {
        while let Some(word) = words.get(at) {
            let Some(text) = word.literal() else { return Some(Start::Runs(Runs::Unknown)) };
            match text {
                "--" => {
                    at += 1;
                    break;
                }
                "--modify" => at += 2,
                _ if text.starts_with("--unset=") || text.starts_with("--modify=") => at += 1,
                _ if text
                    .split_once('=')
                    .is_some_and(|(name, _)| !name.is_empty() && !name.contains('/')) =>
                {
                    at += 1
                }
                _ => break,
            }
        }
    }
    (at < words.len()).then_some(Start::At(at))
}

/// libtool's options before its mode's arguments, and execute mode's
/// `-dlopen FILE` (libtool 2.4).
const LIBTOOL_VALUED: &[&str] = &["--mode", "--tag", "-dlopen"];

/// `libtool [OPTIONS] [--mode=MODE] CMD ARGS…`: in every mode but `finish`
/// libtool runs the command it is given (the compiler of `compile` and
/// `link`, the program of `install`, `execute`, `clean` and `uninstall`).
fn libtool(words: &[Word]) -> Option<Start> {
    let mut at = 1;
    while let Some(word) = words.get(at) {
        let Some(text) = word.literal() else { return Some(Start::Runs(Runs::Unknown)) };
        if text == "--mode=finish" || (text == "--mode" && words.get(at + 1)?.literal() == Some("finish")) {
            return None;
        }
        if text == "--" {
            at += 1;
            break;
        }
        if !text.starts_with('-') || text == "-" {
            break;
        }
        at += if LIBTOOL_VALUED.contains(&text) { 2 } else { 1 };
    }
    (at < words.len()).then_some(Start::At(at))
}

/// `meson devenv [-C DIR] [-w DIR] [--dump [FILE]] [CMD…]` (1.4's argparse
/// REMAINDER): options only before the command; without one, the user's
/// shell, which runs its input.
fn devenv(words: &[Word]) -> Option<Start> {
    const VALUED: &[&str] = &["-C", "-w", "--workdir", "--dump", "--dump-format"];
    let Some((at, _)) = getopt_end(words, 2, VALUED) else { return Some(Start::Runs(Runs::Unknown)) };
    Some(if at < words.len() { Start::At(at) } else { Start::Runs(Runs::Input) })
}

/// The command of a subcommand whose parser permutes: its words that are
/// no option of `valued` (each taking the next word, or glued) nor a flag,
/// from the subcommand on, and every word after the first `--`. A word
/// that starts with `-` among them may be the command's or the tool's
/// (only a `--` before it tells), a word that expands where an option may
/// be, and an option of `opaque` (a program the tool runs) pass no list.
fn permuted(words: &[Word], valued: &[&str], opaque: &[&str]) -> Option<Start> {
    let unknown = Some(Start::Runs(Runs::Unknown));
    let mut command = Vec::new();
    let mut at = 2;
    while let Some(word) = words.get(at) {
        let Some(text) = word.literal() else {
            if word.known_start().is_empty() || word.known_start().starts_with('-') {
                return unknown;
            }
            command.push(word.clone());
            at += 1;
            continue;
        };
        if text == "--" {
            command.extend(words[at + 1..].iter().cloned());
            break;
        }
        if !text.starts_with('-') || text == "-" {
            command.push(word.clone());
            at += 1;
            continue;
        }
        let name = text.split('=').next().unwrap_or(text);
        if !command.is_empty() || opaque.iter().any(|o| o.starts_with(name) && name.len() > 2) {
            return unknown;
        }
        at += option_words(text, valued).unwrap_or(1);
    }
    // opam expands `%{var}%` in the command's words.
    if command.iter().any(|word| word.text().contains("%{")) {
        return unknown;
    }
    (!command.is_empty()).then_some(Start::Runs(Runs::Command { besides: Vec::new(), command }))
}

/// A secret store's runner: its command is what follows its `--` (their
/// parsers, cobra's and kingpin's, differ in what they do without one:
/// only running tells), or the line of `--command`; `sops exec-env FILE
/// LINE` and `exec-file FILE LINE` run LINE through a shell. A file of
/// variables (`op run --env-file`), teller's `--shell` and a word that
/// expands before the command leave it to running; aws-vault and chamber
/// without a command start a shell that runs its input.
fn secrets(name: &str, words: &[Word]) -> Option<Start> {
    let dashes = words.iter().position(|w| w.text() == "--");
    let before = &words[..dashes.unwrap_or(words.len())];
    let &(_, runs, line_options) =
        SECRETS.iter().find(|(store, _, _)| *store == name).unwrap_or(&("sops", "exec-env", &[]));
    // The subcommand among the words before `--`, wherever the tool's own
    // options are (cobra takes them before it too: `op --account a run`).
    let is_sub = |w: &Word| w.literal().is_some_and(|t| t == runs || (name == "sops" && t == "exec-file"));
    let Some(at_sub) = before.iter().skip(1).position(is_sub).map(|i| i + 1) else {
        // A word that expands may be the subcommand.
        return before.iter().skip(1).any(|w| w.literal().is_none()).then_some(Start::Runs(Runs::Unknown));
    };
    if name == "sops" {
        let operands: Vec<&Word> =
            words[at_sub + 1..].iter().filter(|w| !w.text().starts_with('-')).collect();
        return match operands.get(1) {
            Some(line) if operands.len() == 2 => Some(Start::Runs(Runs::Line(Some((*line).clone())))),
            _ => Some(Start::Runs(Runs::Unknown)),
        };
    }
    for (i, word) in before.iter().enumerate().skip(1) {
        let Some(text) = word.literal() else { return Some(Start::Runs(Runs::Unknown)) };
        let option = text.split('=').next().unwrap_or(text);
        if line_options.contains(&option) {
            let line = match text.split_once('=') {
                Some((_, line)) => Some(Word::Literal(line.to_string())),
                None => before.get(i + 1).cloned(),
            };
            return Some(Start::Runs(Runs::Line(line)));
        }
        if option.contains("env-file") || option.contains("dotenv") || option == "--shell" {
            return Some(Start::Runs(Runs::Unknown));
        }
    }
    match dashes {
        Some(at) if at + 1 < words.len() => Some(Start::At(at + 1)),
        // `aws-vault exec PROFILE`, `chamber exec SERVICE`: a shell.
        None if matches!(name, "aws-vault" | "chamber") && words.len() == at_sub + 2 => {
            Some(Start::Runs(Runs::Input))
        }
        _ => Some(Start::Runs(Runs::Unknown)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::tests::{passes_no_list, texts};

    #[test]
    fn an_environments_command_is_read_as_the_command_it_runs() {
        for line in [
            "guix shell -m manifest.scm --pure -- rm x",
            "guix environment --ad-hoc coreutils -- rm x",
            "meson devenv -C build rm x",
            "meson devenv -C build -- rm x",
            "opam exec -- rm x",
            "opam exec --switch 5.1 rm x",
            "stack exec rm -- x",
            "stack exec --package text -- rm x",
            "cabal exec -- rm x",
            "cabal exec -w ghc-9.6 rm x",
            "cmake -E env A=1 --unset=B rm x",
            "cmake -E env --modify PATH=path_list_prepend:/x -- rm x",
            "cmake -E time rm x",
            "cmake -E chdir build rm x",
            "libtool --mode=execute -dlopen lib.la rm x",
            "libtool --quiet --tag CC --mode compile rm x",
            // The secret stores' runners.
            "op run --no-masking -- rm x",
            "doppler run -p proj -c dev -- rm x",
            "infisical run --env=prod -- rm x",
            "aws-vault exec prod --duration=1h -- rm x",
            "chamber exec app db -- rm x",
            "teller run --reset -- rm x",
            "berglas exec --local -- rm x",
            // The tool's own options before the subcommand.
            "op --account acme run -- rm x",
            "doppler --token t run -- rm x",
        ] {
            assert_eq!(texts(line).last().map(String::as_str), Some("rm x"), "{line}");
        }
        // A line for a shell.
        for line in [
            "doppler run --command 'ls; rm x'",
            "infisical run --command='rm x'",
            "sops exec-env secrets.yaml 'rm x'",
            "sops --config c.yaml exec-env secrets.yaml 'rm x'",
            "sops exec-file --no-fifo secrets.yaml 'rm x {}'",
        ] {
            assert!(texts(line).iter().any(|text| text.starts_with("rm x")), "{line}: {:?}", texts(line));
        }
        for line in [
            "op run --env-file .env -- rm x",
            "teller run --shell -- 'rm x'",
            "doppler run rm x",
            "aws-vault exec prod rm x",
            "aws-vault exec prod",
            "sops exec-env secrets.yaml",
            "op \"$SUB\" -- rm x",
        ] {
            passes_no_list(line);
        }
        for line in ["op item list", "doppler secrets", "sops -d secrets.yaml", "aws-vault list"] {
            assert_eq!(texts(line), [line], "{line}");
        }
        for line in [
            "guix build hello",
            "meson setup build",
            "opam install dune",
            "stack build",
            "cabal build",
            "cmake -E make_directory d",
            "libtool --mode=finish /usr/lib",
        ] {
            assert_eq!(texts(line), [line], "{line}");
        }
    }

    #[test]
    fn what_only_running_tells_passes_no_list() {
        for line in [
            // A shell that runs its input.
            "guix shell coreutils",
            "meson devenv -C build",
            // Options among the command's words: the tool's or the command's?
            "opam exec rm -f x",
            "stack exec rm -f x",
            // A program it runs besides; a variable opam expands; a word that may be an option.
            "opam exec --solver=./s -- ls",
            "opam exec -- %{bin}%/rm x",
            "cabal exec \"$OPT\" ls",
        ] {
            passes_no_list(line);
        }
    }
}
