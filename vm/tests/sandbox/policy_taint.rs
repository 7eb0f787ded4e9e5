//! The command policy and taint (book: reference/policy.md) through `tissvm`: allow, deny and
//! approve patterns (a denied command never starts; an approval suspends
//! without a terminal and `resume --answer` or `--answers` answers it), a
//! malformed policy refused before anything runs, `tiss.toml` [policy] and
//! the flag that beats it, the policy remembered on resume; taint listed by
//! `tissvm inspect`, and `[taint] run` deciding at run time. What the
//! reader finds that tools, runners and git run: `policy_programs.rs`.

use std::path::Path;

use crate::common::{Fixture, Run};
use serde_json::Value as Json;

impl Fixture {
    pub(super) fn write(&self, rel: &str, text: &str) -> String {
        let path = self.path(rel);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    }

    /// `tissvm run plan.tiss --workdir ws --output-format json ARGS`.
    pub(super) fn run_json(&self, plan: &str, args: &[&str]) -> Run {
        self.run(plan, &[&["--output-format", "json"][..], args].concat())
    }

    fn resume(&self, snap: &str, args: &[&str]) -> Run {
        self.tissvm(&[&["resume", snap, "--output-format", "json"], args].concat())
    }

    pub(super) fn made(&self, rel: &str) -> bool {
        self.ws().join(rel).exists()
    }
}

/// The failure's kind and message of a JSON report.
pub(super) fn failure(run: &Run) -> (String, String) {
    let report = run.json();
    let f = &report["failure"];
    (f["kind"].as_str().unwrap_or("").to_string(), f["message"].as_str().unwrap_or("").to_string())
}

/// The snapshot a suspended run wrote.
#[track_caller]
fn snapshot(run: &Run) -> String {
    let report = run.json();
    assert_eq!(report["status"], "suspended", "{report:#}\n{}", run.stderr);
    let path = report["snapshot"].as_str().expect("a snapshot path").to_string();
    assert!(Path::new(&path).is_file(), "{path} is missing");
    path
}

const TOUCH: &str = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"touch made\"\n    RUN \"echo after\"\n}\n";

#[test]
fn a_denied_command_is_a_security_violation_before_it_starts() {
    let fx = Fixture::new();
    let policy = fx.write("p.toml", "[commands]\ndeny = [\"curl *\", \"touch *\"]\n");
    let run = fx.run_json(TOUCH, &["--policy", &policy]);
    run.expect(5);
    let (kind, message) = failure(&run);
    assert_eq!(kind, "security_violation");
    assert!(message.contains("`touch made` is denied by the pattern `touch *`"), "{message}");
    assert!(message.contains("p.toml` [commands] deny"), "{message}");
    assert!(!fx.made("made"), "the denied command ran");
    assert_eq!(run.json()["cost"]["run_count"], 0);
}

