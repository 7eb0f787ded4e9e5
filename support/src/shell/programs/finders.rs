//! The commands a file finder runs for what it finds: `find … -exec CMD …
//! ;` (and `-execdir`, `-ok`, `-okdir`, ended by `;` or `+`), and fd's `-x
//! CMD …` (`--exec`, and `-X`, `--exec-batch`, ended by `;` or the line).
//! Each is handed back as its words, which the caller reads as a command
//! of its own.

use crate::shell::parse::Word;

/// The commands `name` given `args` runs, if it is a finder: `Err` with
/// why when a word that expands may become the action that runs one.
pub(super) fn commands(name: &str, args: &[Word]) -> Option<Result<Vec<Vec<Word>>, String>> {
    match name {
        "find" => Some(find(args)),
        "fd" | "fdfind" => Some(fd(args)),
        _ => None,
    }
}

/// `find … -exec CMD … ;`: the words up to `;` or `+` run as a command.
fn find(args: &[Word]) -> Result<Vec<Vec<Word>>, String> {
    hidden_exec(args)?;
    let mut commands = Vec::new();
    let mut rest = args;
    while let Some(exec) =
        rest.iter().position(|a| matches!(a.literal(), Some("-exec" | "-execdir" | "-ok" | "-okdir")))
    {
        let inner = &rest[exec + 1..];
        let end = inner.iter().position(|a| matches!(a.literal(), Some(";" | "+"))).unwrap_or(inner.len());
        commands.push(inner[..end].to_vec());
        rest = &inner[end..];
    }
    Ok(commands)
}

/// An `-exec` (or `-ok`) a word of find's may become as it expands, with
/// a command after it: `find . -name $N`, where `N` is `x -exec rm {} ;`,
/// or `find . "$A" rm {} +`, where `A` is `-exec`. A word that is one word
/// and is followed by an option (`find "$DIR" -name x`, `-name "$N"
/// -exec …`) or by no `;`, `+` or word that expands, gives find no command.
fn hidden_exec(args: &[Word]) -> Result<(), String> {
    for (at, word) in args.iter().enumerate() {
        if word.literal().is_some() {
            continue;
        }
        let text = word.text();
        if word.splits() {
            return Err(format!(
                "`find … {text}`: the shell may make more than one word of it, and find may take an \
                 action from them that runs a command (`-exec CMD ;`): quote it"
            ));
        }
        let start = word.known_start();
        let may_be_exec = start.is_empty() || start.starts_with('-');
        let next_names_a_program = args.get(at + 1).is_some_and(|next| !next.text().starts_with('-'));
        let ended = |w: &Word| w.literal().is_none() || matches!(w.text(), ";" | "+");
        if may_be_exec
            && next_names_a_program
            && args.get(at + 2..).is_some_and(|rest| rest.iter().any(ended))
        {
            return Err(format!(
                "`find … {text}`: it may be `-exec`, and then the words after it a command find runs: \
                 write the action out"
            ));
        }
    }
    Ok(())
}

/// fd's: the words after each `-x` (`--exec`) or `-X` (`--exec-batch`), up
/// to a `;` (fd 8.6 ran `fdfind . d -x canary {}`). A placeholder (`{}`,
/// `{/}`, `{.}`…) is a path, which may be any name, an option's too; a word
/// that expands before them may be an `-x`, and a command glued to its
/// option (`--exec=CMD`) is read only by running it. A command with no
/// placeholder is given the path after its words (`fd -x rm` runs `rm
/// PATH`, fdfind 8.6): read with a `{}` there.
fn fd(args: &[Word]) -> Result<Vec<Vec<Word>>, String> {
    let mut commands = Vec::new();
    let mut at = 0;
    while let Some(word) = args.get(at) {
        at += 1;
        let text = word.text();
        let start = word.known_start();
        if word.literal().is_none() && (start.is_empty() || start.starts_with('-')) {
            return Err(format!(
                "`fd … {text}`: the word may become an `-x` that runs the words after it: write it out"
            ));
        }
        let glued = ["--exec=", "--exec-batch="].iter().any(|option| text.starts_with(option))
            || (text.len() > 2 && (text.starts_with("-x") || text.starts_with("-X")));
        if glued {
            return Err(format!("`fd … {text}`: write the command after `-x` as words of its own"));
        }
        if !matches!(text, "-x" | "--exec" | "-X" | "--exec-batch") {
            continue;
        }
        let end = args[at..].iter().position(|a| a.literal() == Some(";")).map_or(args.len(), |e| at + e);
        let placeholder = |w: &Word| match w.literal() {
            Some(text) if text.contains('{') && text.contains('}') => Word::Expands(text.to_string()),
            _ => w.clone(),
        };
        let mut command: Vec<Word> = args[at..end].iter().map(placeholder).collect();
        if !command.iter().any(|w| w.literal().is_none() && w.text().contains('{')) {
            command.push(Word::Expands("{}".to_string()));
        }
        commands.push(command);
        at = end;
    }
    Ok(commands)
}

#[cfg(test)]
mod tests {
    use crate::shell::programs::programs;
    use crate::shell::programs::tests::{hidden, names, texts};

    /// fd's commands are read as find's are, each with its placeholders
    /// as paths (a file may be named `--to-command=CMD`).
    #[test]
    fn fds_commands_are_read_as_the_commands_they_run() {
        assert_eq!(texts("fd -e o -x rm {}"), ["rm {}", "fd -e o -x rm {}"]);
        assert_eq!(
            texts("fdfind . src -x echo one \\; -X rm"),
            ["echo one {}", "rm {}", "fdfind . src -x echo one ; -X rm"]
        );
        assert_eq!(texts("fd --exec-batch rm -f"), ["rm -f {}", "fd --exec-batch rm -f"]);
        // The found file as the program names none; as a tool's word, it may be an option.
        assert_eq!(names("fd -x {} \\;")[0], None);
        assert!(hidden("fd -x tar -cf a.tar {/}"));
        // What fd runs nothing for.
        assert_eq!(texts("fd -e rs src"), ["fd -e rs src"]);
        for line in ["fd \"$P\" src -x ls", "fd --exec=rm x", "fd -xrm", "fd $OPTS"] {
            assert!(programs(line).is_err(), "{line}");
        }
        // A word that expands after the action's start is the command's,
        // and the path comes after it.
        assert_eq!(texts("fd -e o -x rm \"$F\"")[0], "rm \"$F\" {}");
    }
}
