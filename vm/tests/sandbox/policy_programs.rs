//! What the command policy finds a command runs through the programs it
//! looks into (book: reference/policy.md), through `tissvm` and the real tools:
//! a tool's options and script (sed, awk, tar), a variable that steers a
//! program, a runner's subcommand (poetry run, npx), bash's builtins that
//! run what they make, and what git's command line tells it to run. Each
//! line removes a victim when nothing judges it, so each refusal is a real
//! command kept from running.

use super::policy_taint::failure;
use crate::common::Fixture;

/// Tools that run a command from an option or their script (sed's `e`,
/// awk's `system()`, tar's `--checkpoint-action=exec=`, a file named like
/// that option matched by `*`) are read as running it: allowing the tool
/// does not allow what it runs. Each line removes the victim when nothing
/// judges it, so each refusal below is a real command kept from running.
#[test]
fn a_command_a_tool_runs_from_its_options_or_script_is_judged_as_any_other() {
    let fx = Fixture::new();
    let tools = fx.write("p.toml", "[commands]\nallow = [\"ls *\", \"sed *\", \"tar *\", \"awk *\"]\n");
    let plan = |command: &str| {
        format!(
            "TASK \"t\"\nSTEP \"s\" {{\n    RUN \"ls .\"\n    RUN \"{}\"\n}}\n",
            command.replace('\\', "\\\\").replace('"', "\\\"")
        )
    };
    std::fs::write(fx.ws().join("f"), "x\n").unwrap();
    std::fs::write(fx.ws().join("s.sed"), "1e rm victim\n").unwrap();
    for command in [
        "sed 'e rm victim' f",
        "sed -n '1e rm victim' f",
        "sed 's/.*/rm victim/e' f",
        "sed -f s.sed f",
        "awk 'BEGIN { system(\"rm victim\") }'",
        "awk 'BEGIN { print \"\" | \"rm victim\" }'",
        "awk '{ system(\"rm \" $0) }' names",
        "tar -cf a.tar --checkpoint=1 --checkpoint-action=exec='rm victim' f",
        "tar -cf a.tar *",
    ] {
        std::fs::write(fx.ws().join("names"), "victim\n").unwrap();
        // tar's wildcard injection: files named as its options.
        let options = ["--checkpoint=1", "--checkpoint-action=exec=rm victim"];
        for name in options {
            std::fs::write(fx.ws().join(name), "").unwrap();
        }
        std::fs::write(fx.ws().join("victim"), "keep me").unwrap();
        let unjudged = fx.run_json(&plan(command), &["--sandbox-profile", "none"]);
        assert!(
            !fx.made("victim"),
            "{command}: does not run what it is read as running: {}",
            unjudged.stderr
        );
        std::fs::write(fx.ws().join("victim"), "keep me").unwrap();
        let run = fx.run_json(&plan(command), &["--policy", &tools, "--sandbox-profile", "none"]);
        let (kind, message) = failure(&run);
        assert_eq!((run.code, kind.as_str()), (Some(5), "security_violation"), "{command}: {message}");
        assert!(
            message.contains("`rm victim` matches no pattern")
                || message.contains("only running it would tell"),
            "{command}: {message}"
        );
        assert!(fx.made("victim"), "{command}: the tool's command ran");
        for name in options {
            std::fs::remove_file(fx.ws().join(name)).unwrap();
        }
    }
    // What the tools do of their own runs.
    for command in ["sed -i 's/x/e/' f", "awk '{ print $1 }' f", "tar -cf a.tar f", "tar -cf a.tar ./*"] {
        let run = fx.run_json(&plan(command), &["--policy", &tools, "--sandbox-profile", "none"]);
        assert_eq!(run.code, Some(0), "{command}: {:?}", failure(&run));
    }
}

