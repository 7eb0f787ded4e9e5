//! `tools/local-llm-server` as the suite calls it (`TISS_LLM_NO_BUILD=1`):
//! it never builds, it waits for a build under way (CI runs the tests beside
//! the server's build), and what is still missing is an error that says how
//! to build it. A real `flock` holds the build's lock, as `build` does.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tools/local-llm-server")
}

/// The script run with `args` against the cache `cache`, never building.
fn run(cache: &Path, args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let out = Command::new("bash")
        .arg(script())
        .args(args)
        .env("TISS_LLM_CACHE", cache)
        .env("TISS_LLM_NO_BUILD", "1")
        .output()
        .expect("bash runs the script");
    (out, started.elapsed())
}

/// A build under way: holds `lock` in `cache` (as `build` does) while it
/// runs `then`, and returns once the lock is held.
fn holding(cache: &Path, lock: &str, then: &str) -> Child {
    let held = cache.join("held");
    let child = Command::new("flock")
        .arg(cache.join(lock))
        .args(["sh", "-c", &format!("touch '{}'; {then}", held.display())])
        .current_dir(cache)
        .spawn()
        .expect("flock runs");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !held.exists() {
        assert!(Instant::now() < deadline, "flock did not take the lock");
        std::thread::sleep(Duration::from_millis(10));
    }
    child
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn without_a_build_under_way_what_is_missing_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    for args in [&["start", "1"][..], &["gbnf-validator"]] {
        let (out, took) = run(&cache, args);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("(TISS_LLM_NO_BUILD=1); run: "), "{}", stderr(&out));
        assert!(stderr(&out).contains("local-llm-server build"), "{}", stderr(&out));
        assert!(took < Duration::from_secs(5), "{args:?} took {took:?}");
    }
    // Nothing was built, nor the cache made.
    assert!(!cache.exists());
}

#[test]
fn a_build_under_way_is_waited_for() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path();
    // The validator's build ends in a second, with the validator built.
    let mut build = holding(
        cache,
        ".lock-gbnf",
        "sleep 1; mkdir -p gbnf-validator; printf '#!/bin/sh\\n' > gbnf-validator/v; chmod +x gbnf-validator/v; \
         mv gbnf-validator/v gbnf-validator/gbnf-validator",
    );
    let (out, took) = run(cache, &["gbnf-validator"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        cache.join("gbnf-validator/gbnf-validator").to_str().unwrap()
    );
    assert!(took >= Duration::from_millis(500), "it did not wait: {took:?}");
    assert!(build.wait().unwrap().success());

    // The server's build ends in a second without a server (it failed): the
    // wait ends, and what is missing is refused.
    std::fs::remove_file(cache.join("held")).unwrap();
    let mut build = holding(cache, ".lock", "sleep 1");
    let (out, took) = run(cache, &["start", "1"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("llama-server is not built in"), "{}", stderr(&out));
    assert!(took >= Duration::from_millis(500), "it did not wait: {took:?}");
    assert!(build.wait().unwrap().success());
}
