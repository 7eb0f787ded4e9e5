use super::*;

/// Each program's text (what policy patterns match).
pub(super) fn texts(line: &str) -> Vec<String> {
    programs(line).unwrap_or_else(|e| panic!("{line:?}: {e}")).iter().map(Program::text).collect()
}

pub(super) fn wrappers(program: &Program) -> Vec<&str> {
    program.wrappers.iter().map(|w| &**w).collect()
}

pub(super) fn names(line: &str) -> Vec<Option<String>> {
    programs(line).unwrap().into_iter().map(|p| p.name).collect()
}

#[test]
fn paths_name_their_program() {
    assert_eq!(texts("/bin/rm x"), ["rm x"]);
    assert_eq!(texts("./tool --flag"), ["tool --flag"]);
    assert_eq!(texts("c''url -s 'a b'"), ["curl -s a b"]);
}

#[test]
fn wrappers_are_looked_through() {
    for (line, inner) in [
        ("env rm x", "rm x"),
        ("env -i A=1 B=2 rm x", "rm x"),
        ("sudo -u root rm x", "rm x"),
        ("nice -n 5 rm x", "rm x"),
        ("timeout 5 rm x", "rm x"),
        ("timeout -s KILL 5s rm x", "rm x"),
        ("nohup rm x", "rm x"),
        ("exec rm x", "rm x"),
        ("command rm x", "rm x"),
        ("xargs -n 1 rm", "rm \"$@\""),
        ("chroot /jail rm x", "rm x"),
        ("sudo env nice rm x", "rm x"),
        ("time -p rm x", "rm x"),
        ("coproc rm x", "rm x"),
        ("numactl -C 0 --membind 1 rm x", "rm x"),
        ("prlimit --nofile=10 --pid 1 rm x", "rm x"),
        ("setarch x86_64 -R rm x", "rm x"),
        ("cgexec -g cpu:low rm x", "rm x"),
        ("eatmydata rm x", "rm x"),
        ("sshpass -p secret rm x", "rm x"),
        ("ssh-agent -t 60 rm x", "rm x"),
        ("xvfb-run -a -s '-screen 0 1x1x8' rm x", "rm x"),
        ("lckdo /tmp/lock rm x", "rm x"),
        ("tini -s -p SIGTERM -- rm x", "rm x"),
        ("dumb-init -c --rewrite 15:2 rm x", "rm x"),
        ("gosu nobody:root rm x", "rm x"),
        ("su-exec 1000 rm x", "rm x"),
        ("chpst -u nobody -m 1000 -/ /jail rm x", "rm x"),
        ("s6-setuidgid nobody rm x", "rm x"),
        ("entr -rc rm x", "rm x"),
        ("entr -s 'ls; rm x'", "ls"),
        ("entr -p rm /_", "rm /_"),
    ] {
        assert_eq!(texts(line)[0], inner, "{line}");
    }
    assert_eq!(texts("entr -s 'ls; rm x'"), ["ls", "rm x"]);
    // entr gives `/_` the changed file's path: as a program, it names none.
    assert!(hidden("entr /_") && hidden("entr sh -c /_") && hidden("entr \"$U\" x"));
    let through = &programs("sudo env rm x").unwrap()[0];
    assert_eq!(wrappers(through), ["sudo env rm x", "env rm x"]);
    // `command -v` says where a program is, and runs nothing.
    assert_eq!(texts("command -v jq"), ["command -v jq"]);
    assert_eq!(texts("command -pV jq"), ["command -pV jq"]);
    assert_eq!(texts("command -p -v jq"), ["command -p -v jq"]);
    assert_eq!(texts("command -p jq -v"), ["jq -v"]);
}

#[test]
fn shell_lines_and_find_exec_are_read_as_the_commands_they_run() {
    assert_eq!(texts("sh -c 'ls; rm x'"), ["ls", "rm x"]);
    assert_eq!(texts("bash -c \"rm -rf y\""), ["rm -rf y"]);
    assert_eq!(texts("sudo sh -c 'rm x'"), ["rm x"]);
    assert_eq!(texts("env -S 'rm x'"), ["rm x"]);
    assert_eq!(texts("find . -name '*.o' -exec rm {} \\;"), ["rm {}", "find . -name *.o -exec rm {} ;"]);
    assert_eq!(texts("find . -exec rm -f {} +"), ["rm -f {}", "find . -exec rm -f {} +"]);
    let inner = &programs("sudo sh -c 'rm x'").unwrap()[0];
    assert_eq!(wrappers(inner), ["sudo sh -c rm x", "sh -c rm x"]);
    // A script run by a shell is the shell's command.
    assert_eq!(texts("sh build.sh"), ["sh build.sh"]);
}

