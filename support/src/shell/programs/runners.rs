//! Runners: programs whose subcommand runs a command after its own options
//! (`poetry run CMD`, `uv run --with x CMD`, `bundle exec CMD`, `conda run
//! -n env CMD`, `npx CMD`, `ip netns exec NAME CMD`; container engines' in
//! [`containers`]), or a command line
//! (`npx -c LINE`, `nix-shell --run LINE`, `yarn exec 'LINE'`), or a shell
//! that reads its input (`nix-shell`, `nix develop`, `capsh --`). A wrapper
//! (`sudo`, `nice`) runs its command from its first operand; a runner's
//! first operand is its subcommand, which a runner may take by any prefix
//! (cleo, Thor, npm and ip do): any prefix counts, which reads more lines as
//! running a command, never fewer.

use super::containers;
use super::given::line_of;
pub(super) use super::given::{Besides, Runs, Start};
use super::given::{is_prefix, literal_like};
use super::slurm;
use super::wrapper_options::{abbreviated, one_word, option_words, value_word};
use crate::shell::parse::Word;
use own_options::{ip_batch, ip_option_words, npm_option_words};

mod daemons;
mod environments;
mod identities;
mod machines;
mod mpi;
mod own_options;
mod perf;
mod pflag;
mod runtimes;
mod sandboxes;
mod tracers;

/// (program, subcommands that run a command, the options of the program and
/// its subcommand that take a value, how many arguments come before the
/// command). Options are read as getopt reads them, and a whole word in the
/// list takes the next word too; npm's, npx's and ip's their own way
/// ([`own_options`]).
#[rustfmt::skip]
const RUNNERS: &[(&str, &[&str], &[&str], usize)] = &[
    ("poetry", &["run"], &["-C", "-P", "--directory", "--project"], 0),
    ("uv", &["run"], &["-p", "-i", "-f", "-P", "-C", "--python", "--directory", "--project",
        "--cache-dir", "--config-file", "--color", "--allow-insecure-host", "--python-preference",
        "--extra", "--no-extra", "--group", "--no-group", "--only-group", "--env-file", "--with",
        "--with-editable", "--with-requirements", "--package", "--index", "--default-index",
        "--index-url", "--extra-index-url", "--find-links", "--upgrade-package", "--reinstall-package",
        "--index-strategy", "--keyring-provider", "--resolution", "--prerelease", "--fork-strategy",
        "--config-setting", "--no-build-isolation-package", "--exclude-newer", "--link-mode",
        "--no-build-package", "--no-binary-package", "--refresh-package", "--python-platform", "-w",
        "--config-settings-package", "--exclude-newer-package", "--no-editable-package",
        "--no-sources-package", "--prerelease-package", "--upgrade-group"], 0),
    ("pipenv", &["run"], &["--python", "--pypi-mirror"], 0),
    // pipx's `run` (argparse: options before the app, each by any prefix).
    ("pipx", &["run"], PIPX, 0),
    // uv 0.9's `uvx` (`uv tool run`, below): a package's command and its words.
    ("uvx", &[], UVX, 0),
    // pdm 2.29's (`pdm run --help`); `--venv` takes a value only when one follows (below).
    ("pdm", &["run"], &["-p", "-L", "-k", "-c", "--project", "--lockfile", "--venv", "--skip", "--env",
        "--env-file", "--working-dir", "--config"], 0),
    ("rye", &["run"], &["--pyproject"], 0),
    ("hatch", &["run"], &["-e", "-p", "--env", "--project", "--data-dir", "--cache-dir", "--config"], 0),
    ("pixi", &["run", "exec"], &["-e", "-s", "-c", "--environment", "--manifest-path", "--spec",
        "--channel", "--platform"], 0),
    ("bundle", &["exec"], &["-r", "--retry", "--gemfile"], 0),
    ("conda", &["run"], &["-n", "-p", "--name", "--prefix", "--cwd"], 0),
    ("mamba", &["run"], &["-n", "-p", "--name", "--prefix", "--cwd"], 0),
    ("micromamba", &["run"], &["-n", "-p", "-r", "-a", "-e", "--name", "--prefix", "--root-prefix",
        "--attach", "--cwd", "--env", "--label"], 0),
    // npm's options are nopt's ([`npm_option_words`]).
    ("npm", &["exec", "x"], &[], 0),
    ("npx", &[], &[], 0),
    // pnpm 12's (`pnpm exec --help`, `pnpm dlx --help`); `pn` is pnpm, `pnpx` and `pnx` are `pnpm dlx`.
    ("pnpm", &["exec", "dlx"], PNPM, 0),
    ("pn", &["exec", "dlx"], PNPM, 0),
    ("pnpx", &[], PNPM, 0),
    ("pnx", &[], PNPM, 0),
    // `yarn exec` runs a line or a command (`yarn_line`); `yarn dlx`, a
    // command. yarn 1.22's global options (`yarn --help`) and berry's `dlx -p`.
    ("yarn", &["exec", "dlx"], &["-p", "--package", "--cwd", "--cache-folder", "--global-folder",
        "--https-proxy", "--link-folder", "--modules-folder", "--mutex", "--network-concurrency",
        "--network-timeout", "--otp", "--preferred-cache-folder", "--proxy", "--registry", "--use-yarnrc",
        "--emoji", "--prod", "--production", "--scripts-prepend-node-path"], 0),
    // bun 1.4's (`bunx --help`).
    ("bunx", &[], BUNX, 0),
    ("bun", &["x"], BUNX, 0),
    ("kubectl", &["exec"], KUBECTL, 1),
    // OpenShift's: `oc exec` is kubectl's; `oc rsh POD [CMD…]` (options end
    // at the pod; without a command, a shell that runs its input).
    ("oc", &["exec", "rsh"], KUBECTL, 1),
    ("rbenv", &["exec"], &[], 0),
    ("pyenv", &["exec"], &[], 0),
    ("nodenv", &["exec"], &[], 0),
    ("goenv", &["exec"], &[], 0),
    ("jenv", &["exec"], &[], 0),
    ("asdf", &["exec"], &[], 0),
    ("direnv", &["exec"], &[], 1),
    // ip's options are its own ([`ip_option_words`]).
    ("ip", &["netns", "vrf"], &[], 1),
];

