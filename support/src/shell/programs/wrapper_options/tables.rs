//! The wrappers' tables: which programs run a command after their own
//! options and arguments, the options of theirs that take a value, and
//! those that read their options otherwise ([`super::Reads`]).

use super::Reads;

/// Programs that run the command after their own options and arguments:
/// (name, the options of theirs that take a value, short and long, how many
/// arguments they take before the command). Options are read as getopt
/// reads them ([`option_words`]) but for those of [`OWN_WAYS`]. Each
/// table was checked against the tool where it could be run
/// (`TOOL -X` alone says "requires an argument" of a valued one), else
/// against its source or manual.
#[rustfmt::skip]
pub(super) const WRAPPERS: &[(&str, &[&str], usize)] = &[
    ("sudo", &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group",
        "--close-from", "--chdir", "--host", "--prompt", "--role", "--type", "--other-user",
        "--command-timeout", "-R", "--chroot"], 0),
    // sudo-rs 0.2's (`src/sudo/cli`): sudo's, and its `NAME=VALUE` too; please 0.5's.
    ("sudo-rs", &["-D", "-g", "-h", "-p", "-R", "-U", "-u", "--chdir", "--group", "--host", "--chroot",
        "--other-user", "--user", "--prompt"], 0),
    ("please", &["-a", "-c", "-d", "-g", "-r", "-t", "-u", "--allowenv", "--check", "--dir", "--group",
        "--reason", "--target", "--user"], 0),
    ("doas", &["-u", "-C"], 0),
    ("env", &["-u", "-C", "-a", "--unset", "--chdir", "--argv0"], 0),
    ("xargs", &["-I", "-n", "-P", "-d", "-L", "-s", "-a", "-E", "--arg-file", "--delimiter",
        "--max-args", "--max-procs", "--max-chars", "--process-slot-var"], 0),
    ("nohup", &[], 0),
    ("exec", &["-a"], 0),
    ("time", &["-f", "-o", "--format", "--output"], 0),
    ("nice", &["-n", "--adjustment"], 0),
    ("ionice", &["-c", "-n", "-p", "-P", "-u", "--class", "--classdata", "--pid", "--pgid", "--uid"], 0),
    ("timeout", &["-s", "-k", "--signal", "--kill-after"], 1),
    // e2fsprogs' logsave (1.47, `getopt("+asv")`): the log file, then the
    // command; an option it does not know is only a warning.
    ("logsave", &[], 1),
    // Ubuntu's run-one scripts: the command, with no options of their own;
    // datefudge 1.26 (`-s`, `--static`): the date, then the command.
    ("run-one", &[], 0),
    ("run-this-one", &[], 0),
    ("keep-one-running", &[], 0),
    ("run-one-constantly", &[], 0),
    ("run-one-until-success", &[], 0),
    ("run-one-until-failure", &[], 0),
    ("datefudge", &[], 1),
    ("command", &[], 0),
    ("builtin", &[], 0),
    ("stdbuf", &["-i", "-o", "-e", "--input", "--output", "--error"], 0),
    ("setsid", &[], 0),
    ("chroot", &["--userspec", "--groups"], 1),
    ("taskset", &[], 1),
    ("flock", &["-w", "-E", "--timeout", "--wait", "--conflict-exit-code"], 1),
    ("busybox", &[], 0),
    ("toybox", &[], 0),
    ("pkexec", &[], 0),
    ("runuser", &["-u", "-g", "-G", "-w", "-s", "--user", "--group", "--supp-group", "--shell",
        "--whitelist-environment"], 0),
    ("chrt", &["-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"], 1),
    ("unshare", &["-S", "-G", "-R", "-w", "--setuid", "--setgid", "--root", "--wd", "--propagation",
        "--map-user", "--map-group", "--map-users", "--map-groups", "--setgroups", "--monotonic",
        "--boottime"], 0),
    // Its `-r`/`--root` and `-w`/`--wd` take a value only glued (`-r/jail`):
    // `nsenter -t 1 -r rm x` runs `rm x`.
    ("nsenter", &["-t", "-S", "-G", "-W", "--target", "--setuid", "--setgid", "--wdns"], 0),
    ("setpriv", &["--reuid", "--regid", "--ruid", "--rgid", "--euid", "--egid", "--groups",
        "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig",
        "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule"], 0),
    // strace 6.1's and ltrace 0.7's, each probed (`strace --trace X true`
    // runs `true` when `--trace` takes X).
    ("strace", &["-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S", "-U", "-X",
        "--output", "--attach", "--user", "--env", "--string-limit", "--abbrev", "--columns",
        "--const-print-style", "--decode-pids", "--detach-on", "--fault", "--inject", "--interruptible",
        "--kvm", "--raw", "--read", "--signal", "--status", "--summary-columns", "--summary-sort-by",
        "--summary-syscall-overhead", "--trace-path", "--trace", "--verbose", "--write",
        "--syscall-limit", "--trace-fds"], 0),
    ("ltrace", &["-o", "-e", "-p", "-s", "-u", "-n", "-a", "-l", "-x", "-X", "-A", "-D", "-F", "-w", "--output",
        "--align", "--debug", "--config", "--library", "--indent", "--where"], 0),
    ("valgrind", &[], 0),
    // systemd 257's run.c (`+hrC:H:M:E:p:tPqGdSu:`: `-G` is `--collect`, a flag), and
    // the valued options of 258 to 261 (`--output`, `--root-directory`).
    ("systemd-run", &["-p", "-u", "-E", "-M", "-H", "-C", "--property", "--unit", "--setenv",
        "--machine", "--host", "--capsule", "--uid", "--gid", "--working-directory", "--slice",
        "--description", "--nice", "--expand-environment", "--service-type", "--on-active", "--on-boot",
        "--on-startup", "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--timer-property",
        "--path-property", "--socket-property", "--job-mode", "--background", "--json", "--output",
        "--root-directory"], 0),
    // systemd 256's sudo (run.c's `parse_argv_sudo_mode`, `+hVu:g:D:i` from 258).
    ("run0", &["-u", "-g", "-D", "--user", "--group", "--chdir", "--unit", "--property", "--description",
        "--slice", "--nice", "--setenv", "--background", "--machine", "--shell-prompt-prefix", "--lightweight",
        "--area"], 0),
    ("firejail", &[], 0),
    ("faketime", &[], 1),
    ("fakeroot", &["-i", "-s", "-l", "-f", "-b", "--lib", "--faked", "--fd-base"], 0),
    // bash's keyword, where `sh` is bash: `coproc rm x` runs `rm x`.
    ("coproc", &[], 0),
    ("numactl", &["-i", "-p", "-c", "-C", "-N", "-m", "-P", "-w", "-S", "-f", "-o", "-L", "-M", "-I",
        "--interleave", "--preferred", "--cpubind", "--physcpubind", "--cpunodebind", "--membind",
        "--preferred-many", "--weighted-interleave", "--shm", "--file", "--offset", "--length",
        "--shmmode", "--shmid"], 0),
    ("prlimit", &["-p", "-o", "--pid", "--output"], 0),
    ("setarch", &[], 1),
    ("linux32", &[], 0),
    ("linux64", &[], 0),
    ("cgexec", &["-g"], 0),
    ("eatmydata", &[], 0),
    ("nocache", &["-n", "-D"], 0),
    ("catchsegv", &[], 0),
    ("unbuffer", &[], 0),
    ("proxychains", &["-f"], 0),
    ("proxychains4", &["-f"], 0),
    ("sshpass", &["-p", "-f", "-d", "-P"], 0),
    ("ssh-agent", &["-a", "-E", "-O", "-P", "-t"], 0),
    ("systemd-inhibit", &["--what", "--who", "--why", "--mode"], 0),
    ("dbus-run-session", &["--config-file", "--dbus-daemon"], 0),
    ("xvfb-run", &["-e", "-f", "-n", "-p", "-s", "-w", "--error-file", "--auth-file", "--server-num",
        "--xauth-protocol", "--server-args", "--wait"], 0),
    ("chronic", &[], 0),
    ("torsocks", &[], 0),
    ("bwrap", &[], 0),
    // LimitCPU 2.8's (Debian's cpulimit), whose getopt permutes: see `PERMUTES`.
    ("cpulimit", &["-p", "-e", "-P", "-l", "-c", "-s", "--pid", "--exe", "--path", "--limit", "--cpu",
        "--signal"], 0),
    ("ifne", &[], 0),
    ("lckdo", &["-W"], 1),
    // chiark-utils 7.0's (`with-lock-ex [-w|-q|-f] [-t SECS] LOCKFILE CMD…`).
    ("with-lock-ex", &["-t"], 1),
    // Emulators that run an x86 or x86-64 Linux program on another CPU
    // (Box64, Box86, FEX), and NixOS's steam-run (a filesystem of the usual
    // shape around its command); cross-env (npm), which sets the
    // `NAME=VALUE` words before its command, as env does.
    ("box64", &[], 0),
    ("box86", &[], 0),
    ("FEXInterpreter", &[], 0),
    ("FEXLoader", &[], 0),
    ("steam-run", &[], 0),
    ("cross-env", &[], 0),
    // QEMU's user-mode emulators (`qemu-aarch64 -L /usr/aarch64-linux-gnu
    // ./test`), by one name: [`table_name`]. Their options: OWN_WAYS.
    ("qemu-user", &[], 0),
    // A container's init and user switchers (`tini -- CMD`, `gosu USER CMD`).
    ("tini", &["-p", "-e"], 0),
    ("tini-static", &["-p", "-e"], 0),
    ("dumb-init", &["-r", "--rewrite"], 0),
    ("gosu", &[], 1),
    ("su-exec", &[], 1),
    ("setuidgid", &[], 1),
    ("s6-setuidgid", &[], 1),
    // daemontools 0.76's and s6's (djb's and skarnet's getopt: options end
    // at the first word that is none), daemonize 1.7's, systemd-cat's
    // (`+ht:p:`), and the UCSPI servers' (`HOST PORT PROGRAM`: tcpserver
    // 0.88, ipsvd's and busybox's tcpsvd and udpsvd).
    ("softlimit", &["-a", "-c", "-d", "-f", "-l", "-m", "-o", "-p", "-r", "-s", "-t"], 0),
    ("envuidgid", &[], 1),
    ("setlock", &[], 1),
    ("pgrphack", &[], 0),
    ("fghack", &[], 0),
    ("s6-softlimit", &["-a", "-c", "-d", "-f", "-l", "-m", "-o", "-P", "-p", "-r", "-s", "-t"], 0),
    ("s6-envuidgid", &["-D"], 1),
    ("s6-applyuidgid", &["-u", "-g", "-G"], 0),
    ("s6-setlock", &["-t", "-d"], 1),
    ("s6-setsid", &["-d"], 0),
    ("daemonize", &["-c", "-u", "-p", "-o", "-e", "-E", "-l"], 0),
    ("systemd-cat", &["-t", "-p", "--identifier", "--priority", "--stderr-priority", "--level-prefix"], 0),
    ("tcpserver", &["-x", "-t", "-u", "-g", "-l", "-b", "-B", "-c", "-I"], 2),
    ("tcpsvd", &["-c", "-C", "-i", "-x", "-u", "-l", "-b", "-t"], 2),
    ("udpsvd", &["-u", "-l", "-i", "-x", "-t"], 2),
    // proot 5.4's: a short option's value is the next word, a long one's
    // glued (`--rootfs=DIR`); fakechroot 2.20's script (`+l:d:sc:e:b:vh`);
    // schroot 1.6's (boost's, which permutes: see `PERMUTES`).
    ("proot", &["-r", "-b", "-m", "-q", "-w", "-v", "-k", "-i", "-p", "-R", "-S", "-P", "--mixed-mode"], 0),
    ("fakechroot", &["-l", "-d", "-c", "-e", "-b", "--lib", "--elfloader", "--config-dir", "--environment",
        "--bindir"], 0),
    ("schroot", &["-c", "-d", "-s", "-u", "-o", "-n", "--chroot", "--directory", "--shell", "--user",
        "--option", "--session-name", "--debug"], 0),
    // AppArmor's `aa-exec` (`+dhp:n:iv`), catatonit 0.2's (which permutes),
    // arch-chroot 28's (`:hNu:r`, then the root), dbus-launch's, rlwrap
    // 0.46's (`-a`, `-A`, `-d`, `-m`, `-p` take a value only glued), trickle
    // 1.07's (which permutes), timelimit 1.9's (`+lqpS:s:T:t:`), tsocks'.
    ("aa-exec", &["-p", "-n", "--profile", "--namespace"], 0),
    ("catatonit", &[], 0),
    ("arch-chroot", &["-u"], 1),
    ("dbus-launch", &["--autolaunch", "--config-file"], 0),
    ("rlwrap", &["-b", "-C", "-D", "-e", "-f", "-F", "-g", "-H", "-l", "-M", "-O", "-P", "-q", "-s", "-S", "-t",
        "-w", "-z", "--break-chars", "--command-name", "--history-no-dupes", "--extra-char-after-completion",
        "--file", "--history-format", "--forget-matching", "--history-filename", "--logfile",
        "--multi-line-ext", "--only-cook", "--pre-given", "--quote-characters", "--histsize",
        "--substitute-prompt", "--set-terminal-name", "--set-term-name", "--wait-before-prompt", "--filter"], 0),
    ("trickle", &["-w", "-n", "-u", "-d", "-t", "-l", "-L", "-P"], 0),
    ("timelimit", &["-S", "-s", "-T", "-t"], 0),
    ("tsocks", &[], 0),
    ("torify", &[], 0),
    // heaptrack 1.5's script (a word each; `-a` and `-i` hand the rest to
    // its viewers), systemd-socket-activate's (`+hl:aE:d`), minijail0's
    // (`+a:b:c:de::f:…`: `-e`, `-m`, `-t`, `-K`, `-M` take a value only glued).
    ("heaptrack", &["-o", "-p", "--output", "--output-file", "--pid"], 0),
    ("systemd-socket-activate", &["-l", "-E", "--listen", "--setenv", "--environment", "--fdname"], 0),
    ("minijail0", &["-a", "-b", "-c", "-f", "-g", "-k", "-u", "-B", "-C", "-P", "-R", "-S", "-T", "-V",
        "--logging", "--profile", "--preload-library", "--seccomp-bpf-binary", "--add-suppl-group",
        "--config", "--gen-config", "--env-add", "--mount", "--bind-mount", "--fs-path-rx", "--fs-path-ro",
        "--fs-path-rw", "--fs-path-advanced-rw", "--landlock-abi", "--preserve-fd"], 0),
    ("chpst", &["-u", "-U", "-b", "-e", "-/", "-n", "-l", "-L", "-m", "-d", "-o", "-p", "-f", "-c", "-r",
        "-t"], 0),
    // A container's command: systemd-nspawn 252's (`+…`: options end at the
    // command), LXC 5.0's two, whose getopt permutes (see `PERMUTES`).
    ("systemd-nspawn", &["-D", "-u", "-L", "-M", "-S", "-Z", "-i", "-p", "-E", "--ambient-capability",
        "--bind", "--bind-ro", "--bind-user", "--capability", "--chdir", "--console", "--cpu-affinity",
        "--directory", "--drop-capability", "--hostname", "--image", "--inaccessible", "--kill-signal",
        "--link-journal", "--load-credential", "--machine", "--network-bridge", "--network-interface",
        "--network-ipvlan", "--network-macvlan", "--network-namespace-path", "--network-veth-extra",
        "--network-zone", "--no-new-privileges", "--notify-ready", "--oci-bundle", "--oom-score-adjust",
        "--overlay", "--overlay-ro", "--personality", "--pivot-root", "--port", "--private-users-ownership",
        "--property", "--register", "--resolv-conf", "--rlimit", "--root-hash", "--root-hash-sig",
        "--selinux-apifs-context", "--selinux-context", "--set-credential", "--setenv", "--settings", "--slice",
        "--suppress-sync", "--system-call-filter", "--template", "--timezone", "--tmpfs", "--user", "--uuid",
        "--verity-data"], 0),
    ("lxc-attach", &["-a", "-c", "-f", "-g", "-l", "-n", "-o", "-s", "-u", "-v", "-L", "-P", "--arch",
        "--context", "--gid", "--keep-var", "--logfile", "--logpriority", "--lxcpath", "--name", "--namespaces",
        "--pty-log", "--rcfile", "--set-var", "--uid"], 0),
    ("lxc-execute", &["-f", "-g", "-l", "-n", "-o", "-s", "-u", "-P", "--define", "--gid", "--logfile",
        "--logpriority", "--lxcpath", "--name", "--rcfile", "--uid"], 0),
];