#[test]
fn what_only_running_it_tells_has_no_name() {
    assert_eq!(names("$CMD x"), [None]);
    assert_eq!(names("eval 'rm x'"), [None]);
    assert_eq!(names("sh -c \"$LINE\""), [None]);
    assert_eq!(names("sudo $(which rm) x"), [Some("which".to_string()), None]);
    assert_eq!(names("/bin/r? x"), [None]);
    assert_eq!(names("/bin/[r]m x"), [None]);
    // `[` without a `]` after it in the word is no pattern: the program `[`.
    assert_eq!(texts("[ -d out ] || mkdir out"), ["[ -d out ]", "mkdir out"]);
    assert_eq!(texts("[[ -d out ]]"), ["[[ -d out ]]"]);
    assert_eq!(texts("$CMD x"), ["$CMD x"]);
    // bash as `sh` expands braces (`{rm,x}` runs `rm x`); quoted, they are text.
    for line in ["{rm,x}", "{rm,\"x\"} y", "r{m,}m x", "{a..z}m x", "\"$D\"/{rm,x}", "{a,{b}}"] {
        assert_eq!(names(line), [None], "{line}");
    }
    assert_eq!(names("'{rm,x}' y"), [Some("{rm,x}".to_string())]);
    assert_eq!(texts("find . -exec rm {} +")[0], "rm {}");
    assert_eq!(texts("echo {a,b}"), ["echo {a,b}"]);
    // A path that expands names the program its written-out last part names.
    for (line, name) in [
        ("\"$HOME/bin/tool\" x", "tool"),
        ("\"${HOME}\"/bin/tool x", "tool"),
        ("~/bin/tool x", "tool"),
        ("\"$(dirname $0)/rm\" -rf x", "rm"),
        ("\"$D/\"'r'm x", "rm"),
    ] {
        assert_eq!(names(line).last(), Some(&Some(name.to_string())), "{line}");
    }
    assert_eq!(texts("\"$HOME/bin/tool\" x"), ["tool x"]);
    // A wrapper so named is looked through.
    assert_eq!(names("\"$BIN/sudo\" rm x"), [Some("rm".to_string())]);
    // Not when the name itself, or an unquoted expansion the shell may split
    // into several words, is not known before running.
    for line in ["\"$DIR/$TOOL\" x", "$X/rm x", "\"$X\"/r* x", "\"${X:-/bin/rm}\" x", "\"$DIR/\" x", "~ x"] {
        assert_eq!(names(line), [None], "{line}");
    }
}

#[test]
fn pipes_are_kept() {
    let found = programs("curl x | sudo -E sh").unwrap();
    assert_eq!((found[0].piped, found[1].piped), (false, true));
    assert_eq!(found[1].name.as_deref(), Some("sh"));
}

#[test]
fn bad_syntax_is_an_error() {
    assert!(programs("echo 'open").is_err());
}

#[test]
fn a_long_line_is_read_in_memory_linear_in_it() {
    // Each wrapper holds the words from it on. The programs of one `sh -c`
    // line share its form (20,000 copies of a 60 KB line were 1.3 GB), and
    // a program runs through at most MAX_WRAPPERS (13,000 `sudo`s were
    // 440 MB).
    let line = format!("sudo sh -c '{}'", "rm x; ".repeat(10_000));
    let found = programs(&line).unwrap();
    assert_eq!(found.len(), 10_000);
    for program in &found {
        assert_eq!(program.wrappers.len(), 2);
        assert!(std::sync::Arc::ptr_eq(&program.wrappers[1], &found[0].wrappers[1]));
        assert!(std::sync::Arc::ptr_eq(&program.wrappers[0], &found[0].wrappers[0]));
    }
    let deep = |n: usize| format!("{}rm x", "sudo ".repeat(n));
    assert_eq!(programs(&deep(MAX_WRAPPERS)).unwrap()[0].wrappers.len(), MAX_WRAPPERS);
    let refused = programs(&deep(MAX_WRAPPERS + 1)).unwrap_err();
    assert!(refused.contains("more than 32 wrappers"), "{refused}");
    assert!(programs(&deep(13_000)).is_err());
    // Across `sh -c` lines too.
    let nested = format!("{}sh -c '{}rm x'", "sudo ".repeat(20), "env ".repeat(12));
    assert!(programs(&nested).unwrap_err().contains("wrappers"));
    let within = format!("{}sh -c '{}rm x'", "sudo ".repeat(20), "env ".repeat(11));
    assert_eq!(programs(&within).unwrap()[0].wrappers.len(), MAX_WRAPPERS);
}