/// uvx's options that take a value (uv 0.9's `uvx --help`).
#[rustfmt::skip]
const UVX: &[&str] = &["-w", "-c", "-b", "-i", "-f", "-P", "-C", "-p", "--from", "--with", "--with-editable",
    "--with-requirements", "--constraints", "--build-constraints", "--overrides", "--env-file",
    "--python-platform", "--index", "--default-index", "--index-url", "--extra-index-url", "--find-links",
    "--index-strategy", "--keyring-provider", "--upgrade-package", "--resolution", "--prerelease",
    "--fork-strategy", "--exclude-newer", "--exclude-newer-package", "--reinstall-package", "--link-mode",
    "--config-setting", "--config-settings-package", "--no-build-isolation-package", "--no-build-package",
    "--no-binary-package", "--cache-dir", "--refresh-package", "--python", "--color", "--allow-insecure-host",
    "--directory", "--project", "--config-file"];

/// `pipx run`'s options that take a value: pipx 1.1's (`pipx run --help`)
/// and those later releases added (1.8's `main.py`).
#[rustfmt::skip]
const PIPX: &[&str] = &["-i", "--spec", "--python", "--index-url", "--pip-args", "--python-args", "--with",
    "--fetch-python", "--backend", "--cooldown"];

/// The runners' options that name the Python the runner starts (a path,
/// or a program looked up in `PATH`), where they are not a version
/// (`--python 3.12`): `pipx run --python canary cowsay` ran `canary -m
/// venv …`; uv and pipenv run the interpreter they are given too.
const INTERPRETERS: &[(&str, &[&str])] = &[
    ("pipx", &["--python"]),
    ("uv", &["-p", "--python"]),
    ("uvx", &["-p", "--python"]),
    ("pipenv", &["--python"]),
];

/// kubectl 1.32's options that take a value (`kubectl options`, `kubectl
/// exec --help`: those not `=false`), and `oc rsh`'s `--shell` and
/// `--timeout` (kubectl has neither: it refuses the line).
#[rustfmt::skip]
const KUBECTL: &[&str] = &["-c", "-n", "-f", "-s", "-v", "--container", "--namespace", "--filename",
    "--context", "--kubeconfig", "--cluster", "--user", "--server", "--pod-running-timeout", "--as",
    "--as-group", "--as-uid", "--cache-dir", "--certificate-authority", "--client-certificate",
    "--client-key", "--log-flush-frequency", "--password", "--profile", "--profile-output",
    "--request-timeout", "--tls-server-name", "--token", "--username", "--v", "--vmodule", "--shell",
    "--timeout"];