/// Wrappers whose getopt permutes (no `+` in their option string): they
/// take their options from among the command's words too (`cpulimit -l 50
/// touch M -q` ran `touch M`, as did `tini touch M -s`), so a word there
/// that is or may be an option leaves the command's words unknown, unless
/// a `--` ends theirs first. (Probed: a flag of each wrapper's after
/// `touch M`; of the table's, only these took it: `lxc-attach -n c ls -z`
/// says "invalid option -- 'z'".)
pub(super) const PERMUTES: &[&str] =
    &["cpulimit", "tini", "tini-static", "lxc-attach", "lxc-execute", "schroot", "catatonit", "trickle"];

/// The wrappers that do not read their options as getopt does, each from
/// its source: faketime 0.9's, pkexec 122's and torsocks 2.3's compare whole words,
/// proxychains-ng 4's `main.c` looks at the second letter, bubblewrap's
/// takes a set number of words after each.
pub(super) const OWN_WAYS: &[(&str, Reads)] = &[
    // QEMU 9's linux-user `main.c`: each option a whole word, one dash or
    // two (`--cpu`), the first that is none ends them. `-E`, `-L` and
    // `-plugin` are read for what they set and load (`code_variables.rs`).
    (
        "qemu-user",
        Reads::Whole {
            valued: &[
                "-d",
                "-D",
                "-dfilter",
                "-L",
                "-s",
                "-cpu",
                "-B",
                "-R",
                "-E",
                "-U",
                "-0",
                "-r",
                "-g",
                "-p",
                "-seed",
                "-trace",
                "-plugin",
                "--d",
                "--D",
                "--dfilter",
                "--L",
                "--s",
                "--cpu",
                "--B",
                "--R",
                "--E",
                "--U",
                "--0",
                "--r",
                "--g",
                "--p",
                "--seed",
                "--trace",
                "--plugin",
            ],
            flags: &[
                "-h",
                "-help",
                "-version",
                "-one-insn-per-tb",
                "-singlestep",
                "-strace",
                "-perfmap",
                "-jitdump",
                "--h",
                "--help",
                "--version",
                "--one-insn-per-tb",
                "--singlestep",
                "--strace",
                "--perfmap",
                "--jitdump",
            ],
            shell: &[],
        },
    ),
    (
        "faketime",
        Reads::Whole {
            valued: &["-p", "--date-prog"],
            flags: &["-m", "-f", "--exclude-monotonic"],
            shell: &[],
        },
    ),
    (
        "pkexec",
        Reads::Whole {
            valued: &["-u", "--user"],
            flags: &["--disable-internal-agent", "--keep-cwd"],
            shell: &[],
        },
    ),
    // torsocks 2.3, a shell script: `case "$1" in -u|--user) … shift`.
    (
        "torsocks",
        Reads::Whole {
            valued: &["-u", "--user", "-p", "--pass", "-a", "--address", "-P", "--port"],
            flags: &["-i", "--isolate", "-6", "--ipv6", "-d", "--debug", "-q", "--quiet"],
            shell: &["--shell"],
        },
    ),
    // torify runs `torsocks "$@"` (its own `-v` first).
    (
        "torify",
        Reads::Whole {
            valued: &["-u", "--user", "-p", "--pass", "-a", "--address", "-P", "--port"],
            flags: &["-i", "--isolate", "-6", "--ipv6", "-d", "--debug", "-q", "--quiet", "-v", "--verbose"],
            shell: &["--shell"],
        },
    ),
    ("unbuffer", Reads::Prefixed(&["-ignore", "-open", "-leaveopen"])),
    ("bwrap", Reads::Counted(BWRAP)),
    ("proxychains", Reads::SecondLetter),
    ("proxychains4", Reads::SecondLetter),
];