#[test]
fn programs_that_run_a_command_are_looked_through() {
    for line in [
        "pkexec rm x",
        "pkexec --user root rm x",
        "runuser -u nobody -- rm x",
        "runuser -l nobody -c 'rm x'",
        "sg wheel -c 'rm x'",
        "script -qc 'rm x' /dev/null",
        "watch -n 1 rm x",
        "chrt -f 10 rm x",
        "unshare -r rm x",
        "nsenter -t 1 -m rm x",
        "setpriv --reuid=1000 rm x",
        "strace -f -o log rm x",
        "ltrace rm x",
        "valgrind --tool=memcheck rm x",
        "systemd-run --user -p X=1 rm x",
        "firejail --quiet rm x",
        "faketime '2020-01-01' rm x",
        "fakeroot rm x",
        // Long options that take a value in the next word, and clusters.
        "env --chdir . rm x",
        "env -iu HOME rm x",
        "env -uHOME rm x",
        "timeout --signal KILL 5 rm x",
        "nice --adjustment 5 rm x",
        "sudo --user root --chdir / rm x",
        "stdbuf --output L rm x",
    ] {
        assert_eq!(texts(line).first().map(String::as_str), Some("rm x"), "{line}");
    }
    // xargs puts its input after the command's words: what they are, only
    // running tells (an option, a shell's line, a script).
    assert_eq!(texts("xargs --arg-file /dev/null rm x"), ["rm x \"$@\""]);
    for line in
        ["echo 'rm x' | xargs -0 sh -c", "echo '--to-command=rm x' | xargs tar -xf a.tar", "xargs sed"]
    {
        assert!(hidden(line), "{line}: {:?}", programs(line));
    }
    assert!(!hidden("ls | xargs -n 1 rm -f"));
    // A shell's `c` may come among other flags; LINE is its first operand.
    // `-o` and `-O` take a value in a cluster too; a lone `-` ends the options.
    for line in [
        "sh -ec 'rm x'",
        "bash -o pipefail -c 'rm x'",
        "sh -c -e 'rm x'",
        "bash --norc -xc 'rm x'",
        "bash -euo pipefail -c 'rm x'",
        "bash -eO extglob -c 'rm x'",
        "bash +O extglob -c 'rm x'",
        "sh -c - 'rm x'",
        "bash --rcfile r -c 'rm x'",
    ] {
        assert_eq!(texts(line), ["rm x"], "{line}");
    }
    assert_eq!(texts("sh build.sh -c x"), ["sh build.sh -c x"]);
    assert_eq!(texts("su -c'rm x' root"), ["rm x"]);
    assert_eq!(texts("su --command='rm x'"), ["rm x"]);
    // getopt takes options after the user too, and the last `-c` wins
    // (util-linux 2.38's su, runuser and script each ran the second).
    assert_eq!(texts("su -c ls root -c 'rm x'"), ["rm x"]);
    assert_eq!(texts("su --command=ls -c 'rm x' root"), ["rm x"]);
    assert_eq!(texts("script -q out -c ls -c 'rm x'"), ["rm x"]);
    assert_eq!(names("su -c ls \"$U\""), [None], "`U` may be `-crm x`");
    // An option of theirs that takes a value takes the rest of its cluster,
    // or the next word, `-c` among it (util-linux 2.38: `su -sc LINE root`
    // runs the shell `c`; `script -q -T -c F <<EOF` ran the input's
    // commands, read before as the line `F`).
    assert_eq!(texts("su -s /bin/sh -c 'rm x' root"), ["rm x"]);
    assert_eq!(texts("su -w -c -c 'rm x' root"), ["rm x"]);
    assert_eq!(texts("runuser -u -c -c 'rm x'"), ["rm x"]);
    assert_eq!(texts("flock -w 5 -Ec -c 'rm x' lk"), ["rm x"]);
    for line in ["su -sc 'rm x' root", "script -q -T -c F", "script -E -c F", "script --log-t -c F"] {
        assert!(hidden(line), "{line}: {:?}", programs(line));
    }
    // After `--` the words go to the shell, whose `-c` is a line.
    assert_eq!(texts("su -- root -s -c 'rm x'"), ["rm x"]);
    // A value that splits moves the words after it.
    assert_eq!(names("su -s $S root"), [None], "`S` may be `sh -c rm`");
    // A word that expands before LINE may be `-c` itself.
    assert_eq!(names("sh \"$A\" 'rm x'"), [None]);
    assert_eq!(names("su \"$U\" 'rm x'"), [None]);
    assert_eq!(names("sh $A"), [None], "`A='-c rm\\ x'` splits");
    // Last and one word, it is a script (or a flag with nothing after it).
    assert_eq!(texts("for f in t_*.sh; do sh -e \"$f\"; done"), ["sh -e \"$f\""]);
    assert_eq!(texts("su \"$U\""), ["su \"$U\""]);
    assert_eq!(names("sh -c"), Vec::<Option<String>>::new());
    // Lines given to `env -S`, `flock -c`, `watch` and `sg`, in every form.
    for line in [
        "env -S'ls; rm x'",
        "env -iS 'ls; rm x'",
        "env --split-string='ls; rm x'",
        "env --split-string 'ls; rm x'",
        "flock /tmp/l -c 'ls; rm x'",
        "watch 'ls; rm x'",
        "watch -n 1 -d ls\\; rm x",
        "sg wheel 'ls; rm x'",
        "sg - wheel -c 'ls; rm x'",
    ] {
        assert_eq!(texts(line), ["ls", "rm x"], "{line}");
    }
    assert_eq!(texts("env -u HOME rm x"), ["rm x"]);
    // crontab installs lines cron runs later; listing or removing them runs none.
    for line in ["echo '* * * * * rm x' | crontab -", "crontab tab.txt", "crontab -u root tab.txt"] {
        assert!(hidden(line), "{line}");
    }
    for line in ["crontab -l", "crontab -u root -r"] {
        assert!(!hidden(line), "{line}");
    }
    // ansible's ad-hoc command line, by its module (`command` without one).
    for line in [
        "ansible localhost -m shell -a 'ls; rm x'",
        "ansible all -c local -a 'ls; rm x'",
        "ansible localhost -m ansible.builtin.shell --args='ls; rm x'",
        "ansible localhost --module-name raw -a 'ls; rm x'",
    ] {
        assert_eq!(texts(line)[..2], ["ls", "rm x"], "{line}");
    }
    assert_eq!(texts("ansible localhost -m ping"), ["ansible localhost -m ping"]);
    assert!(hidden("ansible localhost -m \"$M\" -a 'rm x'"));
    // `watch -x` runs its words as they are (procps-ng 4's `--exec`): `sh -c
    // 'rm x'` stays three words, where joined they were `sh -c rm x`.
    for line in ["watch -x sh -c 'rm x'", "watch -n1 --exec sh -c 'rm x'", "watch -tx sh -c 'rm x'"] {
        assert_eq!(texts(line).last().map(String::as_str), Some("rm x"), "{line}");
    }
    // A shell given neither LINE nor a script runs its input.
    let input = |line: &str| programs(line).unwrap().iter().map(|p| p.input).collect::<Vec<_>>();
    for line in [
        "echo 'rm x' | sh",
        "sh <<EOF\nrm x\nEOF",
        "bash -s a b < x",
        "sh -e",
        "sh -s -- a",
        "sh -s \"$f\"",
        "echo 'rm x' | sh \"$f\"",
        "sh /dev/stdin <<EOF\nrm x\nEOF",
        ". /dev/stdin <<EOF\nrm x\nEOF",
        "source /proc/self/fd/0 < x",
        // Without a command these start a shell, which reads the input.
        "echo 'rm x' | sudo -s",
        "echo 'rm x' | \"$BIN/sudo\" -s",
        "echo 'rm x' | su",
        "echo 'rm x' | su root",
        "echo 'rm x' | unshare -r",
        "chroot / <<EOF\nrm x\nEOF",
        "echo 'rm x' | newgrp wheel",
        "echo 'rm x' | systemd-run --pipe --shell",
        "echo 'rm x' | systemd-nspawn -q -D /srv/c",
        "echo 'rm x' | lxc-attach -n c",
        // torsocks 2.3's `--shell` starts one whatever words follow.
        "echo 'rm x' | torsocks --shell",
        "echo 'rm x' | torsocks -q --shell ls",
        // xargs puts its input in the name, or in a shell's line.
        "echo rm | xargs -I{} {} x",
        "echo 'rm x' | xargs -I {} sh -c '{}'",
        "echo 'rm x' | xargs -i sh -c 'echo {}'",
        "echo 'rm x' | xargs --replace=@ bash -c '@'",
    ] {
        assert!(input(line).last() == Some(&true), "{line}");
    }
    for line in [
        "ls | xargs -I{} cp {} out/",
        "sh build.sh",
        "sh -- build.sh",
        "bash -e build.sh arg",
        "bash --version",
        "sh -c 'ls'",
        ". ./env.sh",
    ] {
        assert!(!input(line).contains(&true), "{line}");
    }
    assert_eq!(names("watch \"$CMD\""), [None]);
    // A value or a group that splits puts words in the line (`N='1 rm'`).
    assert_eq!(names("watch -n $N ls"), [None]);
    assert_eq!(names("sg $G ls"), [None]);
    assert_eq!(texts("watch -n \"$N\" ls"), ["ls"]);
    assert_eq!(texts("sg \"$G\" ls"), ["ls"]);
}