/// pnpm's options that take a value.
const PNPM: &[&str] = &[
    "-C",
    "-F",
    "--dir",
    "--filter",
    "--workspace-dir",
    "--reporter",
    "--package",
    "--allow-build",
    "--cpu",
    "--os",
    "--libc",
    "--env-file",
    "--store-dir",
    "--state-dir",
    "--npmrc-auth-file",
    "--workspace-packages",
    "--registry",
    "--https-proxy",
    "--http-proxy",
    "--no-proxy",
    "--loglevel",
    "--filter-prod",
    "--test-pattern",
    "--changed-files-ignore-pattern",
    "--workspace-concurrency",
];

/// bun's and bunx's options that take a value.
const BUNX: &[&str] = &[
    "-p",
    "-c",
    "--package",
    "--cwd",
    "--config",
    "--env-file",
    "--minimum-release-age",
    "--registry",
    "--ca",
    "--cafile",
];

/// Options of runners' that take the next word as their value only when it
/// is no option.
const OPTIONAL_VALUES: &[(&str, &str)] = &[("pdm", "--venv")];

/// Options of runners' that take the next word as their value or not by
/// rules of their own: yarn 1's optional ones (`yarn --prod true exec rm
/// x` runs `rm x`, `--emoji exec rm x` too).
const UNCLEAR_VALUES: &[(&str, &str)] = &[
    ("yarn", "--emoji"),
    ("yarn", "--prod"),
    ("yarn", "--production"),
    ("yarn", "--scripts-prepend-node-path"),
];