/// A variable that makes a tool run what its command does not name
/// (`TAR_OPTIONS='--to-command=CMD'`), set on the line, exported before
/// it, or by the plan's ENV, passes no list; so does a builtin that sets a
/// variable whose name expands.
#[test]
fn an_environment_variable_that_steers_a_tool_passes_no_list() {
    let fx = Fixture::new();
    let tools = fx
        .write("p.toml", "[commands]\nallow = [\"ls *\", \"echo *\", \"tar *\", \"export *\", \"read *\"]\n");
    std::fs::write(fx.ws().join("f"), "x\n").unwrap();
    let made = std::process::Command::new("tar").args(["-cf", "a.tar", "f"]).current_dir(fx.ws()).status();
    assert!(made.unwrap().success());
    let step = |env: &str, command: &str| {
        format!(
            "TASK \"t\"\nSTEP \"s\" {{\n{env}    RUN \"ls .\"\n    RUN \"{}\"\n}}\n",
            command.replace('\\', "\\\\").replace('"', "\\\"")
        )
    };
    let env = "    ENV TAR_OPTIONS = \"--to-command='rm victim'\"\n";
    for (env, command, why) in [
        ("", "TAR_OPTIONS=\"--to-command='rm victim'\" tar -xf a.tar", "it names `TAR_OPTIONS`"),
        ("", "export TAR_OPTIONS=\"--to-command='rm victim'\"; tar -xf a.tar", "it names `TAR_OPTIONS`"),
        (env, "tar -xf a.tar", "the plan's ENV set `TAR_OPTIONS`"),
        (
            "",
            "N=TAR; echo \"--to-command='rm victim'\" | { read -r \"$N\"_OPTIONS; export \"$N\"_OPTIONS; tar -xf a.tar; }",
            "only running it would tell",
        ),
    ] {
        std::fs::write(fx.ws().join("victim"), "keep me").unwrap();
        let unjudged = fx.run_json(&step(env, command), &["--sandbox-profile", "none"]);
        assert!(
            !fx.made("victim"),
            "{command}: does not run what it is read as running: {}",
            unjudged.stderr
        );
        std::fs::write(fx.ws().join("victim"), "keep me").unwrap();
        let run = fx.run_json(&step(env, command), &["--policy", &tools, "--sandbox-profile", "none"]);
        let (kind, message) = failure(&run);
        assert_eq!((run.code, kind.as_str()), (Some(5), "security_violation"), "{command}: {message}");
        assert!(message.contains(why), "{command}: {message}");
        assert!(fx.made("victim"), "{command}: tar ran the command");
    }
    // Without the variable, tar runs.
    let run = fx.run_json(&step("", "tar -xf a.tar"), &["--policy", &tools, "--sandbox-profile", "none"]);
    assert_eq!(run.code, Some(0), "{:?}", failure(&run));
    // `inspect` says so of a plan whose ENV sets it.
    let plan = fx.write("plan.tiss", &step(env, "tar -xf a.tar"));
    let shown = fx.tissvm(&["inspect", &plan, "--policy", &tools]);
    assert!(shown.stdout.contains("the plan's ENV set `TAR_OPTIONS`"), "{}", shown.stdout);
}