#[test]
fn a_trap_runs_its_action_and_an_alias_hides_what_runs() {
    let some = |names: &[&str]| names.iter().map(|n| Some(n.to_string())).collect::<Vec<_>>();
    // dash runs `rm x` when the shell exits: read where the trap is set.
    assert_eq!(names("trap 'rm x' EXIT; echo hi"), some(&["rm", "trap", "echo"]));
    assert_eq!(names("trap -- 'sudo rm x; ls' INT TERM"), some(&["rm", "ls", "trap"]));
    assert_eq!(wrappers(&programs("trap 'rm x' EXIT").unwrap()[0]), ["trap rm x EXIT"]);
    assert_eq!(names("trap \"$ON_EXIT\" EXIT")[0], None);
    for nothing_runs in ["trap - EXIT", "trap '' INT", "trap 0 2", "trap -p", "trap EXIT", "trap"] {
        assert_eq!(names(nothing_runs), some(&["trap"]), "{nothing_runs}");
    }
    // `alias r=rm` then `r x` on a later line runs `rm x`.
    assert_eq!(names("alias r=rm\nr x"), [None, Some("r".to_string())]);
    assert_eq!(names("alias \"$A\""), [None]);
    assert_eq!(names("alias; alias ll"), some(&["alias", "alias"]));
    // An assignment after a program's name is one of its arguments.
    assert_eq!(texts("export A=1 B"), ["export A=1 B"]);
    assert_eq!(texts("A=1 ls"), ["ls"]);
}

/// Whether a line runs what only running it tells (a program without a
/// name, or one that runs commands it makes).
/// That `line` passes no list (a program without a name, or one that runs
/// its input) and names none of the programs it may run (`ls`, `rm`).
pub(super) fn passes_no_list(line: &str) {
    // Refused with why (a reader's error), or read as a program without a name.
    let Ok(found) = programs(line) else { return };
    assert!(found.iter().any(|p| p.name.is_none() || p.input), "{line}: {:?}", texts(line));
    assert!(!texts(line).iter().any(|t| t == "ls" || t.starts_with("rm")), "{line}: {:?}", texts(line));
}

pub(super) fn hidden(line: &str) -> bool {
    programs(line).unwrap_or_else(|e| panic!("{line:?}: {e}")).iter().any(|p| p.input || p.name.is_none())
}

