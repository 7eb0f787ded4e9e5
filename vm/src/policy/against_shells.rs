//! The command policy held to what the real shells run: lines made of the
//! ways bash and dash run a program no word names (a variable's value
//! evaluated as arithmetic, bash-only expansions, functions, traps,
//! here-documents, wrappers, `sh -c`) around a canary program, decided
//! under an allow list that leaves the canary out and a deny list that
//! names it, and each line the policy lets run is run by `bash -c` and
//! `dash -c`: the canary must never have run. A reading that misses what a
//! shell does fails here, with the line.
//!
//! Skipped (loudly) where bash or dash is missing; with `CI=true` that
//! fails instead.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::{Policy, PolicyRules, TaintRun, Verdict};

/// Values that make bash run the canary when they are evaluated.
const VALUES: &[&str] = &["'a[$(canary)]'", "'a[`canary`]'", "'$(canary)'"];

/// Ways a line gives `x` a value (`{v}`), then uses it (`{u}`).
const ASSIGNS: &[&str] = &[
    "x={v}; {u}",
    "read x <<< {v}; {u}",
    "export x={v}; {u}",
    "declare x={v}; {u}",
    "printf -v x %s {v}; {u}",
    "for x in {v}; do {u}; done",
    "set -- {v}; x=$1; {u}",
    "x=$(printf %s {v}); {u}",
    "f() {{ local x={v}; {u}; }}; f",
];

/// Uses of `x` where bash may evaluate its value.
const USES: &[&str] = &[
    "echo $((x))",
    "echo $(($x))",
    "echo $[x]",
    "((x))",
    "let x",
    "declare -i y=x",
    "declare -i y; y=x",
    "typeset -i y=x",
    "echo ${a[x]}",
    "echo ${a[$x]}",
    "a[x]=1",
    "unset 'a[x]'",
    "test -v 'a[x]'",
    "[ -v 'a[x]' ]",
    "y=abc; echo ${y:x}",
    "y=abc; echo ${y:0:x}",
    "echo ${x@P}",
    "echo ${!x}",
    "declare -n r=x; echo $r",
    "printf -v 'a[x]' %s 1",
    "read 'a[x]' <<< 1",
    "compgen -W \"$x\" w",
    "case 1 in $((x))) ;; esac",
    ": $((x))",
    "echo $(( $(printf %s \"$x\") ))",
    "echo ${#a[x]}",
    "echo $(( 1 ? x : 0 ))",
];

/// Uses of a value written in the line itself.
const DIRECT: &[&str] = &[
    "let {v}",
    "declare -i y={v}",
    "unset {v}",
    "test -v {v}",
    "[ -v {v} ]",
    "printf -v {v} x",
    "read {v} <<< 1",
    "compgen -W {v} w",
    "declare {v}=1",
    "getopts a {v}",
    "wait -p {v}",
    "typeset {v}=1",
    "mapfile {v} < /dev/null",
    "declare -n r={v}; echo $r",
    "echo $(( {v} ))",
    "(( {v} ))",
    "echo ${{a[{v}]}}",
];