/// A runner's subcommand runs the command after its options (`poetry run
/// CMD`, `bundle exec CMD`, `npx CMD`, `npx -c LINE`), and some of bash's
/// builtins run what they make (`compgen -C CMD`, `hash -p`) or a value
/// (`x='a[$(CMD)]'; echo $((x))`): a deny list judges
/// that command, and an allow list admits it by what it is; so is ssh's
/// remote command, and a container's (`docker run --entrypoint sh IMAGE -c
/// LINE`). The stand-ins run what the real runners run; npx is Node's own.
#[test]
fn a_command_a_runner_runs_is_judged_as_any_other() {
    let fx = Fixture::new();
    let deny = fx.write("deny.toml", "[commands]\ndeny = [\"rm *\"]\n");
    let allow = fx.write("allow.toml", "[commands]\nallow = [\"ls *\"]\n");
    // Each skips its subcommand and its options (`--with` takes a value).
    let runner = "#!/bin/sh\nshift\nwhile [ \"${1#-}\" != \"$1\" ]; do\n    case \"$1\" in --with) shift 2 ;; --) shift; break ;; *) shift ;; esac\ndone\nexec \"$@\"\n";
    // A container engine's stand-in: what `docker run` runs in the image,
    // run here (the workspace is what a container given `-v` would see).
    let docker = "#!/bin/sh\nshift\nentry=\nwhile [ \"${1#-}\" != \"$1\" ]; do\n    case \"$1\" in --entrypoint) entry=$2; shift 2 ;; -v|-e|-w) shift 2 ;; *) shift ;; esac\ndone\nshift\n[ -n \"$entry\" ] && exec \"$entry\" \"$@\"\nexec \"$@\"\n";
    // Each in the workspace, run by its path, and in a directory of
    // `PATH`, run by its name.
    let bin = fx.path("bin");
    std::fs::create_dir(&bin).unwrap();
    for dir in [fx.ws(), bin.clone()] {
        for (name, text) in [("poetry", runner), ("bundle", runner), ("uv", runner), ("docker", docker)] {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        }
    }
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let plan = |command: &str| {
        format!("TASK \"t\"\nSTEP \"s\" {{\n    RUN \"{}\"\n}}\n", command.replace('"', "\\\""))
    };
    let by_name = |command: &str, policy: &str| {
        let args = ["--output-format", "json", "--policy", policy, "--sandbox-profile", "none"];
        fx.run_env(&plan(command), &args, &[("PATH", path.as_str())])
    };
    let mut commands = vec![
        "./docker run --rm -v /w:/w alpine rm victim",
        "./docker run --entrypoint rm alpine victim",
        "./docker run --entrypoint sh alpine -c 'ls; rm victim'",
        "./poetry run rm victim",
        "./bundle exec rm victim",
        "./uv run --with x -- rm victim",
        // bash's builtins that run what they make (in any `bash -c`).
        "bash -c \"compgen -C 'rm victim' foo\"",
        "bash -c 'hash -p /bin/rm r; r victim'",
        // bash evaluates a value as arithmetic; a subscript in it runs.
        "x='a[$(rm victim)]' bash -c 'echo $((x))'",
        "bash -c \"unset 'a[\\$(rm victim)]'\"",
        "bash -euo pipefail -c 'rm victim'",
    ];
    match which("npx") {
        // npm's options as nopt reads them: `--registry` takes a value,
        // npm's `-p` is `--parseable`, a switch takes a `true` after it.
        true => commands.extend([
            "npx rm victim",
            "npx -c 'rm victim'",
            "npx --registry http://127.0.0.1:9 rm victim",
            "npm exec -p rm victim",
            "npm exec --yes true rm victim",
        ]),
        false => tiss_test_support::skip::missing("Node (npx)", "the lines with npx were not tried"),
    }
    for command in commands {
        let message = refused_where_unjudged_it_removes(&fx, &plan(command), &deny);
        let unnamed = "a builtin such as `hash -p`), so it cannot be shown to run nothing that";
        let evaluated = "runs what bash makes of a variable's value";
        assert!(
            message.contains("by the pattern `rm *`")
                || message.contains(unnamed)
                || message.contains(evaluated),
            "{command}: {message}"
        );
    }
    // ssh's remote command is a line a shell runs, on a machine as real:
    // refused before ssh starts.
    let run =
        fx.run_json(&plan("ssh -o BatchMode=yes host.invalid 'ls; rm -r /srv/data'"), &["--policy", &deny]);
    let (kind, message) = failure(&run);
    assert_eq!((run.code, kind.as_str()), (Some(5), "security_violation"), "{message}");
    assert!(message.contains("its part `rm -r /srv/data` matches it"), "{message}");
    // An allow list admits what the runner runs, and only that; a runner
    // named by a path outside the system's program directories (one the
    // plan may have written, as these stand-ins) is not looked through.
    let run = by_name("poetry run ls .", &allow);
    assert_eq!(run.code, Some(0), "{:?}", failure(&run));
    let run = fx.run_json(&plan("./poetry run ls ."), &["--policy", &allow, "--sandbox-profile", "none"]);
    let (kind, message) = failure(&run);
    assert_eq!((run.code, kind.as_str()), (Some(5), "security_violation"), "{message}");
    assert!(message.contains("runs through `./poetry`"), "{message}");
    // A pattern through the runner matches nothing, and the run says so.
    let through =
        fx.write("through.toml", "[commands]\nallow = [\"ls *\", \"uv run pytest*\", \"sudo *\"]\n");
    let run = fx.run_json(&plan("ls ."), &["--policy", &through, "--sandbox-profile", "none"]);
    assert_eq!(run.code, Some(0), "{:?}", failure(&run));
    let warned = "`uv run pytest*` starts with `uv`, which an allow list looks through to the command it runs, \
                  so it matches no command; write that command's pattern (`pytest*`)";
    assert!(run.stderr.contains(warned), "{}", run.stderr);
    // `sudo *` is not told to write `*`, which would allow every command.
    let warned = "`sudo *` starts with `sudo`, which an allow list looks through to the command it runs, so it \
                  matches no command; write the patterns of the commands it may run (such as `make *`): `*` \
                  would allow every command";
    assert!(run.stderr.contains(warned), "{}", run.stderr);
    // So does one that allows a container engine's runs, whose commands it judges.
    let engine = fx.write("engine.toml", "[commands]\nallow = [\"ls *\", \"docker run *\"]\n");
    let run = fx.run_json(&plan("ls ."), &["--policy", &engine, "--sandbox-profile", "none"]);
    assert_eq!(run.code, Some(0), "{:?}", failure(&run));
    let warned = "`docker run *` starts with `docker`, whose containers' commands an allow list judges";
    assert!(run.stderr.contains(warned), "{}", run.stderr);
    let run = by_name("docker run alpine ls .", &engine);
    assert_eq!(run.code, Some(0), "{:?}", failure(&run));
    let run = by_name("poetry run rm victim", &allow);
    let (kind, message) = failure(&run);
    assert_eq!((run.code, kind.as_str()), (Some(5), "security_violation"), "{message}");
    assert!(message.contains("`rm victim` matches no pattern"), "{message}");
}

