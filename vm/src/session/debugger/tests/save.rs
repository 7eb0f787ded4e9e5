//! Suspensions and `save`: snapshots written from a session.

use super::*;

const PAUSING: &str =
    "TASK \"t\"\nSTEP \"s\" {\n    VAR x = \"a\"\n    PAUSE \"look\"\n    VAR x = \"b\"\n}\n";

#[test]
fn a_suspension_waits_and_save_writes_a_snapshot_to_answer() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut d, _) = session(PAUSING);
    assert_eq!(
        d.command("save x.snap").text,
        "save is not available in this session: it has no workspace to record"
    );
    d.save_info = Some(SaveInfo {
        workspace: dir.path().to_path_buf(),
        answers_file: None,
        options: RememberedOptions::default(),
        key_file: Ok(KeyFile { path: dir.path().join("key/snapshot.key") }),
    });
    exact(
        &mut d,
        &["continue", "where"],
        r#"> continue
suspended at line 4:5, step "s"
    4 |     PAUSE "look"
waiting for an answer to PAUSE "look": none is available (no terminal, --non-interactive, or the answers ran out)
`save FILE` writes a snapshot; `tissvm resume FILE --answer continue` continues it
> where
at line 4, column 5
    4 |     PAUSE "look"
step path: s
call stack, innermost first:
  main at line 4:5
waiting for an answer to PAUSE "look"
"#,
    );
    let file = dir.path().join("paused.snap");
    let reply = d.command(&format!("save {}", file.display())).text;
    assert!(reply.ends_with("paused.snap --answer continue"), "{reply}");
    let snap = snapshot::read_snapshot(&std::fs::read(&file).unwrap()).expect("the snapshot reads back");
    assert!(matches!(snap.machine.status, Status::Suspended(Suspension::Interaction { .. })));
    assert_eq!(snap.workspace, dir.path());
    assert!(snap.signed, "signed with the key, made for it");
    let key = KeyFile { path: dir.path().join("key/snapshot.key") }.load().unwrap().expect("a key");
    assert!(snapshot::signed_by(&std::fs::read(&file).unwrap(), &key));
    // Answered, the run goes on from the PAUSE.
    let program = Program::new(snap.module).unwrap();
    let mut machine = snap.machine;
    let mut answered = host();
    answered.answers.push_back(crate::host::Answer::Continue);
    assert_eq!(machine.run(&program, &mut answered), Outcome::Completed);
    assert_eq!(machine.slots[0], Some(Value::Str("b".into())));
    // The session itself can go on when an answer arrives.
    d.host.answers.push_back(crate::host::Answer::Continue);
    assert_eq!(d.command("continue").text, "the plan ended: passed");
}

#[test]
fn save_at_a_statement_writes_a_snapshot_that_resumes_there() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut d, _) = session(PLAN);
    d.save_info = Some(SaveInfo {
        workspace: dir.path().to_path_buf(),
        answers_file: None,
        options: RememberedOptions::default(),
        key_file: Ok(KeyFile { path: dir.path().join("key/snapshot.key") }),
    });
    exact(
        &mut d,
        &["break 5", "continue"],
        "> break 5\nbreakpoint 1 at line 5\n> continue\nhit breakpoint 1 at line 5:5, step \"Write\", task \"lint\"\n    5 |     VAR linted = TRUE\n",
    );
    let file = dir.path().join("my snap.snap");
    let reply = d.command(&format!("save \"{}\"", file.display())).text;
    assert_eq!(
        reply,
        format!("saved a snapshot to {0}; continue the run with: tissvm resume '{0}'", file.display())
    );
    let snap = snapshot::read_snapshot(&std::fs::read(&file).unwrap()).expect("the snapshot reads back");
    assert_eq!(snap.machine.status, Status::Suspended(Suspension::Requested));
    assert_eq!(snap.machine.pc, d.machine.pc);
    assert_eq!(snap.machine.frames, d.machine.frames);
    assert_eq!(snap.content_hash, d.program.hash());
    let program = Program::new(snap.module).unwrap();
    let mut resumed = snap.machine;
    let mut other = host();
    assert_eq!(resumed.run(&program, &mut other), Outcome::Completed);
    assert_eq!(other.effects, ["run cat a.txt"], "the rest of the run, from inside the CALL");
    // The session goes on too, to the same end.
    assert_eq!(d.command("continue").text, "the plan ended: passed");
    assert_eq!(d.machine.slots, resumed.slots);
    assert_eq!(d.machine.step_records.len(), resumed.step_records.len());
}

#[test]
fn an_unwritable_snapshot_says_why() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut d, _) = session(PLAN);
    d.save_info = Some(SaveInfo {
        workspace: dir.path().to_path_buf(),
        answers_file: None,
        options: RememberedOptions::default(),
        key_file: Err(KeyError::NoLocation),
    });
    let missing = dir.path().join("no/such/dir/x.snap");
    let reply = d.command(&format!("save {}", missing.display())).text;
    assert!(reply.starts_with(&format!("cannot write the snapshot `{}`: ", missing.display())), "{reply}");
    assert_eq!(d.command("save").text, "save needs a file name: save FILE");
}

/// Without a key the snapshot is still saved, unsigned, and the commands
/// that resume it name the workspace, which such a snapshot needs.
#[test]
fn without_a_key_save_writes_an_unsigned_snapshot_and_says_how_to_resume_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut d, _) = session(PLAN);
    d.save_info = Some(SaveInfo {
        workspace: dir.path().to_path_buf(),
        answers_file: None,
        options: RememberedOptions::default(),
        key_file: Err(KeyError::NoLocation),
    });
    let file = dir.path().join("x.snap");
    let reply = d.command(&format!("save {}", file.display())).text;
    assert_eq!(
        reply,
        format!(
            "saved a snapshot to {0}; continue the run with: tissvm resume {0} --workdir {1}\nnote: it is not \
             signed ({2}), so resuming it needs --workdir, as above",
            file.display(),
            dir.path().display(),
            KeyError::NoLocation
        )
    );
    assert!(!snapshot::read_snapshot(&std::fs::read(&file).unwrap()).unwrap().signed);
}
