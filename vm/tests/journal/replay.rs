//! `tissvm replay` (book: cookbook/journal.md): the report of a replay is the recorded run's,
//! byte for byte, for every example plan, with nothing started or written;
//! a changed plan stops at the first effect that differs (`diverged`, exit
//! 1), `--strict` refuses it; an output kept in part, or a corrupt journal,
//! is exit 2; a run suspended and resumed replays as one.

use std::path::{Path, PathBuf};

use crate::common::{Fixture, Run};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// Writes `text` to `name` beside the workspace; its path.
fn write(fx: &Fixture, name: &str, text: &str) -> String {
    let path = fx.path(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// `tissvm replay` with `args`.
fn replay(fx: &Fixture, args: &[&str]) -> Run {
    fx.tissvm(&[&["replay"][..], args].concat())
}

/// The frames of the journal `journal`, whose bytes are `bytes`: where each
/// starts and ends (its length and checksum, then its payload), and the
/// kind of its entry.
fn frames(journal: &Path, bytes: &[u8]) -> Vec<(usize, usize, &'static str)> {
    use tiss_vm::session::journal::reader::{JournalReader, Next};
    let mut reader = JournalReader::open(journal).unwrap();
    let mut frames = Vec::new();
    loop {
        match reader.next_entry().unwrap() {
            Next::Entry(at, entry) => {
                let at = at as usize;
                let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
                frames.push((at, at + 8 + len, entry.kind()));
            }
            Next::Torn(at) => panic!("a torn tail at {at}"),
            Next::End => return frames,
        }
    }
}

/// Makes the checksum of the frame at `start..end` of `bytes` right again,
/// as anyone altering a journal can.
fn reseal(bytes: &mut [u8], start: usize, end: usize) {
    let crc = tisslang::codec::crc32::crc32(&bytes[start + 8..end]);
    bytes[start + 4..start + 8].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn every_example_replays_to_the_same_report() {
    let mut plans: Vec<PathBuf> = std::fs::read_dir(examples())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tiss"))
        .collect();
    plans.sort();
    assert!(plans.len() >= 10);
    for plan in plans {
        let fx = Fixture::new();
        let journal = fx.path("run.journal");
        let mut args = vec![
            "--journal".to_string(),
            journal.display().to_string(),
            "--non-interactive".into(),
            "--output-format".into(),
            "json".into(),
        ];
        let answers = plan.with_extension("answers.json");
        if answers.is_file() {
            args.extend(["--mock-answers".into(), answers.display().to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let recorded = fx.run(&std::fs::read_to_string(&plan).unwrap(), &args);
        let replayed = replay(&fx, &[journal.to_str().unwrap(), "--output-format", "json"]);
        let name = plan.display();
        assert_eq!(replayed.code, recorded.code, "{name}: {}", replayed.stderr);
        assert_eq!(replayed.stdout, recorded.stdout, "{name}: the replay's report differs");
    }
}

#[test]
fn a_replay_starts_nothing_and_writes_nothing() {
    let fx = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("marker");
    let plan = format!(
        "TASK \"t\"\nSTEP \"s\" {{\n    WRITE \"w.txt\" FROM \"x\"\n    RUN \"touch {}; echo ran\" TIMEOUT 5s\n    \
         ASSERT LAST_RUN.STDOUT == \"ran\\n\"\n    MKDIR \"d\"\n}}\n",
        marker.display()
    );
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    let recorded = fx.run(&plan, &["--journal", j, "--output-format", "json"]);
    recorded.expect(0);
    assert!(marker.exists());
    std::fs::remove_file(&marker).unwrap();
    let ws = fx.ws();
    for entry in std::fs::read_dir(&ws).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) }.unwrap();
    }
    // From the workspace itself: still nothing is written there.
    let replayed = crate::common::tissvm(&ws, &["replay", j, "--output-format", "json"], &[]);
    replayed.expect(0);
    assert_eq!(replayed.stdout, recorded.stdout);
    assert!(!marker.exists(), "the command ran again");
    assert_eq!(std::fs::read_dir(&ws).unwrap().count(), 0, "the replay wrote into the workspace");
}

const PLAN: &str = "TASK \"t\"
STEP \"build\" {
    RUN \"echo one\" TIMEOUT 5s
    ASSERT LAST_RUN.EXIT_CODE == 0
}
STEP \"test\" {
    RUN \"head -c 100 /dev/zero | tr '\\\\0' x\" TIMEOUT 5s
    PROMPT_AGENT \"Summarise ${LAST_RUN.EXIT_CODE}\" INTO s
    LOG \"${s}\"
}
";

#[test]
fn a_changed_plan_stops_at_the_first_effect_that_differs() {
    let fx = Fixture::new();
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    fx.run(PLAN, &["--journal", j]).expect(0);
    // The same plan: the same report; a comment changes nothing either.
    let same = write(&fx, "same.tiss", &format!("# a comment\n{PLAN}"));
    replay(&fx, &[j, &same]).expect(0);
    // Another command in the second step.
    let edited = write(&fx, "edited.tiss", &PLAN.replace("head -c 100", "head -c 99"));
    let out = replay(&fx, &[j, &edited, "--output-format", "json"]);
    out.expect(1);
    let report = out.json();
    assert_eq!(report["status"], "diverged");
    assert_eq!(report["line"], 7);
    assert_eq!(report["step"], "test");
    assert!(report["recorded"].as_str().unwrap().contains("head -c 100"), "{report:#}");
    assert!(report["requested"].as_str().unwrap().contains("head -c 99"), "{report:#}");
    // For GitHub: an error annotation at the line where it parted, in the plan replayed.
    let out = replay(&fx, &[j, &edited, "--output-format", "github"]);
    out.expect(1);
    let error =
        out.stdout.lines().find(|l| l.starts_with("::error ")).unwrap_or_else(|| panic!("{}", out.stdout));
    assert!(error.contains("edited.tiss") && error.contains(",line=7,"), "{error}");
    assert!(error.contains("title=diverged in step \"test\"") && error.contains("head -c 99"), "{error}");
    // A prompt asked otherwise.
    let asked = write(&fx, "asked.tiss", &PLAN.replace("Summarise", "Sum up"));
    let out = replay(&fx, &[j, &asked]);
    out.expect(1);
    assert!(out.stdout.contains("diverged at line 8 (step \"test\")"), "{}", out.stdout);
    // A plan that ends early: the journal holds more.
    let short = write(
        &fx,
        "short.tiss",
        &PLAN.replace("ASSERT LAST_RUN.EXIT_CODE == 0", "ASSERT LAST_RUN.EXIT_CODE == 7"),
    );
    let out = replay(&fx, &[j, &short, "--output-format", "json"]);
    out.expect(1);
    assert_eq!(out.json()["requested"], "nothing more (the plan ended)");
    // --strict refuses any change to the bytecode.
    let out = replay(&fx, &[j, &same, "--strict"]);
    out.expect(2);
    assert!(out.stderr.contains("--strict refuses any change"), "{}", out.stderr);
}

#[test]
fn an_output_kept_in_part_or_a_corrupt_journal_is_refused() {
    let fx = Fixture::new();
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    fx.run(PLAN, &["--journal", j, "--journal-max-output", "50"]).expect(0);
    let out = replay(&fx, &[j]);
    out.expect(2);
    assert!(out.stderr.contains("needs the whole output of RUN `head -c 100"), "{}", out.stderr);
    assert!(out.stderr.contains("at line 7"), "{}", out.stderr);

    let journal = fx.path("whole.journal");
    let j = journal.to_str().unwrap();
    fx.run(PLAN, &["--journal", j]).expect(0);
    let mut bytes = std::fs::read(&journal).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xFF;
    let corrupt = fx.path("corrupt.journal");
    std::fs::write(&corrupt, &bytes).unwrap();
    let out = replay(&fx, &[corrupt.to_str().unwrap()]);
    out.expect(2);
    assert!(out.stderr.contains("is corrupt at byte"), "{}", out.stderr);
    let out = replay(&fx, &[write(&fx, "plan.tiss", PLAN).as_str()]);
    out.expect(2);
    assert!(out.stderr.contains("not a TissLang journal"), "{}", out.stderr);
}

#[test]
fn a_suspended_and_resumed_run_replays_as_one() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"echo a\" TIMEOUT 5s\n    PAUSE \"Go on?\"\n    RUN \"echo b\" TIMEOUT 5s\n    \
                ASSERT LAST_RUN.STDOUT == \"b\\n\"\n}\n";
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    let (_, snapshot) = crate::suspend(&fx, plan, j, &[]);
    let done =
        fx.tissvm(&["resume", &snapshot, "--answer", "continue", "--journal", j, "--output-format", "json"]);
    done.expect(0);
    let replayed = replay(&fx, &[j, "--output-format", "json"]);
    replayed.expect(0);
    assert_eq!(replayed.stdout, done.stdout);
}

