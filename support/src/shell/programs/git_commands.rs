//! What git runs besides itself that its command line says: a
//! configuration key whose value is a command, set with `-c`,
//! `--config-env`, `git clone --config` or `git config` (`-c
//! core.pager=CMD`, `-c alias.x='!CMD'`, `-c core.fsmonitor=CMD`), which
//! only running tells (the value may be a line, a program, a directory of
//! hooks, a file of more configuration); and the options and subcommands
//! whose value is a command line: `rebase --exec`, `submodule foreach`,
//! `bisect run`, `--upload-pack`, `--receive-pack`, `--exec`, `difftool
//! --extcmd`, `filter-branch`'s filters, `grep --open-files-in-pager`.
//! What git's own configuration files and hooks say is not read here.

use super::given::{self, Given};
use crate::shell::parse::Word;

/// Configuration keys whose value git runs, or that choose what it runs
/// (section, name; any subsection: `credential.<url>.helper`; `*`: any
/// name, as `alias.<name>`). Compared as git does, without case.
#[rustfmt::skip]
const RUNS: &[(&str, &str)] = &[
    ("core", "editor"), ("core", "pager"), ("core", "sshcommand"), ("core", "askpass"),
    ("core", "gitproxy"), ("core", "fsmonitor"), ("core", "hookspath"),
    ("core", "alternaterefscommand"), ("sequence", "editor"), ("diff", "external"),
    ("diff", "command"), ("diff", "textconv"), ("difftool", "cmd"), ("difftool", "path"),
    ("merge", "driver"), ("mergetool", "cmd"), ("mergetool", "path"), ("filter", "clean"),
    ("filter", "smudge"), ("filter", "process"), ("credential", "helper"), ("gpg", "program"),
    ("gpg", "defaultkeycommand"), ("alias", "*"), ("pager", "*"), ("interactive", "difffilter"),
    ("uploadpack", "packobjectshook"), ("protocol", "allow"), ("remote", "uploadpack"),
    ("remote", "receivepack"), ("remote", "vcs"), ("sendemail", "smtpserver"),
    ("sendemail", "tocmd"), ("sendemail", "cccmd"), ("sendemail", "headercmd"),
    ("sendemail", "sendmailcmd"), ("web", "browser"), ("browser", "cmd"), ("browser", "path"),
    ("man", "viewer"), ("man", "cmd"), ("man", "path"), ("include", "path"), ("includeif", "path"),
    ("trailer", "command"), ("trailer", "cmd"), ("submodule", "update"), ("hook", "command"),
    ("instaweb", "httpd"), ("instaweb", "browser"),
];

/// git's own options that take the next word as their value.
const VALUED: &[&str] =
    &["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"];

/// Subcommands' options whose value is a command line: (subcommand,
/// options). A long one is also taken by a prefix of its name, and with
/// `=`; one written with a `=` takes a value only so (`-OCMD`,
/// `--open-files-in-pager=CMD`: alone, it runs the pager git would).
#[rustfmt::skip]
const LINES: &[(&str, &[&str])] = &[
    ("rebase", &["-x", "--exec"]),
    ("clone", &["-u", "--upload-pack"]),
    ("fetch", &["--upload-pack"]),
    ("pull", &["--upload-pack"]),
    ("ls-remote", &["--upload-pack"]),
    ("push", &["--receive-pack", "--exec"]),
    ("send-pack", &["--receive-pack", "--exec"]),
    ("fetch-pack", &["--upload-pack", "--exec"]),
    ("archive", &["--exec"]),
    ("difftool", &["-x", "--extcmd"]),
    ("grep", &["-O=", "--open-files-in-pager="]),
    ("filter-branch", &["--env-filter", "--tree-filter", "--index-filter", "--parent-filter",
        "--msg-filter", "--commit-filter", "--tag-name-filter"]),
    ("send-email", &["--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd", "--smtp-server"]),
    ("instaweb", &["-d", "-b", "--httpd", "--browser"]),
];

/// The subcommands read here beyond [`LINES`].
const READ: &[&str] = &["config", "clone", "init", "submodule", "bisect"];

