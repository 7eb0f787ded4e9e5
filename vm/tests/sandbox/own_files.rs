//! tissvm's own files against links the plan's commands made (book:
//! reference/sandbox.md, "tissvm's own files"). No sandbox confines tissvm
//! itself, so a file it writes in the workspace after the plan's commands
//! ran (a suspended run's snapshot in `.tiss`, the log a resumed run opens
//! again, a checkpoint, the report) is reached as the plan's own paths are.
//! Each test is a plan whose RUN puts a link where tissvm will write,
//! pointing out of the workspace, and checks from outside that nothing was
//! written there. Before, tissvm wrote through each of these links (as root,
//! under `strict`, where the RUN itself can write nothing outside).
//!
//! Skipped where `strict` is refused; with `CI=true` that fails instead.

use std::path::Path;

use crate::common::Fixture;

/// `tissvm ARGS` in the fixture with `XDG_STATE_HOME` inside it; `None`
/// (the test skips) where `strict` is refused.
fn tissvm(f: &Fixture, args: &[&str]) -> Option<tiss_test_support::Run> {
    let state = f.path("state");
    let run = crate::common::tissvm(f.root.path(), args, &[("XDG_STATE_HOME", state.to_str().unwrap())]);
    // Exit 5 is also what these attacks get; a refused profile says so.
    let refused = run.stderr.contains("sandbox profile cannot be enforced");
    (!(refused && crate::common::strict_refused(run.code, &run.stderr))).then_some(run)
}

fn run_strict(f: &Fixture, plan: &str, args: &[&str]) -> Option<tiss_test_support::Run> {
    run_under(f, "strict", plan, args)
}

fn run_under(f: &Fixture, profile: &str, plan: &str, args: &[&str]) -> Option<tiss_test_support::Run> {
    let plan = f.write_plan(plan);
    let ws = f.ws();
    let base = ["run", &plan, "--workdir", ws.to_str().unwrap(), "--sandbox-profile", profile];
    tissvm(f, &[&base[..], args].concat())
}

/// The files beneath `dir`, by name.
fn names(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default()
}

/// The one snapshot in `dir`.
fn snapshot_in(dir: &Path) -> String {
    let snaps: Vec<String> = names(dir).into_iter().filter(|n| n.ends_with(".snap")).collect();
    assert_eq!(snaps.len(), 1, "snapshots in {}: {snaps:?}", dir.display());
    dir.join(&snaps[0]).to_str().unwrap().to_string()
}

#[test]
fn a_suspended_runs_snapshot_does_not_follow_a_link_out_of_the_workspace() {
    let f = Fixture::new();
    let outside = f.path("outside");
    std::fs::create_dir(&outside).unwrap();
    let plan = format!(
        "TASK \"Attacker\"\nSTEP \"plant\" {{\n    RUN \"ln -s {} .tiss\" TIMEOUT 10s\n}}\n\
         STEP \"gate\" {{\n    PAUSE \"a person looks\"\n}}\n",
        outside.display()
    );
    let Some(run) = run_strict(&f, &plan, &[]) else { return };
    assert_eq!(run.code, Some(3), "suspended\n{}", run.stderr);
    assert!(names(&outside).is_empty(), "tissvm wrote through the link: {:?}", names(&outside));
    assert!(
        run.stderr.contains("the snapshot cannot go to `.tiss` in the workspace")
            && run.stderr.contains("leads outside the workspace"),
        "{}",
        run.stderr
    );
    // Kept in this user's own directory, and the run goes on from it.
    let snapshot = snapshot_in(&f.path("state/tisslang/snapshots"));
    let Some(resumed) = tissvm(&f, &["resume", &snapshot, "--answer", "continue"]) else { return };
    resumed.expect(0);
    assert!(names(&outside).is_empty(), "{:?}", names(&outside));
}

