//! The workspace jail holds against a symlink swapped in while the plan
//! runs (book: reference/sandbox.md), through the real binary: while `tissvm` writes, reads and
//! tests files in `ws/d/` over and over, this test swaps `d` with a symlink
//! to a directory outside, atomically (`renameat2(RENAME_EXCHANGE)`), as
//! fast as it can. Whenever the swap lands between the check of a path and
//! its use, the use still resolves beneath the workspace (`openat2` with
//! `RESOLVE_BENEATH`) and is refused. Nothing is ever written outside.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::common::Fixture;
use rustix::fs::{CWD, RenameFlags, renameat_with};

/// How long the swapping goes on.
const RACE: Duration = Duration::from_secs(3);

#[test]
fn a_symlink_swapped_in_mid_run_never_lets_a_write_escape() {
    let f = Fixture::new();
    let outside = f.path("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::create_dir(f.ws().join("d")).unwrap();
    std::os::unix::fs::symlink(&outside, f.ws().join("swap")).unwrap();
    let mut body = String::new();
    for i in 0..300 {
        body.push_str(&format!(
            "    WRITE \"d/f{i}\" FROM \"x\"\n    APPEND \"d/f{i}\" FROM \"y\"\n    ASSERT FILE \"d/f{i}\" CONTAINS \"xy\"\n"
        ));
    }
    let plan = f.write_plan(&format!("TASK \"Race\"\nSTEP \"s\" {{\n{body}}}\n"));

    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicU64::new(0));
    let swapper = {
        let (stop, swaps) = (stop.clone(), swaps.clone());
        let (d, swap) = (f.ws().join("d"), f.ws().join("swap"));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                renameat_with(CWD, &d, CWD, &swap, RenameFlags::EXCHANGE)
                    .expect("renameat2(RENAME_EXCHANGE)");
                swaps.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    let (mut runs, mut refused_at_use) = (0, 0);
    let started = Instant::now();
    while started.elapsed() < RACE {
        let ws = f.ws();
        let run =
            crate::common::tissvm(f.root.path(), &["run", &plan, "--workdir", ws.to_str().unwrap()], &[]);
        runs += 1;
        // Passed, a command error (the directory vanished mid-write) or a
        // security violation: never anything else.
        assert!(matches!(run.code, Some(0 | 1 | 5)), "{run:?}");
        // Refused by the check of the path, the message names the link;
        // refused at the use (the swap came after the check), it does not.
        if run.code == Some(5) && !run.stdout.contains("points to") {
            refused_at_use += 1;
        }
        assert!(
            tiss_test_support::listing(&outside).is_empty(),
            "escaped after {runs} runs: {:?}",
            tiss_test_support::listing(&outside)
        );
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    eprintln!(
        "{runs} runs, {} swaps, {refused_at_use} refused at the use of a path that passed its check",
        swaps.load(Ordering::Relaxed)
    );
    assert!(runs >= 3 && swaps.load(Ordering::Relaxed) > 100, "the race did not run");
}
