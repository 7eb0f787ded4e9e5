//! The provider settings (book: reference/models.md) through the binary: flags beat `TISS_*`
//! variables beat `./tiss.toml` beat defaults, `tissvm providers` tells
//! where each came from (never the key), bad values and hostile files are
//! refused in words, and a resumed run goes on with the run's settings.

use crate::common::{Fixture, tissvm};

#[test]
fn providers_lists_each_setting_with_its_origin() {
    let fx = Fixture::new();
    std::fs::write(
        fx.path("tiss.toml"),
        "[other]\nx = 1\n[provider]\nmodel = \"from-file\"\nseed = 4\nmax_tokens = 9\n",
    )
    .unwrap();
    let run = tissvm(
        fx.root.path(),
        &["providers", "--max-tokens", "300"],
        &[
            ("TISS_SEED", "5"),
            ("TISS_API_KEY_ENV", "TISS_TEST_SECRET"),
            ("TISS_TEST_SECRET", "sk-do-not-show"),
        ],
    );
    run.expect(0);
    let line = |name: &str| {
        run.stdout.lines().find(|l| l.trim_start().starts_with(&format!("{name} "))).unwrap_or_else(|| {
            panic!("no `{name}` line:\n{}", run.stdout);
        })
    };
    assert!(line("mock").contains("deterministic"), "{}", run.stdout);
    assert!(
        line("ollama").contains("/api/chat") && line("completion").contains("--template"),
        "{}",
        run.stdout
    );
    assert!(line("model").contains("from-file") && line("model").contains("tiss.toml [provider]"));
    assert!(line("seed").contains('5') && line("seed").contains("TISS_SEED"));
    assert!(line("max_tokens").contains("300") && line("max_tokens").contains("--max-tokens"));
    assert!(line("idle_timeout").contains("30s") && line("idle_timeout").contains("default"));
    let key = line("api_key_env");
    assert!(key.contains("TISS_TEST_SECRET") && key.contains("the variable is set"), "{key}");
    assert!(!run.stdout.contains("sk-do-not-show") && !run.stderr.contains("sk-do-not-show"));

    let unset = tissvm(fx.root.path(), &["providers", "--api-key-env", "TISS_TEST_UNSET_KEY"], &[]);
    assert!(unset.expect(0).stdout.contains("not set: no key is sent"), "{}", unset.stdout);
}

#[test]
fn bad_settings_and_hostile_files_are_usage_errors_in_words() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    LOG \"hi\"\n}\n";
    let bad = fx.run(plan, &["--max-tokens", "many"]);
    assert!(bad.expect(2).stderr.contains("--max-tokens: `many` is not a whole number"), "{}", bad.stderr);
    let bad = fx.run_env(plan, &[], &[("TISS_IDLE_TIMEOUT", "30")]);
    assert!(bad.expect(2).stderr.contains("TISS_IDLE_TIMEOUT: `30` needs a unit"), "{}", bad.stderr);
    let bad = fx.run(plan, &["--provider", "gpt"]);
    assert!(bad.expect(2).stderr.contains("unknown provider `gpt`"), "{}", bad.stderr);

    for (file, expected) in [
        ("[provider]\napi_key = \"sk-in-a-file\"\n", "does not belong in a file"),
        ("[provider]\nmodle = \"x\"\n", "unknown setting `modle`"),
        ("[provider\n", "tiss.toml"),
        ("provider = \"openai\"\n", "must be a table"),
    ] {
        std::fs::write(fx.path("tiss.toml"), file).unwrap();
        let run = fx.run(plan, &[]);
        run.expect(2);
        assert!(run.stderr.contains(expected), "{file:?}: {}", run.stderr);
        assert!(!run.stderr.contains("sk-in-a-file"), "{}", run.stderr);
    }
    std::fs::write(fx.path("tiss.toml"), [0xff, 0xfe]).unwrap();
    assert!(fx.run(plan, &[]).expect(2).stderr.contains("not UTF-8"));
}

#[test]
fn resume_goes_on_with_the_runs_provider_settings() {
    let fx = Fixture::new();
    let plan = "TASK \"t\"\nSTEP \"s\" {\n    PAUSE \"go on?\"\n    LOG \"done\"\n}\n";
    let snaps = fx.path("snaps");
    let run = fx.run_env(
        plan,
        &["--snapshot-dir", snaps.to_str().unwrap(), "--model", "m1", "--api-key-env", "TISS_TEST_SECRET"],
        &[
            ("TISS_SEED", "11"),
            ("TISS_REPEAT_PENALTY", "1.15"),
            ("TISS_TEST_SECRET", "sk-never-in-a-snapshot"),
        ],
    );
    run.expect(3);
    let snap = std::fs::read_dir(&snaps).unwrap().next().unwrap().unwrap().path();
    let bytes = std::fs::read(&snap).unwrap();
    assert!(!bytes.windows(12).any(|w| w == b"sk-never-in-"), "the key's value is in the snapshot");
    let resumed = tissvm(
        fx.root.path(),
        &["resume", snap.to_str().unwrap(), "--answer", "continue", "--model", "m2"],
        &[],
    );
    resumed.expect(0);
    assert!(
        resumed.stderr.contains("--api-key-env TISS_TEST_SECRET --seed 11 --repeat-penalty 1.15\n"),
        "{}",
        resumed.stderr
    );
    assert!(!resumed.stderr.contains("--model m1"), "a flag given again wins: {}", resumed.stderr);
}

/// `tissvm run` reads `./tiss.toml` once, for both its `[provider]` and its
/// `[policy]` table (it used to read it twice). The file is a FIFO here,
/// which gives its text to one reader: a second open would wait forever.
#[test]
fn tiss_toml_is_read_once_for_provider_and_policy() {
    use std::io::Write;
    use std::time::{Duration, Instant};

    let fx = Fixture::new();
    let fifo = fx.path("tiss.toml");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path in a directory this test owns.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0, "mkfifo");
    let writer = std::thread::spawn(move || {
        // Blocks until tissvm opens it for reading; then one text, and EOF.
        let mut pipe = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
        pipe.write_all(b"[provider]\nseed = 4\n\n[policy.commands]\ndeny = [\"echo *\"]\n").unwrap();
    });
    let plan = fx.write_plan("TASK \"t\"\nSTEP \"s\" {\n    RUN \"echo hi\"\n}\n");
    let mut child =
        crate::common::start(fx.root.path(), &["run", &plan, "--workdir", fx.ws().to_str().unwrap()]);
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("tissvm waited on a second read of tiss.toml\n{}", String::from_utf8_lossy(&out.stderr));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    writer.join().unwrap();
    let out = child.wait_with_output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("denied by the pattern `echo *`"), "the [policy] table applied:\n{text}");
}