#[test]
fn the_mark_of_a_resumed_snapshot_does_not_follow_a_link_out_of_the_workspace() {
    let f = Fixture::new();
    let outside = f.path("outside");
    std::fs::create_dir(&outside).unwrap();
    // The resumed run moves `.tiss` away and links it out before its snapshot
    // is marked with how the run ended.
    let plan = format!(
        "TASK \"Attacker\"\nSTEP \"gate\" {{\n    PAUSE \"a person looks\"\n}}\n\
         STEP \"plant\" {{\n    RUN \"mv .tiss .tiss-moved && ln -s {} .tiss\" TIMEOUT 10s\n}}\n",
        outside.display()
    );
    let Some(run) = run_strict(&f, &plan, &[]) else { return };
    assert_eq!(run.code, Some(3), "suspended\n{}", run.stderr);
    let snapshot = snapshot_in(&f.ws().join(".tiss"));
    let Some(resumed) = tissvm(&f, &["resume", &snapshot, "--answer", "continue"]) else { return };
    resumed.expect(0);
    assert!(names(&outside).is_empty(), "tissvm wrote through the link: {:?}", names(&outside));
    assert!(resumed.stderr.contains("cannot record in"), "{}", resumed.stderr);
}

#[test]
fn the_resume_lock_never_opens_a_link_a_command_put_beside_the_snapshot() {
    let f = Fixture::new();
    let victim = f.path("victim");
    std::fs::write(&victim, "ORIGINAL\n").unwrap();
    // The name the lock of the run's first snapshot will have.
    let plan = format!(
        "TASK \"Attacker\"\nSTEP \"plant\" {{\n    RUN \"mkdir -p .tiss && ln -s {} .tiss/attacker-1.snap.lock\" \
         TIMEOUT 10s\n}}\nSTEP \"gate\" {{\n    PAUSE \"a person looks\"\n}}\n",
        victim.display()
    );
    let Some(run) = run_strict(&f, &plan, &[]) else { return };
    assert_eq!(run.code, Some(3), "suspended\n{}", run.stderr);
    let snapshot = snapshot_in(&f.ws().join(".tiss"));
    for force in [false, true] {
        let mut args = vec!["resume", &snapshot, "--answer", "continue"];
        if force {
            args.push("--force");
        }
        let Some(resumed) = tissvm(&f, &args) else { return };
        // A security violation, as a link where the run's log or journal goes.
        resumed.expect(5);
        assert!(
            resumed.stderr.contains("is a symbolic link, another file's name or not a regular file"),
            "{}",
            resumed.stderr
        );
        // Truncated and given tissvm's pid, before.
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "ORIGINAL\n", "force: {force}");
    }
}

/// A file a run appends to, `flag FILE` in the workspace, that the plan
/// replaced by a link to a victim outside before pausing: the resume (given
/// `again` too) must refuse it with `refusal`, the victim untouched. Under
/// `standard`: a `strict` RUN cannot replace it (the view shows it
/// read-only, `a_strict_run_cannot_change_the_runs_journal_or_log`).
fn a_resume_refuses_a_linked(name: &str, flag: &str, again: bool, refusal: &str) {
    let f = Fixture::new();
    let victim = f.path("victim");
    std::fs::write(&victim, "ORIGINAL\n").unwrap();
    let plan = format!(
        "TASK \"Attacker\"\nSTEP \"plant\" {{\n    RUN \"rm -f {name} && ln -s {} {name}\" TIMEOUT 10s\n}}\n\
         STEP \"gate\" {{\n    PAUSE \"a person looks\"\n}}\nSTEP \"after\" {{\n    LOG \"appended\"\n}}\n",
        victim.display()
    );
    let file = f.ws().join(name);
    let file = file.to_str().unwrap();
    let Some(run) = run_under(&f, "standard", &plan, &[flag, file]) else { return };
    assert_eq!(run.code, Some(3), "suspended\n{}", run.stderr);
    let snapshot = snapshot_in(&f.ws().join(".tiss"));
    let mut args = vec!["resume", &snapshot, "--answer", "continue"];
    if again {
        args.extend([flag, file]);
    }
    let Some(resumed) = tissvm(&f, &args) else { return };
    resumed.expect(5);
    assert!(resumed.stderr.contains(refusal), "{}", resumed.stderr);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "ORIGINAL\n");
}

