//! The risky-command list: what one RUN command's programs show (privilege,
//! network tools, disk-level tools, recursive `rm`, world-writable `chmod`,
//! a pipe into a shell, package installs, pushes). `tissvm inspect`'s risk
//! level (`lower/risk.rs`) and the linter's W0004 both read commands here,
//! so they never disagree about what a command does. Only the programs a
//! command runs count, found as the shell finds them, through wrappers, `sh
//! -c` and `find -exec` (`tiss_support::shell::programs`, the one shell
//! reader the command policy uses too): `echo curl` uses no network tool.

use tiss_support::shell::programs::{self, Program, SHELLS};

pub const NETWORK_TOOLS: &[&str] =
    &["curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "ftp", "telnet", "socat"];
pub const DISK_TOOLS: &[&str] = &["mkfs", "dd", "fdisk", "parted", "shred", "mount"];
const PRIVILEGE: &[&str] = &["sudo", "su", "doas", "pkexec", "runuser", "run0", "sudo-rs", "please", "ksu"];
const INSTALLERS: &[(&str, &str)] = &[
    ("pip", "install"),
    ("pip3", "install"),
    ("npm", "install"),
    ("apt-get", "install"),
    ("apt", "install"),
    ("cargo", "install"),
    ("gem", "install"),
    ("brew", "install"),
];

/// What one command's words show.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct CommandRisk {
    /// `sudo`, `su`, `doas`, `pkexec`, `runuser` or `run0`.
    pub privilege: bool,
    /// A program only running the command tells (`$CMD x`, `eval`, an
    /// alias, `hash -p`): what it runs is decided at run time.
    pub unnamed: bool,
    pub network: Option<&'static str>,
    pub disk: Option<&'static str>,
    /// `rm -r`, `rm -rf`, `rm --recursive`.
    pub recursive_rm: bool,
    /// `chmod 777` (or `0777`, `a+rwx`): every user may change the files.
    pub world_writable: bool,
    /// `... | sh`: the shell runs whatever the command before it printed.
    pub pipe_to_shell: Option<&'static str>,
    /// `sed 's/x/y/e'`, `awk '{ system($0) }'`, `vim`: a tool that runs
    /// commands it makes or reads as it runs, as a shell fed a pipe does.
    pub makes_commands: Option<String>,
    pub installs: bool,
    pub push: bool,
    /// Why the command cannot be read as shell syntax, when it cannot and
    /// its text could name a program of the lists: what it runs is not
    /// known (the shell runs a script's lines up to the one it cannot
    /// parse, so `rm -rf ~` on the line before one still runs).
    pub unreadable: Option<String>,
}

/// Reads `command` as the shell would find the programs it runs.
pub fn scan(command: &str) -> CommandRisk {
    let mut found = CommandRisk::default();
    // Reading the shell syntax costs thousands of instructions a command;
    // most commands name no program of the lists, which their text shows
    // (nor can one the reader refuses run one).
    if !may_name_a_risk(command) {
        return found;
    }
    match programs::programs(command) {
        Ok(programs) => programs.iter().for_each(|program| program_risk(program, &mut found)),
        Err(why) => found.unreadable = Some(why),
    }
    found
}

fn program_risk(program: &Program, found: &mut CommandRisk) {
    let named = |list: &[&str], word: &str| list.contains(&word);
    found.privilege |=
        program.wrappers.iter().any(|w| named(PRIVILEGE, w.split(' ').next().unwrap_or_default()));
    let Some(name) = program.name.as_deref() else {
        found.unnamed = true;
        return;
    };
    found.privilege |= named(PRIVILEGE, name);
    if found.makes_commands.is_none() && program.makes_its_commands() {
        found.makes_commands = Some(name.to_string());
    }
    let args: Vec<&str> = program.args.iter().map(|a| a.text()).collect();
    found.network = found.network.or_else(|| NETWORK_TOOLS.iter().find(|&&t| t == name).copied());
    found.disk = found.disk.or_else(|| DISK_TOOLS.iter().find(|&&t| t == name).copied());
    if program.piped {
        found.pipe_to_shell = found.pipe_to_shell.or_else(|| SHELLS.iter().find(|&&s| s == name).copied());
    }
    match name {
        "rm" => found.recursive_rm |= args.iter().any(|&a| is_recursive_flag(a)),
        "chmod" => {
            found.world_writable |= args.iter().any(|a| matches!(*a, "777" | "0777" | "a+rwx" | "ugo+rwx"))
        }
        "git" => found.push |= subcommand(&args, &["-C", "-c"]) == Some("push"),
        _ => {}
    }
    found.installs |=
        INSTALLERS.iter().any(|&(tool, verb)| tool == name && subcommand(&args, &[]) == Some(verb));
}

