//! The journal (book: cookbook/journal.md) through `tissvm run` and `resume`: every event the
//! run took from outside, in order, with the bytecode; outputs above the
//! cap kept as head, tail, length and hash; an existing file refused; a
//! resumed run continuing the journal of the run it resumes.

use std::path::Path;

use tiss_vm::session::journal::reader::{JournalReader, Next};
use tiss_vm::session::journal::{Entry, Kept};

use crate::common::Fixture;

pub(crate) fn entries(path: &Path) -> Vec<Entry> {
    let mut reader = JournalReader::open(path).unwrap();
    let mut out = Vec::new();
    loop {
        match reader.next_entry().unwrap() {
            Next::Entry(_, e) => out.push(*e),
            Next::Torn(at) => panic!("a torn tail at {at}"),
            Next::End => return out,
        }
    }
}

/// The kinds of `entries` without the clock readings.
fn kinds(entries: &[Entry]) -> Vec<&'static str> {
    entries.iter().map(Entry::kind).filter(|k| *k != "clock").collect()
}

const PLAN: &str = "TASK \"journal\"
STEP \"s\" {
    WRITE \"a.txt\" FROM \"one\"
    APPEND \"a.txt\" FROM \"two\"
    READ \"a.txt\" AS a
    RUN \"echo out; head -c 3000 /dev/zero | tr '\\\\0' x >&2\" TIMEOUT 10s
    ASSERT FILE \"a.txt\" EXISTS
    PROMPT_AGENT \"Say ${a}\" INTO answer
    MKDIR \"d\"
    DELETE \"d\"
    PAUSE \"Go on?\"
    LOG \"${answer}\"
}
";