#[test]
fn a_tools_options_and_scripts_are_read_as_the_commands_they_run() {
    for line in [
        "tar -cf a.tar --checkpoint=1 --checkpoint-action=exec='rm x' .",
        "tar -cf a.tar --checkpoint-action exec='rm x' .",
        "tar --checkpoint --to-command='rm x' -xf a.tar",
        "tar -xf a.tar --to-command='rm x'",
        "tar -xf a.tar --to-com 'rm x'",
        "tar -I 'rm x' -cf a.tar .",
        "tar -cI'rm x' -f a.tar .",
        "tar -xf a.tar -F 'rm x'",
        "sort --compress-program='rm x' big",
        "rsync -e 'rm x' a b",
        "rsync -avze 'rm x' a b",
        "rsync --rsh='rm x' a b",
        "scp -S 'rm x' a b:c",
        "ssh -o 'ProxyCommand=rm x' host true",
        "ssh -oProxyCommand='rm x' host true",
        "rg --pre 'rm x' pattern",
        "zip -T -TT 'rm x' a.zip f",
        "tcpdump -z 'rm x' -w out",
        "man -P 'rm x' ls",
        "split -l 10 --filter='rm x' big",
        "helm template chart --post-renderer 'rm x'",
        "hg clone -e 'rm x' ssh://h/r",
        "hg pull --remotecmd='rm x'",
        "svn commit --editor-cmd 'rm x'",
        "svn diff --diff-cmd='rm x'",
        "aria2c --on-download-complete='rm x' https://x/y",
        "go test -exec 'rm x' ./...",
        "go build -toolexec='rm x' .",
        "go vet --vettool 'rm x' ./...",
        "restic -r repo --password-command 'rm x' snapshots",
        "restic -r sftp:h:/r -o sftp.command='rm x' snapshots",
        "restic --option=sftp.command='rm x' -r sftp:h:/r init",
        "rclone --password-command='rm x' ls remote:",
        "rclone copy a remote: --sftp-ssh 'rm x'",
        "borg --rsh 'rm x' list ssh://h/r",
        "borg --remote-path='rm x' list ssh://h/r",
        "borg export-tar --tar-filter 'rm x' ./repo::a o.tar",
        "gpg --batch --agent-program 'rm x' --list-keys",
        "gpg2 --dirmngr-program='rm x' --recv-keys 0x1",
        "gpg --photo-viewer 'rm x' --list-keys",
        "gpg-agent --daemon --pinentry-program='rm x'",
        "gpgsm --agent-program 'rm x' --list-keys",
        "borg import-tar --tar-f='rm x' ./repo::a i.tar",
        "split --filt 'rm x' big",
        "cpio -o --rsh-command='rm x' -F h:/a",
        "man -H'rm x' ls",
        "man -aH'rm x' ls",
        "man --html='rm x' ls",
        "man --htm='rm x' ls",
        "wget -e 'use_askpass=rm x' https://example.com",
        "ssh -o RemoteCommand='rm x' host true",
        "rsync --rsync-path='rm x' a host:b",
        "diff3 --diff-program='rm x' a b c",
        "sdiff --diff-program 'rm x' a b",
        "wget --execute 'Use-AskPass = rm x' https://example.com",
        "wget -qe useaskpass='rm x' https://example.com",
        "sed 'e rm x' f",
        "sed -n '1e rm x' f",
        "sed -e 's/a/b/' -e '/x/ e rm x' f",
        "sed '/a/{\ne rm x\n}' f",
        "sed --expression='$!e rm x' f",
        "sed -n 's/[/]e/x/;e rm x' f",
        "sed 'a\\\\\ne rm x' f",
        "sed 's/a/b/w out\ne rm x' f",
        "awk 'BEGIN { system(\"rm x\") }'",
        "awk '{ print | \"rm x\" }' f",
        "awk '{ printf(\"%s\", $0) |& \"rm x\"; close(\"rm x\") }' f",
        "awk 'BEGIN { while ((\"rm x\" | getline line) > 0) print line }'",
        "gawk -e 'BEGIN { system(\"rm x\") }'",
        "gawk --source='BEGIN { system(\"rm x\") }'",
        "busybox awk 'BEGIN{system(\"rm x\")}'",
        "sudo sed 'e rm x' f",
    ] {
        // With the words a tool adds after its program, where it adds them
        // (`tool_commands::APPENDS_WORDS`).
        let found = texts(line);
        assert!(found.iter().any(|t| t.strip_suffix(" \"$@\"").unwrap_or(t) == "rm x"), "{line}: {found:?}");
        assert!(!hidden(line), "{line}");
    }
    // The command is read through the tool, as `sh -c`'s is.
    let inner = &programs("sudo sed 'e rm x' f").unwrap()[0];
    assert_eq!(wrappers(inner), ["sudo sed e rm x f", "sed e rm x f"]);
}