/// Whether a program `command` runs could have a name `program_risk`
/// looks for. A program's name is the last part of a word of the command,
/// so, without quotes, escapes, expansions or braces to make a name the
/// text does not spell, it is a whole run of the bytes names are made of
/// (`.` and `_` among them: `ld-linux-x86-64.so.2`, `nc.traditional`).
/// `git-SUB` is read as `git SUB`, and a `qemu-…` name may be an emulator
/// that sets its program's variables (`-E`). Names common in plans whose
/// risk needs a particular option are read only with it ([`worth_reading`]).
fn may_name_a_risk(command: &str) -> bool {
    command.bytes().any(|b| matches!(b, b'\'' | b'"' | b'\\' | b'$' | b'`' | b'{'))
        || command
            .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '.' | '_')))
            .any(|name| {
                (is_risk_name(name) && worth_reading(name, command))
                    // A versioned or cross C compiler (`gcc-12`; not an option, `-O2`).
                    || (!name.starts_with('-')
                        && name.contains('-')
                        && programs::is_c_compiler(name)
                        && worth_reading("cc", command))
                    // A cross or gcc's binutils (`x86_64-linux-gnu-ld`, `gcc-ar`).
                    || (!name.starts_with('-')
                        && name.contains('-')
                        && programs::loads_plugins(name)
                        && command.contains("plugin"))
                    || name.starts_with("git-")
                    || name.starts_with("qemu-")
            })
}

/// Whether `command`, which names `name`, may hold what makes `name` a risk,
/// for the names common in plans that are one only with an option: make
/// with an `E` or a `--e` that may be its `--eval`, or a `!=` that may
/// define a variable by running a line (a `$` is read anyway); a C compiler
/// (`cc -O2 -o out src.c`, six thousand a plan of the steps shape) with an
/// option that may run or load code, each starting `-w`, `-B`, `-X`, `-s`,
/// `-f`, `-W` (`-Wl,-plugin`) or `--l`, found in one pass over the bytes
/// (eight searches for the options cost 2% of that plan's compile);
/// `install` (also a word of `make install`) with `--strip-program`;
/// binutils and the linkers (`ar rcs lib.a x.o`) with a plugin.
fn worth_reading(name: &str, command: &str) -> bool {
    match name {
        "make" | "gmake" => command.contains('E') || command.contains("--e") || command.contains("!="),
        "cc" | "gcc" | "clang" => command
            .as_bytes()
            .windows(2)
            .any(|pair| pair[0] == b'-' && matches!(pair[1], b'w' | b'B' | b'X' | b's' | b'f' | b'W' | b'l')),
        "install" => command.contains("--strip"),
        "ar" | "nm" | "ranlib" | "ld" | "ld.bfd" | "ld.gold" | "gold" | "mold" | "ld.mold" | "ld.lld"
        | "lld" => command.contains("plugin"),
        _ => true,
    }
}

