//! Environment variables that make a program run code its command line
//! does not name: `TAR_OPTIONS='--to-command=CMD' tar …`, `PAGER=CMD man
//! …`, `LD_PRELOAD=./x.so ls`, `GIT_SSH_COMMAND=CMD git fetch`. A line
//! that names one (sets it, exports it, or so much as mentions it: the
//! shell has many ways to set a variable) cannot be shown to run only what
//! it names; nor can a builtin that sets a variable whose name expands
//! (`export "$N=…"`, `read "$N"`), which may be one of these.

use super::bash_builtins::variable_operands;
use crate::shell::parse::Word;

/// Such variables, by name; and by the start of their name.
#[rustfmt::skip]
const NAMES: &[&str] = &[
    "GCONV_PATH", "BASH_ENV", "ENV", "TAR_OPTIONS", "PAGER", "MANPAGER", "MANOPT", "LESSOPEN",
    "LESSCLOSE", "EDITOR", "VISUAL", "SSH_ASKPASS", "SUDO_ASKPASS", "RSYNC_RSH", "RSYNC_CONNECT_PROG",
    "GIT_SSH", "GIT_SSH_COMMAND", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS", "GIT_EXEC_PATH", "GIT_PROXY_COMMAND", "NODE_OPTIONS", "PERL5OPT", "PERL5LIB",
    "RUBYOPT", "RUBYLIB", "PYTHONPATH", "PYTHONHOME", "PS4", "PROMPT_COMMAND", "VIMINIT", "EXINIT",
    "WGETRC", "WGET_ASKPASS", "CURL_HOME", "GIT_ALLOW_PROTOCOL", "GIT_TEMPLATE_DIR", "NODE_PATH", "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "LUA_PATH", "LUA_CPATH", "PHPRC", "PHP_INI_SCAN_DIR",
    "DOTNET_STARTUP_HOOKS", "BROWSER", "CCACHE_PREFIX", "CCACHE_PREFIX_CPP", "CCACHE_COMPILERCHECK",
    "CCACHE_COMPILER", "CCACHE_CONFIGPATH", "NERDCTL_TOML", "CNI_PATH", "NETCONFPATH",
    // What `docker --config`, Podman's `containers.conf` (hooks, runtime) and
    // `uv run --env-file` give, by the environment.
    "DOCKER_CONFIG", "CONTAINERS_CONF", "CONTAINERS_CONF_OVERRIDE", "UV_ENV_FILE",
    // Perl's older PERL5LIB; Python's user site, whose `.pth` files run at
    // start-up; Yarn's own program and settings file (`yarnPath`, `rcFilename`).
    "PERLLIB", "PYTHONUSERBASE", "YARN_YARN_PATH", "YARN_RC_FILENAME",
    // The OCI runtime buildah runs on the host; fakechroot's substitutes for
    // commands (`path=replacement`) and its loader.
    "BUILDAH_RUNTIME", "FAKECHROOT_CMD_SUBST", "FAKECHROOT_ELFLOADER",
    // rlwrap's editor (as `EDITOR`) and where its filters are; the shell
    // that `flock -c`, `script -c`, `sudo -s` and `entr -s` run their line with.
    "RLWRAP_EDITOR", "RLWRAP_FILTERDIR", "SHELL",
    // cargo's wrappers around rustc; the JVM's options (`-javaagent:`) as
    // Maven's, Gradle's, sbt's, Ant's and other launchers' scripts pass
    // them, and the java program they run.
    "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "CARGO_BUILD_RUSTC_WRAPPER",
    "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER", "MAVEN_OPTS", "GRADLE_OPTS", "JAVA_OPTS", "SBT_OPTS", "ANT_OPTS",
    "JAVACMD",
    // zip's options from the environment (`-TT CMD` runs CMD); the ssh program
    // of CVS and Subversion; the editor `systemctl edit` runs.
    "ZIPOPT", "CVS_RSH", "SVN_SSH", "SYSTEMD_EDITOR",
    // pdsh's arguments for ssh (`-o ProxyCommand=CMD` runs CMD here).
    "PDSH_SSH_ARGS", "PDSH_SSH_ARGS_APPEND",
    // OpenSSL's configuration (engines and providers it loads: code, in every
    // program linked with it that reads it, curl and openssl among them)
    // and where it finds engines and providers.
    "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES",
    // psql's start-up file of commands, its pager and its editor.
    "PSQLRC", "PSQL_PAGER", "PSQL_EDITOR",
    // The MySQL client's plugins (code) and the directory of its `my.cnf`
    // (`pager = CMD`).
    "LIBMYSQL_PLUGINS", "LIBMYSQL_PLUGIN_DIR", "MYSQL_HOME", "MARIADB_HOME",
    // Backup tools' password commands and remote shells (rclone takes each
    // flag from `RCLONE_<FLAG>`).
    "RESTIC_PASSWORD_COMMAND", "RCLONE_PASSWORD_COMMAND", "RCLONE_AUTH_PROXY", "RCLONE_SFTP_SSH",
    "BORG_PASSCOMMAND", "BORG_NEW_PASSCOMMAND", "BORG_RSH", "BORG_REMOTE_PATH",
    // Where helm finds its plugins, whose `plugin.yaml` names the command
    // `helm PLUGIN` runs.
    "HELM_PLUGINS",
    // make's options from the environment (`--eval TEXT`: a makefile's
    // text, whose recipes a shell runs) and the makefiles it reads first.
    "MAKEFLAGS", "GNUMAKEFLAGS", "MFLAGS", "MAKEFILES",
    // Mercurial's files of settings (hooks run commands) and its editor;
    // Subversion's editor (`SVN_EDITOR`).
    "HGRCPATH", "HGEDITOR", "SVN_EDITOR",
    // GitHub's CLI: the directory of its settings (aliases that run a shell's
    // line) and the programs it runs.
    "GH_CONFIG_DIR", "GH_EDITOR", "GH_BROWSER", "GH_PAGER",
    // The Go tool's flags from the environment (`-toolexec`, `-exec`) and
    // its file of such settings.
    "GOFLAGS", "GOENV",
    // QEMU's user-mode emulators take their options from the environment
    // too: a variable of the guest's (`QEMU_SET_ENV=LD_PRELOAD=…`), a
    // plugin, where the guest's libraries are.
    "QEMU_SET_ENV", "QEMU_PLUGIN", "QEMU_LD_PREFIX",
    // APT's file of settings (its hooks run commands).
    "APT_CONFIG",
];
// `BASH_FUNC_name%%`: a function bash takes from its environment, which
// runs where a command named `name` is written. Apptainer's and
// SingularityCE's options by the environment (`APPTAINER_FUSEMOUNT`) and
// the container's variables (`APPTAINERENV_LD_PRELOAD`).
const PREFIXES: &[&str] = &[
    "LD_",
    "GIT_CONFIG",
    "LUA_INIT",
    "BASH_FUNC_",
    "OMPI_MCA_",
    "PRTE_MCA_",
    "PMIX_MCA_",
    "APPTAINER",
    "SINGULARITY",
];