/// A run resumed under another sandbox profile than it started with
/// reported the resumed part's sandbox; its replay showed the first part's.
#[test]
fn a_run_resumed_under_another_profile_replays_with_the_resumed_sandbox() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"echo a\" TIMEOUT 5s\n    PAUSE \"Go on?\"\n    RUN \"echo b\" TIMEOUT 5s\n}\n";
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    let (run, snapshot) = crate::suspend(&fx, plan, j, &["--sandbox-profile", "none"]);
    assert_eq!(run.json()["sandbox"]["profile"], "none");
    let args =
        ["--answer", "continue", "--journal", j, "--output-format", "json", "--sandbox-profile", "standard"];
    let done = fx.tissvm(&[&["resume", &snapshot][..], &args].concat());
    done.expect(0);
    assert_eq!(done.json()["sandbox"]["profile"], "standard");
    let replayed = replay(&fx, &[j, "--output-format", "json"]);
    replayed.expect(0);
    assert_eq!(replayed.stdout, done.stdout);
}

/// A plan of `seed`'s own: steps of RUNs with varied output and status,
/// WRITEs, APPENDs and READs, file tests, prompts, PAUSEs answered in
/// advance, branches on what a RUN did; and the answers its PAUSEs take.
fn generated(seed: u64) -> (String, usize) {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = |n: u64| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let mut plan = format!("TASK \"generated {seed}\"\n");
    let (mut files, mut pauses, mut ran) = (Vec::new(), 0, false);
    for step in 0..1 + next(3) {
        plan.push_str(&format!("STEP \"step {step}\" {{\n"));
        for i in 0..2 + next(7) {
            let n = step * 10 + i;
            let line = match next(9) {
                0 | 1 => {
                    ran = true;
                    let text = "abc xyz ".repeat(next(40) as usize);
                    format!("RUN \"printf '{text}{n}'; exit {}\" TIMEOUT 5s", next(3))
                }
                2 => {
                    files.push(n);
                    format!("WRITE \"f{n}.txt\" FROM \"text {n} {}\"", next(1000))
                }
                3 if !files.is_empty() => {
                    let f = files[next(files.len() as u64) as usize];
                    format!("APPEND \"f{f}.txt\" FROM \" more\"")
                }
                4 if !files.is_empty() => {
                    let f = files[next(files.len() as u64) as usize];
                    format!("READ \"f{f}.txt\" AS v{n}\n    LOG \"${{v{n}}}\"")
                }
                5 => format!("IF FILE \"f{}.txt\" EXISTS {{\n        LOG \"there\"\n    }}", next(40)),
                6 => format!("PROMPT_AGENT \"question {n}\" INTO p{n}\n    LOG \"${{p{n}}}\""),
                7 => {
                    pauses += 1;
                    format!("PAUSE \"go on {n}?\"")
                }
                _ if ran => "IF LAST_RUN.EXIT_CODE == 0 {\n        LOG \"ok ${LAST_RUN.STDOUT}\"\n    } ELSE {\n        LOG \"failed\"\n    }".to_string(),
                _ => format!("LOG \"nothing {n}\""),
            };
            plan.push_str(&format!("    {line}\n"));
        }
        plan.push_str("}\n");
    }
    (plan, pauses)
}