/// Every name `program_risk` finds a risk by (its lists, `rm`, `chmod`,
/// `git`, the shells a pipe may feed, and the tools that run commands they
/// make). One `match`, which compiles to a switch on the length and a few
/// comparisons: it sees every word of every command (on the steps shape,
/// searching the lists one by one took 5% of a compile). A test holds it
/// to the lists; a name in it that is in none only costs a reading.
fn is_risk_name(word: &str) -> bool {
    matches!(
        word,
        // PRIVILEGE
        "sudo" | "su" | "doas" | "pkexec" | "runuser" | "run0" | "sudo-rs" | "please" | "ksu"
        // NETWORK_TOOLS
        | "curl" | "wget" | "ssh" | "scp" | "sftp" | "rsync" | "nc" | "ncat" | "netcat" | "ftp"
        | "telnet" | "socat"
        // DISK_TOOLS
        | "mkfs" | "dd" | "fdisk" | "parted" | "shred" | "mount"
        // SHELLS
        | "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish" | "csh" | "tcsh" | "ash" | "mksh" | "yash" | "posh"
        | "oksh" | "loksh" | "lksh" | "pdksh" | "ksh93" | "mksh-static" | "hush" | "sash" | "bosh" | "osh"
        | "brush" | "rbash" | "rksh" | "rzsh" | "bash-static" | "zsh-static"
        // INSTALLERS
        | "pip" | "pip3" | "npm" | "apt-get" | "apt" | "cargo" | "gem" | "brew"
        | "rm" | "chmod" | "git"
        // What makes a program without a name (besides `$`, quotes and the like).
        | "eval" | "alias" | "hash" | "enable" | "compgen" | "complete" | "mapfile" | "readarray" | "fc"
        // programs::tools_read_for_commands
        | "sed" | "gsed" | "awk" | "gawk" | "mawk" | "nawk" | "original-awk" | "tar" | "sort"
        | "rg" | "zip" | "tcpdump" | "man" | "ed" | "ex" | "at" | "batch" | "gdb" | "vim" | "vi"
        | "nvim" | "view" | "vimdiff" | "parallel" | "hyperfine" | "lftp" | "smbclient" | "diff3" | "sdiff"
        | "tmux" | "screen" | "nc.traditional" | "dtach" | "abduco" | "sem" | "niceload" | "crontab" | "ansible"
        | "split" | "cpio" | "openssl" | "clush" | "salt" | "salt-call" | "salt-ssh" | "mosh" | "watchexec"
        | "nodemon" | "reflex" | "xterm" | "uxterm" | "x-terminal-emulator" | "gnome-terminal" | "konsole"
        | "kitty" | "alacritty" | "wezterm" | "foot" | "urxvt" | "rxvt" | "terminator" | "tilix"
        | "xfce4-terminal" | "lxterminal" | "mate-terminal" | "qterminal" | "pdsh" | "vagrant" | "gcloud"
        | "minikube" | "sqlite3" | "psql" | "mysql" | "mariadb" | "mvn" | "mvnw" | "dotenv" | "dotenvx"
        | "env-cmd" | "restic" | "rclone" | "borg" | "helm" | "hg" | "svn" | "lldb" | "aria2c" | "gh" | "go"
        | "gpg" | "gpg2" | "gpgsm" | "gpg-agent" | "gpg-connect-agent" | "gio" | "dex" | "gtk-launch" | "xe"
        | "rush" | "pexec" | "pee" | "mispipe" | "zrun" | "nq" | "tsp" | "expect" | "schedtool" | "run-parts"
        | "daemon" | "pueue" | "zellij" | "byobu" | "hwloc-bind" | "retry" | "caffeinate" | "dc" | "m4"
        | "gnuplot" | "ld.so" | "ld-linux.so.2" | "ld-linux-x86-64.so.2" | "ld-linux-aarch64.so.1"
        | "ld-linux-armhf.so.3" | "ld-linux-riscv64-lp64d.so.1" | "ld64.so.1" | "ld64.so.2"
        | "ld-musl-x86_64.so.1" | "ld-musl-aarch64.so.1" | "memusage" | "xtrace" | "cset" | "ch-run" | "lima"
        | "fzf" | "scl" | "qsub" | "bsub" | "snap" | "tox" | "volta" | "fnm" | "multipass" | "runc" | "ddev"
        | "enroot" | "limactl" | "podman-compose" | "make" | "gmake" | "sshfs" | "envchain" | "summon"
        | "concurrently" | "devbox" | "spack" | "nx" | "lerna" | "honcho" | "just" | "pkgx" | "blink"
        | "sandbox" | "landrun" | "fd" | "fdfind" | "pandoc" | "dpkg" | "cc" | "c++" | "gcc" | "g++" | "clang"
        | "clang++" | "aptitude" | "apt-cache" | "apt-mark" | "install" | "ar" | "nm" | "ranlib" | "ld"
        | "ld.bfd" | "ld.gold" | "gold" | "mold" | "ld.mold" | "ld.lld" | "lld"
    )
}

/// `-r`, `-rf`, `-Rf`, `--recursive`; not `--force`.
fn is_recursive_flag(arg: &str) -> bool {
    match arg.strip_prefix("--") {
        Some(long) => long == "recursive",
        None => arg.starts_with('-') && (arg.contains('r') || arg.contains('R')),
    }
}