/// The policy reads the shell (book: reference/policy.md): a command smuggled after an
/// allowed one, or hidden behind a path, a wrapper or a separator, is seen
/// and refused before anything of the line starts.
#[test]
fn commands_hidden_in_the_shell_line_are_refused_before_any_part_runs() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/policy.toml");
    let examples = examples.to_str().unwrap();
    let fx = Fixture::new();
    let deny_rm = fx.write("p.toml", "[commands]\ndeny = [\"rm *\"]\n");
    for (command, policy) in [
        ("ls . && rm -f victim", examples),
        ("ls .; rm -f victim", examples),
        ("ls $(rm -f victim)", examples),
        ("/bin/rm victim", deny_rm.as_str()),
        ("env rm victim", deny_rm.as_str()),
        ("true; rm victim", deny_rm.as_str()),
        (" rm victim", deny_rm.as_str()),
        ("sh -c 'rm victim'", deny_rm.as_str()),
        // A program only running would name cannot be shown not to be `rm`.
        ("CMD=rm; $CMD victim", deny_rm.as_str()),
        ("$(echo rm) victim", deny_rm.as_str()),
        ("eval 'rm victim'", deny_rm.as_str()),
        // The shell runs a trap's action, and an alias on the lines after it.
        ("trap 'rm victim' EXIT; ls .", deny_rm.as_str()),
        ("alias r=rm\nr victim", deny_rm.as_str()),
        // bash expands braces, as `sh` too where `/bin/sh` is bash.
        ("bash -c '{rm,victim}'", deny_rm.as_str()),
        // A shell's `c` among its flags, or in a word that expands.
        ("sh -ec 'rm victim'", deny_rm.as_str()),
        ("A=-c; sh $A 'rm victim'", deny_rm.as_str()),
        // Programs that run the command they are given.
        ("chrt -o 0 rm victim", deny_rm.as_str()),
        ("setpriv --reuid=0 rm victim", deny_rm.as_str()),
        ("script -qc 'rm victim' /dev/null", deny_rm.as_str()),
        ("env -S'rm victim'", deny_rm.as_str()),
        // A wrapper's long option with its value in the next word.
        ("env --chdir . rm victim", deny_rm.as_str()),
        ("timeout --signal KILL 5 rm victim", deny_rm.as_str()),
        ("xargs --arg-file /dev/null rm victim", deny_rm.as_str()),
        ("flock lk -c 'ls; rm victim'", deny_rm.as_str()),
        // A shell that runs its input.
        ("echo 'rm victim' | sh", deny_rm.as_str()),
        ("sh <<EOF\nrm victim\nEOF", deny_rm.as_str()),
        ("echo 'rm victim' | xargs -I{} sh -c '{}'", deny_rm.as_str()),
        // xargs puts its input after the command: `rm victim`, a shell's line.
        ("echo victim | xargs rm", deny_rm.as_str()),
        ("echo 'rm victim' | xargs -0 sh -ec", deny_rm.as_str()),
        // e2fsprogs' logsave runs the command after its log file (installed
        // with every Debian system); xe and rush make commands of their
        // input as xargs does, pee runs its words as shell lines, expect
        // what it spawns: none can be shown not to run `rm`.
        ("logsave -a /dev/null rm victim", deny_rm.as_str()),
        ("echo victim | xe rm", deny_rm.as_str()),
        ("echo victim | rush 'rm {}'", deny_rm.as_str()),
        ("echo x | pee 'rm victim' cat", deny_rm.as_str()),
        ("expect -c 'spawn rm victim; expect eof'", deny_rm.as_str()),
        ("run-one rm victim", deny_rm.as_str()),
        ("datefudge -s 2020-01-01 rm victim", deny_rm.as_str()),
        ("schedtool -B -e rm victim", deny_rm.as_str()),
        ("hwloc-bind core:0 -- rm victim", deny_rm.as_str()),
        ("with-contenv rm victim", deny_rm.as_str()),
        // git's exec path holds its subcommands as programs.
        ("/usr/lib/git-core/git-rebase -x 'rm victim' HEAD~1", deny_rm.as_str()),
        // chiark-utils' with-lock-ex runs the command after its lock file.
        ("with-lock-ex lk rm victim", deny_rm.as_str()),
        // A program an option names gets the tool's words after it: rg
        // runs `/bin/rm FILE` for each file it searches, rsync `/bin/rm
        // HOST rsync --server …` (each ran under this list until December 3).
        ("rg --pre /bin/rm x victim", deny_rm.as_str()),
        ("rsync -e /bin/rm victim:x .", deny_rm.as_str()),
        // make's `--eval` is a makefile's text; glibc's memusage runs its
        // command; GNU dc runs `!LINE`.
        ("make --eval 'x:;rm victim' x", deny_rm.as_str()),
        // A variable on make's command line is a makefile's line: `!=` runs
        // its value, and `$(shell …)` runs as make reads it (both removed
        // the victim until December 4, with no makefile at all).
        ("make 'X!=rm victim'", deny_rm.as_str()),
        ("make 'X:=$(shell rm victim)'", deny_rm.as_str()),
        // make's built-in rules run the program a variable names, given on
        // its command line or in its environment, and a recipe is a shell's
        // line: each removed the victim until December 4, with no makefile.
        ("echo 'int main(){}' > x.c; make 'CC=rm -f victim #' x.o", deny_rm.as_str()),
        ("echo 'int main(){}' > x.c; CC='rm -f victim #' make x.o", deny_rm.as_str()),
        ("echo 'int main(){}' > x.c; make 'CFLAGS=-O2; rm victim;' x.o", deny_rm.as_str()),
        // QEMU's user-mode emulator runs the program after its options.
        ("qemu-x86_64 -cpu max /bin/rm victim", deny_rm.as_str()),
        // gcc runs each of its programs under `-wrapper`'s; fd gives its
        // command the path after its words when it names none.
        ("gcc -wrapper '/bin/sh,-c,rm victim' -x c -c /dev/null -o o.o", deny_rm.as_str()),
        (
            "x86_64-linux-gnu-gcc-12 -wrapper '/bin/sh,-c,rm victim' -x c -c /dev/null -o o.o",
            deny_rm.as_str(),
        ),
        ("fdfind victim -x rm", deny_rm.as_str()),
        // A workspace's yarn command, and the program of `nix run`'s package.
        ("yarn workspaces foreach -A exec rm victim", deny_rm.as_str()),
        ("yarn workspace app exec rm victim", deny_rm.as_str()),
        ("nix run nixpkgs#busybox -- rm victim", deny_rm.as_str()),
        // coreutils' install strips what it installs with the program named.
        ("echo x > a; install -s --strip-program=/bin/rm a victim", deny_rm.as_str()),
        ("memusage rm victim", deny_rm.as_str()),
        ("echo '!rm victim' | dc", deny_rm.as_str()),
        // The dynamic loader, run by its name, runs the program after it.
        ("/lib64/ld-linux-x86-64.so.2 /bin/rm victim", deny_rm.as_str()),
        // Apptainer runs the words after the image, in a container that
        // binds the workspace.
        ("apptainer exec --nv -B /w img.sif rm victim", deny_rm.as_str()),
        ("srun -n1 singularity exec img.sif rm victim", deny_rm.as_str()),
        // A path that expands still names its program by its last part.
        ("\"$(dirname \"$(command -v rm)\")/rm\" victim", deny_rm.as_str()),
        // find puts the path in the shell's line: a file named `$(rm victim)`.
        ("touch '$(rm victim)'; find . -name '$*' -exec sh -c 'echo {}' \\;", deny_rm.as_str()),
    ] {
        refused_before_it_runs(&fx, &["--policy", policy, "--sandbox-profile", "none"], command, "rm");
    }
    // binutils load the plugin `--plugin` names: `nm --plugin ./p.so t`
    // ran the library's constructor, which removed the victim, until
    // December 4; under a cross name too.
    for command in ["echo x > t; nm --plugin ./p.so t", "x86_64-linux-gnu-ld -plugin ./p.so -o /dev/null"] {
        let args = ["--policy", deny_rm.as_str(), "--sandbox-profile", "none"];
        refused_before_it_runs(&fx, &args, command, "the code they load");
    }
    // A program a path that expands names, and not `rm`, runs.
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"ls .\"\n    RUN \"\\\"$(dirname \\\"$(command -v ls)\\\")/ls\\\" .\"\n}\n";
    let run = fx.run_json(plan, &["--policy", &deny_rm, "--sandbox-profile", "none"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.json()["cost"]["run_count"], 2);
}