/// Other ways to run the canary without writing it where a command starts.
const OTHERS: &[&str] = &[
    "X=xcanary; ${X/x/} a",
    "X=xcanary; ${X#x} a",
    "X=CANARY; ${X,,} a",
    "X=canary; Y=X; ${!Y} a",
    "X=xcanary; ${X:1} a",
    "X='\\x63anary'; ${X@E} a",
    "$'\\x63anary' a",
    "c$'a'nary a",
    "X=can; ${X}ary a",
    "echo hi | while read l; do canary; done",
    "coproc canary",
    "cat <(canary)",
    "printf x > >(canary)",
    "f() { canary; }; f",
    "function f { canary; }; f",
    "alias c=canary\nc",
    "trap canary EXIT",
    "set -T; trap canary DEBUG; :",
    "trap canary ERR; false",
    "echo ${x:-$(canary)}",
    "x=a; echo ${x/a/$(canary)}",
    "cat <<EOF\n$(canary)\nEOF",
    "read x <<< $(canary)",
    "hash -p ./bin/canary ls; ls",
    "./bin/canary",
    "x=bin; \"$x/canary\"",
    "{canary,a}",
    "ca{n,}ary",
    "canar[y]",
    "c\\anary",
    "x=canary; $x",
    "set -- canary; \"$@\"",
    "IFS=:; x=canary:a; $x",
    "echo canary | xargs",
    "echo canary | sh",
    "sh <<< canary",
    "find /dev/null -exec canary \\;",
    "timeout 5 canary",
    "env 'BASH_FUNC_echo%%=() { canary; }' bash -c 'echo hi'",
    "compgen -W '$(canary)' w",
    "x[$(canary)]=1",
    "exec 3< <(canary)",
    "select x in a; do canary; break; done <<< 1",
    "bash -euo pipefail -c canary",
    "bash -O extglob -c canary",
    "sh -c - canary",
    "command_not_found_handle() { canary; }; zzzz",
    "exec -a x canary",
    "time -p canary",
    "nice -n 5 -- canary",
    "sh -c 'exec \"$@\"' sh canary",
    "echo canary | xargs sh -c",
    "set -e; trap canary EXIT; false",
    "x='a[$(canary)]'; y=${a[x]}",
    "x='a[$(canary)]'; echo ${y:-${a[x]}}",
    "x='a[$(canary)]'; : ${y:=${a[x]}}",
    "x='a[$(canary)]'; (\\\n(x))",
    "cat <<EOF\n$\\\n(canary)\nEOF",
    "cat <<-EOF\n\t$(canary)\n\tEOF",
    // A wrapper's option that sets its command's environment: bash sources
    // `BASH_ENV` (where strace is missing, they run nothing).
    "strace -f -o /dev/null -EBASH_ENV=bin/canary bash -c true",
    "V=BASH_ENV=bin/canary; strace -o /dev/null -E \"$V\" bash -c true",
    "V=BASH_ENV=bin/canary; strace -o /dev/null --env=\"$V\" bash -c true",
    // `watch -x` runs its words as they are: joined, `exec canary` was two words.
    "TERM=dumb timeout 2 watch -x sh -c 'exec canary' x",
    // The shell `flock -c` and `script -c` run their line with.
    "SHELL=canary flock lock -c true",
    "cd bin && SHELL=canary script -qc true /dev/null",
    // zip takes options from `ZIPOPT`: `-TT CMD` runs CMD to test the archive.
    "echo hi > f && ZIPOPT='-T -TT canary' zip -q a.zip f",
    // cargo runs its rustc wrapper to ask rustc's version, before building.
    "cargo new -q --vcs none w && cd w && RUSTC_WRAPPER=canary cargo build -q --offline",
    // The same wrapper as a setting on cargo's line.
    "cargo new -q --vcs none w2 && cd w2 && cargo build -q --offline --config 'build.rustc-wrapper=\"canary\"'",
    // npm's setting by the environment: its script shell runs `npx -c`'s line.
    "npm_config_script_shell=bin/canary npx -c true",
    // Perl's library path: `use strict` loads the line's `strict.pm`.
    "mkdir -p pl && echo 'system(\"canary\")' > pl/strict.pm && PERLLIB=pl perl -e 'use strict'",
    // The other shells of the Bourne and Korn families run `-c`'s line as
    // sh does (where one is missing, it runs nothing).
    "yash -c canary",
    "posh -c 'true; canary'",
    "lksh -ec canary",
    "mksh-static -c canary",
    // Daemon tools and other roots run their command (where one is missing,
    // it runs nothing): start-stop-daemon the program its `--exec` names,
    // envdir with variables from files.
    "start-stop-daemon --start --chdir \"$PWD/bin\" --exec canary",
    "softlimit -t 5 canary",
    "setlock lock canary",
    "pgrphack canary",
    "mkdir -p e && envdir e canary",
    "proot -w . canary",
    "fakechroot canary",
    "rlwrap canary",
    "trickle -s -d 100 canary",
    "timelimit -t 5 canary",
    "catatonit -- canary",
    // sudo takes `NAME=VALUE` among its options (where sudo is missing, it runs nothing).
    "sudo A=1 -u root env PATH=bin CANARY_LOG=\"$CANARY_LOG\" canary",
    // pipx starts the Python its `--python` names (`canary -m venv DIR`).
    "PIPX_HOME=\"$PWD/px\" pipx run --python canary cowsay",
    // pdsh's exec module runs its command here; its ssh module runs ssh
    // with the arguments of `PDSH_SSH_ARGS`.
    "pdsh -R exec -w localhost canary",
    "PDSH_SSH_ARGS='-o ProxyCommand=canary %h' pdsh -R ssh -w localhost true",
    // trickle's `-P LIB` (a library it preloads) took no value, so the
    // library was read as the command; dbus-run-session runs its daemon.
    "trickle -s -P /usr/lib/x86_64-linux-gnu/trickle/trickle-overload.so canary",
    "dbus-run-session --dbus-daemon=canary true",
    // strace pipes its trace to a command line given as its output.
    "strace -o '|canary' true",
    "strace -qfo'!canary' true",
    // man-db's browser for `-H` (groff makes the page HTML).
    "man -Hcanary ls",
    // man-db's configuration file (`-C`) may define the pager it runs.
    "printf 'DEFINE\\tpager\\tcanary\\n' > m.conf && script -qc 'man -C m.conf ls' /dev/null",
    // sqlite3 runs its `.shell` and `.system` commands' lines, and pipes
    // its output to `.output`'s.
    "sqlite3 :memory: '.shell canary'",
    "sqlite3 -csv :memory: \".output '|canary'\" 'select 1'",
    // gh runs an alias's line through a shell (its settings under HOME).
    "HOME=\"$PWD\" gh alias set zz --shell canary && HOME=\"$PWD\" gh zz",
    // The Go linker runs the external linker `-ldflags` names.
    "printf 'module x\\ngo 1.19\\n' > go.mod && printf 'package main\\nfunc main() {}\\n' > main.go \
     && go build -ldflags '-linkmode=external -extld=canary' -o out .",
    // gio runs the Exec line of the desktop file it launches.
    "printf '[Desktop Entry]\\nType=Application\\nName=x\\nExec=canary\\n' > x.desktop && gio launch x.desktop && sleep 0.5",
    // gh installs an extension from a directory (any token will do for
    // that), and runs it as a command of its own.
    "rm -rf gh-zz && mkdir gh-zz && printf '#!/bin/sh\\ncanary\\n' > gh-zz/gh-zz && chmod +x gh-zz/gh-zz && cd gh-zz \
     && HOME=\"$PWD\" GH_TOKEN=x gh extension install . && HOME=\"$PWD\" GH_TOKEN=x gh zz",
    // aria2 runs its hook when a download fails (nothing listens on port 1).
    "aria2c -q --max-tries=1 --on-download-error=canary http://127.0.0.1:1/x",
    // fd runs its `-x` command for each file it finds (Debian names it fdfind).
    "fdfind . -x canary",
    // Backup tools run a password command and a remote shell.
    "restic -r repo --password-command canary snapshots",
    "RESTIC_PASSWORD_COMMAND=canary restic -r repo snapshots",
    "restic -r sftp:h:/r -o sftp.command=canary -p /dev/null snapshots",
    "borg --rsh canary info ssh://h/r",
    // GnuPG's agent runs the command it is given with the agent beside it,
    // and gpg starts the agent program it is told to when it needs one.
    "rm -rf g && mkdir -m 700 g && gpg-agent --homedir g --daemon canary",
    "rm -rf g && mkdir -m 700 g && gpg --batch --homedir g --agent-program \"$PWD/bin/can\"ary --passphrase '' --quick-gen-key t@x",
    // borg runs a command holding a repository's lock, one whose output
    // (or list of paths) it backs up, and a filter it pipes a tarball through.
    "rm -rf r && borg init -e none r && borg with-lock r canary",
    "rm -rf r && borg init -e none r && borg create --content-from-command r::a -- canary",
    "rm -rf r && borg init -e none r && borg create r::a /etc/hostname && borg export-tar --tar-filter canary r::a o.tar",
    // split pipes each part to its filter's line.
    "echo x | split --filter=canary",
    // OpenSSL loads a library whose constructor runs the canary: an engine
    // or a provider named on the line or in its configuration.
    "printf '#include <stdlib.h>\\n__attribute__((constructor)) static void c(void) { system(\"canary\"); }\\n' \
     > e.c && cc -shared -fPIC -o e.so e.c && openssl list -provider-path . -provider e",
    "printf '#include <stdlib.h>\\n__attribute__((constructor)) static void c(void) { system(\"canary\"); }\\n' \
     > e.c && cc -shared -fPIC -o e.so e.c && OPENSSL_MODULES=. openssl list -provider e",
    // A configuration file given to a subcommand's `-config` loads the
    // providers it names (`req`, `ca`, `cms`, `genpkey`, `ts`, …).
    "printf '#include <stdlib.h>\\n__attribute__((constructor)) static void c(void) { system(\"canary\"); }\\n' \
     > e.c && cc -shared -fPIC -o e.so e.c && printf 'openssl_conf = i\\n[i]\\nproviders = p\\n[p]\\ne = s\\n[s]\\n\
     module = %s/e.so\\nactivate = 1\\n' \"$PWD\" > x.cnf && openssl genpkey -config x.cnf -algorithm ed25519",
    // curl loads an engine by its path (nothing listens on port 1).
    "printf '#include <stdlib.h>\\n__attribute__((constructor)) static void c(void) { system(\"canary\"); }\\n' \
     > e.c && cc -shared -fPIC -o e.so e.c && curl -s --engine \"$PWD/e.so\" http://127.0.0.1:1/",
    // A word after an option that takes it as its value is that value, not
    // the option it holds (getopt, openssl's and pflag's parsers take it
    // whatever it is; cargo refuses `-p` without a value): the policy
    // reads these so (`tool_values`), and the tools run no canary.
    "T='--to-command=canary'; printf x > f && tar -cf a.tar f && tar -xf a.tar --exclude \"$T\"",
    "K='-oProxyCommand=canary'; ssh -i \"$K\" -o BatchMode=yes -p 1 127.0.0.1 true",
    "R='--password-command=canary'; restic -r \"$R\" snapshots",
    "X='--rsh=canary'; printf x > f && rsync -a --exclude \"$X\" f 127.0.0.1:/tmp/tiss-x",
    "printf 'module x\\ngo 1.19\\n' > go.mod && printf 'package main\\nfunc main() {}\\n' > main.go \
     && O='-toolexec=canary' && go build -o \"$O\" .",
    "P='--config=build.rustc-wrapper=\"canary\"'; rm -rf p && cargo new -q --vcs none p && cd p && cargo build -q -p \"$P\"",
    "P='--config=build.rustc-wrapper=\"canary\"'; rm -rf p && cargo new -q --vcs none p && cd p && cargo test -q --test \"$P\"",
    "printf '#include <stdlib.h>\\n__attribute__((constructor)) static void c(void) { system(\"canary\"); }\\n' \
     > e.c && cc -shared -fPIC -o e.so e.c && printf 'openssl_conf = i\\n[i]\\nproviders = p\\n[p]\\ne = s\\n[s]\\n\
     module = %s/e.so\\nactivate = 1\\n' \"$PWD\" > x.cnf && C=-config && openssl genpkey -algorithm ed25519 -out \"$C\" x.cnf",
];

