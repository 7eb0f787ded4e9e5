//! The options that take no value (and those that take one only glued,
//! `--block-signal=SIG`) of the wrappers whose options are read in full:
//! with these and the table's valued ones ([`super::tables`]), an option a
//! wrapper here does not have passes no list, since a newer release's may
//! take a value and move the command by a word (as systemd-run's
//! `--output` did). Each list is the installed tool's `--help` (coreutils
//! 9.1, findutils 4.9, util-linux 2.38, sudo 1.9.13, strace 6.1, GNU time
//! 1.9, systemd 252 with the newest `run.c`'s, ltrace 0.7.3, fakeroot 1.31,
//! numactl 2.0, cgroup-tools 2.0), and a test holds it to the tool where it
//! is installed.

use super::takes_value;

/// (wrapper, its options that take no value: flags, and those whose value
/// is glued or read by a reader of its own, as env's `-S` and flock's `-c`).
#[rustfmt::skip]
pub(super) const FLAGS: &[(&str, &[&str])] = &[
    ("env", &["-0", "-i", "-v", "-S", "--null", "--ignore-environment", "--debug", "--split-string",
        "--block-signal", "--default-signal", "--ignore-signal", "--list-signal-handling", "--help",
        "--version"]),
    ("timeout", &["-v", "--foreground", "--preserve-status", "--verbose", "--help", "--version"]),
    ("nice", &["--help", "--version"]),
    ("nohup", &["--help", "--version"]),
    ("stdbuf", &["--help", "--version"]),
    ("chroot", &["--skip-chdir", "--help", "--version"]),
    ("xargs", &["-0", "-e", "-i", "-l", "-o", "-p", "-r", "-t", "-x", "--eof", "--exit", "--interactive",
        "--max-lines", "--no-run-if-empty", "--null", "--open-tty", "--replace", "--show-limits", "--verbose",
        "--help", "--version"]),
    ("setsid", &["-c", "-f", "-w", "-h", "-V", "--ctty", "--fork", "--wait", "--help", "--version"]),
    ("flock", &["-c", "-F", "-n", "-o", "-s", "-u", "-x", "-h", "-V", "--command", "--close", "--exclusive",
        "--no-fork", "--nonblock", "--shared", "--unlock", "--verbose", "--help", "--version"]),
    ("runuser", &["-c", "-f", "-l", "-m", "-p", "-P", "-h", "-V", "--command", "--session-command", "--fast",
        "--login", "--preserve-environment", "--pty", "--help", "--version"]),
    ("chrt", &["-a", "-b", "-d", "-f", "-i", "-m", "-o", "-p", "-r", "-R", "-v", "-h", "-V", "--all-tasks",
        "--batch", "--deadline", "--fifo", "--idle", "--max", "--other", "--pid", "--reset-on-fork", "--rr",
        "--verbose", "--help", "--version"]),
    ("taskset", &["-a", "-c", "-p", "-h", "-V", "--all-tasks", "--cpu-list", "--pid", "--help", "--version"]),
    ("ionice", &["-t", "-h", "-V", "--ignore", "--help", "--version"]),
    ("unshare", &["-c", "-C", "-f", "-i", "-m", "-n", "-p", "-r", "-T", "-u", "-U", "-h", "-V", "--cgroup",
        "--fork", "--ipc", "--keep-caps", "--kill-child", "--map-auto", "--map-current-user",
        "--map-root-user", "--mount", "--mount-proc", "--net", "--pid", "--time", "--user", "--uts", "--help",
        "--version"]),
    ("nsenter", &["-a", "-C", "-F", "-i", "-m", "-n", "-p", "-r", "-T", "-u", "-U", "-w", "-Z", "-h", "-V",
        "--all", "--cgroup", "--follow-context", "--ipc", "--mount", "--net", "--no-fork", "--pid",
        "--preserve-credentials", "--root", "--time", "--user", "--uts", "--wd", "--help", "--version"]),
    ("setpriv", &["-d", "-h", "-V", "--clear-groups", "--dump", "--init-groups", "--keep-groups", "--nnp",
        "--no-new-privs", "--reset-env", "--help", "--version"]),
    ("prlimit", &["-c", "-d", "-e", "-f", "-i", "-l", "-m", "-n", "-q", "-r", "-s", "-t", "-u", "-v", "-x",
        "-y", "-h", "-V", "--as", "--core", "--cpu", "--data", "--fsize", "--locks", "--memlock",
        "--msgqueue", "--nice", "--nofile", "--noheadings", "--nproc", "--raw", "--rss", "--rtprio",
        "--rttime", "--sigpending", "--stack", "--verbose", "--help", "--version"]),
    ("sudo", &["-A", "-b", "-B", "-e", "-E", "-H", "-i", "-k", "-K", "-l", "-n", "-P", "-s", "-S", "-v", "-V",
        "--askpass", "--background", "--bell", "--edit", "--preserve-env", "--set-home", "--login",
        "--remove-timestamp", "--reset-timestamp", "--list", "--non-interactive", "--preserve-groups",
        "--shell", "--stdin", "--validate", "--help", "--version"]),
    ("strace", &["-A", "-c", "-C", "-d", "-D", "-f", "-F", "-h", "-i", "-k", "-n", "-q", "-r", "-t", "-T",
        "-v", "-V", "-w", "-x", "-y", "-Y", "-z", "-Z", "--absolute-timestamps", "--daemonize", "--debug",
        "--decode-fds", "--failed-only", "--follow-forks", "--instruction-pointer", "--no-abbrev",
        "--output-append-mode", "--output-separately", "--quiet", "--relative-timestamps", "--seccomp-bpf",
        "--stack-traces", "--strings-in-hex", "--successful-only", "--summary", "--summary-only",
        "--summary-wall-clock", "--syscall-number", "--syscall-times", "--tips", "--help",
        "--version"]),
    ("time", &["-a", "-p", "-q", "-v", "-h", "-V", "--append", "--portability", "--quiet", "--verbose",
        "--help", "--version"]),
    // systemd 252's (installed) and the newest `run.c`'s (`+hrC:H:M:E:p:tTPqvGdSu:`);
    // run0's, `parse_argv_sudo_mode` (`+hVu:g:D:i`: no run0 here, from the source).
    ("systemd-run", &["-h", "-r", "-t", "-T", "-P", "-q", "-v", "-G", "-d", "-S", "--help", "--version",
        "--user", "--system", "--scope", "--slice-inherit", "--remain-after-exit", "--send-sighup", "--wait",
        "--tty", "--pty", "--pty-late", "--pipe", "--quiet", "--verbose", "--on-timezone-change",
        "--on-clock-change", "--no-block", "--no-ask-password", "--collect", "--same-dir", "--same-root-dir",
        "--shell", "--ignore-failure", "--no-pager"]),
    ("run0", &["-h", "-V", "-i", "--help", "--version", "--no-ask-password", "--slice-inherit", "--via-shell",
        "--login", "--pty", "--pty-late", "--pipe", "--empower", "--same-root-dir"]),
    // ltrace 0.7.3's (`options.c`: `+cfhiLrStTVbC`), fakeroot 1.31's (its
    // getopt line: `+l:f:i:s:ub:vh`), numactl 2.0's (the newest `numactl.c`'s
    // table: `--cpu-compress`, `--verify`, `--version`), libcgroup's cgexec
    // (`+g:sh`, with systemd `+g:shbr`). valgrind's and firejail's options
    // are one word each (`--tool=NAME`, `--net=none`): no table.
    ("ltrace", &["-b", "-c", "-C", "-f", "-h", "-i", "-L", "-r", "-S", "-t", "-T", "-V", "--demangle", "--help",
        "--no-signals", "--version"]),
    ("fakeroot", &["-u", "-v", "-h", "--unknown-is-real", "--version", "--help"]),
    ("numactl", &["-a", "-b", "-d", "-D", "-H", "-l", "-s", "-t", "-T", "-u", "-V", "--all", "--balancing",
        "--cpu-compress", "--dump", "--dump-nodes", "--hardware", "--huge", "--localalloc", "--show", "--strict",
        "--touch", "--verify", "--version"]),
    ("cgexec", &["-b", "-h", "-r", "-s", "--help", "--sticky"]),
    // util-linux 2.38's setarch (linux32 and linux64 are it), systemd 252's
    // systemd-inhibit, systemd-cat and systemd-socket-activate, dbus 1.14's
    // dbus-run-session, OpenSSH 9.2's ssh-agent, rlwrap 0.46's (`-a`, `-A`,
    // `-d`, `-m`, `-p` with a value only glued, below), trickle 1.07's,
    // timelimit 1.9's (`+lqpS:s:T:t:`).
    ("setarch", SETARCH),
    ("linux32", SETARCH),
    ("linux64", SETARCH),
    ("systemd-inhibit", &["-h", "--help", "--version", "--no-pager", "--no-legend", "--list"]),
    ("systemd-cat", &["-h", "--help", "--version"]),
    ("systemd-socket-activate", &["-h", "-d", "-a", "--help", "--version", "--datagram", "--seqpacket",
        "--accept", "--inetd"]),
    ("dbus-run-session", &["--help", "--version"]),
    ("ssh-agent", &["-c", "-s", "-D", "-d", "-k"]),
    ("rlwrap", &["-a", "-A", "-c", "-d", "-h", "-i", "-I", "-m", "-n", "-N", "-o", "-p", "-r", "-R", "-U", "-v",
        "-W", "--always-readline", "--ansi-colour-aware", "--complete-filenames", "--debug", "--help",
        "--case-insensitive", "--pass-sigint-as-sigterm", "--multi-line", "--no-warnings", "--no-children",
        "--one-shot", "--prompt-colour", "--remember", "--renice", "--mirror-arguments", "--version",
        "--polling"]),
    ("trickle", &["-h", "-v", "-V", "-s"]),
    ("timelimit", &["-l", "-p", "-q", "--features"]),
    // systemd-nspawn 252's (its `--volatile` and `--private-users` take a
    // value only glued), catatonit 0.1's, daemonize 1.7's (its manual),
    // e2fsprogs 1.47's logsave (`+asv`, its usage).
    ("systemd-nspawn", &["-h", "--help", "--version", "-q", "--quiet", "--no-pager", "-x", "--ephemeral",
        "--read-only", "--volatile", "-a", "--as-pid2", "-b", "--boot", "--keep-unit", "--private-users", "-U",
        "--private-network", "-n", "--network-veth", "-j", "-P", "--pipe"]),
    ("catatonit", &["-g", "-h", "-L", "-P", "-V"]),
    ("daemonize", &["-a", "-v"]),
    ("logsave", &["-a", "-s", "-v"]),
];