fn which(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// `allow = ["git *"]` admits git, not what its command line tells it to
/// run: a key whose value is a command (`-c core.fsmonitor=CMD`, `-c
/// alias.x='!CMD'`, `git config` of one) passes no list, and `rebase -x
/// CMD` is judged as CMD. Each line removes the victim through the real git
/// when nothing judges it.
#[test]
fn what_git_is_told_to_run_passes_no_list() {
    let fx = Fixture::new();
    let allow = fx.write("p.toml", "[commands]\nallow = [\"git *\", \"ls *\"]\n");
    let plan = |command: &str| {
        format!(
            "TASK \"t\"\nSTEP \"s\" {{\n    RUN \"{}\"\n}}\n",
            command.replace('\\', "\\\\").replace('"', "\\\"")
        )
    };
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git").args(args).current_dir(fx.ws()).output().unwrap();
        assert!(status.status.success(), "git {args:?}: {status:?}");
    };
    git(&["init", "-q"]);
    for (command, why) in [
        ("git -c core.fsmonitor='rm victim' status", "only running it would tell"),
        ("git -c alias.st='!rm victim' st", "only running it would tell"),
        ("git config alias.st '!rm victim' && git st", "only running it would tell"),
        (
            "git -c user.name=ci -c user.email=ci@example.com rebase -q --root -x 'rm victim'",
            "`rm victim` matches no pattern",
        ),
    ] {
        std::fs::write(fx.ws().join("victim"), "keep me").unwrap();
        git(&[
            "-c",
            "user.name=ci",
            "-c",
            "user.email=ci@example.com",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ]);
        let unjudged = fx.run_json(&plan(command), &["--sandbox-profile", "none"]);
        assert!(!fx.made("victim"), "{command}: git did not run rm: {}", unjudged.stderr);
        // The plan's `git config` set it: gone again.
        let mut unset = std::process::Command::new("git");
        unset.args(["config", "--unset-all", "alias.st"]).current_dir(fx.ws()).status().unwrap();
        std::fs::write(fx.ws().join("victim"), "keep me").unwrap();
        let run = fx.run_json(&plan(command), &["--policy", &allow, "--sandbox-profile", "none"]);
        let (kind, message) = failure(&run);
        assert_eq!((run.code, kind.as_str()), (Some(5), "security_violation"), "{command}: {message}");
        assert!(message.contains(why), "{command}: {message}");
        assert!(fx.made("victim"), "{command}: rm ran");
    }
    // What git does of its own runs.
    let ordinary = "git -c user.name=ci -c user.email=ci@example.com commit -q --allow-empty -m 'x' && git log --oneline";
    let run = fx.run_json(&plan(ordinary), &["--policy", &allow, "--sandbox-profile", "none"]);
    assert_eq!(run.code, Some(0), "{:?}", failure(&run));
}