/// Lines that hold the canary's name, or a substitution of it, as data:
/// the policy lets them run (under the allow list too), and no shell runs it.
const DATA: &[&str] = &[
    "echo canary",
    "printf '%s\\n' canary",
    "x=canary; echo \"$x\"",
    "echo '$(canary)'",
    "echo \"\\$(canary)\"",
    "cat <<'EOF'\n$(canary)\nEOF",
    "echo \"((canary))\"",
    "echo '$((a[$(canary)]))'",
    "x='a[$(canary)]'; echo \"$x\"",
    "x='$(canary)'; printf '%s' \"$x\"",
    "set -- '$(canary)'; echo \"$1\"",
    "for x in '$(canary)'; do echo \"$x\"; done",
    "echo \"${HOME}/x\" ${HOME:-/root} ${#PATH} ${x:0:3} ${x/foo/bar} ${x^^} ${!PA*} \"${PATH//:/ }\"",
    "for i in 1 2 3; do echo $i; done",
    "echo $((60*60)) $((0x10 + 2#101))",
    "test -f out && cat out",
    "export LANG=\"C.UTF-8\"; declare -a list; unset TMP; test -v HOME",
    "printf -v out '%s' x; echo \"$out\"",
    "x=${1:-default}; echo $x",
    "P='$(canary)'; read -rp \"$P\" name < /dev/null; echo \"$name\"",
];