#[test]
fn two_hundred_generated_plans_replay_to_the_same_report() {
    for seed in 0..200 {
        let (plan, pauses) = generated(seed);
        let fx = Fixture::new();
        let answers = fx.path("answers.json");
        std::fs::write(
            &answers,
            serde_json::to_string(&vec![serde_json::json!({"answer": "continue"}); pauses]).unwrap(),
        )
        .unwrap();
        let journal = fx.path("run.journal");
        let j = journal.to_str().unwrap();
        let recorded = fx
            .run(&plan, &["--journal", j, "--answers", answers.to_str().unwrap(), "--output-format", "json"]);
        assert!(matches!(recorded.code, Some(0 | 1)), "seed {seed}: {}\n{plan}", recorded.stderr);
        let replayed = replay(&fx, &[j, "--output-format", "json"]);
        assert_eq!(replayed.code, recorded.code, "seed {seed}: {}\n{plan}", replayed.stderr);
        assert_eq!(replayed.stdout, recorded.stdout, "seed {seed}:\n{plan}");
    }
}

/// Each kind of edit stops the replay at its own line, naming both effects.
#[test]
fn every_kind_of_edit_diverges_at_its_line() {
    let plan = "TASK \"t\"
STEP \"s\" {
    WRITE \"a.txt\" FROM \"one\"
    READ \"a.txt\" AS a
    MKDIR \"d\"
    PAUSE \"Go on?\"
    ASSERT FILE \"a.txt\" EXISTS
    DELETE \"d\"
}
";
    let fx = Fixture::new();
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    let answers = fx.path("answers.json");
    std::fs::write(&answers, r#"[{"answer": "continue"}]"#).unwrap();
    fx.run(plan, &["--journal", j, "--answers", answers.to_str().unwrap()]).expect(0);
    for (from, to, line, recorded, requested) in [
        ("FROM \"one\"", "FROM \"two\"", 3, "WRITE \"a.txt\"", "WRITE \"a.txt\" (other content)"),
        ("READ \"a.txt\"", "READ \"b.txt\"", 4, "READ \"a.txt\"", "READ \"b.txt\""),
        ("MKDIR \"d\"", "MKDIR \"e\"", 5, "MKDIR \"d\"", "MKDIR \"e\""),
        (
            "FILE \"a.txt\" EXISTS",
            "FILE \"c.txt\" EXISTS",
            7,
            "a test of FILE \"a.txt\"",
            "a test of FILE \"c.txt\"",
        ),
        ("DELETE \"d\"", "DELETE \"a.txt\"", 8, "DELETE \"d\"", "DELETE \"a.txt\""),
    ] {
        let edited = write(&fx, "edited.tiss", &plan.replace(from, to));
        let out = replay(&fx, &[j, &edited, "--output-format", "json"]);
        out.expect(1);
        let report = out.json();
        assert_eq!(report["line"], line, "{from}: {report:#}");
        assert_eq!(report["recorded"], recorded, "{from}");
        assert_eq!(report["requested"], requested, "{from}");
    }
    // A question asked otherwise: the recorded answer was to another.
    let edited = write(&fx, "edited.tiss", &plan.replace("PAUSE \"Go on?\"", "REQUEST_REVIEW \"Go on?\""));
    let out = replay(&fx, &[j, &edited, "--output-format", "json"]);
    out.expect(1);
    assert_eq!(out.json()["line"], 6);

    // A journal cut short replays up to where it ends, and says so.
    let bytes = std::fs::read(&journal).unwrap();
    let cut = fx.path("cut.journal");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let out = replay(&fx, &[cut.to_str().unwrap(), "--output-format", "json"]);
    out.expect(1);
    assert!(out.json()["recorded"].as_str().unwrap().contains("the journal ends at byte"), "{}", out.stdout);
}

