//! Finding a test's processes through /proc by a marker in their command
//! line: a `sleep` duration no other process has. Whatever a failed test
//! leaves is killed by its pid when the marker is dropped.

use std::process::Child;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// How long anything here may take on a loaded machine.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// A `sleep` duration unique to one test, e.g. `601.1234567890123`.
pub struct Marker(pub String);

impl Marker {
    pub fn new() -> Marker {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        Marker(format!("{}.{}{nanos:09}", 600 + n, std::process::id()))
    }

    /// The live processes (zombies are dead) whose command line holds it.
    pub fn processes(&self) -> Vec<i32> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            let zombie =
                stat.rsplit_once(')').is_none_or(|(_, rest)| rest.trim_start().starts_with(['Z', 'X']));
            if !zombie && String::from_utf8_lossy(&cmdline).contains(&self.0) {
                found.push(pid);
            }
        }
        found
    }

    /// Waits until at least `n` of the RUN's processes are up.
    pub fn wait_for(&self, n: usize, child: &mut Child) {
        let deadline = Instant::now() + DEADLINE;
        while self.processes().len() < n {
            if let Ok(Some(status)) = child.try_wait() {
                panic!("tissvm exited ({status}) before the RUN's {n} processes were up");
            }
            assert!(
                Instant::now() < deadline,
                "the RUN's {n} processes never came up: {:?}",
                self.processes()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until none of the RUN's processes is left; fails naming them.
    #[track_caller]
    pub fn assert_gone(&self, after: &str) {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let left = self.processes();
            if left.is_empty() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "after {after}, the RUN's processes {left:?} are still running"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Marker {
    fn drop(&mut self) {
        for pid in self.processes() {
            // SAFETY: a process this test started (it carries the marker).
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}