/// Programs the allow list admits: the builtins and tools the lines use.
const ALLOWED: &[&str] = &[
    "echo *",
    "printf *",
    "true",
    "false",
    "test *",
    "\\[ *",
    "read *",
    "let *",
    "declare *",
    "typeset *",
    "export *",
    "unset *",
    "compgen *",
    ": *",
    ":",
    "set *",
    "local *",
    "getopts *",
    "wait *",
    "mapfile *",
    "f",
    "g",
    "ls",
    "cat",
    "cat *",
    "xargs",
    "timeout *",
    "find *",
    "trap *",
    "alias *",
    "hash *",
    "select *",
];

fn lines() -> Vec<String> {
    let mut base = Vec::new();
    for v in VALUES {
        for assign in ASSIGNS {
            base.extend(
                USES.iter().map(|u| {
                    assign.replace("{v}", v).replace("{u}", u).replace("{{", "{").replace("}}", "}")
                }),
            );
        }
        base.extend(DIRECT.iter().map(|d| d.replace("{v}", v).replace("{{", "{").replace("}}", "}")));
    }
    base.extend(OTHERS.iter().chain(DATA).map(|line| line.to_string()));
    base.iter().flat_map(|line| wrapped(line)).collect()
}

/// `line`, and the same inside `bash -c`, `sh -c` and a function.
fn wrapped(line: &str) -> [String; 4] {
    let quoted = format!("'{}'", line.replace('\'', "'\\''"));
    [
        line.to_string(),
        format!("bash -c {quoted}"),
        format!("sh -c {quoted}"),
        format!("g() {{ {line}\n}}; g"),
    ]
}