/// make's variables that name the program a built-in rule runs (GNU make
/// 4's `make -p`: `$(CC) $(CFLAGS) … -c -o x.o x.c`; `$(AR)` for an
/// archive's member, `$(CO)` and `$(GET)` for RCS and SCCS files), and
/// the rules' whole commands (`COMPILE.c`, `LINK.o`): given on make's
/// command line or in its environment, each runs with no makefile at all
/// (`make 'CC=rm -f victim #' x.o` beside an `x.c` removed the victim).
const BUILD_PROGRAMS: &[&str] = &[
    "CC", "CXX", "CPP", "AS", "AR", "LD", "RM", "FC", "F77", "PC", "CO", "GET", "LEX", "YACC", "LINT", "M2C",
    "OBJC", "MAKEINFO", "TEX", "TEXI2DVI", "WEAVE", "CWEAVE", "TANGLE", "CTANGLE", "MAKE",
];
const BUILD_COMMANDS: &[&str] = &["COMPILE.", "LINK.", "PREPROCESS.", "LEX.", "YACC.", "LINT."];

/// Whether `name` is one of make's variables that name a program its
/// built-in rules run ([`BUILD_PROGRAMS`]).
pub fn names_a_build_program(name: &str) -> bool {
    BUILD_PROGRAMS.contains(&name) || BUILD_COMMANDS.iter().any(|prefix| name.starts_with(prefix))
}