/// Where the command of `words`, a runner's (`words[0]` names `name`),
/// starts; `None` when it is no runner or runs no command (`poetry
/// install`, `uv pip list`).
pub(super) fn start(name: &str, words: &[Word]) -> Option<Start> {
    // `uv tool run` is `uvx`.
    if name == "uv" && words.get(1).and_then(Word::literal) == Some("tool") {
        return match words.get(2).map(Word::literal)? {
            Some("run") => match start("uvx", &words[2..])? {
                Start::At(at) => Some(Start::At(at + 2)),
                runs => Some(runs),
            },
            Some(_) => None,
            None => Some(Start::Runs(Runs::Unknown)),
        };
    }
    match name {
        "capsh" => return capsh(words),
        "perf" => return perf::perf(words),
        "nix-shell" => {
            return Some(
                option_line(&words[1..], &["--run", "--command"]).unwrap_or(Start::Runs(Runs::Input)),
            );
        }
        "nix" => return nix(words),
        // `kubectl exec POD -c C -- CMD`, `kubectl run NAME --image=I -- CMD`,
        // `kubectl debug NODE --image=I -- CMD`: the command after the `--`.
        "kubectl" | "oc" => {
            let dashes = words.iter().position(|word| word.text() == "--");
            let runs = |w: &Word| matches!(w.literal(), Some("exec" | "run" | "debug"));
            if let Some(dashes) = dashes.filter(|&d| words[..d].iter().any(runs)) {
                return Some(Start::At(dashes + 1));
            }
        }
        "mise" | "rtx" => return mise(words),
        _ if containers::ENGINES.contains(&name) => return containers::start(name, words),
        "entr" => return entr(words),
        "ccache" | "sccache" | "distcc" | "icecc" => return compiler_cache(words),
        "srun" | "salloc" | "sbatch" => return slurm::start(name, words),
        _ if mpi::NAMES.contains(&name) => return mpi::mpirun(words),
        _ if machines::NAMES.contains(&name) => return machines::start(words),
        "machinectl" => return machines::machinectl(words),
        _ if sandboxes::NAMES.contains(&name) => return sandboxes::start(name, words),
        _ if daemons::NAMES.contains(&name) => return daemons::start(name, words),
        _ if identities::NAMES.contains(&name) => return identities::start(name, words),
        _ if environments::NAMES.contains(&name) => return environments::start(name, words),
        _ if tracers::NAMES.contains(&name) => return tracers::start(name, words),
        "buildah" => return runtimes::buildah(words),
        "crictl" => return runtimes::crictl(words),
        "ctr" => return runtimes::ctr(words),
        _ => {}
    }
    let &(_, subcommands, valued, positional) = RUNNERS.iter().find(|(runner, _, _, _)| *runner == name)?;
    let mut at = 1;
    let mut yarn_exec = false;
    // An option that may abbreviate a valued one (`skip_options`) leaves
    // where the command starts unknown, if any subcommand can follow.
    let unreadable = |why: String| {
        let later =
            |w: &Word| w.literal().is_some_and(|sub| subcommands.iter().any(|whole| is_prefix(sub, whole)));
        (subcommands.is_empty() || words[at..].iter().any(later))
            .then_some(Start::Runs(Runs::Unreadable(why)))
    };
    if !subcommands.is_empty() {
        at = match skip_options(name, words, at, valued) {
            Ok(at) => at,
            Err(why) => return unreadable(why),
        };
        // `ip -batch FILE` runs the ip commands of FILE (`netns exec N CMD`).
        if name == "ip" && words[1..at.min(words.len())].iter().any(|word| ip_batch(word.text())) {
            return Some(Start::Runs(Runs::Input));
        }
        let sub = words.get(at)?;
        let Some(sub) = sub.literal() else { return Some(Start::Runs(Runs::Unknown)) };
        if name == "yarn" && matches!(sub, "workspace" | "workspaces") {
            return yarn_workspaces(words, at);
        }
        if !subcommands.iter().any(|whole| is_prefix(sub, whole)) {
            return None;
        }
        yarn_exec = name == "yarn" && is_prefix(sub, "exec");
        at += 1;
        // `ip netns exec NAME CMD`: the object, then its `exec`.
        if name == "ip" {
            let exec = words.get(at)?.literal();
            if !exec.is_some_and(|exec| is_prefix(exec, "exec")) {
                return exec.is_none().then_some(Start::Runs(Runs::Unknown));
            }
            at += 1;
        }
    }
    let options = at;
    at = match skip_options(name, words, at, valued) {
        Ok(at) => at,
        Err(why) => return Some(Start::Runs(Runs::Unreadable(why))),
    };
    let options = &words[options..at.min(words.len())];
    // `npx -c LINE`, `npm exec --call LINE` (`-c` is among their valued).
    if matches!(name, "npx" | "npm")
        && let Some(line) = option_line(options, &["-c", "--call"])
    {
        return Some(line);
    }
    let shell_mode = matches!(name, "pnpm" | "pn" | "pnpx" | "pnx")
        && options.iter().any(|w| matches!(w.text(), "-c" | "--shell-mode"));
    // `ip netns exec $NS ls` runs `rm ls` when `NS` is `blue rm`.
    if let Err(why) = words.iter().skip(at).take(positional).try_for_each(|word| one_word(name, word)) {
        return Some(Start::Runs(Runs::Unreadable(why)));
    }
    at += positional;
    if at > words.len() {
        return None;
    }
    // `oc rsh POD` starts a shell in the pod, which runs its input.
    if name == "oc" && at == words.len() && words.iter().any(|w| w.literal() == Some("rsh")) {
        return Some(Start::Runs(Runs::Input));
    }
    // `kubectl -n ns exec POD -- CMD`.
    if words.get(at).and_then(Word::literal) == Some("--") {
        at += 1;
    }
    if shell_mode {
        return Some(Start::Runs(Runs::Line(line_of(&words[at..]))));
    }
    if yarn_exec {
        return Some(Start::Runs(Runs::Line(yarn_line(&words[at..]))));
    }
    let interpreters = interpreters(name, &words[1..at], valued);
    if !interpreters.is_empty() {
        let besides = interpreters.into_iter().map(|word| Besides::Command(vec![word])).collect();
        return Some(Start::Runs(Runs::Command { besides, command: words[at..].to_vec() }));
    }
    Some(Start::At(at))
}