/// A run that stops before each effect to keep a checkpoint replays to the
/// same report: those stops are not pauses, and the replay, which does not
/// make them, counts the same time.
#[test]
fn a_run_with_a_checkpoint_replays_to_the_same_report() {
    let fx = Fixture::new();
    let mut plan = String::from("TASK \"t\"\nSTEP \"s\" {\n");
    for i in 0..20 {
        plan.push_str(&format!(
            "    WRITE \"f{i}\" FROM \"{}\"\n    RUN \"cat f{i}\" TIMEOUT 5s\n",
            "x".repeat(i * 100)
        ));
    }
    plan.push_str("}\n");
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    let checkpoint = fx.path("run.checkpoint");
    let recorded = fx.run(
        &plan,
        &["--journal", j, "--checkpoint", checkpoint.to_str().unwrap(), "--output-format", "json"],
    );
    recorded.expect(0);
    let replayed = replay(&fx, &[j, "--output-format", "json"]);
    assert_eq!(replayed.stdout, recorded.stdout);
}

/// Whether the preflight of a prompt's step warns depends on the tokens
/// each answer is allowed (`--max-tokens`): 1,024 by default leaves it
/// under the cap, 4,500 or 4,990 takes it over.
const ALLOWANCE_PLAN: &str = "TASK \"allowance\"