/// A wrapper's long option by a prefix of its name (getopt_long takes any
/// prefix that names one option): GNU nice, timeout, env and xargs run
/// `rm victim` in each line, which read with the prefix as a flag would be
/// `5 rm victim`, `KILL …`, `tmp …`, `1 rm …` and pass the deny list.
#[test]
fn a_wrappers_abbreviated_option_passes_no_list() {
    let fx = Fixture::new();
    let deny = fx.write("p.toml", "[commands]\ndeny = [\"rm *\"]\n");
    let plan = |command: &str| format!("TASK \"t\"\nSTEP \"s\" {{\n    RUN \"{command}\"\n}}\n");
    for command in [
        "nice --adj 5 rm victim",
        "timeout --sig KILL 5 rm victim",
        "env --chd . rm victim",
        "echo victim | xargs --max-a 1 rm",
    ] {
        let message = refused_where_unjudged_it_removes(&fx, &plan(command), &deny);
        assert!(
            message.contains("abbreviated") && message.contains("write the option out whole"),
            "{message}"
        );
    }
    // Written out whole, or a prefix of env's `--split-string` (env has no
    // other long option so), the command is read and judged.
    for command in ["nice --adjustment 5 rm victim", "env --sp 'sh -c \\\"rm victim\\\"'"] {
        let message = refused_where_unjudged_it_removes(&fx, &plan(command), &deny);
        assert!(message.contains("rm *"), "{command}: {message}");
    }
}

/// Where a wrapper reads its options, a word that expands may be one of
/// them (`env -$A` is `env -u` and runs `rm victim`, not `ls`; `timeout
/// "$T" 5` is `timeout -v 5`), and after `--` come its arguments: each line
/// removes the victim unjudged, where the reader named `ls` or `5` before.
#[test]
fn a_word_that_expands_where_a_wrapper_reads_options_passes_no_list() {
    let fx = Fixture::new();
    let deny = fx.write("p.toml", "[commands]\ndeny = [\"rm *\"]\n");
    let plan = |command: &str| format!("TASK \"t\"\nSTEP \"s\" {{\n    RUN \"{command}\"\n}}\n");
    for (command, says) in [
        ("A=u; env -$A ls rm victim", "`env -$A` expands where env reads its options"),
        ("T=-v; timeout \\\"$T\\\" 5 rm victim", "or put `--` before it"),
        ("X='ls rm'; env A=$X victim", "the shell may make more than one word of it"),
        ("timeout -- 5 rm victim", "rm *"),
        // An option's value that splits: `nice -n 5 rm ls victim`.
        ("N='5 rm'; nice -n $N ls victim", "the shell may make more than one word of `$N`"),
        // find's word that splits into an action: `-exec rm victim ;`.
        ("N='x -o -exec rm victim ;'; find . -maxdepth 0 -name $N", "find may take an action"),
    ] {
        let message = refused_where_unjudged_it_removes(&fx, &plan(command), &deny);
        assert!(message.contains(says), "{command}: {message}");
    }
}

/// Runs `plan` without a policy, which must remove the file `victim`, then
/// under `policy`, which must refuse it as a `security_violation` (exit 5)
/// before the victim is touched: the refusal's message.
fn refused_where_unjudged_it_removes(fx: &Fixture, plan: &str, policy: &str) -> String {
    std::fs::write(fx.ws().join("victim"), "keep me").unwrap();
    let unjudged = fx.run_json(plan, &["--sandbox-profile", "none"]);
    assert!(!fx.made("victim"), "{plan}: does not remove the victim: {}", unjudged.stderr);
    std::fs::write(fx.ws().join("victim"), "keep me").unwrap();
    let run = fx.run_json(plan, &["--policy", policy, "--sandbox-profile", "none"]);
    let (kind, message) = failure(&run);
    assert_eq!((run.code, kind.as_str()), (Some(5), "security_violation"), "{plan}: {message}");
    assert!(fx.made("victim"), "{plan}: the victim was removed");
    message
}