/// The programs the options of a runner's (`options`, up to its command;
/// `valued`, those that take a value) name as the Python it starts
/// ([`INTERPRETERS`]): `--python canary`, `--python=./canary`, `-qpcanary`;
/// not a version (`-p 3.12`, `--python '>=3.11'`), which the runner looks
/// up itself. A value that expands is judged as the program it may be.
fn interpreters(name: &str, options: &[Word], valued: &[&str]) -> Vec<Word> {
    let Some(&(_, names)) = INTERPRETERS.iter().find(|(runner, _)| *runner == name) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(word) = options.get(i) {
        i += 1;
        let text = word.text();
        let mut next = |named: bool| {
            i += 1;
            options.get(i - 1).filter(|_| named).cloned()
        };
        let value = if names.contains(&text) {
            next(true)
        } else if text.starts_with("--") {
            match text.split_once('=') {
                Some((option, value)) => names.contains(&option).then(|| literal_like(word, value)),
                None => valued.contains(&text).then(|| next(false)).flatten(),
            }
        } else if let Some(letters) = text.strip_prefix('-') {
            // Flags, then at most one letter that takes the rest or the next word.
            let mut value = None;
            for (at, letter) in letters.char_indices() {
                let letter = &letters[at..at + letter.len_utf8()];
                let is_letter = |whole: &&str| whole.strip_prefix('-') == Some(letter);
                if valued.iter().any(is_letter) {
                    let named = names.iter().any(is_letter);
                    let rest = &letters[at + letter.len()..];
                    value =
                        if rest.is_empty() { next(named) } else { named.then(|| literal_like(word, rest)) };
                    break;
                }
            }
            value
        } else {
            None
        };
        let version = |value: &Word| {
            value
                .literal()
                .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit() || "<>=~!".contains(c)))
        };
        found.extend(value.filter(|value| !version(value)));
    }
    found
}

/// What `yarn exec CMD ARGS` runs: yarn 2 and later run CMD as a line of
/// their shell with ARGS as its arguments (`yarn exec 'tsc && babel'`),
/// yarn 1 runs the program CMD given ARGS; CMD and ARGS quoted as words
/// is both (where CMD is not a program's name, yarn 1 runs nothing); joined
/// as [`line_of`] joins, so a word that expands names no program.
fn yarn_line(words: &[Word]) -> Option<Word> {
    let (command, args) = words.split_first()?;
    let quoted = |arg: &Word| match arg.literal() {
        Some(text) => Word::Literal(crate::shell::quote::shell_word(text)),
        None => arg.clone(),
    };
    let words: Vec<Word> = std::iter::once(command.clone()).chain(args.iter().map(quoted)).collect();
    line_of(&words)
}

/// `yarn workspace NAME CMD…` runs `yarn CMD…` in the workspace NAME,
/// `yarn workspaces foreach [OPTIONS] CMD…` (yarn 2 and later) in each
/// workspace, and yarn 1's `yarn workspaces run CMD…` runs `yarn run CMD…`
/// in each: that yarn command is read as one (`yarn workspaces foreach -A
/// exec rm x` is `yarn exec rm x`, which runs `rm x`). `words[at]` is
/// `workspace` or `workspaces`.
fn yarn_workspaces(words: &[Word], at: usize) -> Option<Start> {
    let yarn = |before: &[&str], rest: &[Word]| {
        let named = ["yarn"].iter().chain(before).map(|word| Word::Literal(word.to_string()));
        let command = named.chain(rest.iter().cloned()).collect();
        Some(Start::Runs(Runs::Command { besides: Vec::new(), command }))
    };
    if words[at].literal() == Some("workspace") {
        let workspace = words.get(at + 1)?;
        if let Err(why) = one_word("yarn workspace", workspace) {
            return Some(Start::Runs(Runs::Unreadable(why)));
        }
        return yarn(&[], words.get(at + 2..).unwrap_or_default());
    }
    match words.get(at + 1)?.literal() {
        Some("foreach") => match foreach_options(words, at + 2) {
            Ok(command) => yarn(&[], &words[command..]),
            Err(why) => Some(Start::Runs(Runs::Unreadable(why))),
        },
        Some("run") => yarn(&["run"], &words[at + 2..]),
        Some(_) => None,
        None => Some(Start::Runs(Runs::Unknown)),
    }
}