#[test]
fn the_log_a_resumed_run_opens_again_does_not_follow_a_link_out_of_the_workspace() {
    // Remembered by the snapshot.
    a_resume_refuses_a_linked("run.log", "--log-file", false, "security_violation: the log file");
}

#[test]
fn the_journal_a_resumed_run_appends_to_does_not_follow_a_link_out_of_the_workspace() {
    a_resume_refuses_a_linked("run.journal", "--journal", true, "security_violation: the journal");
}

#[test]
fn a_checkpoint_and_the_report_do_not_follow_a_directory_link_out_of_the_workspace() {
    let f = Fixture::new();
    let outside = f.path("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::create_dir(f.ws().join("out")).unwrap();
    let plan = format!(
        "TASK \"Attacker\"\nSTEP \"s\" {{\n    RUN \"rm -rf out && ln -s {} out\" TIMEOUT 10s\n    \
         WRITE \"x.txt\" FROM \"after the link\"\n}}\n",
        outside.display()
    );
    let (checkpoint, report) = (f.ws().join("out/run.ckpt"), f.ws().join("out/report.json"));
    let args = [
        "--checkpoint",
        checkpoint.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
        "--output-format",
        "json",
    ];
    let Some(run) = run_strict(&f, &plan, &args) else { return };
    run.expect(5);
    assert!(run.stderr.contains("cannot write the checkpoint"), "{}", run.stderr);
    assert!(run.stderr.contains("security_violation: the report"), "{}", run.stderr);
    assert!(names(&outside).is_empty(), "tissvm wrote through the link: {:?}", names(&outside));
    assert_eq!(std::fs::read_to_string(f.ws().join("x.txt")).unwrap(), "after the link");
}

/// Run in its workspace (the default), a plan rewrote `./tiss.toml`, which
/// every later tissvm there reads: a `base_url` of its own, and the next run
/// sent the API key to it (shown with a listener on loopback).
#[test]
fn a_project_file_the_plan_changes_is_put_back_before_any_later_run_reads_it() {
    for existing in [None, Some("[provider]\nmodel = \"mine\"\n")] {
        let f = Fixture::new();
        let ws = f.ws();
        if let Some(text) = existing {
            std::fs::write(ws.join("tiss.toml"), text).unwrap();
        }
        let plan = f.write_plan(
            "TASK \"Attacker\"\nSTEP \"s\" {\n    RUN \"echo base_url = 0 > tiss.toml\" TIMEOUT 10s\n}\n",
        );
        // From the workspace, which is then the current directory too.
        let run = crate::common::tissvm(&ws, &["run", &plan, "--sandbox-profile", "strict"], &[]);
        if crate::common::strict_refused(run.code, &run.stderr) {
            return;
        }
        run.expect(0);
        let kept = std::fs::read_to_string(ws.join("tiss.toml.from-plan")).unwrap();
        assert!(kept.contains("base_url"), "the plan's version is kept to read: {kept}");
        match existing {
            Some(text) => assert_eq!(std::fs::read_to_string(ws.join("tiss.toml")).unwrap(), text),
            None => assert!(!ws.join("tiss.toml").exists(), "{}", run.stderr),
        }
        assert!(run.stderr.contains("the plan's commands changed"), "{}", run.stderr);
    }
}

/// The whole attack: the plan points `./tiss.toml` at a server of its own,
/// and the user's next run there, with a key in its environment, asks a
/// model. Nothing reaches the plan's server.
#[test]
fn a_plan_cannot_send_the_next_runs_api_key_to_a_server_of_its_own() {
    let f = Fixture::new();
    let ws = f.ws();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let evil = f.write_plan(&format!(
        r#"TASK "Attacker"
STEP "s" {{
    RUN "printf '[provider]\\nprovider = \"openai\"\\nbase_url = \"http://127.0.0.1:{port}/v1\"\\n' > tiss.toml" TIMEOUT 10s
}}
"#
    ));
    let run = crate::common::tissvm(&ws, &["run", &evil, "--sandbox-profile", "strict"], &[]);
    if crate::common::strict_refused(run.code, &run.stderr) {
        return;
    }
    run.expect(0);
    let next = f.path("next.tiss");
    std::fs::write(&next, "TASK \"Mine\"\nSTEP \"s\" {\n    PROMPT_AGENT \"hello\" INTO a\n}\n").unwrap();
    let env = [("OPENAI_API_KEY", "sk-the-users-key")];
    let args =
        ["run", next.to_str().unwrap(), "--model", "m", "--max-retries", "0", "--request-timeout", "2s"];
    let _ = crate::common::tissvm(&ws, &args, &env);
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "the user's next run connected to the plan's server");
    assert!(std::fs::read_to_string(ws.join("tiss.toml.from-plan")).unwrap().contains(&port.to_string()));
}