#[test]
fn what_a_tool_makes_as_it_runs_only_running_tells() {
    for line in [
        // ssh's configuration files and libraries may say anything; sftp,
        // ftp and lftp run `!CMD` from their input or a batch file.
        "ssh -F ./ssh_config host ls",
        "scp -F ./ssh_config a host:b",
        "ssh -I ./pkcs11.so host ls",
        "ssh -o PKCS11Provider=./p.so host ls",
        "ssh -o 'Include ./more' host ls",
        "sftp -o 'proxycommand rm x' host",
        "echo '!rm x' | sftp host",
        "sftp -b batch host",
        "ftp example.com",
        // A wgetrc may say `use_askpass = CMD`.
        "wget --config=w.rc https://example.com",
        "wget -e \"$RC\" https://example.com",
        // sed runs its pattern space, or a line its escapes make.
        "sed 's/x/y/e' f",
        "sed -n 's/x/y/ep' f",
        "sed 'e' f",
        "sed '$!N;e' f",
        "sed 'e echo a\\nrm x' f",
        "sed -f script.sed f",
        "sed --file=script.sed f",
        // A script, or a word that may be an option, that expands.
        "sed \"$S\" f",
        "sed 's/a/b/' \"$F\"",
        "sed 's/a/b/' -n\"$X\" f",
        "sed 's/a/b/' --\"$X\" f",
        // A script sed would refuse is not followed.
        "sed 's/a/b' f",
        "sed '/a/ q x' f",
        // awk builds the command, or calls what a value names.
        "awk '{ system($0) }'",
        "awk '{ system(\"rm \" $1) }'",
        "awk '{ print | cmd }'",
        "awk '{ print \"a\" | \"sort\" \" -r\" }'",
        "awk '{ x \"rm\" | getline }'",
        "awk 'BEGIN { f = \"system\"; @f(\"rm x\") }'",
        "gawk '@load \"filefuncs\"; BEGIN { }'",
        "awk -f prog.awk f",
        "awk -W exec prog.awk",
        // xargs puts its input in the script.
        "echo 'x/e' | xargs -I{} sed 's/{}/' f",
        "gawk -W source 'BEGIN { system(\"rm x\") }'",
        "gawk --include=lib.awk 'BEGIN { }'",
        "awk \"$P\" f",
        "awk -\"$O\" 'BEGIN { }'",
        "awk 'BEGIN { x = 1 ) }'",
        // After an `if`'s head gawk reads `/` as a regex, mawk as a division:
        // read as one, a `"` in it would start a string hiding the call.
        "awk 'BEGIN { if (1) /\"/; system(\"rm x\"); if (1) /\"/ }'",
        // Some awks end a regex at a `/` in brackets, others do not.
        "awk '/[/]/ { print }' f",
        "awk 'BEGIN { print \"unclosed }'",
        // A word that may expand to an option (a file may be named
        // `--checkpoint-action=exec=CMD`), or tar's old options.
        "tar -cf a.tar \"$F\"",
        "tar -cf a.tar *",
        "tar cIf 'rm x' a.tar .",
        "ssh -o \"$O=x\" host",
    ] {
        assert!(hidden(line), "{line}: {:?}", programs(line));
    }
    // An option's command that expands names no program.
    assert_eq!(names("tar -xf a.tar --to-command=\"$C\"")[0], None);
    assert_eq!(names("rsync -e \"$RSH\" a b")[0], None);
}

#[test]
fn what_a_tool_runs_of_its_own_is_only_itself() {
    for line in [
        "sed -i 's/e/E/g' f",
        "sed -n '/e/p' f",
        "sed 's/x/e/' f",
        "sed 'y/e/E/' f",
        "sed '1a e rm x' f",
        "sed -e 'a\\' -e 'e rm x' f",
        "sed 's/[/]e/x/' f",
        "sed -ie 's/a/b/' f",
        "sed --sandbox -f s.sed f",
        "sed 's/a/b/w out.e' f",
        "sed ':e;N;$!be;s/\\n/ /g' f",
        "sed '# e rm x\ns/a/b/' f",
        "sed -E 's/(e|f)+/x/2' f",
        "sed 's/a/b/' out/$F",
        "awk '{ print $1 }' f",
        "awk -F: '/e|f/ { print $1 }' /etc/passwd",
        "awk '{ n = $1 / 2; print n / 3 }' f",
        "awk '{ print ($1 + $2) / 2 }' f",
        "awk '{ if ($1 > 0)\n/a|b/ ? n++ : m++ } END { print n / m }' f",
        "awk 'BEGIN { print \"system\" }'",
        "awk -v x=1 '$1 == x || $2 ~ /a|b/' f",
        "awk '# system(x) | y\n{ print }' f",
        "awk '{ print > \"out.txt\" }' f",
        "awk '{ print $0 }' \"$F\"",
        "tar -czf a.tgz src",
        "tar xzf a.tgz -C out",
        "tar -cf a.tar ./*",
        "tar -cf a.tar -- \"$F\"",
        "tar --checkpoint=10 --checkpoint-action=dot -cf a.tar .",
        "sort -k2 file",
        "wget -e robots=off -q https://example.com",
        "rsync -av a/ b/",
        "scp -o StrictHostKeyChecking=no a host:b",
        "scp -i key -P 2222 a host:b",
    ] {
        assert_eq!(programs(line).unwrap().len(), 1, "{line}: {:?}", programs(line));
        assert!(!hidden(line), "{line}");
    }
}