/// Where the command of `yarn workspaces foreach` starts, its options
/// (yarn 4's) from `at` on; `Err` with why at an option it does not know
/// (a newer one may take a value), one whose value may or may not follow
/// (`--since`, without `=`), or a word that expands among them.
fn foreach_options(words: &[Word], mut at: usize) -> Result<usize, String> {
    const FLAGS: &[&str] = &[
        "--all",
        "--recursive",
        "--worktree",
        "--verbose",
        "--parallel",
        "--interlaced",
        "--topological",
        "--topological-dev",
        "--no-private",
        "--dry-run",
    ];
    const VALUED: &[&str] = &["--from", "--include", "--exclude", "--jobs"];
    let unknown = |text: &str| {
        Err(format!(
            "`yarn workspaces foreach {text}`: an option this reading does not know, or whose value may or may \
             not be the next word, so which word is the yarn command is unknown (write `--since=REF`)"
        ))
    };
    while let Some(word) = words.get(at) {
        let Some(text) = word.literal() else {
            return Err(format!(
                "`yarn workspaces foreach {}`: a word that expands where an option may be",
                word.text()
            ));
        };
        if !text.starts_with('-') {
            return Ok(at);
        }
        at += 1;
        if let Some(long) = text.strip_prefix("--") {
            let option = format!("--{}", long.split('=').next().unwrap_or(long));
            if VALUED.contains(&option.as_str()) && !long.contains('=') {
                at += 1;
            } else if !(FLAGS.contains(&option.as_str())
                || VALUED.contains(&option.as_str())
                || text.starts_with("--since="))
            {
                return unknown(text);
            }
            continue;
        }
        // Short flags, and `-j` with its value glued or in the next word.
        for (i, letter) in text.char_indices().skip(1) {
            match letter {
                'A' | 'R' | 'W' | 'v' | 'p' | 'i' | 't' | 'n' => {}
                'j' => {
                    at += usize::from(i + 1 == text.len());
                    break;
                }
                _ => return unknown(text),
            }
        }
    }
    Ok(at)
}

/// The first word from `at` on that is no option of the runner's (nor an
/// option's value), past a `--`, or one that expands (it may be an option
/// or the command: it names no program); `Err` with why when an option may
/// abbreviate one that takes a value (`npm exec --pack p rm x`: npm takes
/// `--pack` as `--package`).
fn skip_options(name: &str, words: &[Word], mut at: usize, valued: &[&str]) -> Result<usize, String> {
    let npm = matches!(name, "npm" | "npx");
    while let Some(word) = words.get(at) {
        let Some(text) = word.literal() else { return Ok(at) };
        if text == "--" || (npm && text.len() > 1 && text.bytes().all(|b| b == b'-')) {
            return Ok(at + 1);
        }
        if !text.starts_with('-') || text.len() == 1 {
            return Ok(at);
        }
        // `uv run --env-file .env CMD`: the file may set `LD_PRELOAD` (by a
        // prefix too, as argparse takes one: `pdm run --env-f .env`).
        let option = text.split('=').next().unwrap_or(text);
        if option.len() >= "--env-".len()
            && "--env-file".starts_with(option)
            && valued.contains(&"--env-file")
        {
            return Err(format!(
                "`{name} {text}`: the file may set its command's environment (`LD_PRELOAD`, which makes a \
                 program run code its command does not name), which only reading it when it runs would tell"
            ));
        }
        let next_is_option = words.get(at + 1).is_some_and(|next| next.text().starts_with('-'));
        if UNCLEAR_VALUES.contains(&(name, text)) && !next_is_option && at + 1 < words.len() {
            return Err(format!(
                "`{name} {text}`: whether it takes the next word as its value only running it would tell, \
                 and so which word is the command: write `{text}=VALUE` or leave it out"
            ));
        }
        let taken = match valued.contains(&text) {
            // argparse's `nargs='?'`: the next word is its value unless it is an option.
            true if next_is_option && OPTIONAL_VALUES.contains(&(name, text)) => 1,
            true => 2,
            false if npm => npm_option_words(name, text, words.get(at + 1).map(Word::text))?,
            false if name == "ip" => ip_option_words(text),
            false => option_words(text, valued).ok_or_else(|| abbreviated(name, text, valued))?,
        };
        // `uv run --with $W ls` runs `rm ls` when `W` is `x rm`.
        if taken == 2
            && let Some(value) = words.get(at + 1)
        {
            value_word(name, text, value)?;
        }
        at += taken;
    }
    Ok(at)
}