/// An answers file in the workspace answers for a person, approvals too: a
/// plan that wrote `approve` into it had its own gated command run on the
/// resume tissvm printed (`--answers FILE`), without a person's approval.
#[test]
fn a_plan_cannot_approve_its_own_command_through_the_answers_file() {
    let f = Fixture::new();
    let ws = f.ws();
    std::fs::write(ws.join("victim"), "keep").unwrap();
    std::fs::write(ws.join("answers.json"), r#"[{"answer": "continue"}]"#).unwrap();
    let policy = f.path("policy.toml");
    std::fs::write(&policy, "[commands]\napprove = [\"rm *\"]\n").unwrap();
    let plan = r#"TASK "Attacker"
STEP "inject" {
    RUN "printf '[{\"answer\": \"continue\"}, {\"answer\": \"approve\"}]' > answers.json" TIMEOUT 10s
}
STEP "gate" {
    PAUSE "a person looks"
}
STEP "destroy" {
    RUN "rm victim" TIMEOUT 10s
}
"#;
    let answers = ws.join("answers.json");
    let args = ["--policy", policy.to_str().unwrap(), "--answers", answers.to_str().unwrap()];
    let Some(run) = run_strict(&f, plan, &args) else { return };
    assert_eq!(run.code, Some(3), "suspended at the approval\n{}", run.stderr);
    let snapshot = snapshot_in(&ws.join(".tiss"));
    // The command tissvm prints to go on with more answers from the file.
    let Some(resumed) = tissvm(&f, &["resume", &snapshot, "--answers", answers.to_str().unwrap()]) else {
        return;
    };
    assert_eq!(resumed.code, Some(3), "still waiting for a person\n{}", resumed.stderr);
    assert_eq!(std::fs::read_to_string(ws.join("victim")).unwrap(), "keep");
    assert!(std::fs::read_to_string(ws.join("answers.json.from-plan")).unwrap().contains("approve"));
}

/// A `--policy` file in the workspace is read by every run given it: a plan
/// that emptied it would have run free the next time.
#[test]
fn a_plan_cannot_loosen_a_policy_file_in_its_workspace() {
    let f = Fixture::new();
    let ws = f.ws();
    let policy = ws.join("policy.toml");
    let rules = "[commands]\ndeny = [\"curl *\"]\n";
    std::fs::write(&policy, rules).unwrap();
    let plan = "TASK \"Attacker\"\nSTEP \"s\" {\n    RUN \"echo > policy.toml\" TIMEOUT 10s\n}\n";
    let Some(run) = run_strict(&f, plan, &["--policy", policy.to_str().unwrap()]) else { return };
    run.expect(0);
    assert_eq!(std::fs::read_to_string(&policy).unwrap(), rules, "{}", run.stderr);
    assert!(run.stderr.contains("the command policy file this run was given"), "{}", run.stderr);
    assert!(ws.join("policy.toml.from-plan").exists());
}

/// A journal or report path in the workspace that cannot be reached as the
/// plan's paths are (a name that is not UTF-8) is refused, as a log file's
/// is, rather than opened the way a link would lead.
#[test]
fn a_journal_or_report_path_that_is_not_utf8_is_refused() {
    use std::os::unix::ffi::OsStrExt;
    let f = Fixture::new();
    let plan = f.write_plan("TASK \"t\"\nSTEP \"s\" {\n    ASSERT TRUE\n}\n");
    let odd = f.ws().join(std::ffi::OsStr::from_bytes(b"out-\xff"));
    for (flag, code, says) in
        [("--journal", 2, "cannot open the journal"), ("--report", 70, "cannot write the report")]
    {
        let out = crate::common::command()
            .current_dir(f.root.path())
            .args(["run", &plan, "--workdir"])
            .arg(f.ws())
            .args(["--output-format", "json", flag])
            .arg(&odd)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{flag}: {stderr}");
        assert!(stderr.contains(says) && stderr.contains("is not a UTF-8 path"), "{flag}: {stderr}");
        assert!(!odd.exists(), "{flag}: written");
    }
}

/// The run's journal, log file and checkpoint are its record: the plan's own WRITE,
/// APPEND and DELETE (any profile, no command needed) replaced them with
/// what it liked. Now each way to one of them is a security_violation, and
/// the journal still replays.
#[test]
fn the_plans_statements_cannot_change_the_runs_journal_or_log() {
    for (statements, refused) in [
        (r#"WRITE "j.jnl" FROM "forged""#, "`j.jnl` is this run's journal"),
        (r#"APPEND "./logs/../j.jnl" FROM "forged""#, "`./logs/../j.jnl` is this run's journal"),
        (r#"DELETE "j.jnl""#, "`j.jnl` is this run's journal"),
        (r#"DELETE "logs" RECURSIVE"#, "`logs` holds this run's log file"),
        (
            "RUN \"ln logs/log.jsonl hard\" TIMEOUT 5s\n    APPEND \"hard\" FROM \"forged\"",
            "`hard` is this run's log file",
        ),
        (
            "RUN \"ln -s j.jnl soft\" TIMEOUT 5s\n    WRITE \"soft\" FROM \"forged\"",
            "`soft` is this run's journal",
        ),
        (r#"WRITE "state/cp.snap" FROM "forged""#, "`state/cp.snap` is this run's checkpoint"),
        (r#"DELETE "state" RECURSIVE"#, "`state` holds this run's checkpoint"),
    ] {
        let f = Fixture::new();
        std::fs::create_dir(f.ws().join("logs")).unwrap();
        let plan = f.write_plan(&format!("TASK \"t\"\nSTEP \"s\" {{\n    {statements}\n}}\n"));
        let (journal, log) = (f.ws().join("j.jnl"), f.ws().join("logs/log.jsonl"));
        let checkpoint = f.ws().join("state/cp.snap");
        let run = f.tissvm(&[
            "run",
            &plan,
            "--workdir",
            f.ws().to_str().unwrap(),
            "--journal",
            journal.to_str().unwrap(),
            "--log-file",
            log.to_str().unwrap(),
            "--checkpoint",
            checkpoint.to_str().unwrap(),
        ]);
        run.expect(5);
        assert!(
            run.stdout
                .contains(&format!("security_violation: {refused}, which tissvm writes as the run goes")),
            "{statements}: {}{}",
            run.stdout,
            run.stderr
        );
        let logged = std::fs::read_to_string(&log).unwrap();
        assert!(!logged.contains("forged") && logged.lines().count() >= 2, "{statements}: {logged}");
        f.tissvm(&["replay", journal.to_str().unwrap()]).expect(5);
        // Written before each WRITE, APPEND and RUN, so before the refused one.
        if let Ok(state) = std::fs::read(&checkpoint) {
            assert!(state.starts_with(b"\x1bTSN"), "{statements}: the checkpoint is not tissvm's");
        } else {
            assert!(statements.starts_with("DELETE"), "{statements}: no checkpoint");
        }
    }
    // Another name of the file is the plan's: WRITE replaces that name only.
    let f = Fixture::new();
    let plan = f.write_plan(
        "TASK \"t\"\nSTEP \"s\" {\n    RUN \"ln log.jsonl hard\" TIMEOUT 5s\n    WRITE \"hard\" FROM \"mine\"\n    \
         READ \"log.jsonl\" AS l\n    DELETE \"hard\"\n}\n",
    );
    let log = f.ws().join("log.jsonl");
    let ws = f.ws();
    f.tissvm(&["run", &plan, "--workdir", ws.to_str().unwrap(), "--log-file", log.to_str().unwrap()])
        .expect(0);
}

/// Under `strict` a RUN sees the run's journal and log read-only
/// (`strict_as_root.rs`); moving the directory that holds one is the one
/// way left to put another file at its name: tissvm says so at the end.
#[test]
fn moving_the_directory_of_the_runs_log_is_told() {
    let f = Fixture::new();
    std::fs::create_dir(f.ws().join("logs")).unwrap();
    let log = f.ws().join("logs/log.jsonl");
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"mv logs x && mkdir logs && echo forged > logs/log.jsonl\" \
                TIMEOUT 10s\n}\n";
    let Some(run) = run_strict(&f, plan, &["--log-file", log.to_str().unwrap()]) else { return };
    run.expect(0);
    assert!(
        run.stderr.contains("this run's log file is no longer at") && run.stderr.contains("logs/log.jsonl"),
        "{}",
        run.stderr
    );
    let moved = std::fs::read_to_string(f.ws().join("x/log.jsonl")).unwrap();
    assert!(moved.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()), "{moved}");
}

/// A run killed before it could put the project file back (here by its own
/// command, as `standard` lets a command signal tissvm; SIGKILL from outside
/// is the same to it) left the plan's `tiss.toml` for every later run: the
/// next tissvm puts it back from the record the killed one kept outside the
/// workspace.
#[test]
fn a_project_file_is_put_back_after_the_plan_kills_tissvm() {
    let f = Fixture::new();
    let ws = f.ws();
    let rules = "[policy.commands]\ndeny = [\"rm *\"]\n";
    std::fs::write(ws.join("tiss.toml"), rules).unwrap();
    // Up the process tree to tissvm, as an attacker would find it.
    let plan = f.write_plan(
        r#"TASK "Attacker"
STEP "s" {
    RUN "printf '[policy.commands]\nallow = [\"*\"]\n' > tiss.toml; p=$$; while [ \"$(cat /proc/$p/comm)\" != tissvm ]; do p=$(cut -d' ' -f4 /proc/$p/stat); done; kill -KILL $p; sleep 5" TIMEOUT 30s
    RUN "rm victim" TIMEOUT 10s
}
"#,
    );
    let state = f.path("state");
    let env = [("XDG_STATE_HOME", state.to_str().unwrap())];
    let run = crate::common::tissvm(&ws, &["run", &plan, "--sandbox-profile", "standard"], &env);
    assert_eq!(run.code, None, "tissvm was killed\n{}", run.stderr);
    assert!(std::fs::read_to_string(ws.join("tiss.toml")).unwrap().contains("allow"), "the attack took");
    assert_eq!(names(&state.join("tisslang/unfinished")).len(), 1, "the killed run's record is left");

    // The user's next tissvm there, before it reads the file.
    let next = crate::common::tissvm(&ws, &["inspect", &plan], &env);
    assert_eq!(std::fs::read_to_string(ws.join("tiss.toml")).unwrap(), rules, "{}", next.stderr);
    assert!(std::fs::read_to_string(ws.join("tiss.toml.from-plan")).unwrap().contains("allow"));
    assert!(next.stderr.contains("was killed before it could put it back"), "{}", next.stderr);
    let decided = next.stdout.lines().find(|l| l.contains("rm victim")).unwrap_or_default();
    assert!(decided.contains("[denied"), "inspect read the user's policy, not the plan's\n{}", next.stdout);
    assert_eq!(names(&state.join("tisslang/unfinished")), Vec::<String>::new());
    let again = crate::common::tissvm(&ws, &["inspect", &plan], &env);
    assert!(!again.stderr.contains("warning"), "told once: {}", again.stderr);
}

/// `tissvm run PLAN --workdir WS` started with its state directory in
/// `state`, its output thrown away.
fn start_with_state(plan: &str, ws: &Path, state: &Path) -> std::process::Child {
    let mut command = crate::common::command();
    command
        .args(["run", plan, "--workdir", ws.to_str().unwrap()])
        .env("XDG_STATE_HOME", state)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    command.spawn().unwrap()
}

/// Waits up to 30 s for a file a RUN makes.
fn wait_for(file: &Path) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !file.exists() {
        assert!(std::time::Instant::now() < deadline, "{} never came", file.display());
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A record is taken only once its run is dead: a tissvm started while the
/// run still lives leaves the file to it; killed from outside (a CI job
/// cancelled), the run's file is put back by the next one.
#[test]
fn a_live_runs_record_is_left_to_it_and_a_killed_ones_is_taken() {
    let f = Fixture::new();
    let ws = f.ws();
    std::fs::write(ws.join("tiss.toml"), "[provider]\nmodel = \"mine\"\n").unwrap();
    let plan = f.write_plan(
        "TASK \"t\"\nSTEP \"s\" {\n    RUN \"echo base_url = 0 > tiss.toml; touch ready; sleep 30\" TIMEOUT 60s\n}\n",
    );
    let state = f.path("state");
    let mut child = start_with_state(&plan, &ws, &state);
    wait_for(&ws.join("ready"));
    let env = [("XDG_STATE_HOME", state.to_str().unwrap())];
    let meanwhile = crate::common::tissvm(&ws, &["inspect", &plan], &env);
    assert!(
        std::fs::read_to_string(ws.join("tiss.toml")).unwrap().contains("base_url"),
        "{}",
        meanwhile.stderr
    );
    // Left to the run; read as it stood before it.
    assert!(!ws.join("tiss.toml.from-plan").exists() && !meanwhile.stderr.contains("put back"));
    assert!(
        meanwhile.stderr.contains("it is read as it stood before that run began"),
        "{}",
        meanwhile.stderr
    );

    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let next = crate::common::tissvm(&ws, &["inspect", &plan], &env);
    assert_eq!(std::fs::read_to_string(ws.join("tiss.toml")).unwrap(), "[provider]\nmodel = \"mine\"\n");
    assert!(next.stderr.contains(&format!("pid {}", child.id())), "{}", next.stderr);
}

/// What lies in the records' directory is not trusted: a record that cannot
/// be read is moved aside and told, never acted on; a link or another
/// name is left alone; a partial record of a writer long dead is removed.
#[test]
fn a_broken_or_planted_record_is_not_acted_on() {
    let f = Fixture::new();
    let ws = f.ws();
    let state = f.path("state");
    let dir = state.join("tisslang/unfinished");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("1-2.run"), b"\xff\xff not a record").unwrap();
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    std::os::unix::fs::symlink(ws.join("elsewhere"), dir.join("3-4.run")).unwrap();
    std::fs::write(dir.join(".partial-old"), "").unwrap();
    std::fs::write(dir.join(".partial-new"), "").unwrap();
    let old = std::process::Command::new("touch")
        .args(["-d", "2 hours ago"])
        .arg(dir.join(".partial-old"))
        .status();
    assert!(old.unwrap().success());
    let plan = f.write_plan("TASK \"t\"\nSTEP \"s\" {\n    LOG \"hi\"\n}\n");
    let env = [("XDG_STATE_HOME", state.to_str().unwrap())];
    let run = crate::common::tissvm(&ws, &["run", &plan], &env);
    run.expect(0);
    assert!(run.stderr.contains("cannot be read"), "{}", run.stderr);
    let mut left = names(&dir);
    left.sort();
    assert_eq!(left, [".partial-new", "1-2.unreadable", "3-4.run", "notes.txt"]);
}

/// Two runs in one workspace: the second started after the first's plan
/// had changed `tiss.toml`, and ended after the first had put it back. It
/// took the plan's version for the file as it stood, and put that back
/// at its end; it now takes the first run's record for what stood before.
#[test]
fn a_run_started_beside_another_puts_back_what_stood_before_both() {
    let f = Fixture::new();
    let ws = f.ws();
    let mine = "[provider]\nmodel = \"mine\"\n";
    std::fs::write(ws.join("tiss.toml"), mine).unwrap();
    let wait = |signal: &str| format!("while [ ! -e {signal} ]; do sleep 0.02; done");
    let plan = |name: &str, text: String| {
        let path = f.path(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let evil = plan(
        "evil.tiss",
        format!(
            "TASK \"t\"\nSTEP \"s\" {{\n    RUN \"echo base_url = 0 > tiss.toml; touch a.ready; {}\" TIMEOUT 60s\n}}\n",
            wait("a.go")
        ),
    );
    let honest = plan(
        "honest.tiss",
        format!("TASK \"u\"\nSTEP \"s\" {{\n    RUN \"touch b.ready; {}\" TIMEOUT 60s\n}}\n", wait("b.go")),
    );
    let state = f.path("state");
    let mut first = start_with_state(&evil, &ws, &state);
    wait_for(&ws.join("a.ready"));
    let mut second = start_with_state(&honest, &ws, &state);
    wait_for(&ws.join("b.ready"));
    std::fs::write(ws.join("a.go"), "").unwrap();
    assert!(first.wait().unwrap().success());
    assert_eq!(std::fs::read_to_string(ws.join("tiss.toml")).unwrap(), mine, "the first put it back");
    std::fs::write(ws.join("b.go"), "").unwrap();
    assert!(second.wait().unwrap().success());
    assert_eq!(std::fs::read_to_string(ws.join("tiss.toml")).unwrap(), mine, "the second left it so");
}

/// A run started while another run's plan has loosened the policy of
/// `tiss.toml` reads the file as it stood before that run began: the
/// plan's version decides nothing, in that run or in this one.
#[test]
fn a_run_started_while_another_plan_loosened_the_policy_reads_it_as_it_stood() {
    for linked in [false, true] {
        read_as_it_stood_while_another_plan_loosened_it(linked);
    }
}

/// As above; `linked`: `tiss.toml` is a link to the user's file, which the
/// plan replaces with a file of its own.
fn read_as_it_stood_while_another_plan_loosened_it(linked: bool) {
    let f = Fixture::new();
    let ws = f.ws();
    let mine = "[policy.commands]\ndeny = [\"rm *\"]\n";
    if linked {
        std::fs::write(ws.join("mine.toml"), mine).unwrap();
        std::os::unix::fs::symlink("mine.toml", ws.join("tiss.toml")).unwrap();
    } else {
        std::fs::write(ws.join("tiss.toml"), mine).unwrap();
    }
    std::fs::write(ws.join("loose.toml"), "[policy.commands]\nallow = [\"*\"]\n").unwrap();
    std::fs::write(ws.join("victim"), "keep me").unwrap();
    let loosen = f.write_plan(
        "TASK \"t\"\nSTEP \"s\" {\n    RUN \"rm tiss.toml; cp loose.toml tiss.toml; touch ready; while [ ! -e go ]; do sleep 0.02; done\" TIMEOUT 60s\n}\n",
    );
    let rm = f.path("rm.tiss");
    std::fs::write(&rm, "TASK \"u\"\nSTEP \"s\" {\n    RUN \"rm victim\"\n}\n").unwrap();
    let state = f.path("state");
    let mut first = start_with_state(&loosen, &ws, &state);
    wait_for(&ws.join("ready"));
    let env = [("XDG_STATE_HOME", state.to_str().unwrap())];
    let second = crate::common::tissvm(&ws, &["run", rm.to_str().unwrap(), "--workdir", "."], &env);
    std::fs::write(ws.join("go"), "").unwrap();
    assert!(first.wait().unwrap().success());
    assert_eq!(second.code, Some(5), "the plan's policy decided: {}\n{}", second.stdout, second.stderr);
    assert!(second.stdout.contains("denied by the pattern `rm *`"), "{}", second.stdout);
    assert!(second.stderr.contains("is read as it stood before that run began"), "{}", second.stderr);
    assert!(ws.join("victim").exists());
    assert_eq!(std::fs::read_to_string(ws.join("tiss.toml")).unwrap(), mine, "put back");
    assert_eq!(ws.join("tiss.toml").is_symlink(), linked, "put back as it stood");
}