/// Where git's own options before its subcommand end (past a `--`), read
/// once for both uses below; `Err` for a value of theirs that the shell may
/// make more than one word of: the next word is then git's subcommand (`git
/// -C $D status x` runs `git rm status x` when `D` is `. rm`), which a
/// pattern on git's subcommands (`git rm *`) would not see.
fn own_options_end(args: &[Word]) -> Result<usize, String> {
    let mut at = 0;
    while let Some(text) = args.get(at).and_then(Word::literal) {
        if !text.starts_with('-') || text == "-" {
            break;
        }
        at += 1;
        if text == "--" {
            break;
        }
        if VALUED.contains(&text) {
            if let Some(value) = args.get(at).filter(|value| value.splits()) {
                return Err(format!(
                    "`git {text} {value}`: the shell may make more than one word of `{value}`, and then another \
                     word is git's subcommand: quote it",
                    value = value.text()
                ));
            }
            at += 1;
        }
    }
    Ok(at)
}

/// Refuses a value of git's own options that the shell may split ([`own_options_end`]).
pub(super) fn own_values_one_word(args: &[Word]) -> Result<(), String> {
    own_options_end(args).map(|_| ())
}

/// Where git's subcommand is among `args`, when git's own options come
/// before it (`-C . rm x`: 2), all of them written out.
pub(super) fn subcommand_after_options(args: &[Word]) -> Option<usize> {
    let at = own_options_end(args).ok()?;
    (at > 0 && args.get(at).and_then(Word::literal).is_some()).then_some(at)
}

/// What `git ARGS` runs besides itself.
pub(super) fn commands(args: &[Word]) -> Vec<Given> {
    let mut at = 0;
    // git's own options, up to the subcommand.
    while let Some(word) = args.get(at) {
        let Some(text) = word.literal() else {
            // A word that expands may be `-c KEY=CMD`, or the subcommand.
            return vec![Given::Input];
        };
        if !text.starts_with('-') || text == "-" {
            break;
        }
        at += 1;
        if text == "--" {
            break;
        }
        let setting = match text {
            "-c" | "--config-env" => args.get(at),
            _ => None,
        };
        at += usize::from(VALUED.contains(&text));
        let runs = match setting {
            Some(value) => value.literal().is_none_or(runs_a_command),
            None => text.strip_prefix("--config-env=").is_some_and(runs_a_command),
        };
        if runs || text.starts_with("--exec-path=") {
            return vec![Given::Input];
        }
    }
    let Some(subcommand) = args.get(at).and_then(Word::literal) else { return Vec::new() };
    let rest = &args[at + 1..];
    let lines = LINES.iter().find(|(name, _)| *name == subcommand).map(|&(_, options)| options);
    // (`git config` reads its own words: a value may expand.)
    if (lines.is_some() || READ.contains(&subcommand)) && subcommand != "config" && hides_an_option(rest) {
        return vec![Given::Input];
    }
    let mut found = Vec::new();
    match subcommand {
        "config" => return config(rest),
        "clone" | "init" if takes_a_template_or_setting(rest) => return vec![Given::Input],
        "submodule" => found.extend(foreach(rest)),
        "bisect" if rest.first().and_then(Word::literal) == Some("run") => {
            found.push(Given::Line(given::line_of(&rest[1..])));
        }
        _ => {}
    }
    if let Some(options) = lines {
        found.extend(option_lines(rest, options));
    }
    found
}

/// Whether a word among `args`, before a `--`, may expand to an option
/// whose value git would run (`"$OPT"`, `-"$X"`, and `*` beside a file
/// named `--receive-pack=CMD`), as a tool's word is read.
fn hides_an_option(args: &[Word]) -> bool {
    args.iter().take_while(|word| word.literal() != Some("--")).any(given::hides_an_option)
}

/// Whether setting `KEY=VALUE` (or `KEY` alone, or `KEY=ENVVAR` of
/// `--config-env`) sets a key of [`RUNS`].
fn runs_a_command(setting: &str) -> bool {
    let key = setting.split_once('=').map_or(setting, |(key, _)| key);
    is_a_command_key(key)
}

/// Whether `key` (`section.name`, `section.subsection.name`) is one of
/// [`RUNS`].
fn is_a_command_key(key: &str) -> bool {
    let (Some((section, _)), Some((_, name))) = (key.split_once('.'), key.rsplit_once('.')) else {
        return false;
    };
    RUNS.iter().any(|&(s, n)| section.eq_ignore_ascii_case(s) && (n == "*" || name.eq_ignore_ascii_case(n)))
}