/// make's variables of the words its built-in rules give a program, with
/// that program by default (`make 'CFLAGS=-wrapper /bin/sh,-c,LINE' x.o`
/// runs `cc -wrapper … -c -o x.o x.c`, which runs LINE).
const BUILD_FLAGS: &[(&str, &str)] = &[
    ("CFLAGS", "cc"),
    ("CPPFLAGS", "cc"),
    ("TARGET_ARCH", "cc"),
    ("LDFLAGS", "cc"),
    ("LDLIBS", "cc"),
    ("LOADLIBES", "cc"),
    ("OUTPUT_OPTION", "cc"),
    ("CXXFLAGS", "g++"),
    ("ASFLAGS", "as"),
    ("TARGET_MACH", "as"),
    ("ARFLAGS", "ar"),
    ("FFLAGS", "f77"),
    ("RFLAGS", "f77"),
    ("LFLAGS", "lex"),
    ("YFLAGS", "yacc"),
    ("PFLAGS", "pc"),
    ("COFLAGS", "co"),
    ("GFLAGS", "get"),
    ("LINTFLAGS", "lint"),
];

/// Whether a variable's value, put into a shell's line, is the words it
/// shows: blanks between words the shell reads as they are
/// ([`is_plain`](crate::shell::quote::is_plain): no separator, quote,
/// expansion, glob or tilde, which would make the line run more than one
/// program, or another, or give it words the line does not show).
pub(super) fn plain_words(value: &str) -> bool {
    value.split([' ', '\t']).all(crate::shell::quote::is_plain)
}

/// The lines a build runs of the variables that name its programs and
/// their words, defined in `assigns` (before the command, as written: its
/// environment) or among `words` (`make CC=…`, `env CC=… make`, `export
/// CC=…`; any word `NAME=VALUE`, wherever it stands: refusing more, never
/// less): each program with every such word and an operand (`CC=clang
/// CFLAGS=-O2` is `clang -O2 ./x`), and, given words but no program, the
/// program they go to by default. A word of theirs that is not plain
/// ([`plain_words`]) or expands leaves the line to running (it names no
/// program).
pub(super) fn build_programs(assigns: &[String], words: &[Word]) -> Vec<Word> {
    let mut defined: Vec<(String, Word)> = Vec::new();
    let mut define = |text: &str, as_word: &dyn Fn(&str) -> Word| {
        let Some((name, value)) = text.split_once('=') else { return };
        let name = name.trim_end_matches([':', '+', '?', '!']);
        if names_a_build_program(name) || BUILD_FLAGS.iter().any(|(flags, _)| *flags == name) {
            defined.push((name.to_string(), as_word(value)));
        }
    };
    for written in assigns {
        // The value as the one word the shell makes of it.
        define(written, &|value| match crate::shell::parse::simple_commands(value).as_deref() {
            Ok([simple]) if simple.words.len() == 1 => simple.words[0].clone(),
            Ok([]) => Word::Literal(String::new()),
            _ => Word::Expands(value.to_string()),
        });
    }
    for word in words.iter().skip(1) {
        match word {
            Word::Literal(text) => define(text, &|value| Word::Literal(value.to_string())),
            Word::Expands(written) => define(written, &|value| Word::Expands(value.to_string())),
        }
    }
    if defined.is_empty() {
        return Vec::new();
    }
    let (mut flags, mut explicit, mut defaults) = (String::new(), Vec::new(), Vec::new());
    for (name, value) in &defined {
        let default = BUILD_FLAGS.iter().find(|(flags, _)| flags == name).map(|&(_, program)| program);
        match (value, default) {
            // A program's value is a line of its own (`CC='ccache gcc'`).
            (Word::Literal(text), None) => explicit.push(text.clone()),
            (Word::Literal(text), Some(program)) if plain_words(text) => {
                flags.push(' ');
                flags.push_str(text);
                if !defaults.contains(&program) {
                    defaults.push(program);
                }
            }
            _ => {
                let written: Vec<&str> = defined.iter().map(|(_, value)| value.text()).collect();
                return vec![Word::Expands(written.join(" "))];
            }
        }
    }
    if explicit.is_empty() {
        explicit = defaults.into_iter().map(str::to_string).collect();
    }
    explicit.into_iter().map(|program| Word::Literal(format!("{program}{flags} ./x"))).collect()
}

