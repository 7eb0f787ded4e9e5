//! bash's builtins that run what no word of theirs names (where `sh` is
//! bash, and in every `bash -c LINE`): some run a command they make or make
//! a later word run another program, as an alias does (`hash -p /bin/rm
//! r`); others evaluate a variable's value as arithmetic, whose array
//! subscripts run the command substitutions in them (`let x`, where `x` is
//! `a[$(rm y)]`; `unset 'a[$(rm y)]'`): [`parse::evaluated`].

use crate::shell::parse::{Word, evaluated};

/// Whether bash's builtin `name` given `args` runs a command it makes, or
/// makes a later word run what it does not name, as an alias does (where
/// `sh` is bash, and in every `bash -c LINE`): `hash -p /bin/rm r` (then `r
/// x` runs rm), `enable -f lib.so NAME` (loads code), `compgen -C CMD` and
/// `complete -C CMD`, `compgen -W WORDS` (whose substitutions run), `mapfile -C CMD` and `readarray -C CMD` (which run
/// CMD with words of their own after it), and `fc` but `fc -l` (which runs
/// commands from the history, where `history -s LINE` put them).
pub(super) fn hides_what_runs(name: &str, args: &[Word]) -> bool {
    let letter = match name {
        "hash" => 'p',
        "enable" => 'f',
        // `compgen -W WORDS` expands WORDS as the shell expands a word:
        // `compgen -W '$(rm x)'` runs `rm x`.
        "compgen" if args.iter().any(|arg| is_cluster_with(arg, 'W')) => return true,
        "compgen" | "complete" | "mapfile" | "readarray" => 'C',
        "fc" => return !args.iter().any(|arg| is_cluster_with(arg, 'l')),
        _ => return false,
    };
    args.iter().any(|arg| arg.literal().is_none() || is_cluster_with(arg, letter))
}

/// Whether `arg` is a cluster of short options with `letter` among them.
fn is_cluster_with(arg: &Word, letter: char) -> bool {
    arg.literal().is_some_and(|text| {
        text.len() > 1 && text.starts_with('-') && !text.starts_with("--") && text[1..].contains(letter)
    })
}

/// Whether bash's builtin `name` given `args` evaluates text from a value
/// as arithmetic, which may run what no word names: `let` of anything but
/// numbers; `declare`, `typeset` and `local` giving the integer attribute (`-i`: every later assignment to the variable is
/// evaluated) or making a name reference (`-n`: the name it refers to may
/// be `a[…]`); and a name given to a builtin that sets or tests a variable
/// (`read`, `unset`, `printf -v`, `test -v`, `getopts`, `wait -p`,
/// `mapfile`, the declaring ones) that expands or has a subscript with a
/// variable or an expansion in it.
pub(super) fn evaluates_values(name: &str, args: &[Word]) -> bool {
    let name_evaluates = |word: &Word| evaluated::name_evaluates(word.text());
    let after = |option: char| {
        args.iter().enumerate().any(|(at, arg)| match arg.literal() {
            Some(text) if is_cluster_with(arg, option) => {
                // `-vNAME`, or `-v NAME`.
                let rest = &text[text.find(option).map_or(text.len(), |i| i + 1)..];
                if rest.is_empty() {
                    args.get(at + 1).is_some_and(name_evaluates)
                } else {
                    evaluated::name_evaluates(rest)
                }
            }
            _ => false,
        })
    };
    let operands = || variable_operands(name, args).iter().any(|word| name_evaluates(word));
    match name {
        "let" => args.iter().any(|arg| evaluated::arithmetic_evaluates(arg.text())),
        "declare" | "typeset" | "local" => {
            args.iter().any(|arg| is_cluster_with(arg, 'i') || is_cluster_with(arg, 'n')) || operands()
        }
        "export" | "readonly" | "read" | "unset" | "mapfile" | "readarray" | "getopts" => operands(),
        "printf" => after('v'),
        "test" | "[" => after('v'),
        "wait" => after('p'),
        _ => false,
    }
}