/// `git config [OPTIONS] [ACTION] [OPTIONS] NAME [VALUE]`: setting a key of
/// [`RUNS`] makes a later git command run what only running tells (as
/// does editing the file, or a name that expands); reading or removing
/// one runs nothing.
fn config(args: &[Word]) -> Vec<Given> {
    const ACTIONS: &[&str] = &[
        "get",
        "set",
        "unset",
        "list",
        "edit",
        "rename-section",
        "remove-section",
        "get-color",
        "get-colorbool",
    ];
    let (mut at, mut reads, mut edits) = config_options(args, 0);
    if let Some(action) = args.get(at).and_then(Word::literal).filter(|action| ACTIONS.contains(action)) {
        edits |= action == "edit";
        reads |= action != "set";
        let (next, more_reads, more_edits) = config_options(args, at + 1);
        (at, reads, edits) = (next, reads || more_reads, edits || more_edits);
    }
    let hidden = match args.get(at) {
        Some(name) => name.literal().is_none_or(|name| !reads && is_a_command_key(name)),
        None => false,
    };
    if edits || hidden { vec![Given::Input] } else { Vec::new() }
}

/// `git config`'s options from `at`: where its name (or action) is, and
/// whether they read or remove (`--get`, `--list`, `--unset`) or edit.
fn config_options(args: &[Word], mut at: usize) -> (usize, bool, bool) {
    const VALUED: &[&str] =
        &["-f", "--file", "--blob", "--type", "--default", "--comment", "--value", "--url"];
    let (mut reads, mut edits) = (false, false);
    while let Some(text) = args.get(at).and_then(Word::literal) {
        if !text.starts_with('-') {
            break;
        }
        at += 1;
        if text == "--" {
            break;
        }
        reads |= text.starts_with("--get")
            || text.starts_with("--unset")
            || text.ends_with("-section")
            || matches!(text, "-l" | "--list");
        edits |= matches!(text, "-e" | "--edit");
        at += usize::from(VALUED.contains(&text));
    }
    (at, reads, edits)
}

/// `git clone --config KEY=VALUE` of a key of [`RUNS`], and a template
/// directory (`--template`), whose hooks the new repository runs.
fn takes_a_template_or_setting(args: &[Word]) -> bool {
    args.iter().enumerate().any(|(at, word)| {
        let text = word.text();
        let value = || args.get(at + 1).is_some_and(|value| runs_a_command(value.text()));
        text.starts_with("--template")
            || text.strip_prefix("--config=").is_some_and(runs_a_command)
            || text.strip_prefix("-c").is_some_and(|rest| !rest.is_empty() && runs_a_command(rest))
            || (matches!(text, "-c" | "--config") && value())
    })
}

/// `git submodule [--quiet] foreach [--recursive] COMMAND…`: a line the
/// shell runs in each submodule.
fn foreach(args: &[Word]) -> Option<Given> {
    let at = args.iter().position(|word| word.literal() == Some("foreach"))?;
    let words = &args[at + 1..];
    let start = words.iter().position(|word| !word.text().starts_with('-')).unwrap_or(words.len());
    Some(Given::Line(given::line_of(&words[start..])))
}

/// The values of `options` among `args` (`-x CMD`, `-xCMD`, `-ix CMD`,
/// `--exec CMD`, `--exec=CMD`, a prefix of a long one), each a command
/// line.
fn option_lines(args: &[Word], options: &[&str]) -> Vec<Given> {
    let mut found = Vec::new();
    for (at, word) in args.iter().enumerate() {
        let text = word.text();
        if text == "--" {
            break;
        }
        let value = |glued: &str| match word.literal() {
            Some(_) => Given::Line(Some(Word::Literal(glued.to_string()))),
            None => Given::Line(Some(word.clone())),
        };
        let found_here = options.iter().find_map(|option| {
            let (option, only_glued) = option.strip_suffix('=').map_or((*option, false), |o| (o, true));
            match (option.strip_prefix("--"), text.strip_prefix("--")) {
                (Some(long), Some(given)) => {
                    let (name, glued) = given.split_once('=').map_or((given, None), |(n, v)| (n, Some(v)));
                    if name.is_empty() || !long.starts_with(name) {
                        return None;
                    }
                    match glued {
                        Some(glued) => Some(value(glued)),
                        None if only_glued => None,
                        None => Some(Given::Line(args.get(at + 1).cloned())),
                    }
                }
                // A short one, alone or in a cluster of flags (`-ix CMD`):
                // the rest of the word, else the next.
                (None, None) => {
                    let letter = option.strip_prefix('-')?;
                    let cluster = text.strip_prefix('-')?;
                    let rest = &cluster[cluster.find(letter)? + letter.len()..];
                    match rest {
                        "" if only_glued => None,
                        "" => Some(Given::Line(args.get(at + 1).cloned())),
                        glued => Some(value(glued)),
                    }
                }
                _ => None,
            }
        });
        found.extend(found_here);
    }
    found
}