/// A plan may put a program under an allowed name and run it by its path:
/// under `allow = ["cp *", "ls *"]`, `cp /bin/sh ./ls; ./ls -c 'rm victim'`
/// removed the victim until December 4. A program named by a path outside
/// the system's program directories is allowed only by that path, and a
/// wrapper so named is not looked through.
#[test]
fn an_allow_list_matches_a_program_the_plan_may_have_written_by_its_path() {
    let fx = Fixture::new();
    let policy = fx.write("p.toml", "[commands]\nallow = [\"cp *\", \"ls *\", \"env *\"]\n");
    let args = ["--policy", policy.as_str(), "--sandbox-profile", "none"];
    refused_before_it_runs(&fx, &args, "cp /bin/sh ./ls; ./ls -c 'rm victim'", "is matched by that path");
    refused_before_it_runs(&fx, &args, "cp /usr/bin/env ./env; ./env rm victim", "does not look through");
    // So does one that sets `PATH`, in the line or by the plan's ENV: the
    // name may then be a file the plan wrote.
    refused_before_it_runs(&fx, &args, "cp /bin/sh ./ls; PATH=.:$PATH ls -c 'rm victim'", "sets `PATH`");
    std::fs::copy("/bin/sh", fx.ws().join("ls")).unwrap();
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    ENV PATH = \".\"\n    RUN \"ls -c 'rm victim'\"\n}\n";
    let run = fx.run_json(plan, &args);
    let (kind, message) = failure(&run);
    assert_eq!((run.code, kind.as_str()), (Some(5), "security_violation"), "{message}");
    assert!(message.contains("the plan's ENV set `PATH`"), "{message}");
    assert!(fx.ws().join("victim").exists());
    std::fs::remove_file(fx.ws().join("ls")).unwrap();
    // The same program from the system's directories is allowed by its name.
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"/bin/ls .\"\n}\n";
    assert_eq!(fx.run_json(plan, &args).code, Some(0));
}