/// npm's settings that name a program it runs (`script-shell`, which runs
/// `npm exec -c` and every script; `node-options`, `NODE_OPTIONS` for them)
/// or a file of settings, as `npm_config_KEY` in any case gives them.
const NPM_KEYS: &[&str] =
    &["script_shell", "node_options", "shell", "editor", "browser", "git", "userconfig", "globalconfig"];

/// Whether `name` is such a variable.
pub fn runs_code(name: &str) -> bool {
    NAMES.contains(&name)
        || PREFIXES.iter().any(|prefix| name.starts_with(prefix))
        || npm_setting(name)
        || cargo_runner(name)
}

/// cargo's `CARGO_TARGET_<TRIPLE>_RUNNER`, the program `cargo run` and
/// `cargo test` run the built program under.
fn cargo_runner(name: &str) -> bool {
    name.len() > "CARGO_TARGET__RUNNER".len()
        && name.starts_with("CARGO_TARGET_")
        && name.ends_with("_RUNNER")
}

fn npm_setting(name: &str) -> bool {
    let prefix = "npm_config_".len();
    name.len() > prefix
        && name.is_char_boundary(prefix)
        && name[..prefix].eq_ignore_ascii_case("npm_config_")
        && NPM_KEYS.iter().any(|key| name[prefix..].eq_ignore_ascii_case(key))
}

/// The first such variable `line` names, as a whole word.
pub fn named(line: &str) -> Option<&str> {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = line.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if !word(bytes[at]) {
            at += 1;
            continue;
        }
        let start = at;
        while at < bytes.len() && word(bytes[at]) {
            at += 1;
        }
        if runs_code(&line[start..at]) {
            return Some(&line[start..at]);
        }
    }
    None
}

/// Builtins that set the variables their arguments name.
const SETS_NAMED: &[&str] =
    &["export", "declare", "typeset", "local", "readonly", "read", "getopts", "mapfile", "readarray"];

/// Whether `name` given `args` sets a variable whose name expands:
/// `export "$N=x"`, `read "$N"`, `printf -v "$N" …`.
pub(super) fn sets_a_hidden_variable(name: &str, args: &[Word]) -> bool {
    let expands = |word: &Word| {
        word.literal().is_none() && word.text().split('=').next().is_some_and(|n| n.contains(['$', '`']))
    };
    if SETS_NAMED.contains(&name) {
        return variable_operands(name, args).into_iter().any(expands);
    }
    name == "printf" && args.windows(2).any(|pair| pair[0].literal() == Some("-v") && expands(&pair[1]))
}

/// Options of wrappers' that set a variable of their command's environment,
/// given `NAME=VALUE` (or `NAME`, to pass on their own): (program, options).
/// Written out, the line names the variable; glued (`-ELD_PRELOAD=…`) or
/// expanding (`-E "$V"`), it does not, and is read here.
#[rustfmt::skip]
const SET_BY: &[(&str, &[&str])] = &[
    ("systemd-run", &["-E", "--setenv"]), ("systemd-nspawn", &["-E", "--setenv"]),
    ("lxc-attach", &["-v", "--set-var"]), ("strace", &["-E", "--env"]), ("firejail", &["--env"]),
    ("bwrap", &["--setenv"]), ("run0", &["--setenv"]), ("machinectl", &["-E", "--setenv"]),
    ("daemonize", &["-E"]),
    ("systemd-socket-activate", &["-E", "--setenv", "--environment"]), ("minijail0", &["--env-add"]),
    ("qemu-user", &["-E", "--E"]),
];