/// setarch's flags (none of its options takes a value).
#[rustfmt::skip]
const SETARCH: &[&str] = &["-B", "-F", "-I", "-L", "-R", "-S", "-T", "-X", "-Z", "-3", "-v", "-h", "-V",
    "--32bit", "--fdpic-funcptrs", "--short-inode", "--addr-compat-layout", "--addr-no-randomize",
    "--whole-seconds", "--sticky-timeouts", "--read-implies-exec", "--mmap-page-zero", "--3gb", "--4gb",
    "--uname-2.6", "--verbose", "--list", "--help", "--version"];

/// Wrappers whose tables come from their source or manual alone: no
/// release of theirs installs here (run0 is systemd 256's), or it prints
/// no help (daemonize), so no `--help` holds them.
#[cfg(test)]
const FROM_SOURCE: &[&str] = &["run0", "daemonize"];

/// Short options whose value is optional, and then glued (`xargs -i{}`,
/// `nsenter -m/proc/1/ns/mnt`, `prlimit -n1024`): the rest of the word is
/// theirs. (nice's obsolete `-NUM` is read below.)
const OPTIONAL: &[(&str, &str)] =
    &[("xargs", "eil"), ("nsenter", "muinpCUTrw"), ("prlimit", "cdefilmnqrstuvxy"), ("rlwrap", "aAdmp")];