/// Where the options of a program that reads them as getopt does with `+`
/// end, from `words[at]` (past a `--`), and whether there were any; `None`
/// where a word that expands may be an option (`"$OPT"`, `-"$X"`).
fn getopt_end(words: &[Word], mut at: usize, valued: &[&str]) -> Option<(usize, bool)> {
    let mut any = false;
    while let Some(word) = words.get(at) {
        let Some(text) = word.literal() else {
            let start = word.known_start();
            return (!start.is_empty() && !start.starts_with('-')).then_some((at, any));
        };
        if text == "--" {
            return Some((at + 1, any));
        }
        if !text.starts_with('-') || text == "-" {
            break;
        }
        any = true;
        at += option_words(text, valued).unwrap_or(1);
    }
    Some((at, any))
}

/// The value of the first of `options` among `words` (`--run LINE`,
/// `--run=LINE`, `-cLINE`), as a line.
fn option_line(words: &[Word], options: &[&str]) -> Option<Start> {
    for (at, word) in words.iter().enumerate() {
        let text = word.text();
        if text == "--" {
            break;
        }
        for option in options {
            if text == *option {
                return Some(Start::Runs(Runs::Line(words.get(at + 1).cloned())));
            }
            let glued = if option.starts_with("--") { format!("{option}=") } else { option.to_string() };
            if let Some(line) = text.strip_prefix(glued.as_str())
                && word.literal().is_some()
            {
                return Some(Start::Runs(Runs::Line(Some(Word::Literal(line.to_string())))));
            }
        }
    }
    None
}

/// `capsh [OPTIONS] -- ARGS` runs `bash ARGS` (`capsh -- -c LINE`); its
/// options are `--name=value` words before the `--`.
fn capsh(words: &[Word]) -> Option<Start> {
    let dashes = words.iter().position(|word| word.text() == "--")?;
    if words[1..dashes].iter().any(|word| word.literal().is_none()) {
        return Some(Start::Runs(Runs::Unknown));
    }
    let bash = std::iter::once(Word::Literal("bash".to_string())).chain(words[dashes + 1..].iter().cloned());
    Some(Start::Runs(Runs::Command { besides: Vec::new(), command: bash.collect() }))
}

/// `nix develop`, `nix shell`: `-c CMD ARGS` (`--command`) runs CMD; without
/// it, a shell that reads its input. `nix run` ([`nix_run`]).
fn nix(words: &[Word]) -> Option<Start> {
    let sub = words.get(1)?;
    let Some(sub) = sub.literal() else { return Some(Start::Runs(Runs::Unknown)) };
    if sub == "run" {
        return Some(nix_run(&words[2..]));
    }
    if !matches!(sub, "develop" | "shell") {
        return None;
    }
    match words.iter().position(|word| matches!(word.text(), "-c" | "--command")) {
        Some(at) => Some(Start::At(at + 1)),
        None => Some(Start::Runs(Runs::Input)),
    }
}

/// `mise exec [TOOL@VERSION]… -- CMD` (`mise x`, `rtx exec`): `-c LINE`
/// runs LINE; without a command, a shell that reads its input.
fn mise(words: &[Word]) -> Option<Start> {
    let sub = words.get(1)?;
    let Some(sub) = sub.literal() else { return Some(Start::Runs(Runs::Unknown)) };
    if !matches!(sub, "exec" | "x") {
        return None;
    }
    if let Some(line) = option_line(&words[2..], &["-c", "--command"]) {
        return Some(line);
    }
    match words.iter().position(|word| word.text() == "--") {
        Some(at) if at + 1 < words.len() => Some(Start::At(at + 1)),
        _ => Some(Start::Runs(Runs::Input)),
    }
}

/// `entr [-acdnprsz] UTILITY [ARG…]`, which runs UTILITY when a file named
/// on its input changes (and once at its start), an argument `/_` given the
/// file's path (read as `xargs -I /_`'s: [`super::read_simple`]); with
/// `-s`, UTILITY is a line the shell runs.
fn entr(words: &[Word]) -> Option<Start> {
    let mut at = 1;
    let mut shell = false;
    while let Some(text) = words.get(at).and_then(Word::literal).filter(|text| text.starts_with('-')) {
        at += 1;
        if text == "--" {
            break;
        }
        shell |= text.contains('s');
    }
    // A word that expands where an option may be (`-s`) is taken for the
    // utility: it names no program.
    if shell {
        return Some(Start::Runs(Runs::Line(words.get(at).cloned())));
    }
    Some(Start::At(at))
}