SET_BUDGET TOKEN_COUNT = 5000

STEP \"first\" {
    PROMPT_AGENT \"Say hello\" INTO a
}
STEP \"gate\" {
    PAUSE \"Go on?\"
}
STEP \"second\" {
    PROMPT_AGENT \"Say goodbye\" INTO b
}
";

const WARNED: &str = "may need up to";

#[test]
fn a_replay_allows_each_answer_what_the_run_allowed() {
    let fx = Fixture::new();
    let answers = write(&fx, "answers.json", r#"[{"answer": "continue"}]"#);
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    let recorded = fx.run(ALLOWANCE_PLAN, &["--journal", j, "--max-tokens", "4990", "--answers", &answers]);
    recorded.expect(0);
    assert!(recorded.stdout.contains(WARNED), "{}", recorded.stdout);
    let replayed = replay(&fx, &[j]);
    replayed.expect(0);
    assert_eq!(replayed.stdout, recorded.stdout, "the text report, warnings and all");

    // A resumed run with an allowance of its own: its part replays with it.
    let journal = fx.path("resumed.journal");
    let j = journal.to_str().unwrap();
    let (_, snapshot) = crate::suspend(&fx, ALLOWANCE_PLAN, j, &["--max-tokens", "100"]);
    let resumed =
        fx.tissvm(&["resume", &snapshot, "--answer", "continue", "--max-tokens", "4500", "--journal", j]);
    resumed.expect(0);
    assert!(resumed.stdout.contains(&format!("step \"second\" {WARNED}")), "{}", resumed.stdout);
    let replayed = replay(&fx, &[j]);
    replayed.expect(0);
    assert!(
        replayed.stdout.ends_with(&resumed.stdout),
        "the replay shows the resumed part as it ran:\n{}\nagainst\n{}",
        replayed.stdout,
        resumed.stdout
    );
    assert_eq!(replayed.stdout.matches(WARNED).count(), 1, "{}", replayed.stdout);
}

/// A run stopped by a `--budget` cap or by its command policy replays to
/// the same stop; so does a resumed part held to a cap of its own.
#[test]
fn a_replay_is_held_to_the_caps_and_policy_of_the_run() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"echo one\" TIMEOUT 5s\n    PAUSE \"Go on?\"\n    \
                RUN \"echo two\" TIMEOUT 5s\n}\n";
    let answers = write(&fx, "answers.json", r#"[{"answer": "continue"}]"#);
    let policy = write(&fx, "policy.toml", "[commands]\ndeny = [\"echo two\"]\n");
    for (name, args, code) in [
        ("cap", vec!["--budget", "RUN_COUNT=1", "--answers", &answers], 4),
        ("policy", vec!["--policy", &policy, "--answers", &answers], 5),
    ] {
        let journal = fx.path(&format!("{name}.journal"));
        let j = journal.to_str().unwrap();
        let recorded = fx.run(plan, &[&["--journal", j][..], &args].concat());
        recorded.expect(code);
        let replayed = replay(&fx, &[j]);
        assert_eq!(replayed.code, Some(code), "{name}: {}", replayed.stderr);
        assert_eq!(replayed.stdout, recorded.stdout, "{name}");
    }

    // No cap at first; the resumed part lowers RUN_COUNT to 1, which the second RUN passes.
    let journal = fx.path("resumed.journal");
    let j = journal.to_str().unwrap();
    let (_, snapshot) = crate::suspend(&fx, plan, j, &[]);
    let resumed = fx.tissvm(&[
        "resume",
        &snapshot,
        "--answer",
        "continue",
        "--budget",
        "RUN_COUNT=1",
        "--journal",
        j,
        "--output-format",
        "json",
    ]);
    resumed.expect(4);
    let replayed = replay(&fx, &[j, "--output-format", "json"]);
    replayed.expect(4);
    assert_eq!(replayed.stdout, resumed.stdout);
}

/// Rewrites `journal` as a tissvm before format 2 wrote it: format 1, with
/// no limits entry, and no signatures (format 3 on: the frame's MAC, the
/// first 32 bytes of its body, left out and the CRC taken again).
fn as_format_1(journal: &Path) {
    let bytes = std::fs::read(journal).unwrap();
    let mut old = bytes[..10].to_vec();
    old[8..10].copy_from_slice(&1u16.to_le_bytes());
    for (start, end, kind) in frames(journal, &bytes) {
        if kind != "limits" {
            let payload = &bytes[start + 8 + 32..end];
            old.extend_from_slice(&(payload.len() as u32).to_le_bytes());
            old.extend_from_slice(&tisslang::codec::crc32::crc32(payload).to_le_bytes());
            old.extend_from_slice(payload);
        }
    }
    std::fs::write(journal, old).unwrap();
}

#[test]
fn a_journal_of_format_1_replays_unsigned_and_is_not_continued() {
    let fx = Fixture::new();
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    let (run, snapshot) = crate::suspend(&fx, ALLOWANCE_PLAN, j, &[]);
    as_format_1(&journal);
    let replayed = replay(&fx, &[j, "--output-format", "json"]);
    replayed.expect(3);
    assert_eq!(replayed.stdout, run.stdout, "no limits beyond the plan's, as format 1's replays assumed");
    assert!(
        replayed.stderr.contains("is not signed by your key from byte 10 (it is of format 1, from before"),
        "{}",
        replayed.stderr
    );

    // `resume` does not add signed frames to it: a new journal is asked for.
    let bytes = std::fs::read(&journal).unwrap();
    let resumed = fx.tissvm(&["resume", &snapshot, "--answer", "continue", "--journal", j]);
    resumed.expect(2);
    assert!(
        resumed.stderr.contains(
            "is of format 1, and this tissvm writes format 3: give the resumed run a new --journal"
        ),
        "{}",
        resumed.stderr
    );
    assert_eq!(std::fs::read(&journal).unwrap(), bytes, "left as it was");
    let again = fx.path("resumed.journal");
    let resumed =
        fx.tissvm(&["resume", &snapshot, "--answer", "continue", "--journal", again.to_str().unwrap()]);
    resumed.expect(0);

    // A format this tissvm does not know is refused, saying which it reads.
    let mut future = bytes.clone();
    future[8..10].copy_from_slice(&4u16.to_le_bytes());
    std::fs::write(&journal, future).unwrap();
    let out = replay(&fx, &[j]);
    out.expect(2);
    assert!(out.stderr.contains("is of format 4, and this tissvm reads formats 1 to 3"), "{}", out.stderr);
}

/// GitHub annotations: the run's, but for the stop-commands token, drawn
/// afresh (the recorded run's log has shown the recorded one), and the
/// plan's path, which is the replay's (the file name the bytecode keeps).
#[test]
fn a_replay_to_github_has_its_own_token_and_plan_path() {
    let fx = Fixture::new();
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    RUN \"echo '::error::forged'\" TIMEOUT 5s\n    ASSERT LAST_RUN.STDOUT == \"x\"\n}\n";
    let recorded = fx.run(plan, &["--journal", j, "--output-format", "github"]);
    recorded.expect(1);
    let replayed = replay(&fx, &[j, "--output-format", "github"]);
    replayed.expect(1);
    let token = |out: &str| {
        let first = out.lines().next().unwrap_or_default();
        first.strip_prefix("::stop-commands::").map(str::to_string).unwrap_or_else(|| panic!("{out}"))
    };
    let (a, b) = (token(&recorded.stdout), token(&replayed.stdout));
    assert_ne!(a, b, "a fresh token");
    let dir = format!("{}/", fx.path("").display().to_string().trim_end_matches('/'));
    assert_eq!(replayed.stdout.replace(&b, "TOKEN"), recorded.stdout.replace(&a, "TOKEN").replace(&dir, ""));
}

/// A journal altered as a careless tool or an attacker would (bytes of an
/// entry changed, its checksum made right again, so the change reaches the
/// decoder and the replay): refused in words or replayed, never a panic or
/// an internal error.
#[test]
fn altered_entries_are_refused_or_replayed_never_a_crash() {
    let fx = Fixture::new();
    let answers = write(&fx, "answers.json", r#"[{"answer": "continue"}]"#);
    let policy = write(&fx, "policy.toml", "[commands]\ndeny = [\"rm *\"]\n");
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    WRITE \"a.txt\" FROM \"one\"\n    READ \"a.txt\" AS a\n    \
                RUN \"echo ${a}\" TIMEOUT 5s\n    PROMPT_AGENT \"Say ${a}\" INTO b\n    PAUSE \"Go on?\"\n    \
                ASSERT FILE \"a.txt\" EXISTS\n    LOG \"${b}\"\n}\n";
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    let args = ["--journal", j, "--answers", &answers, "--policy", &policy, "--budget", "RUN_COUNT=3"];
    fx.run(plan, &args).expect(0);
    let bytes = std::fs::read(&journal).unwrap();
    let frames = frames(&journal, &bytes);
    assert!(frames.len() >= 10, "{} frames", frames.len());
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below as u64) as usize
    };
    let altered = fx.path("altered.journal");
    for case in 0..300 {
        let mut copy = bytes.clone();
        // Skip the start's bytecode at times: its own checksum refuses most changes there.
        let (start, end, _) =
            frames[if case % 3 == 0 { next(frames.len()) } else { 1 + next(frames.len() - 1) }];
        for _ in 0..1 + next(4) {
            let i = start + 8 + next((end - start - 8).max(1));
            if i < copy.len() {
                copy[i] = match next(4) {
                    0 => 0,
                    1 => 0xFF,
                    2 => copy[i].wrapping_add(1),
                    _ => next(256) as u8,
                };
            }
        }
        reseal(&mut copy, start, end);
        std::fs::write(&altered, &copy).unwrap();
        let out = replay(&fx, &[altered.to_str().unwrap(), "--output-format", "json"]);
        let code = out.code.unwrap_or(-1);
        assert!(
            (0..=5).contains(&code)
                && !out.stderr.contains("panicked")
                && !out.stderr.contains("internal error"),
            "case {case} (frame at {start}): exit {code}\n{}",
            out.stderr
        );
    }
}