#[cfg(test)]
mod tests {
    use crate::shell::programs::programs;
    use crate::shell::programs::tests::{hidden, texts};

    #[test]
    fn what_git_is_told_to_run_is_read_or_passes_no_list() {
        // A key whose value git runs, set on its command line or by `git config`.
        for line in [
            "git -c core.fsmonitor='rm x' status",
            "git -c alias.st='!rm x' st",
            "git -c Core.Pager='rm x' log",
            "git -c credential.https://example.com.helper='!rm x' fetch",
            "git --config-env=core.sshCommand=CMD fetch",
            "git --config-env core.editor=E commit",
            "git -c \"$KEY=rm\" status",
            "git --exec-path=./bin status",
            "git config alias.st '!rm x'",
            "git config --global core.pager 'rm x'",
            "git config set --local core.hooksPath hooks",
            "git config --file .gitmodules submodule.m.update '!rm x'",
            "git config \"$KEY\" 'rm x'",
            "git config --edit",
            "git clone -c core.fsmonitor='rm x' repo",
            "git clone --config=filter.f.smudge='rm x' repo",
            "git clone --template=./t repo",
            "git push \"$OPTION\" origin",
            // `*` may match a file named `--receive-pack=CMD`.
            "git push origin *",
            "git \"$SUB\" x",
        ] {
            assert!(hidden(line), "{line}");
        }
        // Options and subcommands whose value is a command line.
        for line in [
            "git rebase -x 'rm x' main",
            "git rebase --exec='rm x' main",
            "git rebase --ex 'rm x' main",
            "git rebase -ix 'rm x' main",
            "git submodule foreach --recursive 'rm x'",
            "git submodule --quiet foreach rm x",
            "git bisect run rm x",
            "git clone -u 'rm x' /srv/repo",
            "git fetch --upload-pack='rm x' origin",
            "git push --receive-pack='rm x' origin",
            "git archive --remote=/srv/r --exec='rm x' HEAD",
            "git difftool -x 'rm x'",
            "git grep --open-files-in-pager='rm x' pattern",
            "git filter-branch --tree-filter 'rm x' HEAD",
        ] {
            assert!(texts(line).contains(&"rm x".to_string()), "{line}: {:?}", texts(line));
            assert!(!hidden(line), "{line}");
        }
        // What git does of its own.
        for line in [
            "git -c user.name=ci -c user.email=ci@example.com commit -m 'x'",
            "git -C \"$REPO\" status",
            "git commit -m \"Release $VERSION\"",
            "git push origin -- \"$BRANCH\"",
            "git config --get core.pager",
            "git config --unset alias.st",
            "git config user.email \"$EMAIL\"",
            "git config get core.editor",
            "git grep --open-files-in-pager pattern",
            "git log --oneline -x",
            "git clone https://example.com/r.git",
        ] {
            assert_eq!(programs(line).unwrap().len(), 1, "{line}: {:?}", programs(line));
            assert!(!hidden(line), "{line}");
        }
        // A value of git's own options the shell may split moves its
        // subcommand (`git -C . rm status x` when `D` is `. rm`).
        for line in ["git -C $D status x", "git --git-dir $G log", "git -C ok --work-tree $(pwd) log"] {
            let err = programs(line).unwrap_err();
            assert!(err.contains("git's subcommand: quote it"), "{line}: {err}");
        }
        // git's subcommand without its own options, for a pattern on it.
        for (line, subcommand) in [
            ("git -C . rm x", Some("git rm x")),
            ("git -c a.b=c --git-dir=.git -- rm -q x", Some("git rm -q x")),
            ("git rm x", None),
            ("git -C \"$D\" rm x", Some("git rm x")),
            ("ls -C . rm", None),
        ] {
            assert_eq!(programs(line).unwrap()[0].subcommand_text().as_deref(), subcommand, "{line}");
        }
    }
}