/// A deny pattern that is text looked for anywhere (`*victim*`) cannot be
/// shown not to match a word the shell makes: `V=vic; rm -f $V'tim'` runs
/// `rm -f victim`, and `rm -f ./*` names it too. Both are refused before
/// anything of the line runs (book: reference/policy.md).
#[test]
fn a_pattern_looked_for_anywhere_refuses_a_word_that_may_give_it() {
    let fx = Fixture::new();
    let deny = fx.write("p.toml", "[commands]\ndeny = [\"*victim*\"]\n");
    for command in ["V=vic; rm -f $V'tim'", "V=vic; rm -f \"$V\"tim", "rm -f ./*", "rm -f $(ls)"] {
        let args = ["--policy", &deny, "--sandbox-profile", "none"];
        refused_before_it_runs(&fx, &args, command, "the pattern `*victim*` may match it then");
    }
}

/// A tilde gives the home directory, in the sandbox the workspace, which no
/// pattern sees as written: `rm -rf ~/victim` removed the workspace's file
/// under `deny = ["rm -rf /*"]`. It is judged as a word of any text.
#[test]
fn a_tilde_is_judged_as_a_word_of_any_text() {
    let fx = Fixture::new();
    let deny = fx.write("p.toml", "[commands]\ndeny = [\"rm -rf /*\"]\n");
    refused_before_it_runs(
        &fx,
        &["--policy", &deny],
        "rm -rf ~/victim",
        "`~/victim` is one word, but may be any",
    );
}

/// Runs `ls .`, then `command` (as the shell reads it), beside a file named
/// `victim` in the workspace, with `args`: the second RUN must be refused
/// before it starts, its message saying `says`; only `ls .` ran, and the
/// file is still there.
fn refused_before_it_runs(fx: &Fixture, args: &[&str], command: &str, says: &str) {
    std::fs::write(fx.ws().join("victim"), "keep me").unwrap();
    let plan = format!(
        "TASK \"t\"\nSTEP \"s\" {{\n    RUN \"ls .\"\n    RUN \"{}\"\n}}\n",
        command.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
    );
    let run = fx.run_json(&plan, args);
    let (kind, message) = failure(&run);
    assert_eq!((run.code, kind.as_str()), (Some(5), "security_violation"), "{command}: {message}");
    assert!(message.contains(says), "{command}: refused for another reason: {message}");
    assert_eq!(run.json()["cost"]["run_count"], 1, "{command}: only `ls .` ran");
    assert!(fx.ws().join("victim").exists(), "{command}: the file was removed");
}

#[test]
fn an_allow_list_denies_every_other_command() {
    let fx = Fixture::new();
    let policy = fx.write("p.toml", "[commands]\nallow = [\"echo *\"]\n");
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"echo ok\"\n    RUN \"touch made\"\n}\n";
    let run = fx.run_json(plan, &["--policy", &policy]);
    run.expect(5);
    let (kind, message) = failure(&run);
    assert_eq!(kind, "security_violation");
    assert!(
        message.contains("`touch made` matches no pattern") && message.contains("\"touch *\""),
        "{message}"
    );
    assert_eq!(run.json()["cost"]["run_count"], 1, "echo ran");
    assert!(!fx.made("made"));
    // Deny is checked first, even for an allowed command.
    let both = fx.write("both.toml", "[commands]\nallow = [\"*\"]\ndeny = [\"touch *\"]\n");
    fx.run_json(TOUCH, &["--policy", &both]).expect(5);
    assert!(!fx.made("made"));
}

#[test]
fn an_approval_suspends_without_a_terminal_and_resume_answers_it() {
    let policy_text = "[commands]\napprove = [\"touch *\"]\n";
    // Approved: the command runs, and the run goes on.
    let fx = Fixture::new();
    let policy = fx.write("p.toml", policy_text);
    let run = fx.run_json(TOUCH, &["--policy", &policy]);
    run.expect(3);
    assert!(run.stderr.contains("RUN \"touch made\", which needs approval"), "{}", run.stderr);
    assert!(run.stderr.contains("--answer approve"), "{}", run.stderr);
    let snap = snapshot(&run);
    assert!(!fx.made("made"), "ran before its approval");
    let resumed = fx.resume(&snap, &["--answer", "approve"]);
    resumed.expect(0);
    assert!(fx.made("made"));
    assert_eq!(resumed.json()["cost"]["run_count"], 2);

    // Rejected: review_rejected, and the command never ran.
    let fx = Fixture::new();
    let policy = fx.write("p.toml", policy_text);
    let snap = snapshot(fx.run_json(TOUCH, &["--policy", &policy]).expect(3));
    let rejected = fx.resume(&snap, &["--answer", "reject", "--comment", "not here"]);
    rejected.expect(1);
    let (kind, message) = failure(&rejected);
    assert_eq!(kind, "review_rejected");
    assert!(message.contains("`touch made` was not approved") && message.contains("not here"), "{message}");
    assert!(!fx.made("made"));
}