#[test]
fn variables_that_make_a_program_run_code_are_found_by_name() {
    use super::code_variables::named;
    for (line, name) in [
        ("TAR_OPTIONS='--to-command=x' tar xf a.tar", "TAR_OPTIONS"),
        ("export PAGER=x; man ls", "PAGER"),
        ("env LD_PRELOAD=./x.so ls", "LD_PRELOAD"),
        ("git -c x=y fetch; GIT_CONFIG_COUNT=1 git fetch", "GIT_CONFIG_COUNT"),
        ("declare -x GIT_SSH_COMMAND=x", "GIT_SSH_COMMAND"),
        ("echo \"${BASH_ENV:-}\"", "BASH_ENV"),
        ("GIT_ALLOW_PROTOCOL=ext git clone 'ext::sh -c rm% x' d", "GIT_ALLOW_PROTOCOL"),
        ("JAVA_TOOL_OPTIONS=-javaagent:a.jar java -version", "JAVA_TOOL_OPTIONS"),
        ("LUA_INIT_5_4=@x.lua lua5.4 -e ''", "LUA_INIT_5_4"),
        ("env 'BASH_FUNC_ls%%=() { rm x; }' bash -c ls", "BASH_FUNC_ls"),
        ("DOCKER_CONFIG=./cfg docker run alpine ls", "DOCKER_CONFIG"),
        ("UV_ENV_FILE=.env uv run ls", "UV_ENV_FILE"),
        ("PYTHONUSERBASE=./u python3 -c pass", "PYTHONUSERBASE"),
        ("PERLLIB=./l perl -e 'use strict'", "PERLLIB"),
        ("NPM_CONFIG_SCRIPT_SHELL=./x npx -c ls", "NPM_CONFIG_SCRIPT_SHELL"),
        ("export npm_config_node_options=--require=./x.js; npx tsc", "npm_config_node_options"),
        ("APPTAINERENV_LD_PRELOAD=/x.so apptainer exec img.sif ls", "APPTAINERENV_LD_PRELOAD"),
        ("SINGULARITY_FUSEMOUNT='host:sshfs h: /m' singularity exec img.sif ls", "SINGULARITY_FUSEMOUNT"),
        ("MAKEFLAGS='--eval=x:;rm\\ x' make x", "MAKEFLAGS"),
        ("MAKEFILES=./x.mk make all", "MAKEFILES"),
    ] {
        assert_eq!(named(line), Some(name), "{line}");
    }
    for line in
        ["make LDFLAGS=-s OLD_LD_X=1", "echo PAGERS ENVIRONMENT", "ls -la", "npm_config_cache=.npm npm ci"]
    {
        assert_eq!(named(line), None, "{line}");
    }
    // A builtin that sets a variable whose name expands may set one.
    for line in [
        "export \"$N=x\"",
        "read -r \"$N\"_OPTIONS",
        "printf -v \"$N\" %s x",
        "declare \"$N\"=1",
        "read -rp \"$P\" \"$N\"",
        "read \"$OPTION\" name",
        "getopts ab \"$N\"",
        "export -- \"$N=x\"",
    ] {
        assert_eq!(names(line), [None], "{line}");
    }
    // What an option takes is not a name: a prompt, a delimiter, a count.
    for line in [
        "export A=\"$B\"",
        "read -r line",
        "printf -v out %s \"$x\"",
        "read -rp \"$PROMPT\" name",
        "read -r -p \"$PROMPT\" -t \"$T\" name",
        "read -d \"$D\" name",
        "getopts \"$OPTS\" name",
    ] {
        assert!(names(line)[0].is_some(), "{line}");
    }
}

#[test]
fn programs_that_read_commands_of_their_own_run_what_only_running_tells() {
    for line in [
        "ed f <<EOF\n!rm x\nEOF",
        "echo 'rm x' | at now",
        "vim -es -c '!rm x' -c q f",
        "vi f",
        "gdb -batch -ex 'shell rm x'",
        "wget --use-askpass='rm x' https://example.com",
    ] {
        let found = programs(line).unwrap();
        let ran = found.iter().any(|p| p.input) || texts(line).contains(&"rm x \"$@\"".to_string());
        assert!(ran, "{line}: {found:?}");
    }
    assert!(!hidden("vim --version"));
    assert!(!hidden("gdb --help"));
}

#[test]
fn a_path_find_puts_in_a_word_is_what_the_files_name_says() {
    // A file named `$(rm x)`: find runs `sh -c 'echo ./$(rm x)'`.
    assert_eq!(names("find . -exec sh -c 'echo {}' \\;")[0], None);
    // A file named `x|rm x|e;s|` makes sed's script `s|./x|rm x|e;s||y|`.
    assert!(hidden("find . -exec sed 's|{}|y|' f \\;"));
    // Given as the script itself, a path is the file's name.
    assert!(hidden("find . -name '*.sed' -exec sed {} f \\;"));
    // As a file a tool reads, a path is no option and runs nothing.
    for line in [
        "find . -name '*.txt' -exec sed -i 's/a/b/' {} +",
        "find . -exec awk '{ print $1 }' {} \\;",
        "find . -exec tar -rf a.tar {} \\;",
        "find . -exec rm {} +",
    ] {
        assert!(!hidden(line), "{line}: {:?}", programs(line));
    }
    assert_eq!(texts("find . -exec rm {} +")[0], "rm {}");
}

/// A word of find's that expands may become `-exec` and a command
/// (findutils 4.9 ran `touch` for `rm` through `-name $N` and `"$A"`).
#[test]
fn a_word_that_may_become_finds_exec_passes_no_list() {
    for (line, says) in [
        ("find . -name $N", "the shell may make more than one word of it"),
        ("find $DIRS -name x", "quote it"),
        ("find . \"$A\" rm {} +", "it may be `-exec`"),
        ("find \"$D\" \"$E\" x \\;", "it may be `-exec`"),
    ] {
        let why = programs(line).expect_err(line);
        assert!(why.contains(says), "{line}: {why}");
    }
    // Followed by an option, or by no end of a command: no command.
    for line in [
        "find \"$D\" -name x -exec ls {} +",
        "find . -name \"$N\" -exec ls {} +",
        "find . -name \"$N\" -delete",
        "find \"$D\" \"$E\"",
    ] {
        assert!(programs(line).is_ok(), "{line}: {:?}", programs(line));
    }
}