#[test]
fn a_run_journals_what_it_took_from_outside_in_order() {
    let fx = Fixture::new();
    let journal = fx.path("run.journal");
    let answers = fx.path("answers.json");
    std::fs::write(&answers, r#"[{"answer": "continue"}]"#).unwrap();
    let run = fx.run(
        PLAN,
        &[
            "--journal",
            journal.to_str().unwrap(),
            "--journal-max-output",
            "1000",
            "--answers",
            answers.to_str().unwrap(),
            "--output-format",
            "json",
        ],
    );
    run.expect(0);
    let all = entries(&journal);
    assert_eq!(
        kinds(&all),
        [
            "start",
            "sandbox",
            "limits",
            "write",
            "append",
            "read",
            "run",
            "file_test",
            "prompt",
            "mkdir",
            "delete",
            "answer",
            "end"
        ]
    );
    assert!(all.iter().filter(|e| e.kind() == "clock").count() >= 4, "{all:?}");
    assert_eq!((all[1].kind(), all[2].kind()), ("sandbox", "limits"), "nothing before the limits");
    let Entry::Start { bytecode, resumed: false, .. } = &all[0] else { panic!("{:?}", all[0]) };
    assert!(tisslang::container::load(bytecode).is_ok(), "the journal carries loadable bytecode");
    let find = |kind: &str| all.iter().find(|e| e.kind() == kind).unwrap();
    let Entry::Write { file: Some(first), .. } = find("write") else { panic!() };
    let Entry::Write { file: Some(after), .. } = find("append") else { panic!() };
    assert_eq!(*first, tisslang::codec::seal::sha256(b"one"));
    assert_eq!(*after, tisslang::codec::seal::sha256(b"onetwo"), "the file as the append left it");
    let Entry::Read { result: Ok(Kept::Whole(text)), .. } = find("read") else { panic!() };
    assert_eq!(text, "onetwo");
    let Entry::Run { result: Ok(run), .. } = find("run") else { panic!() };
    assert_eq!(run.stdout, Kept::Whole("out\n".into()));
    let Kept::Cut { head, tail, bytes, sha256 } = &run.stderr else { panic!("{:?}", run.stderr) };
    assert_eq!((head.len(), tail.len(), *bytes), (500, 500, 3000));
    assert_eq!(*sha256, tisslang::codec::seal::sha256(&[b'x'; 3000]));
    let Entry::Prompt { result: Ok(answer), .. } = find("prompt") else { panic!() };
    assert_eq!(answer.text, Kept::Whole("mock answer to: Say onetwo".into()));

    // A journal is never written over.
    let again = fx.run(PLAN, &["--journal", journal.to_str().unwrap()]);
    again.expect(2);
    assert!(again.stderr.contains("exists: give a new file"), "{}", again.stderr);
    // Nor is a device or a pipe taken for one: the message says what a journal is.
    let device = fx.run(PLAN, &["--journal", "/dev/null"]);
    device.expect(2);
    assert!(device.stderr.contains("`/dev/null` is not a regular file"), "{}", device.stderr);
    assert!(device.stderr.contains("--journal run.journal"), "{}", device.stderr);
}

#[test]
fn resume_continues_the_journal_of_the_run_it_resumes() {
    let fx = Fixture::new();
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    let (_, snapshot) = crate::suspend(&fx, PLAN, j, &[]);
    let snapshot_path = snapshot.clone();
    let before = entries(&journal).len();
    let done = fx.tissvm(&["resume", &snapshot, "--answer", "continue", "--journal", j]);
    done.expect(0);
    let all = entries(&journal);
    assert!(matches!(all[before], Entry::Start { resumed: true, .. }), "{:?}", &all[before..]);
    assert_eq!(kinds(&all[before..]), ["start", "sandbox", "limits", "answer", "end"]);
    assert_eq!((all[before + 1].kind(), all[before + 2].kind()), ("sandbox", "limits"), "nothing between");
    let Entry::End { status, snapshot, .. } = &all[before - 1] else { panic!("{:?}", all[before - 1]) };
    assert_eq!((status.as_str(), snapshot.as_deref()), ("suspended", Some(snapshot_path.as_str())));

    // Another plan's journal is not continued.
    let other = fx.path("other.journal");
    let o = other.to_str().unwrap();
    fx.run("TASK \"other\"\nSTEP \"s\" { LOG \"x\" }\n", &["--journal", o]).expect(0);
    let run = fx.run(PLAN, &["--non-interactive", "--output-format", "json"]);
    let snapshot = run.json()["snapshot"].as_str().unwrap().to_string();
    let refused = fx.tissvm(&["resume", &snapshot, "--answer", "continue", "--journal", o]);
    refused.expect(2);
    assert!(refused.stderr.contains("recorded another plan"), "{}", refused.stderr);
}

#[test]
fn a_run_journals_the_limits_it_is_held_to() {
    let fx = Fixture::new();
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    let policy = fx.path("policy.toml");
    std::fs::write(&policy, "[commands]\ndeny = [\"rm *\"]\n").unwrap();
    let plan = "TASK \"t\"\nSET_BUDGET API_CALLS = 7\nSTEP \"s\" {\n    LOG \"x\"\n}\n";
    let args = [
        "--journal",
        j,
        "--budget",
        "RUN_COUNT=3",
        "--policy",
        policy.to_str().unwrap(),
        "--max-tokens",
        "200",
    ];
    fx.run(plan, &args).expect(0);
    let all = entries(&journal);
    let Entry::Limits { caps, policy, max_tokens } = &all[2] else { panic!("{all:?}") };
    // The caps in force before the first instruction: the plan's SET_BUDGET runs after.
    let run_count =
        tisslang::cost::Dim::ALL.iter().position(|d| *d == tisslang::cost::Dim::RunCount).unwrap();
    assert_eq!(caps, &[(run_count as u8, 3)]);
    assert_eq!(policy.as_ref().map(|p| p.deny.clone()), Some(vec!["rm *".to_string()]));
    assert_eq!(*max_tokens, 200);
}

#[test]
fn inspect_summarises_a_journal() {
    let fx = Fixture::new();
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    let answers = fx.path("answers.json");
    std::fs::write(&answers, r#"[{"answer": "continue"}]"#).unwrap();
    fx.run(PLAN, &["--journal", j, "--journal-max-output", "1000", "--answers", answers.to_str().unwrap()])
        .expect(0);
    let out = fx.tissvm(&["inspect", j, "--output-format", "json"]);
    out.expect(0);
    let summary = out.json();
    assert_eq!(summary["task"], "journal");
    assert_eq!(summary["events"]["run"], 1);
    assert_eq!(summary["events"]["prompt"], 1);
    assert_eq!(summary["outputs_kept_in_part"], 1, "the stderr of 3000 bytes");
    assert_eq!(summary["files_written"][0]["path"], "a.txt");
    assert_eq!(summary["ended"]["status"], "passed");
    let text = fx.tissvm(&["inspect", j]);
    text.expect(0);
    assert!(text.stdout.contains("of \"journal\""), "{}", text.stdout);
    assert!(text.stdout.contains("wrote a.txt sha256 "), "{}", text.stdout);
    // Cut short: said so.
    let bytes = std::fs::read(&journal).unwrap();
    std::fs::write(&journal, &bytes[..bytes.len() - 3]).unwrap();
    let text = fx.tissvm(&["inspect", j]);
    text.expect(0);
    assert!(text.stdout.contains("cut short at byte"), "{}", text.stdout);
}

#[test]
fn a_debug_session_journals_what_its_run_takes() {
    let fx = Fixture::new();
    let plan = fx.write_plan("TASK \"t\"\nSTEP \"s\" {\n    RUN \"echo hi\" TIMEOUT 5s\n    ASSERT LAST_RUN.STDOUT == \"hi\\n\"\n}\n");
    let journal = fx.path("debug.journal");
    let j = journal.to_str().unwrap();
    let ws = fx.ws();
    let out = crate::common::command()
        .args(["debug", &plan, "--workdir", ws.to_str().unwrap(), "--journal", j])
        .current_dir(fx.path(""))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(b"continue\nquit\n")?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let all = entries(&journal);
    assert_eq!(kinds(&all), ["start", "limits", "run"]);
    // It replays: the run passes as it did.
    fx.tissvm(&["replay", j]).expect(0);
}
