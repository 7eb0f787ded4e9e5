//! tissvm as a child subreaper (`PR_SET_CHILD_SUBREAPER`): a RUN's
//! descendant whose parent dies — `setsid`, `nohup … &`, a double fork —
//! becomes tissvm's child instead of init's, so it can still be found and
//! ended. After each confined RUN, [`sweep`] kills and reaps every child of
//! tissvm that it did not start on purpose: the RUN shells and the watchdog
//! are *claimed* ([`claimed`]) as they are forked, and anything else that is
//! tissvm's child is an orphan of a RUN.
//!
//! The children are listed from `/proc/self/task/*/children`; a kernel
//! without that file (`CONFIG_PROC_CHILDREN`) cannot support the sweep, and
//! [`enable`] says so.
//!
//! Invariant: the process that enables the subreaper starts children only
//! through [`claimed`] (the process runner and the watchdog do), as any other
//! child would be taken for an orphan.

use std::io;
use std::sync::Mutex;

/// The children started on purpose, not to be swept.
static CLAIMED: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Rounds of kill-and-reap before the sweep gives up on a tree that keeps
/// forking (the cgroup kill, where there is one, makes this moot).
const MAX_ROUNDS: usize = 1000;

/// Whether the sweep can work here: the kernel lists a task's children.
/// Asked before the plan starts; [`enable`] follows at the first RUN.
pub fn available() -> Result<(), String> {
    if std::fs::metadata(children_file(rustix::thread::gettid().as_raw_nonzero().get())).is_err() {
        return Err("/proc/self/task/TID/children (kernel option CONFIG_PROC_CHILDREN), needed to find the \
                    orphans of a RUN"
            .to_string());
    }
    Ok(())
}

/// Makes this process a child subreaper (once; later calls are free).
pub fn enable() -> Result<(), String> {
    static ENABLED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    ENABLED
        .get_or_init(|| {
            available()?;
            rustix::process::set_child_subreaper(Some(rustix::process::getpid()))
                .map_err(|e| format!("PR_SET_CHILD_SUBREAPER ({e})"))
        })
        .clone()
}

/// Forks with `fork` (which returns the child's pid) while no sweep can
/// run, and claims the child.
pub fn claimed<T>(fork: impl FnOnce() -> io::Result<(T, i32)>) -> io::Result<T> {
    let mut claimed = CLAIMED.lock().unwrap_or_else(|e| e.into_inner());
    let (value, pid) = fork()?;
    claimed.push(pid);
    Ok(value)
}

/// Forgets a claimed child, once it has been reaped.
pub fn release(pid: i32) {
    CLAIMED.lock().unwrap_or_else(|e| e.into_inner()).retain(|&p| p != pid);
}

/// Kills (SIGKILL) and reaps every child of this process that is not
/// claimed, until none is left. Returns how many it ended.
pub fn sweep() -> usize {
    let mut ended = 0;
    for _ in 0..MAX_ROUNDS {
        let orphans: Vec<i32> = {
            let claimed = CLAIMED.lock().unwrap_or_else(|e| e.into_inner());
            children().into_iter().filter(|pid| !claimed.contains(pid)).collect()
        };
        if orphans.is_empty() {
            break;
        }
        for &pid in &orphans {
            // SAFETY: plain syscalls on our own (unclaimed, so unreaped by
            // anyone else) child; it stays ours until reaped here.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
        }
        ended += orphans.len();
    }
    ended
}

/// Whether this process has a child it did not start on purpose, alive or
/// not: an orphan of a RUN. Asked from the list of children, not from
/// `waitid`, which sees only the exited ones: a process that left the RUN's
/// cgroup (`clone3(CLONE_INTO_CGROUP)`) and its session is alive, outside
/// the cgroup the kill empties, and still tissvm's.
pub fn has_orphans() -> bool {
    let claimed = CLAIMED.lock().unwrap_or_else(|e| e.into_inner());
    children().iter().any(|pid| !claimed.contains(pid))
}

fn children_file(tid: i32) -> String {
    format!("/proc/self/task/{tid}/children")
}

/// This process's children, from every thread's `children` file.
fn children() -> Vec<i32> {
    let mut pids = Vec::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return pids };
    for task in tasks.flatten() {
        if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
            pids.extend(list.split_ascii_whitespace().filter_map(|p| p.parse::<i32>().ok()));
        }
    }
    pids
}