/// bubblewrap's options and how many words each takes, from `bubblewrap.c`
/// (0.8 to 0.11: each compared whole, `argc < N`); `--args FD` reads more.
#[rustfmt::skip]
const BWRAP: &[(&str, usize)] = &[
    ("--help", 0), ("--version", 0), ("--argv0", 1), ("--level-prefix", 0), ("--unshare-all", 0),
    ("--unshare-user", 0), ("--unshare-user-try", 0), ("--unshare-ipc", 0), ("--unshare-pid", 0),
    ("--unshare-net", 0), ("--unshare-uts", 0), ("--unshare-cgroup", 0), ("--unshare-cgroup-try", 0),
    ("--share-net", 0), ("--chdir", 1), ("--disable-userns", 0), ("--assert-userns-disabled", 0),
    ("--remount-ro", 1), ("--bind", 2), ("--bind-try", 2), ("--ro-bind", 2), ("--ro-bind-try", 2),
    ("--dev-bind", 2), ("--dev-bind-try", 2), ("--bind-fd", 2), ("--ro-bind-fd", 2), ("--overlay-src", 1),
    ("--overlay", 3), ("--tmp-overlay", 1), ("--ro-overlay", 1), ("--proc", 1), ("--exec-label", 1),
    ("--file-label", 1), ("--dev", 1), ("--tmpfs", 1), ("--mqueue", 1), ("--dir", 1), ("--file", 2),
    ("--bind-data", 2), ("--ro-bind-data", 2), ("--symlink", 2), ("--lock-file", 1), ("--sync-fd", 1),
    ("--block-fd", 1), ("--userns-block-fd", 1), ("--info-fd", 1), ("--json-status-fd", 1),
    ("--seccomp", 1), ("--add-seccomp-fd", 1), ("--userns", 1), ("--userns2", 1), ("--pidns", 1),
    ("--clearenv", 0), ("--setenv", 2), ("--unsetenv", 1), ("--uid", 1), ("--gid", 1), ("--hostname", 1),
    ("--new-session", 0), ("--die-with-parent", 0), ("--as-pid-1", 0), ("--cap-add", 1), ("--cap-drop", 1),
    ("--perms", 1), ("--size", 1), ("--chmod", 2),
];

/// The name a program's tables are found by: QEMU's user-mode emulators
/// (`qemu-x86_64`, `qemu-aarch64-static`, …: every `qemu-NAME` but its
/// tools and its system emulators) are `qemu-user`; any other, its own.
pub(in super::super) fn table_name(name: &str) -> &str {
    const TOOLS: &[&str] = &[
        "img",
        "io",
        "nbd",
        "storage-daemon",
        "pr-helper",
        "ga",
        "edid",
        "keymap",
        "bridge-helper",
        "vmsr-helper",
    ];
    match name.strip_prefix("qemu-") {
        Some(rest) if !rest.is_empty() && !rest.starts_with("system-") && !TOOLS.contains(&rest) => {
            "qemu-user"
        }
        _ => name,
    }
}