/// An allow pattern that starts with a wrapper or a runner matches no
/// command: allow judges what they run.
#[test]
fn a_pattern_through_a_wrapper_is_known() {
    let command = |text: &str| Some(LookedThrough::Command(text.to_string()));
    assert_eq!(looked_through("uv run pytest*"), command("pytest*"));
    assert_eq!(looked_through("sudo -u ci make *"), command("make *"));
    assert_eq!(looked_through("sh -c *"), command("*"));
    for pattern in ["git *", "ls{, *}", "env", "command -v *", "ssh host *", "pytest*", "sh build.sh"] {
        assert_eq!(looked_through(pattern), None, "{pattern}");
    }
}

#[test]
fn ssh_runs_its_remote_command_as_a_line() {
    for (line, ran) in [
        ("ssh host rm x", vec!["ssh host rm x", "rm x"]),
        ("ssh -p 22 -i key host 'ls; rm x'", vec!["ssh -p 22 -i key host ls; rm x", "ls", "rm x"]),
        ("ssh host -t -l me rm x", vec!["ssh host -t -l me rm x", "rm x"]),
        ("ssh -p22 host -- rm x", vec!["ssh -p22 host -- rm x", "rm x"]),
        ("ssh -- host -t rm x", vec!["ssh -- host -t rm x", "-t rm x"]),
        (
            "sudo ssh -o ProxyCommand='nc %h %p' host rm x",
            vec!["ssh -o ProxyCommand=nc %h %p host rm x", "rm x", "nc %h %p"],
        ),
    ] {
        let mut found = texts(line);
        found.sort();
        let mut ran: Vec<String> = ran.into_iter().map(String::from).collect();
        ran.sort();
        assert_eq!(found, ran, "{line}");
    }
    // No command: a remote shell that runs its input, unless none is asked for.
    assert!(hidden("ssh host <<EOF\nrm x\nEOF"));
    for line in ["ssh -N -L 8080:localhost:80 host", "ssh -O check host", "ssh -s host sftp", "scp a host:b"]
    {
        assert!(!hidden(line), "{line}");
    }
    assert!(hidden("ssh host \"rm $F\""));
    // Its options end where the remote command starts.
    assert_eq!(texts("ssh host grep -F x -o y f"), ["grep -F x -o y f", "ssh host grep -F x -o y f"]);
}

/// getopt_long takes a long option by any prefix that names one option:
/// GNU nice, timeout, env and xargs ran `rm` in each of these lines, which
/// read as running `5`, `KILL`, `tmp` and `1` would pass `deny = ["rm *"]`.
/// Whether such a prefix is the valued option or a flag the table does not
/// hold only the program's whole table tells, so the command is unknown.
#[test]
fn a_long_option_that_may_be_abbreviated_leaves_the_command_unknown() {
    for line in [
        "sudo --us root rm x",
        "nice --adj 5 rm x",
        "timeout --sig KILL 5 rm x",
        "env --chd /tmp rm x",
        "xargs --max-a 1 rm",
        "strace --out f rm x",
        "sudo env --chd /tmp rm x",
        "sh -c 'nice --adj 5 rm x'",
    ] {
        let why = programs(line).expect_err(line);
        assert!(why.contains("abbreviated") && why.contains("write the option out whole"), "{line}: {why}");
    }
    let why = programs("nice --adj 5 rm x").unwrap_err();
    assert!(why.contains("`nice --adj` may be `--adjustment` abbreviated"), "{why}");
    let why = programs("ionice --cl 2 rm x").unwrap_err();
    assert!(why.contains("`--class` or `--classdata`"), "{why}");
    // Whole, glued to its value, or the prefix of no valued option: read;
    // and the options that take a value each of these ran `rm` past
    // (chrt 2.38 as root, unshare, nsenter's `-r` whose value is only
    // glued, env's `--sp`, flock's `--s` of `--shared`).
    for (line, inner) in [
        ("nice --adjustment 5 rm x", "rm x"),
        ("nice --adj=5 rm x", "rm x"),
        ("timeout --preserve-status 5 rm x", "rm x"),
        ("sudo --login rm x", "rm x"),
        ("sudo -R /jail rm x", "rm x"),
        ("chrt -d -T 1000000 -P 2000000 -D 2000000 0 rm x", "rm x"),
        ("unshare --map-user 0 rm x", "rm x"),
        ("nsenter -t 1 -r rm x", "rm x"),
        ("nsenter -t 1 -W /d rm x", "rm x"),
        ("env --sp 'sh -c \"rm x\"'", "rm x"),
        ("su --comm 'ls; rm x'", "rm x"),
        ("runuser -u u --session-command 'ls; rm x'", "rm x"),
        ("flock --s lock rm x", "rm x"),
        ("strace -f --trace read rm x", "rm x"),
        ("strace -U calls -c rm x", "rm x"),
        ("ltrace -L rm x", "rm x"),
        ("ltrace -A 5 rm x", "rm x"),
        ("systemd-run -G rm x", "rm x"),
        ("systemd-run --service-type exec --on-active 5 rm x", "rm x"),
    ] {
        assert_eq!(texts(line).last().map(String::as_str), Some(inner), "{line}");
    }
}