#[test]
fn a_rejected_approval_is_caught_by_try() {
    let fx = Fixture::new();
    let policy = fx.write("p.toml", "[commands]\napprove = [\"touch *\"]\n");
    let answers = fx.write("a.json", r#"[{"answer": "reject", "line": 4}]"#);
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    TRY {\n        RUN \"touch made\"\n    } CATCH AS e {\n        \
                LOG \"${e.KIND}\"\n    }\n}\n";
    let run = fx.run_json(plan, &["--policy", &policy, "--answers", &answers]);
    run.expect(0);
    assert_eq!(run.json()["steps"][0]["logs"][0], "review_rejected");
    assert!(!fx.made("made"));
}

#[test]
fn answers_given_in_advance_answer_approvals() {
    let fx = Fixture::new();
    let policy = fx.write("p.toml", "[commands]\napprove = [\"touch *\", \"echo *\"]\n");
    let answers = fx.write("a.json", r#"[{"answer": "approve", "line": 3}, {"answer": "approve"}]"#);
    let log = fx.path("log.jsonl");
    let run = fx
        .run_json(TOUCH, &["--policy", &policy, "--answers", &answers, "--log-file", log.to_str().unwrap()]);
    run.expect(0);
    assert!(fx.made("made"));
    // The log says who approved what.
    let events: Vec<Json> =
        std::fs::read_to_string(&log).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let approvals: Vec<(&str, &str)> = events
        .iter()
        .filter(|e| e["event"] == "approval")
        .map(|e| (e["op"].as_str().unwrap(), e["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(approvals, [("touch made", "approved"), ("echo after", "approved")]);
    // An entry for a line with no RUN is refused before anything runs.
    let fx = Fixture::new();
    let policy = fx.write("p.toml", "[commands]\napprove = [\"touch *\"]\n");
    let wrong = fx.write("a.json", r#"[{"answer": "approve", "line": 2}]"#);
    let run = fx.run(TOUCH, &["--policy", &policy, "--answers", &wrong]);
    run.expect(2);
    assert!(run.stderr.contains("nor a RUN the policy may ask about"), "{}", run.stderr);
    assert!(!fx.made("made"));
}

#[test]
fn a_malformed_policy_is_a_usage_error_naming_file_line_and_key() {
    let fx = Fixture::new();
    for (text, says) in [
        ("[commands]\n\ndeny = \"curl *\"\n", "line 3, key `commands.deny`: expected a list of patterns"),
        (
            "[commands]\napprove = [\"git [push\"]\n",
            "line 2, key `commands.approve`: `git [push` is not a valid pattern",
        ),
        (
            "[taint]\nrun = \"sometimes\"\n",
            "line 2, key `taint.run`: expected \"allow\", \"approve\" or \"deny\"",
        ),
        ("[comands]\n", "line 1: unknown table `[comands]`"),
        ("[commands]\nallow = [\n", "p.toml` line"),
    ] {
        let policy = fx.write("p.toml", text);
        let run = fx.run(TOUCH, &["--policy", &policy]);
        run.expect(2);
        assert!(run.stderr.contains(&format!("`{policy}`")), "names the file: {}", run.stderr);
        assert!(run.stderr.contains(says), "{}\n(expected: {says})", run.stderr);
        assert!(!fx.made("made"), "ran despite a malformed policy");
    }
    let run = fx.run(TOUCH, &["--policy", "missing.toml"]);
    run.expect(2);
    assert!(run.stderr.contains("`missing.toml` does not exist"), "{}", run.stderr);
}

#[test]
fn tiss_toml_has_a_policy_and_the_flag_and_variable_beat_it() {
    let fx = Fixture::new();
    fx.write("tiss.toml", "[provider]\nseed = 1\n\n[policy.commands]\ndeny = [\"touch *\"]\n");
    let run = fx.run_json(TOUCH, &[]);
    run.expect(5);
    assert!(failure(&run).1.contains("tiss.toml` [policy] [commands] deny"), "{}", failure(&run).1);
    assert!(!fx.made("made"));
    // A --policy file replaces the table whole.
    let open = fx.write("open.toml", "[commands]\ndeny = [\"curl *\"]\n");
    fx.run_json(TOUCH, &["--policy", &open]).expect(0);
    assert!(fx.made("made"));
    std::fs::remove_file(fx.ws().join("made")).unwrap();
    fx.run_env(TOUCH, &["--output-format", "json"], &[("TISS_POLICY", &open)]).expect(0);
    assert!(fx.made("made"));
    // A malformed table is refused like a file.
    fx.write("tiss.toml", "[policy.commands]\ndeny = [1]\n");
    let run = fx.run(TOUCH, &[]);
    run.expect(2);
    assert!(run.stderr.contains("tiss.toml` line 2, key `policy.commands.deny`"), "{}", run.stderr);
}

#[test]
fn a_resumed_run_keeps_its_policy() {
    let fx = Fixture::new();
    let policy = fx.write("p.toml", "[commands]\napprove = [\"echo *\"]\ndeny = [\"touch *\"]\n");
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"echo first\"\n    RUN \"touch made\"\n}\n";
    let snap = snapshot(fx.run_json(plan, &["--policy", &policy]).expect(3));
    // No --policy on resume: the run's own still denies, even with a
    // tiss.toml that allows everything where it is resumed.
    fx.write("tiss.toml", "[policy.commands]\ndeny = []\n");
    let resumed = fx.resume(&snap, &["--answer", "approve"]);
    resumed.expect(5);
    assert!(failure(&resumed).1.contains("`touch made` is denied"), "{}", failure(&resumed).1);
    assert!(!fx.made("made"));
}

const MODEL_RUN: &str = "TASK \"t\"\nSTEP \"s\" {\n    PROMPT_AGENT \"name\" INTO name\n    RUN \"echo plain\"\n    \
                         RUN \"echo ${name}\"\n}\n";

fn mock(fx: &Fixture) -> String {
    fx.write("mock.json", r#"["model-said"]"#)
}

#[test]
fn taint_run_decides_what_a_command_with_model_data_does() {
    // deny: the untainted RUN runs, the tainted one is refused.
    let fx = Fixture::new();
    let policy = fx.write("p.toml", "[taint]\nrun = \"deny\"\n");
    let run = fx.run_json(MODEL_RUN, &["--policy", &policy, "--mock-answers", &mock(&fx)]);
    run.expect(5);
    let (kind, message) = failure(&run);
    assert_eq!(kind, "security_violation");
    assert!(
        message.contains("`echo 'model-said'` is denied: it holds data from a model or a file"),
        "{message}"
    );
    assert_eq!(run.json()["cost"]["run_count"], 1, "the plain echo ran");

    // approve: suspends at the tainted RUN; approving runs it.
    let policy = fx.write("p.toml", "[taint]\nrun = \"approve\"\n");
    let run = fx.run_json(MODEL_RUN, &["--policy", &policy, "--mock-answers", &mock(&fx)]);
    run.expect(3);
    assert_eq!(run.json()["cost"]["run_count"], 1);
    assert!(run.stderr.contains("it holds data from a model or a file"), "{}", run.stderr);
    let resumed = fx.resume(&snapshot(&run), &["--answer", "approve"]);
    resumed.expect(0);
    assert_eq!(resumed.json()["cost"]["run_count"], 2);

    // allow (and no policy): it runs.
    let policy = fx.write("p.toml", "[taint]\nrun = \"allow\"\n");
    fx.run_json(MODEL_RUN, &["--policy", &policy, "--mock-answers", &mock(&fx)]).expect(0);
    fx.run_json(MODEL_RUN, &["--mock-answers", &mock(&fx)]).expect(0);
}

#[test]
fn files_and_env_carry_taint_and_clean_commands_are_unaffected() {
    let fx = Fixture::new();
    let policy = fx.write("p.toml", "[taint]\nrun = \"deny\"\n");
    let deny = |plan: &str| {
        let run = fx.run_json(plan, &["--policy", &policy, "--mock-answers", &mock(&fx)]);
        run.expect(5);
        failure(&run).1
    };
    // A READ of a file written from model output.
    let m = deny(
        "TASK \"t\"\nSTEP \"s\" {\n    PROMPT_AGENT \"code\" INTO code\n    WRITE \"gen.txt\" FROM code\n    \
         READ \"gen.txt\" AS again\n    RUN \"echo ${again}\"\n}\n",
    );
    assert!(m.contains("`echo 'model-said'` is denied"), "{m}");
    // An ENV from model output: every later RUN's environment holds it.
    let m =
        deny("TASK \"t\"\nSTEP \"s\" {\n    PROMPT_AGENT \"v\" INTO v\n    ENV X = v\n    RUN \"true\"\n}\n");
    assert!(m.contains("`true` is denied"), "{m}");
    // Nothing tainted: the same policy lets every command run.
    let clean = "TASK \"t\"\nSTEP \"s\" {\n    VAR v = \"x\"\n    WRITE \"a.txt\" FROM v\n    RUN \"cat a.txt\"\n    \
                 RUN \"echo ${v}\"\n    ASSERT LAST_RUN.STDOUT CONTAINS \"x\"\n}\n";
    fx.run_json(clean, &["--policy", &policy]).expect(0);
}

#[test]
fn inspect_lists_the_flows_and_raises_the_risk() {
    let fx = Fixture::new();
    let plan = fx.write_plan(
        "TASK \"t\"\nSTEP \"s\" {\n    PROMPT_AGENT \"write a script\" INTO script\n    WRITE \"gen.py\" FROM script\n    \
         READ \"notes.txt\" AS notes\n    RUN \"echo ${notes}\"\n    RUN \"python3 gen.py\"\n}\n",
    );
    let run = fx.tissvm(&["inspect", &plan, "--output-format", "json"]);
    run.expect(0);
    let report = run.json();
    assert_eq!(report["risk"]["level"], "high");
    let taint = &report["taint"];
    assert_eq!(taint["flows"], serde_json::json!([{"source": "READ", "source_line": 5, "run_line": 6}]));
    assert_eq!(
        taint["model_code_runs"],
        serde_json::json!([
            {"write_line": 4, "run_line": 6, "by": "write"},
            {"write_line": 4, "run_line": 7, "by": "write"}
        ])
    );
    let reasons: Vec<&Json> = report["risk"]["reasons"].as_array().unwrap().iter().collect();
    assert!(
        reasons.iter().any(|r| r["line"] == 7
            && r["level"] == "high"
            && r["reason"].as_str().unwrap().contains("code a model wrote")),
        "{reasons:#?}"
    );
    let text = fx.tissvm(&["inspect", &plan]);
    assert!(text.stdout.contains("line    5  READ → line 6 RUN"), "{}", text.stdout);
    // A plan without taint keeps its own level.
    let clean = fx.write_plan("TASK \"t\"\nSTEP \"s\" {\n    RUN \"echo hi\"\n}\n");
    let report = fx.tissvm(&["inspect", &clean, "--output-format", "json"]).json();
    assert_eq!(report["risk"]["level"], "low");
    assert_eq!(report["taint"]["flows"], serde_json::json!([]));
}

#[test]
fn an_answer_to_an_approval_answers_that_run_only() {
    // Resumed under a policy that no longer asks, the RUN would start
    // unasked and the `--answer` given for it go to the REQUEST_REVIEW
    // after it: refused before anything runs (issue 25, item 18). Without
    // the answer, the RUN runs as that policy says.
    let fx = Fixture::new();
    let ask = fx.write("ask.toml", "[commands]\napprove = [\"touch *\"]\n");
    let open = fx.write("open.toml", "[commands]\ndeny = []\n");
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"touch made\"\n    REQUEST_REVIEW \"ship?\"\n}\n";
    let snap = snapshot(fx.run_json(plan, &["--policy", &ask]).expect(3));
    let resumed = fx.resume(&snap, &["--policy", &open, "--answer", "approve"]);
    assert_eq!(resumed.code, Some(2), "{}", resumed.stderr);
    assert!(
        resumed.stderr.contains(
            "waits for the approval of `touch made`, which the command policy in force does not ask"
        ),
        "{}",
        resumed.stderr
    );
    assert!(!fx.made("made"), "nothing ran");
    fx.resume(&snap, &["--policy", &open]).expect(3);
    assert!(fx.made("made"));
}

/// Runs `tissvm ARGS` with stdin, stdout and stderr on a new
/// pseudo-terminal, typing each of `replies` once the text before it has
/// appeared; returns the exit status and everything shown.
fn on_terminal(cwd: &Path, args: &[&str], replies: &[(&str, &str)]) -> (Option<i32>, String) {
    use std::io::{Read, Write};
    use std::os::fd::{FromRawFd, OwnedFd};
    let (mut master, mut slave) = (0, 0);
    // SAFETY: two valid out-pointers; no name, terminal settings or size.
    let r = unsafe {
        libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), std::ptr::null())
    };
    assert_eq!(r, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: openpty returned two fresh descriptors that nothing else owns.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut command = crate::common::command();
    command
        .args(args)
        .current_dir(cwd)
        .stdin(std::process::Stdio::from(slave.try_clone().unwrap()))
        .stdout(std::process::Stdio::from(slave.try_clone().unwrap()))
        .stderr(std::process::Stdio::from(slave));
    let mut child = command.spawn().expect("run tissvm");
    drop(command);
    let mut terminal = std::fs::File::from(master);
    let mut shown = Vec::new();
    let mut next = 0;
    let mut buf = [0; 4096];
    loop {
        match terminal.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => shown.extend_from_slice(&buf[..n]),
            Err(e) if e.raw_os_error() == Some(libc::EIO) => break,
            Err(e) => panic!("reading the terminal: {e}"),
        }
        if let Some((after, reply)) = replies.get(next)
            && String::from_utf8_lossy(&shown).contains(after)
        {
            terminal.write_all(reply.as_bytes()).unwrap();
            next += 1;
        }
    }
    let status = child.wait().expect("tissvm ends");
    (status.code(), String::from_utf8_lossy(&shown).replace("\r\n", "\n"))
}

#[test]
fn on_a_terminal_an_approval_is_asked_there() {
    let fx = Fixture::new();
    let policy = fx.write("p.toml", "[commands]\napprove = [\"touch *\"]\n");
    let plan = fx.write_plan(TOUCH);
    let ws = fx.ws();
    let args = ["run", plan.as_str(), "--workdir", ws.to_str().unwrap(), "--policy", policy.as_str()];
    let (code, shown) = on_terminal(
        fx.path("").as_path(),
        &args,
        &[("Run it? [y/n]: ", "y\n"), ("Comment (optional): ", "\n")],
    );
    assert_eq!(code, Some(0), "{shown}");
    assert!(
        shown.contains("APPROVE RUN (line 3): touch made\n  because it matches the pattern `touch *`"),
        "{shown}"
    );
    assert!(fx.made("made"));
}

#[test]
fn inspect_with_a_policy_says_what_it_decides_for_each_command() {
    let fx = Fixture::new();
    let policy = fx.write(
        "p.toml",
        "[commands]\ndeny = [\"curl *\"]\napprove = [\"git push*\"]\n[taint]\nrun = \"deny\"\n",
    );
    let plan = fx.write_plan(
        "TASK \"t\"\nSTEP \"s\" {\n    RUN \"curl http://x\"\n    RUN \"git push origin\"\n    RUN \"ls\"\n    \
         READ \"f\" AS f\n    RUN \"cat ${f}\"\n    ENV X = f\n    RUN \"env\"\n}\n",
    );
    let run = fx.tissvm(&["inspect", &plan, "--policy", &policy, "--output-format", "json"]);
    run.expect(0);
    let decisions: Vec<(u64, String)> = run.json()["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["line"].as_u64().unwrap(), c["policy"]["decision"].as_str().unwrap().to_string()))
        .collect();
    let expected = [(3, "deny"), (4, "approve"), (5, "run"), (7, "at_run_time"), (9, "deny")];
    assert_eq!(decisions, expected.map(|(l, d)| (l, d.to_string())));
    let text = fx.tissvm(&["inspect", &plan, "--policy", &policy]);
    assert!(
        text.stdout.contains("curl http://x  [denied: `curl http://x` is denied by the pattern `curl *`"),
        "{}",
        text.stdout
    );
    // Without --policy, commands carry no decision.
    let plain = fx.tissvm(&["inspect", &plan, "--output-format", "json"]).json();
    assert!(plain["commands"][0].get("policy").is_none());
    fx.tissvm(&["inspect", &plan, "--policy", "missing.toml"]).expect(2);
}

/// `tissvm inspect` reads the policy `run` would apply: `TISS_POLICY`, and
/// the `[policy]` of `./tiss.toml` (it read `--policy` alone, so a reviewer
/// saw no decision for commands that the run then denied).
#[test]
fn inspect_reads_the_policy_run_would_apply() {
    let fx = Fixture::new();
    let plan = fx.write_plan("TASK \"t\"\nSTEP \"s\" {\n    RUN \"touch made\"\n}\n");
    let decision = |run: Run| run.json()["commands"][0]["policy"]["decision"].as_str().map(str::to_string);
    fx.write("tiss.toml", "[policy.commands]\ndeny = [\"touch *\"]\n");
    let run = fx.tissvm(&["inspect", &plan, "--output-format", "json"]);
    run.expect(0);
    assert_eq!(decision(run).as_deref(), Some("deny"), "the project's policy");
    let open = fx.write("open.toml", "[commands]\ndeny = [\"curl *\"]\n");
    let run = crate::common::tissvm(
        fx.root.path(),
        &["inspect", &plan, "--output-format", "json"],
        &[("TISS_POLICY", &open)],
    );
    run.expect(0);
    assert_eq!(decision(run).as_deref(), Some("run"), "TISS_POLICY replaces the table, as for run");
    fx.run_json("TASK \"t\"\nSTEP \"s\" {\n    RUN \"touch made\"\n}\n", &[]).expect(5);
}