fn policy(allow: Option<&[&str]>, deny: &[&str]) -> Policy {
    let patterns = |list: &[&str]| list.iter().map(|p| p.to_string()).collect();
    Policy::new(PolicyRules {
        origin: "the test's policy".into(),
        allow: allow.map(patterns),
        deny: patterns(deny),
        approve: Vec::new(),
        taint_run: TaintRun::default(),
    })
    .expect("the patterns compile")
}

/// Whether `shell -c line`, in `dir`, ran the canary (its log not empty).
fn ran_the_canary(shell: &Path, line: &str, dir: &Path) -> bool {
    let log = dir.join("canary.log");
    let _ = std::fs::remove_file(&log);
    let path = format!("{}:{}", dir.join("bin").display(), std::env::var("PATH").unwrap_or_default());
    let mut child = Command::new(shell)
        .args(["-c", line])
        .current_dir(dir.join("work"))
        .env("PATH", path)
        .env("CANARY_LOG", &log)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the shell starts");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while child.try_wait().expect("waits").is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    std::fs::metadata(&log).is_ok_and(|m| m.len() > 0)
}

#[test]
fn no_line_the_policy_lets_run_runs_a_program_it_does_not_name() {
    let shells: Vec<_> =
        ["/bin/bash", "/bin/dash"].iter().map(Path::new).filter(|shell| shell.exists()).collect();
    if shells.len() < 2 {
        assert!(std::env::var_os("CI").is_none(), "CI=true and bash or dash is missing");
        eprintln!("SKIPPED: bash and dash are needed to hold the policy to them");
        return;
    }
    let dir = tempfile::tempdir().expect("a scratch directory");
    std::fs::create_dir_all(dir.path().join("bin")).unwrap();
    std::fs::create_dir_all(dir.path().join("work/bin")).unwrap();
    let canary = "#!/bin/sh\necho \"ran $*\" >> \"$CANARY_LOG\"\n";
    for place in ["bin/canary", "work/bin/canary"] {
        let path = dir.path().join(place);
        std::fs::write(&path, canary).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    let lines = lines();
    let lists = [("allow", policy(Some(ALLOWED), &[])), ("deny", policy(None, &["canary*"]))];
    let mut holes = Vec::new();
    let mut checked = 0;
    for (list, policy) in &lists {
        for line in &lines {
            if !matches!(policy.decide(line, None), Verdict::Run) {
                continue;
            }
            for shell in &shells {
                checked += 1;
                if ran_the_canary(shell, line, dir.path()) {
                    holes.push(format!("{list}, {}: {line:?}", shell.display()));
                }
            }
        }
    }
    eprintln!("{} lines, {checked} runs of the lines the policy let run", lines.len() * lists.len());
    // Data stays data: each line of it runs, four ways, under both lists.
    let refused: Vec<String> = lists
        .iter()
        .flat_map(|(list, policy)| {
            DATA.iter().flat_map(|data| wrapped(data)).filter_map(move |line| {
                match policy.decide(&line, None) {
                    Verdict::Run => None,
                    other => Some(format!("{list}: {line:?}: {other:?}")),
                }
            })
        })
        .collect();
    assert!(refused.is_empty(), "the policy refused data:\n{}", refused.join("\n"));
    // Setting `PATH` runs under the deny list; under the allow list it is
    // refused: a name may then be a file the plan wrote (`$HOME` is the
    // workspace in the sandbox).
    let path = "export PATH=\"$HOME/.local/bin:$PATH\"; declare -a list; test -v HOME";
    assert_eq!(lists[1].1.decide(path, None), Verdict::Run);
    assert!(matches!(lists[0].1.decide(path, None), Verdict::Deny(m) if m.contains("sets `PATH`")));
    assert!(holes.is_empty(), "the policy let these run the canary it does not name:\n{}", holes.join("\n"));
}