/// A word the shell may make several words of moves the words after it
/// (`F=-r; rm $F victim` is `rm -r victim`; quoted, `"$F"` is one word, but
/// any), git's own options come before
/// its subcommand (`git -C . rm victim` is `git rm victim`), and script's
/// `-T` takes the next word as its value, `-c` too: what runs is judged,
/// not only the line as written. Each line removes the victim unjudged.
#[test]
fn a_word_that_may_be_several_and_git_s_own_options_do_not_hide_what_a_pattern_names() {
    let fx = Fixture::new();
    let deny = fx.write("p.toml", "[commands]\ndeny = [\"rm -r*\", \"git rm *\"]\n");
    // A bounded RUN: `script` has hung here waiting on its terminal.
    let plan = |command: &str| format!("TASK \"t\"\nSTEP \"s\" {{\n    RUN \"{command}\" TIMEOUT 30s\n}}\n");
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(fx.ws())
            .status()
            .expect("git runs");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q", "."]);
    for (command, says) in [
        ("F=-r; rm $F victim", "the pattern `rm -r*` may match it then"),
        // Quoted, one word, but `-r` all the same; bash's `$'…'` too.
        ("F=-r; rm \\\"$F\\\" victim", "is one word, but may be any"),
        ("rm $'-r' victim", "is one word, but may be any"),
        ("git -C . rm -q victim", "its part `git rm -q victim` matches it"),
        ("D='. rm'; git -C $D -q victim", "git's subcommand: quote it"),
        // `-T` takes `-c` as its file: no line, a shell that runs its input
        // (`exit`: without it the shell waited for more when the tests ran
        // side by side).
        ("script -q -T -c /dev/null <<EOF\\nrm victim\\nexit\\nEOF", "from its input"),
    ] {
        // What git removes it must hold: the victim committed.
        std::fs::write(fx.ws().join("victim"), "keep me").unwrap();
        git(&["add", "victim"]);
        git(&["commit", "-q", "--allow-empty", "-m", "victim"]);
        let message = refused_where_unjudged_it_removes(&fx, &plan(command), &deny);
        assert!(message.contains(says), "{command}: {message}");
    }
}

/// A glob gives files' names, and a name may read as an option: in a
/// workspace holding a file named `-r`, `rm *` runs `rm -r …` and removes a
/// directory. Refused under `rm -r*`; written so that no name can be an
/// option (`./*`, or after `--`), it is judged as written.
#[test]
fn a_glob_may_name_a_file_that_reads_as_an_option() {
    let fx = Fixture::new();
    let deny = fx.write("p.toml", "[commands]\ndeny = [\"rm -r*\"]\n");
    let plan = |command: &str| format!("TASK \"t\"\nSTEP \"s\" {{\n    RUN \"{command}\" TIMEOUT 30s\n}}\n");
    let victim = fx.ws().join("victim");
    let fresh = || {
        std::fs::create_dir_all(victim.join("inside")).unwrap();
        std::fs::write(fx.ws().join("-r"), "").unwrap();
    };
    fresh();
    let unjudged = fx.run_json(&plan("rm *"), &["--sandbox-profile", "none"]);
    assert!(!victim.exists(), "`rm *` beside a file named -r removes a directory: {}", unjudged.stderr);
    fresh();
    let run = fx.run_json(&plan("rm *"), &["--policy", &deny, "--sandbox-profile", "none"]);
    let (kind, message) = failure(&run);
    assert_eq!((run.code, kind.as_str()), (Some(5), "security_violation"), "{message}");
    assert!(
        message.contains("a name may read as an option") && message.contains("start it with `./`"),
        "{message}"
    );
    assert!(victim.exists(), "the victim was removed");
    for written in ["rm -f ./-*", "rm -f -- -*"] {
        let run = fx.run_json(&plan(written), &["--policy", &deny, "--sandbox-profile", "none"]);
        assert_eq!(run.code, Some(0), "{written}: {}", run.stderr);
        assert!(victim.exists() && !fx.made("-r"), "{written} removes the file named -r alone");
        fresh();
    }
}