/// The words the builtin `name` takes as names of variables, its options
/// (and their values) left out: `read -rp 'Name? ' answer` names `answer`,
/// `getopts OPTS name ARGS` names `name`. Words are literal or not: one
/// that expands (`"$N"`) is given as it is, for the caller to judge.
pub(super) fn variable_operands<'a>(name: &str, args: &'a [Word]) -> Vec<&'a Word> {
    // The options that take a value, of those that name variables.
    let valued = match name {
        "read" => "dinNptu",
        "mapfile" | "readarray" => "dnOsuCc",
        "getopts" => return args.get(1).into_iter().collect(),
        _ => "",
    };
    let mut names = Vec::new();
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        match arg.literal() {
            Some("--") => {
                names.extend(&args[at + 1..]);
                break;
            }
            Some(text) if text.len() > 1 && text.starts_with(['-', '+']) => {
                // The first letter that takes a value takes the rest of
                // the word (`-d,`, `-rpX`), or the next word (`-rp X`).
                let letters = &text[1..];
                if letters.find(|c| valued.contains(c)).is_some_and(|i| i + 1 == letters.len()) {
                    at += 1;
                }
            }
            _ => names.push(arg),
        }
        at += 1;
    }
    names
}

#[cfg(test)]
mod tests {
    use crate::shell::programs::tests::hidden;

    /// bash's builtins that run a command they make or make a later word run
    /// what it does not name (where `sh` is bash, and in any `bash -c`): each
    /// ran `rm x` in bash 5.2 under a policy that saw no rm.
    #[test]
    fn bash_builtins_that_hide_what_runs_pass_no_list() {
        for line in [
            "hash -p /bin/rm r; r x",
            "enable -f ./lib.so rm",
            "compgen -C 'rm x' foo",
            "complete -C 'rm x' foo",
            "mapfile -tC 'rm x #' -c 1 a < in",
            "readarray -C 'rm x #' -c 1 a < in",
            "set -o history\nhistory -s 'rm x'\nfc -s rm",
            "bash -c \"compgen -C 'rm x' foo\"",
        ] {
            assert!(hidden(line), "{line}");
        }
        for line in
            ["hash -r", "hash ls", "mapfile -t a < in", "fc -l", "enable -n kill", "complete -F _f tool"]
        {
            assert!(!hidden(line), "{line}");
        }
    }

    /// bash evaluates a variable's value as arithmetic, where an array
    /// subscript runs its substitutions: each ran `rm y` in bash 5.2 (where
    /// `x` is `a[$(rm y)]`) under a policy that saw no rm. The policy is held
    /// to the real shells in `tiss-vm`'s `policy::against_shells`.
    #[test]
    fn bash_builtins_that_evaluate_a_value_pass_no_list() {
        for line in [
            "let x",
            "declare -i n=x",
            "typeset -i n",
            "local -n r=x",
            "unset 'a[x]'",
            "unset \"a[$i]\"",
            "test -v 'a[$(rm y)]'",
            "[ -v 'a[x]' ]",
            "printf -v 'a[x]' %s 1",
            "read -r 'a[x]'",
            "getopts ab 'a[x]'",
            "wait -p 'a[x]'",
            "mapfile -t 'a[x]'",
            "compgen -W '$(rm y)' w",
            "declare 'a[x]=1'",
            "read -pt 'a[x]'",
            "read -rp x 'a[x]'",
        ] {
            assert!(hidden(line), "{line}");
        }
        for line in [
            "let 1+2",
            "declare -a list",
            "local x=1",
            "unset TMP",
            "test -v HOME",
            "printf -v out '%s' \"$x\"",
            "read -r -p 'Name: ' name",
            "read -rp 'Continue [y/n]? ' answer",
            "export PATH=\"$HOME/bin:$PATH\"",
            "mapfile -t lines < in",
            "declare 'a[1]=x'",
        ] {
            assert!(!hidden(line), "{line}");
        }
    }

    /// What bash evaluates as code is told apart from a program whose name
    /// expands (the policy's message differs: `${CMD} x` was told to use
    /// numbers in its arithmetic).
    #[test]
    fn what_bash_evaluates_is_told_from_a_name_that_expands() {
        let evaluates = |line: &str| {
            crate::shell::programs::programs(line)
                .unwrap()
                .iter()
                .any(crate::shell::programs::Program::bash_evaluates)
        };
        for line in
            ["echo $((x))", "(( x ))", "echo $[x]", "echo ${!v}", "let n=x", "unset 'a[$i]'", "read 'a[$i]'"]
        {
            assert!(evaluates(line), "{line}");
        }
        for line in
            ["${CMD} x", "$CMD x", "\"${DIR}/$T\" x", "eval \"$L\"", "export \"$N=1\"", "hash -p /bin/rm r"]
        {
            assert!(hidden(line) && !evaluates(line), "{line}");
        }
    }
}