/// Options of wrappers' whose value is a file that may set the command's
/// environment or name programs to run: LXC's configuration (hooks, which
/// run on the host, `lxc.environment`), an OCI bundle's `config.json`,
/// firejail's profiles (`env`), dbus-daemon's configuration (its services'
/// programs), chpst's envdir, proot's Python extension,
/// fakechroot's environment scripts (which it sources) and the directory
/// of its substitutes, the UCSPI servers' rules (`+VAR=value`; tcpsvd's
/// instruction files run as `/bin/sh -c`), minijail0's configuration.
#[rustfmt::skip]
const FROM_FILE: &[(&str, &[&str])] = &[
    ("lxc-attach", &["-f", "--rcfile"]), ("lxc-execute", &["-f", "--rcfile"]),
    ("systemd-nspawn", &["--oci-bundle"]), ("firejail", &["--profile", "--include"]), ("chpst", &["-e"]),
    ("proot", &["-P"]), ("fakechroot", &["-c", "-e", "-b", "--config-dir", "--environment", "--bindir"]),
    ("tcpserver", &["-x"]), ("tcpsvd", &["-i", "-x"]), ("udpsvd", &["-i", "-x"]),
    ("minijail0", &["--config"]), ("dbus-run-session", &["--config-file"]),
];

/// Options of wrappers' whose value is a program (or code) they run besides
/// their command: proot's `-q` (QEMU, before every program the guest
/// runs), fakechroot's loader and preloaded libraries (`-l` is evaluated
/// by its shell), rlwrap's filter, minijail0's and trickle's preloaded
/// library (`trickle -P LIB`), dbus-run-session's bus daemon.
const RUNS_A_PROGRAM: &[(&str, &[&str])] = &[
    ("proot", &["-q", "--qemu"]),
    ("fakechroot", &["-d", "-l", "--elfloader", "--lib"]),
    ("rlwrap", &["-z", "--filter"]),
    ("minijail0", &["--preload-library"]),
    ("trickle", &["-P"]),
    ("dbus-run-session", &["--dbus-daemon"]),
    // QEMU's user-mode plugins (code it loads) and `-L`, where the guest's
    // loader and libraries are taken from (but for one under `/usr/`).
    ("qemu-user", &["-plugin", "--plugin", "-L", "--L"]),
];

/// Options of wrappers' whose value, after a `|` or `!`, is a command line
/// a shell runs: strace's output (`strace -o '|CMD' ls` pipes its trace to
/// `sh -c CMD`; strace 6.1 ran the canary so).
const PIPES_TO: &[(&str, &[&str])] = &[("strace", &["-o", "--output"])];

/// LXC's keys that name the program a container starts with.
const LXC_COMMANDS: &[&str] = &["lxc.init.cmd", "lxc.init_cmd", "lxc.execute.cmd"];

/// Whether `path` is a directory of the system's (under `/usr/`, no `..`).
fn is_system_prefix(path: &str) -> bool {
    path.starts_with("/usr/") && !path.split('/').any(|part| part == "..")
}

/// Whether `written`, an option as given, is `option`: itself, or a long
/// one by a prefix of its name (getopt_long takes one; should the prefix
/// be another option's, reading it as this one refuses more, never less).
fn is_option(written: &str, option: &str) -> bool {
    written == option || (written.len() > 2 && written.starts_with("--") && option.starts_with(written))
}

