//! `tissvm run --checkpoint FILE` on one plan: a run killed outright
//! (SIGKILL, no chance to suspend) resumes from the state before the effect
//! in flight, so the effects before it are not made twice; a path that
//! cannot hold the checkpoint is refused before anything runs.

use crate::common::Fixture;

/// The first RUN appends once; the second SIGKILLs tissvm the first time it
/// runs (its marker then exists) and passes when run again.
const KILLED: &str = r#"TASK "killed"
STEP "first" {
    RUN "echo once >> count.txt"
}
STEP "killer" {
    RUN "if [ -e started ]; then exit 0; fi; touch started; kill -KILL $PPID"
}
STEP "last" {
    RUN "echo last >> count.txt"
}
"#;

#[test]
fn a_run_killed_outright_resumes_from_its_checkpoint_without_repeating_earlier_effects() {
    let fx = Fixture::new();
    let checkpoint = fx.path("ck.snap");
    let killed = fx.run(KILLED, &["--checkpoint", checkpoint.to_str().unwrap()]);
    assert_eq!(killed.code, None, "tissvm was killed by its RUN\nstderr:\n{}", killed.stderr);
    assert!(checkpoint.is_file(), "the checkpoint before the killing RUN is on disk");
    let ws = fx.ws();
    fx.tissvm(&["resume", "--force", checkpoint.to_str().unwrap(), "--workdir", ws.to_str().unwrap()])
        .expect(0);
    assert_eq!(std::fs::read_to_string(ws.join("count.txt")).unwrap(), "once\nlast\n");
}

#[test]
fn a_checkpoint_path_that_cannot_hold_the_file_is_refused_before_anything_runs() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"echo ran >> ran.txt\"\n}\n";
    std::fs::write(fx.path("a-file"), "").unwrap();
    for (path, says) in [
        (fx.ws(), "is a directory: give the file's name".to_string()),
        (fx.path("a-file/ck.snap"), format!("cannot create `{}`: File exists", fx.path("a-file").display())),
    ] {
        let run = fx.run(plan, &["--checkpoint", path.to_str().unwrap()]);
        run.expect(2);
        assert!(run.stderr.contains(&says), "{}", run.stderr);
        assert!(!run.stderr.contains("os error"), "{}", run.stderr);
        assert!(!fx.ws().join("ran.txt").exists(), "nothing ran");
    }
}
