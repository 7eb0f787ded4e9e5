//! Journals are signed (book: cookbook/journal.md, "Who wrote a journal"): a restart takes
//! what its journal recorded as what happened, a human's approval included,
//! so a journal someone changed since, or one another key (or none) signed,
//! is refused unless `--trust-journal`; `tissvm replay` and `inspect` say so.
//! Forged here as anyone can: an entry re-encoded, the CRC made right again.

use std::path::Path;

use tiss_vm::host::Answer;
use tiss_vm::session::journal::reader::{JournalReader, Next};
use tiss_vm::session::journal::{Entry, FRAME_HEAD, encode};

use crate::common::Fixture;

/// A human rejects the deploy; the step after it fails until `ready` exists.
const PLAN: &str = r#"TASK "deploy"

STEP "review" {
    REQUEST_REVIEW "Deploy to production?" INTO review
}

STEP "deploy" {
    IF review.APPROVED {
        RUN "touch deployed" TIMEOUT 10s
    }
    RUN "test -f ready" TIMEOUT 10s
    ASSERT LAST_RUN.EXIT_CODE == 0
}
"#;

/// Runs [`PLAN`] with the review rejected, journaled in `run.journal`: it
/// fails in "deploy"; `ready` is then made so that a restart would pass.
fn rejected_run(fx: &Fixture, env: &[(&str, &str)]) -> (String, String) {
    let answers = fx.path("answers.json");
    std::fs::write(&answers, r#"[{"answer": "reject"}]"#).unwrap();
    let journal = fx.path("run.journal").to_str().unwrap().to_string();
    let run = fx.run_env(PLAN, &["--journal", &journal, "--answers", answers.to_str().unwrap()], env);
    run.expect(1);
    assert!(!fx.ws().join("deployed").exists());
    std::fs::write(fx.ws().join("ready"), "").unwrap();
    (journal, run.stderr)
}

/// The human's rejection in the journal at `path` turned into an approval:
/// the frame re-encoded, its MAC kept, its CRC made right again.
fn forge_approval(path: &Path) -> u64 {
    let mut bytes = std::fs::read(path).unwrap();
    let mut reader = JournalReader::open(path).unwrap();
    let (at, mut entry) = loop {
        match reader.next_entry().unwrap() {
            Next::Entry(at, e) if matches!(*e, Entry::Answer { .. }) => break (at as usize, *e),
            Next::Entry(..) => {}
            _ => panic!("no answer recorded"),
        }
    };
    let Entry::Answer { answer, .. } = &mut entry else { unreachable!() };
    assert_eq!(*answer, Answer::Review { approved: false, comment: String::new() });
    *answer = Answer::Review { approved: true, comment: "ship it".into() };
    let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let mac = bytes[at + FRAME_HEAD..at + FRAME_HEAD + 32].to_vec();
    let body = [mac, encode(&entry)].concat();
    let mut frame = (body.len() as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(&tisslang::codec::crc32::crc32(&body).to_le_bytes());
    frame.extend_from_slice(&body);
    bytes.splice(at..at + FRAME_HEAD + len, frame);
    std::fs::write(path, bytes).unwrap();
    at as u64
}

#[test]
fn a_forged_approval_is_refused_by_a_restart_and_told_by_replay_and_inspect() {
    let fx = Fixture::new();
    let (journal, _) = rejected_run(&fx, &[]);
    let at = forge_approval(Path::new(&journal));

    let restart = fx.run(PLAN, &["--journal", &journal, "--from-failed"]);
    restart.expect(2);
    assert!(
        restart
            .stderr
            .contains(&format!("is not signed by your key (from byte {at}): it is signed with another key"))
            && restart.stderr.contains("add --trust-journal to take this one; nothing ran"),
        "{}",
        restart.stderr
    );
    assert!(!fx.ws().join("deployed").exists(), "the forged approval deployed");

    // Replay and inspect read it, and say whose it is not.
    let replay = fx.tissvm(&["replay", &journal]);
    assert!(
        replay.stderr.contains(&format!("is not signed by your key from byte {at}")),
        "{}",
        replay.stderr
    );
    let inspect = fx.tissvm(&["inspect", &journal, "--output-format", "json"]);
    inspect.expect(0);
    let summary = inspect.json();
    assert_eq!(summary["signed_by_you"], false);
    assert_eq!(summary["not_signed_from"]["at"], at);

    // Trusted on purpose, it is taken as it says: the approval deploys.
    let trusted = fx.run(PLAN, &["--journal", &journal, "--from-failed", "--trust-journal"]);
    trusted.expect(0);
    assert!(fx.ws().join("deployed").exists());
}

#[test]
fn an_unforged_journal_restarts_and_inspects_as_yours() {
    let fx = Fixture::new();
    let (journal, _) = rejected_run(&fx, &[]);
    let inspect = fx.tissvm(&["inspect", &journal]);
    inspect.expect(0);
    assert!(inspect.stdout.contains("signed by your key\n"), "{}", inspect.stdout);
    let replay = fx.tissvm(&["replay", &journal]);
    assert!(!replay.stderr.contains("not signed"), "{}", replay.stderr);
    let restart = fx.run(PLAN, &["--journal", &journal, "--from-failed"]);
    restart.expect(0);
    assert!(!fx.ws().join("deployed").exists(), "rejected, as recorded");
}

#[test]
fn a_journal_written_without_a_usable_key_is_not_trusted_by_a_restart() {
    let fx = Fixture::new();
    // A key others may read is not used (the user is told how to mend it).
    let exposed = fx.path("exposed.key");
    std::fs::write(&exposed, [1u8; 32]).unwrap();
    std::fs::set_permissions(&exposed, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let env = [("TISS_SNAPSHOT_KEY_FILE", exposed.to_str().unwrap())];
    let (journal, stderr) = rejected_run(&fx, &env);
    assert!(
        stderr.contains("the journal is not signed: the snapshot key")
            && stderr.contains("a restart from it needs --trust-journal"),
        "{stderr}"
    );
    // With the tests' own key, which signed nothing in it.
    let restart = fx.run(PLAN, &["--journal", &journal, "--from-failed"]);
    restart.expect(2);
    assert!(restart.stderr.contains("it carries no signature"), "{}", restart.stderr);
    fx.run(PLAN, &["--journal", &journal, "--from-failed", "--trust-journal"]).expect(0);
}