/// Found by the `journal` fuzz target: a limits entry stating a policy of
/// 1.75 billion patterns was allocated (42 GB) before a byte of them was
/// read. Entries now claim their memory from the budget their payload's
/// size sets, as snapshots and `.tbc` files do, and this one is refused.
#[test]
fn a_journal_stating_more_than_it_holds_is_refused() {
    let fx = Fixture::new();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/journal/fixtures/pattern-claim.journal");
    let out = replay(&fx, &[path.to_str().unwrap()]);
    out.expect(2);
    assert!(
        out.stderr.contains("claims 1,752,392,034 policy patterns, more than its 28-byte payload can hold"),
        "{}",
        out.stderr
    );
}

/// A sandbox entry naming a mechanism or profile this tissvm does not have
/// (a journal from a later tissvm, or altered) is refused, naming it: the
/// replay shows the sandbox by the names this tissvm gives its mechanisms.
#[test]
fn a_sandbox_entry_naming_an_unknown_mechanism_is_refused() {
    let fx = Fixture::new();
    let journal = fx.path("run.journal");
    let j = journal.to_str().unwrap();
    fx.run(
        "TASK \"t\"\nSTEP \"s\" {\n    RUN \"true\"\n}\n",
        &["--journal", j, "--sandbox-profile", "standard"],
    )
    .expect(0);
    replay(&fx, &[j]).expect(0);
    let bytes = std::fs::read(&journal).unwrap();
    let (at, end, _) =
        frames(&journal, &bytes).into_iter().find(|f| f.2 == "sandbox").expect("a sandbox entry");
    for (name, other) in [("no_new_privs", "no_new_pride"), ("standard", "standart")] {
        let mut copy = bytes.clone();
        let i = at + 8 + copy[at + 8..end].windows(name.len()).position(|w| w == name.as_bytes()).unwrap();
        copy[i..i + name.len()].copy_from_slice(other.as_bytes());
        reseal(&mut copy, at, end);
        let altered = fx.path("altered.journal");
        std::fs::write(&altered, &copy).unwrap();
        let out = replay(&fx, &[altered.to_str().unwrap()]);
        out.expect(2);
        let kind = if name == "standard" { "profile" } else { "mechanism" };
        assert!(
            out.stderr.contains(&format!("names `{other}`, which is no sandbox {kind}")),
            "{}",
            out.stderr
        );
    }
}