/// Why the option `option` of `program`'s, given a value of which `known`
/// is known before it runs (all of it when `whole`), may make the command
/// run code it does not name: it sets such a variable, or one whose name
/// expands, or reads a file of settings, or names a program
/// (`systemd-run -p ExecStartPre=…`, `lxc-execute -s lxc.hook.…`).
/// `shown`: the option and its value as written.
pub(super) fn set_by_option(
    program: &str,
    option: &str,
    known: &str,
    whole: bool,
    shown: &str,
) -> Result<(), String> {
    let table_name = super::wrapper_options::table_name(program);
    let is = |table: &[(&str, &[&str])]| {
        table
            .iter()
            .any(|(name, options)| *name == table_name && options.iter().any(|o| is_option(option, o)))
    };
    // A cross toolchain's libraries, where Debian puts them
    // (`qemu-aarch64 -L /usr/aarch64-linux-gnu ./test`): the system's.
    if table_name == "qemu-user" && matches!(option, "-L" | "--L") && whole && is_system_prefix(known) {
        return Ok(());
    }
    if is(FROM_FILE) {
        return Err(format!(
            "`{shown}`: the file may set its command's environment (`LD_PRELOAD`) or name programs to run, \
             which only reading it when it runs would tell"
        ));
    }
    if is(SET_BY) {
        return variable_set(known, whole, shown);
    }
    if is(RUNS_A_PROGRAM) {
        return Err(format!("`{shown}` names a program {program} runs besides its command"));
    }
    if is(PIPES_TO) && (known.starts_with(['|', '!']) || (known.is_empty() && !whole)) {
        return Err(format!(
            "`{shown}`: {program} runs a value that starts with `|` or `!` as a command line (its output \
             piped to it){}",
            if known.is_empty() { ", and this one's start only running it would tell" } else { "" }
        ));
    }
    let (key, value) = match (program, option) {
        ("systemd-run", "-p") | ("lxc-execute", "-s") => known.split_once('=').ok_or(()),
        ("systemd-run" | "run0", _) if is_option(option, "--property") => known.split_once('=').ok_or(()),
        ("lxc-execute", _) if is_option(option, "--define") => known.split_once('=').ok_or(()),
        _ => return Ok(()),
    }
    .map_err(|()| {
        format!("`{shown}`: which setting it gives only running it would tell: write its name out")
    })?;
    let (key, value) = (key.trim(), value.trim_start());
    if key.starts_with("Exec") || key.starts_with("lxc.hook") || LXC_COMMANDS.contains(&key) {
        return Err(format!("`{shown}` names a program {program} runs besides its command"));
    }
    if key == "EnvironmentFile" {
        return Err(format!(
            "`{shown}`: the file may set its command's environment (`LD_PRELOAD`), which only reading it \
             when it runs would tell"
        ));
    }
    match key {
        _ if key.starts_with("lxc.environment") => variable_set(value, whole, shown),
        "Environment" if !whole => Err(format!(
            "`{shown}` sets variables of its command's environment that only running it would tell (they \
             may be `LD_PRELOAD`, which makes a program run code its command does not name): write them out"
        )),
        "Environment" => match named(value) {
            Some(name) => Err(steers(shown, name)),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// Whether setting a variable, `NAME=VALUE` or `NAME` of which `known` is
/// known (all of it when `whole`), may steer what the command runs: the
/// engines' readers, whose refusal says only that running tells.
pub(super) fn may_steer(known: &str, whole: bool) -> bool {
    variable_set(known, whole, "").is_err()
}

/// Whether `program` has an option [`set_by_option`] reads.
pub(super) fn reads_options_of(program: &str) -> bool {
    let program = super::wrapper_options::table_name(program);
    let listed = |table: &[(&str, &[&str])]| table.iter().any(|(name, _)| *name == program);
    listed(SET_BY)
        || listed(FROM_FILE)
        || listed(RUNS_A_PROGRAM)
        || listed(PIPES_TO)
        || matches!(program, "systemd-run" | "run0" | "lxc-execute")
}

/// Why setting a variable, `NAME=VALUE` or `NAME` of which `known` is known
/// (all of it when `whole`), may steer what the command runs.
pub(super) fn variable_set(known: &str, whole: bool, shown: &str) -> Result<(), String> {
    let name = match known.split_once('=') {
        Some((name, _)) => name,
        None if whole => known,
        None => {
            return Err(format!(
                "`{shown}` sets a variable of its command's environment whose name only running it would \
                 tell (it may be `LD_PRELOAD`, which makes a program run code its command does not name): \
                 write the name out, `NAME=\"$VALUE\"`"
            ));
        }
    };
    match runs_code(name) {
        true => Err(steers(shown, name)),
        false => Ok(()),
    }
}

fn steers(shown: &str, name: &str) -> String {
    format!(
        "`{shown}` sets `{name}`, an environment variable that makes a program run code its command does not name"
    )
}

#[cfg(test)]
mod tests {
    use super::super::programs;
    use super::super::tests::texts;

    /// Each would run `ls` (or its container's) with `LD_PRELOAD` set, or
    /// a program the line does not name, when its variable says so.
    #[test]
    fn an_option_that_sets_the_environment_may_not_steer_the_command() {
        for (line, says) in [
            ("systemd-run -E \"$V\" ls", "whose name only running it would tell"),
            ("systemd-run --setenv=\"$V\" ls", "write the name out, `NAME=\"$VALUE\"`"),
            ("systemd-run -ELD_PRELOAD=/x.so ls", "`-ELD_PRELOAD=/x.so` sets `LD_PRELOAD`"),
            ("systemd-run -qE LD_PRELOAD=/x.so ls", "sets `LD_PRELOAD`"),
            ("systemd-run --sete=GCONV_PATH=. ls", "sets `GCONV_PATH`"),
            (
                "systemd-run -p ExecStartPre=/bin/rm ls",
                "names a program systemd-run runs besides its command",
            ),
            ("systemd-run --prop=ExecStopPost=/x ls", "names a program"),
            ("systemd-run -p EnvironmentFile=/tmp/e ls", "the file may set its command's environment"),
            ("systemd-run -p \"Environment=$E\" ls", "write them out"),
            ("systemd-run --property=Environment=LD_PRELOAD=/x.so ls", "sets `LD_PRELOAD`"),
            ("systemd-run -p \"$P\" ls", "which setting it gives only running it would tell"),
            ("systemd-nspawn -D /srv/c -E \"$V\" ls", "whose name only running it would tell"),
            ("systemd-nspawn -D /srv/c --oci-bundle=/b ls", "the file may set"),
            ("lxc-attach -n c -v \"$V\" -- ls", "whose name only running it would tell"),
            ("lxc-attach -n c --set-var=LD_PRELOAD=/x.so -- ls", "sets `LD_PRELOAD`"),
            ("lxc-attach -n c -f c.conf -- ls", "the file may set"),
            ("lxc-execute -n c -s lxc.hook.pre-start=/tmp/x -- ls", "names a program lxc-execute runs"),
            ("lxc-execute -n c --define lxc.environment=LD_PRELOAD=/x.so -- ls", "sets `LD_PRELOAD`"),
            ("lxc-execute -n c -s \"$S\" -- ls", "which setting it gives"),
            ("lxc-execute -n c --rcfile=c.conf -- ls", "the file may set"),
            ("strace -E \"$V\" ls", "whose name only running it would tell"),
            ("strace -f -ELD_PRELOAD=/x.so ls", "sets `LD_PRELOAD`"),
            // Its output piped to a command line.
            ("strace -o '|rm x' ls", "runs a value that starts with `|` or `!`"),
            ("strace -fo'!rm x' ls", "as a command line"),
            ("strace --output='|rm x' ls", "as a command line"),
            ("strace --output '!rm x' ls", "as a command line"),
            ("strace -o \"$O\" ls", "only running it would tell"),
            ("strace -o \"$DIR/trace\" ls", "only running it would tell"),
            ("firejail --env=\"$V\" ls", "whose name only running it would tell"),
            ("firejail --profile=./p.profile ls", "the file may set"),
            ("bwrap --bind / / --setenv \"$N\" /x.so ls", "whose name only running it would tell"),
            ("bwrap --bind / / --setenv LD_PRELOAD /x.so ls", "sets `LD_PRELOAD`"),
            ("chpst -e ./env ls", "the file may set"),
            ("uv run --env-file .env ls", "the file may set its command's environment"),
            ("uvx --env-file .env ls", "the file may set its command's environment"),
            ("pdm run --env-f=.env ls", "the file may set"),
            ("sudo systemd-run -E \"$V\" ls", "whose name only running it would tell"),
            ("run0 --setenv=\"$V\" ls", "whose name only running it would tell"),
            ("run0 -u root --property ExecStartPost=/x ls", "names a program run0 runs besides"),
            ("run0 -i rm x", "write `run0 sh -c 'LINE'`"),
            ("run0 --via-shell rm x", "joined into a line"),
            ("run0 -hi rm x", "joined into a line"),
            // sudo takes `NAME=VALUE` among its options (`is_envar`).
            ("sudo -u root LD_PRELOAD=/x.so ls", "`LD_PRELOAD=/x.so` sets `LD_PRELOAD`"),
            ("sudo A=1 BASH_ENV=\"$F\" bash -c true", "sets `BASH_ENV`"),
        ] {
            let why = programs(line).expect_err(line);
            assert!(why.contains(says), "{line}: {why}");
        }
        // Slurm's: a variable whose name expands (written out, the line names it).
        assert_eq!(programs("srun --export \"$E\" ls").unwrap()[0].name, None);
    }

    #[test]
    fn a_variable_an_option_sets_is_read_where_it_steers_nothing() {
        for line in [
            "systemd-run -E A=1 -E B=\"$X\" --setenv=C rm x",
            "systemd-run -p MemoryMax=1G -p \"CPUQuota=$Q\" -p Environment=A=1 rm x",
            "systemd-nspawn -D /srv/c -E \"A=$X\" rm x",
            "lxc-attach -n c -v A=\"$X\" -- rm x",
            "lxc-execute -n c -s lxc.uts.name=x -- rm x",
            "strace -E A=1 -f rm x",
            "strace -o trace.txt -f rm x",
            "strace -o \"./$DIR/trace\" rm x",
            "firejail --env=A=1 rm x",
            "bwrap --bind / / --setenv A \"$X\" rm x",
            "srun --export=ALL,A=1 rm x",
            "uv run --with x rm x",
            "sudo A=1 rm x",
            "run0 -u root --setenv A=1 -D /tmp --pty rm x",
            "systemd-run --output=json --root-directory / rm x",
            "sudo A=1 -u root B=\"$X\" -- rm x",
            "sudo -E 'A=1 2' rm x",
        ] {
            assert_eq!(texts(line).last().map(String::as_str), Some("rm x"), "{line}");
        }
        // A word that starts with `/` is the command, `=` or not; one that
        // expands is a variable only if it holds `=` (`sudo "$V" ls`: no name).
        // (A program by its path is named as its file is.)
        assert_eq!(texts("sudo A=1 /opt/a=b x").last().map(String::as_str), Some("a=b x"));
        assert_eq!(programs("sudo \"$V\" ls").unwrap()[0].name, None);
        assert!(programs("sudo A=$X rm x").expect_err("splits").contains("more than one word"));
    }

    /// cargo's runner for a target, by its triple; its target directory is no program.
    #[test]
    fn a_cargo_runner_steers_cargo_run_its_target_directory_does_not() {
        let runner = "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER=./x cargo run";
        assert_eq!(super::named(runner), Some("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER"));
        assert_eq!(super::named("RUSTC_WRAPPER=sccache cargo build"), Some("RUSTC_WRAPPER"));
        assert_eq!(super::named("GRADLE_OPTS=-javaagent:x.jar ./gradlew build"), Some("GRADLE_OPTS"));
        assert_eq!(super::named("OPENSSL_CONF=e.cnf curl https://x"), Some("OPENSSL_CONF"));
        for line in ["CARGO_TARGET_DIR=t cargo build", "CARGO_TARGET__RUNNER=x cargo run", "RUNNER=x make"] {
            assert_eq!(super::named(line), None, "{line}");
        }
    }
}