/// The first argument that is not an option (or the value of one of
/// `valued`): `git -C dir push` → `push`.
fn subcommand<'w>(args: &[&'w str], valued: &[&str]) -> Option<&'w str> {
    let mut at = 0;
    while let Some(&arg) = args.get(at) {
        if !arg.starts_with('-') {
            return Some(arg);
        }
        at += if valued.contains(&arg) { 2 } else { 1 };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn risk(command: &str) -> CommandRisk {
        scan(command)
    }

    #[test]
    fn finds_program_names_through_quotes_and_paths() {
        assert_eq!(risk("c''url -s x").network, Some("curl"));
        assert_eq!(risk("/usr/bin/wget x").network, Some("wget"));
        assert!(risk("sudo make install").privilege);
        assert!(risk("run0 -u root make install").privilege);
        assert!(risk("rm -rf build").recursive_rm);
        assert!(!risk("rm build.o").recursive_rm);
        assert_eq!(risk("echo curl-like").network, None);
        // A path that expands names the program its written-out last part names.
        assert_eq!(risk("\"$HOME/bin/curl\" -s x").network, Some("curl"));
        assert!(risk("~/bin/rm -rf build").recursive_rm);
    }

    #[test]
    fn world_writable_chmod() {
        assert!(risk("chmod 777 out").world_writable);
        assert!(risk("chmod -R 0777 out").world_writable);
        assert!(risk("chmod a+rwx out").world_writable);
        assert!(!risk("chmod 755 out").world_writable);
        assert!(!risk("echo 777").world_writable);
    }

    #[test]
    fn only_words_in_command_position_are_programs() {
        assert_eq!(risk("echo curl").network, None);
        assert_eq!(risk("grep -r wget docs").network, None);
        assert_eq!(risk("echo hi > curl").network, None);
        assert!(!risk("echo sudo rm -rf /").privilege);
        assert!(!risk("echo rm -rf /").recursive_rm);
        assert!(!risk("echo chmod 777 x").world_writable);
        assert!(!risk("rm --force x").recursive_rm);
        for command in [
            "make && curl x",
            "make || curl x",
            "make; curl x",
            "make | curl x",
            "echo $(curl x)",
            "echo `curl x`",
            "sudo -u bob curl x",
            "env A=1 B=2 curl x",
            "A=1 curl x",
            "xargs -n 1 curl < urls",
            "nohup curl x &",
            "exec curl x",
            "time curl x",
            "timeout 5s curl x",
            "if true; then curl x; fi",
            "sh -c 'curl x'",
            "find . -exec curl {} \\;",
        ] {
            assert_eq!(risk(command).network, Some("curl"), "{command}");
        }
        assert!(risk("find . -name x -exec rm -rf {} +").recursive_rm);
        assert!(risk("git -C repo push").push);
        assert!(risk("pip install -r req.txt").installs);
        assert!(!risk("echo pip install x").installs);
    }

    /// The shortcut for commands that name no risky program answers as
    /// reading them in full does.
    #[test]
    fn commands_without_a_listed_name_are_read_as_without_risk() {
        let names = PRIVILEGE.iter().chain(NETWORK_TOOLS).chain(DISK_TOOLS).chain(SHELLS);
        let names = names
            .copied()
            .chain(INSTALLERS.iter().map(|&(tool, _)| tool))
            .chain(["rm", "chmod", "git"])
            .chain(programs::tools_read_for_commands());
        for name in names {
            assert!(is_risk_name(name), "{name}");
        }
        for command in [
            "cc -O2 -o out0 src0.c",
            "python3 -m pytest tests/test_1.py",
            "make && /usr/bin/curl x",
            "A=1 wget x",
            "c''url x",
            "c\\url x",
            "$X",
            "(cd x; rm -rf y)",
            "cat x|bash",
            "xcurl x",
            "Curl x",
            "/lib64/ld-linux-x86-64.so.2 /bin/ls .",
            "/lib/ld-musl-x86_64.so.1 ./a.out",
            "nc.traditional -e /bin/cat h 80",
            "./make.sh",
            "make -j4 all",
            "make -sE 'x:;rm -rf y' x",
            "make --ev='x:;curl x' x",
            "gmake RELEASE=1",
            "make X!=reboot",
            "make X!=true all",
            "qemu-aarch64 -L /usr/aarch64-linux-gnu ./test",
            "gcc -O2 -c x.c",
            "fd -e rs",
            "apt-get -o Dpkg::Options::=--force-confold install x",
            "install -m 755 a /usr/local/bin/a",
            "install -s --strip-program=rm a b",
            "/usr/lib/git-core/git-push origin main",
            "ar rcs lib.a x.o",
            "nm --plugin ./p.so x.o",
            "x86_64-linux-gnu-ld -plugin ./p.so -o x a.o",
            "gcc-ar-12 --plugin=./p.so rc lib.a x.o",
        ] {
            let mut full = CommandRisk::default();
            for program in programs::programs(command).unwrap_or_default() {
                program_risk(&program, &mut full);
            }
            assert_eq!(scan(command), full, "{command}");
        }
        assert!(!may_name_a_risk("cc -O2 -o out0 src0.c"));
        assert!(!may_name_a_risk("ar rcs lib.a x.o"));
        // A plugin makes binutils' command one that loads code, under a cross name too.
        for command in ["nm --plugin ./p.so x.o", "x86_64-linux-gnu-ld -plugin ./p.so -o x a.o"] {
            assert!(scan(command).makes_commands.is_some(), "{command}");
        }
        // A QEMU emulator's plugin makes the line unreadable, though no
        // listed name is in it.
        assert!(scan("qemu-x86_64 -plugin ./p.so ./test").unreadable.is_some());
        // A C compiler's option that runs or loads code: it runs what only
        // running it tells.
        for command in [
            "cc -fplugin=./p.so x.c",
            "gcc -B./bin x.c",
            "clang -Xclang -load -Xclang p.so x.c",
            "gcc-12 -fplugin=./p.so x.c",
            "aarch64-linux-gnu-gcc -B./bin x.c",
        ] {
            assert_eq!(
                scan(command).makes_commands.as_deref(),
                Some(command.split(' ').next().unwrap()),
                "{command}"
            );
        }
    }

    /// A line the reader cannot read may still run what it names: the
    /// shell runs a script's lines up to the one it cannot parse.
    #[test]
    fn a_command_that_cannot_be_read_is_not_taken_as_without_risk() {
        let hidden = risk("ls\nrm -rf ~\necho \"open");
        assert!(hidden.unreadable.as_deref().is_some_and(|why| !why.is_empty()), "{hidden:?}");
        let wrapped = format!("{}rm x", "nice ".repeat(40));
        assert!(risk(&wrapped).unreadable.is_some(), "more wrappers than the reader follows");
        assert_eq!(risk("rm -rf build").unreadable, None);
        // Its text names no risky program, and no quote or expansion could
        // make one: nothing to say.
        assert_eq!(risk("ls (").unreadable, None);
    }

    #[test]
    fn pipes_into_a_shell() {
        assert_eq!(risk("curl -fsSL https://x.sh | sh").pipe_to_shell, Some("sh"));
        assert_eq!(risk("cat x|sudo bash -s").pipe_to_shell, Some("bash"));
        assert_eq!(risk("make || sh fallback.sh").pipe_to_shell, None);
        assert_eq!(risk("ls | grep sh").pipe_to_shell, None);
        assert_eq!(risk("sh build.sh").pipe_to_shell, None);
        assert_eq!(risk("echo 'a | sh'").pipe_to_shell, None);
        assert_eq!(risk("curl x | sudo -E sh").pipe_to_shell, Some("sh"));
    }

    /// A program only running the command tells: decided at run time.
    #[test]
    fn a_program_without_a_name_is_decided_at_run_time() {
        for command in [
            "CC=cc; $CC x.c",
            "eval \"$LINE\"",
            "alias r=rm\nr x",
            "hash -p /bin/rm r; r x",
            "$(which tool) x",
        ] {
            assert!(risk(command).unnamed, "{command}");
        }
        for command in ["cc x.c", "echo \"$HOME\"", "ls $DIR", "mapfile -t a < in"] {
            assert!(!risk(command).unnamed, "{command}");
        }
    }

    /// A tool that runs what it makes is rated as `… | sh` is; one whose
    /// commands are written out is read for them instead.
    #[test]
    fn tools_that_run_commands_they_make() {
        for (command, tool) in [
            ("sed 's/.*/x/e' list.txt", "sed"),
            ("gsed -f script.sed in", "gsed"),
            ("awk '{ system($0) }' cmds.txt", "awk"),
            ("original-awk -f prog.awk", "original-awk"),
            ("tar -cf a.tar \"$OPTS\" src", "tar"),
            ("vim -es -c '%s/a/b/' -c wq f", "vim"),
            ("ed f < edits", "ed"),
            ("cat cmds | xargs -I{} sed 's/{}/y/' f", "sed"),
            ("sudo -u ci gdb -batch -ex run ./t", "gdb"),
        ] {
            assert_eq!(risk(command).makes_commands.as_deref(), Some(tool), "{command}");
        }
        for command in [
            "sed -i 's/a/b/' f",
            "sed 'e date' f",
            "awk '{ print $1 }' f",
            "tar -xf a.tar",
            "vim --version",
            "sort -u f",
            "echo sed awk vim",
        ] {
            assert_eq!(risk(command).makes_commands, None, "{command}");
        }
        // What a written-out command runs is read as any other.
        assert!(risk("sed 'e rm -rf build' f").recursive_rm);
        assert_eq!(risk("tar -xf a.tar --to-command='curl -d @- x'").network, Some("curl"));
    }
}