/// Whether the short options of `start` reach a letter whose value is
/// optional before one that takes a value: the rest of the word is that
/// value, and the next word is none of theirs (`nsenter -m/proc/1/ns/mnt
/// CMD`, whose `t` is no option).
pub(super) fn ends_in_optional(wrapper: &str, start: &str, valued: &[&str]) -> bool {
    let optional = optional_of(wrapper);
    if optional.is_empty() || start.starts_with("--") {
        return false;
    }
    for letter in start.chars().skip(1) {
        if optional.contains(letter) {
            return true;
        }
        if takes_value(letter, valued) {
            return false;
        }
    }
    false
}

/// The short options of `wrapper` whose value is optional ("" for none).
fn optional_of(wrapper: &str) -> &'static str {
    OPTIONAL.iter().find(|(name, _)| *name == wrapper).map_or("", |&(_, letters)| letters)
}

/// The flags of `wrapper`, when its options are read in full.
pub(super) fn of(wrapper: &str) -> Option<&'static [&'static str]> {
    FLAGS.iter().find(|(name, _)| *name == wrapper).map(|&(_, flags)| flags)
}

/// Whether `start`, an option word as far as it is known (`--user=…`,
/// `-xu…`), is one of the wrapper's: every flag of a cluster up to the
/// first letter that takes a value; a long one whole or by a prefix of one
/// (getopt_long takes one).
pub(super) fn known(wrapper: &str, start: &str, valued: &[&str], flags: &[&str]) -> bool {
    if start.starts_with("--") {
        let name = start.split('=').next().unwrap_or(start);
        return valued.iter().chain(flags).any(|option| option.starts_with(name));
    }
    // `nice -5`: the adjustment, as `-n 5`.
    if wrapper == "nice" && start.len() > 1 && start[1..].bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    let optional = optional_of(wrapper);
    for letter in start.chars().skip(1) {
        if takes_value(letter, valued) || optional.contains(letter) {
            return true;
        }
        if !takes_value(letter, flags) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::tables::WRAPPERS;
    use super::FLAGS;
    use crate::shell::programs::tests::{passes_no_list, texts};

    /// Tools whose `--help` is a synopsis: `fakeroot [-l|--lib LIB] …`,
    /// numactl's, ssh-agent's and timelimit's usage (none has `--help`:
    /// the usage, after an error), rlwrap's two columns.
    const USAGE_ONLY: &[&str] =
        &["fakeroot", "numactl", "ssh-agent", "timelimit", "rlwrap", "catatonit", "logsave"];

    /// Every option the installed tool's `--help` lists is in its tables (a
    /// newer release's new flag would pass no list, a new valued option
    /// would move the command): held to each tool that is installed; under
    /// `CI=true`, which installs them all, a missing one fails.
    #[test]
    fn each_table_holds_every_option_of_the_installed_tool() {
        let mut missing_tools = Vec::new();
        let mut missing = Vec::new();
        for &(tool, flags) in FLAGS.iter().filter(|(tool, _)| !super::FROM_SOURCE.contains(tool)) {
            let program = if tool == "time" { "/usr/bin/time" } else { tool };
            let Ok(out) = std::process::Command::new(program).arg("--help").output() else {
                missing_tools.push(tool);
                continue;
            };
            let help =
                String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
            let valued = WRAPPERS.iter().find(|(name, _, _)| *name == tool).map_or(&[][..], |&(_, v, _)| v);
            // The options a line opens with (`  -u, --user=USER  …`), up
            // to the description, which begins after two spaces; or, in a
            // help that is a synopsis (`[-l|--lib LIB]`), every option in it.
            let synopsis = USAGE_ONLY.contains(&tool);
            let specs = help.lines().filter_map(|line| {
                let spec = line.trim_start();
                let opens = spec.starts_with('-');
                (opens || synopsis)
                    .then(|| if opens { spec.split("  ").next().unwrap_or(spec) } else { spec })
            });
            let apart = |c: char| c.is_whitespace() || ",[]=|".contains(c);
            for word in specs.flat_map(|spec| spec.split(apart)) {
                let option = word.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
                // A synopsis's cluster of flags (`[-ghLPV]`): each letter.
                let cluster = option.strip_prefix('-').filter(|letters| {
                    synopsis && letters.len() > 1 && letters.bytes().all(|b| b.is_ascii_alphanumeric())
                });
                let options = match cluster {
                    Some(letters) => letters.chars().map(|c| format!("-{c}")).collect(),
                    None => vec![option.to_string()],
                };
                for option in options.iter().map(String::as_str) {
                    let is_option = (option.starts_with("--") && option.len() > 3)
                        || (option.len() == 2 && option.starts_with('-') && option != "--");
                    if is_option && !valued.contains(&option) && !flags.contains(&option) {
                        missing.push(format!("{tool} {option}"));
                    }
                }
            }
        }
        if !missing_tools.is_empty() {
            assert!(std::env::var_os("CI").is_none(), "CI=true and these are missing: {missing_tools:?}");
            eprintln!("SKIPPED (in part): not installed, so not held to their --help: {missing_tools:?}");
        }
        missing.sort();
        missing.dedup();
        assert!(missing.is_empty(), "options the tables do not have: {missing:?}");
    }

    #[test]
    fn an_option_the_tables_do_not_have_passes_no_list() {
        for line in [
            "nice --newopt 5 rm x",
            "sudo --new-option x rm y",
            "env -Z rm x",
            "timeout -z 5 rm x",
            "xargs -Q rm",
            "strace -J rm x",
            "systemd-run --new-option x rm y",
            "run0 --new-option x rm y",
            "ltrace -j x rm y",
            "fakeroot --new-option x rm y",
            "numactl -y 1 rm x",
            "cgexec -z x rm y",
            "setarch x86_64 --new x rm y",
            "linux32 -Q rm x",
            "systemd-inhibit --new x rm y",
            "dbus-run-session --new x rm y",
            "ssh-agent -X x rm y",
            "rlwrap --set-term x rm y",
            "trickle -Z 1 rm x",
            "timelimit -z 1 rm x",
            "systemd-nspawn -D /c --new-option x rm y",
            "catatonit -Z rm x",
            "daemonize -z x rm y",
            "logsave -x log rm y",
        ] {
            passes_no_list(line);
        }
        // Flags, clustered or by a prefix, and the valued ones.
        for line in [
            "sudo -E -H rm x",
            "sudo -nEu root rm x",
            "timeout --fore 5 rm x",
            "env -i --ignore-sig rm x",
            "unshare -rm rm x",
            "strace -fqq -o /dev/null rm x",
            "/usr/bin/time -v -o out rm x",
            "systemd-run --user --scope -p MemoryMax=1G --wait -- rm x",
            "run0 --empower -u root rm x",
            "ltrace -fS -o /dev/null -X x -e malloc rm x",
            "fakeroot -u -i state -- rm x",
            "numactl -a --localalloc -C 0-1 rm x",
            "cgexec -g cpu:/x --sticky rm x",
            "setarch x86_64 -R --verbose rm x",
            "linux64 -3 rm x",
            "systemd-inhibit --what=idle --why x rm x",
            "systemd-socket-activate -l 8080 --accept -E A=1 rm x",
            "ssh-agent -s -t 60 rm x",
            "rlwrap -aPassword: -c -s 100 rm x",
            "rlwrap --set-terminal-name xt -p rm x",
            "trickle -s -d 100 rm x",
            "timelimit -q -t 5 -T 9 rm x",
            "systemd-nspawn -q -D /c --pipe -E A=1 rm x",
            "catatonit -g -- rm x",
            "daemonize -a -o out -c / rm x",
            "logsave -as log rm x",
            "run-one rm x",
            "keep-one-running rm x",
            "datefudge -s 2020-01-01 rm x",
            "datefudge --static 2020-01-01 rm x",
            "logsave -- log rm x",
            // Optional values glued, and nice's obsolete adjustment.
            "xargs -i{} -0 rm x",
            "nsenter -t 1 -m/proc/1/ns/mnt rm x",
            "prlimit -n1024 rm x",
            "nice -5 rm x",
        ] {
            assert_eq!(texts(line).last().map(String::as_str), Some("rm x"), "{line}");
        }
    }
}