/// ccache's configuration keys whose value is a program it runs (`ccache
/// -o compiler=rm`, then `ccache gcc x` runs `rm x`).
const CCACHE_COMMAND_KEYS: &[&str] = &["prefix_command", "prefix_command_cpp", "compiler_check", "compiler"];

/// `ccache COMPILER ARGS` (sccache, distcc, icecc): runs COMPILER, whatever
/// program it is; with options instead, the cache's own (`ccache -s`),
/// but a configuration key set to a command passes no list, as git's does.
fn compiler_cache(words: &[Word]) -> Option<Start> {
    let first = words.get(1)?;
    let Some(text) = first.literal() else { return Some(Start::Runs(Runs::Unknown)) };
    if !text.starts_with('-') {
        return Some(Start::At(1));
    }
    let sets_a_command = words[1..].iter().any(|word| {
        let text = word.text();
        let setting = text.strip_prefix("--set-config=").or(text.strip_prefix("-o")).unwrap_or(text);
        word.literal().is_none()
            || CCACHE_COMMAND_KEYS
                .iter()
                .any(|key| setting.trim_start().strip_prefix(key).is_some_and(|v| v.starts_with('=')))
    });
    sets_a_command.then_some(Start::Runs(Runs::Unknown))
}

#[cfg(test)]
mod tests;

/// nix's options that take no value and leave its program as it is (nix
/// 2.24's `nix run --help` and common options).
#[rustfmt::skip]
const NIX_FLAGS: &[&str] = &["-L", "--print-build-logs", "--impure", "--offline", "--refresh",
    "--no-write-lock-file", "--recreate-lock-file", "--commit-lock-file", "--no-update-lock-file",
    "--no-registries", "--show-trace", "--accept-flake-config", "-v", "--verbose", "--quiet", "--debug"];

/// `nix run [OPTIONS] INSTALLABLE [--] [ARGS…]` (`words` after `run`) runs
/// the installable's program given ARGS: read as `NAME ARGS…`, NAME the
/// installable's last attribute (`nix run nixpkgs#busybox -- rm x` is
/// `busybox rm x`, which runs `rm x`; `nixpkgs#python3Packages.black` is
/// `black`). A flake's default program (`nix run .`), a name that expands,
/// an option not in [`NIX_FLAGS`] (it may take a value, or set the
/// program's environment: `--set-env-var`) or an option among ARGS
/// without a `--` before them (nix takes it as its own): only running tells.
fn nix_run(words: &[Word]) -> Start {
    let unreadable = |text: &str| {
        Start::Runs(Runs::Unreadable(format!(
            "`nix run {text}`: an option this reading does not know (it may take a value, or set the \
             program's environment), or one that expands, so which program runs is unknown; put `--` \
             before the program's words"
        )))
    };
    let mut at = 0;
    let installable = loop {
        let Some(word) = words.get(at) else { return Start::Runs(Runs::Unknown) };
        at += 1;
        match word.literal() {
            Some(flag) if NIX_FLAGS.contains(&flag) => {}
            Some(text) if !text.starts_with('-') => break text,
            _ => return unreadable(word.text()),
        }
    };
    let attribute =
        installable.split_once('#').map(|(_, attribute)| attribute.split('^').next().unwrap_or(""));
    let name = attribute.and_then(|attribute| attribute.rsplit('.').next());
    let Some(name) = name.filter(|name| !name.is_empty() && !name.contains(['"', '\'', '$'])) else {
        return Start::Runs(Runs::Unknown);
    };
    let args = match words.get(at) {
        Some(word) if word.text() == "--" => &words[at + 1..],
        _ => {
            let ours = |word: &Word| word.literal().is_none_or(|text| text.starts_with('-'));
            if let Some(word) = words[at..].iter().find(|word| ours(word)) {
                return unreadable(word.text());
            }
            &words[at..]
        }
    };
    let command = std::iter::once(Word::Literal(name.to_string())).chain(args.iter().cloned()).collect();
    Start::Runs(Runs::Command { besides: Vec::new(), command })
}
