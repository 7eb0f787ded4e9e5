//! The cgroups a confined RUN runs in: one set per run of tissvm, reused RUN
//! after RUN (RUNs of one run are sequential) and emptied after each, so a
//! RUN pays for neither `mkdir` nor `rmdir`.
//!
//! What goes where is detected, not assumed: machines mix a cgroup v2 tree
//! (perhaps with `cgroup.kill` but no controllers) with v1 controllers.
//! - the kill: a v2 cgroup with `cgroup.kill` (Linux ≥ 5.14) ends every
//!   process in it at once, however it forked or detached;
//! - `pids` and `memory` (`strict`): v2 where the v2 parent delegates the
//!   controller (`cgroup.subtree_control`), else the v1 hierarchy of that
//!   controller.
//!
//! Each cgroup is made beneath the one tissvm itself is in (read from
//! `/proc/self/cgroup`, mapped through `/proc/self/mountinfo`), named
//! `tissvm-PID-N`; those of a tissvm that died without removing its own
//! (SIGKILL) are ended and removed by the next one. A RUN's child starts in
//! the v2 cgroup (`CLONE_INTO_CGROUP`, `spawn.rs`: no migration, the
//! largest cost of a confined RUN otherwise) and joins the v1 ones by writing
//! `0` into each `cgroup.procs`, opened beforehand, so it allocates nothing.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rustix::fs::{Mode, OFlags};

use crate::sandbox::profile::Limits;
use crate::sandbox::reaper;

/// How long the kill waits for the cgroup to empty.
const EMPTY_WAIT: Duration = Duration::from_secs(5);

/// The cgroups of a RUN (one per hierarchy used).
#[derive(Debug)]
pub struct RunCgroups {
    parts: Vec<Part>,
}

#[derive(Debug)]
struct Part {
    dir: PathBuf,
    /// `cgroup.procs`, open for the child to join and for [`Part::empty`].
    procs: File,
    /// The v2 cgroup's directory, which a child can start in
    /// (`CLONE_INTO_CGROUP`); `None` for a v1 controller's.
    v2: Option<OwnedFd>,
    /// The v2 cgroup, with `cgroup.kill`.
    kill: bool,
}

/// Which cgroup mechanisms a profile needs.
#[derive(Debug, Clone, Copy)]
pub struct Wanted {
    pub kill: bool,
    /// `pids.max` and the memory limit.
    pub limits: Option<Limits>,
}

/// What [`RunCgroups::create`] could put in force, and why not the rest.
#[derive(Debug, Default)]
pub struct Created {
    pub cgroups: Option<RunCgroups>,
    /// `cgroup_kill`, `cgroup_pids`, `cgroup_memory`.
    pub enforced: Vec<&'static str>,
    /// Each mechanism wanted but not available, with the reason.
    pub missing: Vec<(&'static str, String)>,
}

/// One mounted hierarchy and this process's cgroup in it.
#[derive(Debug, Clone)]
struct Hierarchy {
    /// This process's cgroup directory.
    own: PathBuf,
}

impl RunCgroups {
    /// Whether [`RunCgroups::create`] could put the kill in force, without
    /// making anything: the v2 cgroup tissvm is in has `cgroup.kill` and may
    /// be written. `standard` asks this before the plan starts and makes its
    /// cgroup at the first RUN; a `create` that then fails refuses the RUN.
    pub fn probe_kill() -> Result<(), String> {
        let Some(h) = hierarchy(None) else {
            return Err("no cgroup v2 tree is mounted".into());
        };
        // The root cgroup has no `cgroup.kill` of its own, but the cgroups
        // made beneath it have one from Linux 5.14 on.
        let kill = if h.own.join("cgroup.type").exists() {
            h.own.join("cgroup.kill").exists()
        } else {
            linux_at_least(5, 14)
        };
        if !kill {
            return Err("the cgroup v2 tree has no `cgroup.kill` (Linux ≥ 5.14)".into());
        }
        rustix::fs::access(&h.own, rustix::fs::Access::WRITE_OK)
            .map_err(|e| format!("cannot create a cgroup in `{}`: {e}", h.own.display()))
    }

    /// Makes the cgroups for `wanted` (a new set: call once per run of tissvm).
    pub fn create(wanted: Wanted) -> Created {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!("tissvm-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let mut created = Created::default();
        let mut parts = Vec::new();
        let v2 = hierarchy(None);
        let mut v2_part = None;
        if let Some(h) = &v2 {
            match Part::make(&h.own, &name).and_then(Part::v2) {
                Ok(mut part) => {
                    part.kill = part.dir.join("cgroup.kill").exists();
                    v2_part = Some(parts.len());
                    parts.push(part);
                }
                Err(e) => created
                    .missing
                    .push(("cgroup_kill", format!("cannot create a cgroup in `{}`: {e}", h.own.display()))),
            }
        }
        if wanted.kill {
            match v2_part.map(|i: usize| parts[i].kill) {
                Some(true) => created.enforced.push("cgroup_kill"),
                Some(false) => created
                    .missing
                    .push(("cgroup_kill", "the cgroup v2 tree has no `cgroup.kill` (Linux ≥ 5.14)".into())),
                None if v2.is_none() => {
                    created.missing.push(("cgroup_kill", "no cgroup v2 tree is mounted".into()))
                }
                None => {}
            }
        }
        if let Some(limits) = wanted.limits {
            let settings = [
                ("pids", "cgroup_pids", vec![("pids.max", limits.max_procs.to_string())]),
                (
                    "memory",
                    "cgroup_memory",
                    vec![
                        ("memory.max", limits.max_memory.to_string()),
                        ("memory.swap.max", "0".to_string()),
                        ("memory.limit_in_bytes", limits.max_memory.to_string()),
                        ("memory.memsw.limit_in_bytes", limits.max_memory.to_string()),
                    ],
                ),
            ];
            for (controller, mechanism, files) in settings {
                match limit(controller, &name, &files, &v2, v2_part.map(|i| &parts[i])) {
                    Ok(Some(part)) => {
                        parts.push(part);
                        created.enforced.push(mechanism);
                    }
                    Ok(None) => created.enforced.push(mechanism),
                    Err(reason) => created.missing.push((mechanism, reason)),
                }
            }
        }
        if !parts.is_empty() {
            created.cgroups = Some(RunCgroups { parts });
        }
        created
    }

    /// The v2 cgroup's directory, for `CLONE_INTO_CGROUP`.
    pub fn v2_dir(&self) -> Option<RawFd> {
        self.parts.iter().find_map(|p| p.v2.as_ref().map(AsRawFd::as_raw_fd))
    }

    /// In the child before `exec`: joins the cgroups by writing `0` into
    /// each `cgroup.procs` (the v2 one only with `v2`, for a child not
    /// started in it). Plain system calls, no allocation.
    pub fn join(&self, v2: bool) -> io::Result<()> {
        for part in self.parts.iter().filter(|p| v2 || p.v2.is_none()) {
            // SAFETY: a plain write of one byte from a static buffer.
            if unsafe { libc::write(part.procs.as_raw_fd(), b"0".as_ptr().cast(), 1) } != 1 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }

    /// Ends every process in the cgroups and reaps those that were orphaned
    /// onto tissvm; returns once they are empty (or after [`EMPTY_WAIT`]).
    /// Returns whether `cgroup.kill` was written: the cgroups must not take
    /// another RUN then, as Linux (6.18 here) kills at birth every child
    /// started in a cgroup that was once killed (`CLONE_INTO_CGROUP`
    /// compares the kill counts of the parent's cgroup and of the child's).
    pub fn kill(&self) -> bool {
        // The usual end of a RUN: nothing left in the cgroups, and no
        // orphan of it, alive or exited, anywhere else.
        if self.parts.iter().all(Part::empty) && !reaper::has_orphans() {
            return false;
        }
        let killer = self.parts.iter().find(|p| p.kill);
        let started = Instant::now();
        loop {
            match killer {
                Some(part) => {
                    let _ = std::fs::write(part.dir.join("cgroup.kill"), "1");
                }
                None => {
                    for part in &self.parts {
                        for pid in procs(&part.dir) {
                            // SAFETY: plain syscall; a pid gone meanwhile is ESRCH.
                            unsafe { libc::kill(pid, libc::SIGKILL) };
                        }
                    }
                }
            }
            reaper::sweep();
            if self.parts.iter().all(Part::empty) || started.elapsed() > EMPTY_WAIT {
                return killer.is_some();
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

impl Drop for RunCgroups {
    fn drop(&mut self) {
        self.kill();
        // Killed tasks leave `cgroup.procs` a moment before the kernel lets
        // go of the cgroup (EBUSY meanwhile).
        let started = Instant::now();
        for part in &self.parts {
            while let Err(e) = std::fs::remove_dir(&part.dir) {
                if e.raw_os_error() != Some(libc::EBUSY) || started.elapsed() > EMPTY_WAIT {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
}

impl Part {
    fn make(parent: &Path, name: &str) -> io::Result<Part> {
        remove_stale(parent);
        let dir = parent.join(name);
        std::fs::create_dir(&dir)?;
        let procs = std::fs::OpenOptions::new().read(true).write(true).open(dir.join("cgroup.procs"));
        match procs {
            Ok(procs) => Ok(Part { dir, procs, v2: None, kill: false }),
            Err(e) => {
                let _ = std::fs::remove_dir(&dir);
                Err(e)
            }
        }
    }
}

impl Part {
    /// Whether no process is in the cgroup: one `pread` of the open
    /// `cgroup.procs` (the kernel lists it afresh from offset 0), where
    /// opening and reading it by name took four system calls. An error
    /// counts as not empty.
    fn empty(&self) -> bool {
        let mut first = [0u8; 1];
        matches!(rustix::io::pread(&self.procs, &mut first, 0), Ok(0))
    }

    /// The part of the v2 tree: its directory opened for children to start in.
    fn v2(mut self) -> io::Result<Part> {
        let dir =
            rustix::fs::open(&self.dir, OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())?;
        self.v2 = Some(dir);
        Ok(self)
    }
}

/// Ends and removes what a tissvm killed with SIGKILL left beneath `parent`
/// (its watchdog ends a RUN's process group, not a daemon that left it): each
/// `tissvm-PID-N` cgroup whose PID is no longer alive.
fn remove_stale(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid =
            name.to_str().and_then(|n| n.strip_prefix("tissvm-")?.split_once('-')?.0.parse::<i32>().ok());
        let alive = |pid: i32| {
            // SAFETY: signal 0 only checks; EPERM means alive (another user's).
            let checked = unsafe { libc::kill(pid, 0) };
            checked == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
        };
        if !pid.is_some_and(|pid| pid > 0 && !alive(pid)) {
            continue;
        }
        let dir = entry.path();
        let Ok(procs) = std::fs::OpenOptions::new().read(true).write(true).open(dir.join("cgroup.procs"))
        else {
            continue;
        };
        let kill = dir.join("cgroup.kill").exists();
        // Dropping it kills what is left in it and removes it.
        drop(RunCgroups { parts: vec![Part { dir, procs, v2: None, kill }] });
    }
}

/// Puts a controller's limit in force: in the v2 cgroup already made if the
/// v2 tree delegates the controller (`Ok(None)`), else in a new v1 cgroup.
fn limit(
    controller: &str,
    name: &str,
    files: &[(&str, String)],
    v2: &Option<Hierarchy>,
    v2_part: Option<&Part>,
) -> Result<Option<Part>, String> {
    let delegated = v2.as_ref().is_some_and(|h| {
        std::fs::read_to_string(h.own.join("cgroup.subtree_control"))
            .is_ok_and(|s| s.split_whitespace().any(|c| c == controller))
    });
    let (dir, new) = match (delegated, v2_part) {
        (true, Some(part)) => (part.dir.clone(), None),
        _ => {
            let Some(h) = hierarchy(Some(controller)) else {
                return Err(format!(
                    "the `{controller}` cgroup controller is neither delegated in the cgroup v2 tree nor mounted as a v1 hierarchy"
                ));
            };
            let part = Part::make(&h.own, name).map_err(|e| {
                format!("cannot create a `{controller}` cgroup in `{}`: {e}", h.own.display())
            })?;
            (part.dir.clone(), Some(part))
        }
    };
    let mut set = 0;
    for (file, value) in files {
        let path = dir.join(file);
        if !path.exists() {
            continue;
        }
        let written = File::options().write(true).open(&path).and_then(|mut f| f.write_all(value.as_bytes()));
        // The swap limits are best kept but not required (no swap accounting).
        match written {
            Ok(()) => set += 1,
            Err(_) if file.contains("sw") => {}
            Err(e) => return Err(format!("cannot set `{}`: {e}", path.display())),
        }
    }
    if set == 0 {
        return Err(format!("`{}` has no `{controller}` limit file", dir.display()));
    }
    Ok(new)
}

/// Whether the running kernel is at least `major.minor`.
fn linux_at_least(major: u32, minor: u32) -> bool {
    let uname = rustix::system::uname();
    let release = uname.release().to_string_lossy();
    let mut numbers = release.split(|c: char| !c.is_ascii_digit()).map(|n| n.parse::<u32>().unwrap_or(0));
    (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0)) >= (major, minor)
}

/// The pids in a cgroup.
fn procs(dir: &Path) -> Vec<i32> {
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .map(|s| s.lines().filter_map(|l| l.trim().parse().ok()).collect())
        .unwrap_or_default()
}

/// This process's cgroup in the v2 tree (`None`) or in the v1 hierarchy of
/// `controller`, if that is mounted. `/proc/self/cgroup` and the mount table
/// are read once: the probe before the plan and the first RUN share them.
fn hierarchy(controller: Option<&str>) -> Option<Hierarchy> {
    static PROC_FILES: OnceLock<Option<(String, String)>> = OnceLock::new();
    let (own, mounts) = PROC_FILES
        .get_or_init(|| {
            let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
            let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
            Some((own, mounts))
        })
        .as_ref()?;
    let path = own.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (id, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let matches = match controller {
            None => id == "0" && controllers.is_empty(),
            Some(c) => controllers.split(',').any(|x| x == c),
        };
        matches.then(|| path.to_string())
    })?;
    for line in mounts.lines() {
        // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
        let Some((left, right)) = line.split_once(" - ") else { continue };
        let mut right = right.split(' ');
        let fstype = right.next().unwrap_or_default();
        let fits = match controller {
            None => fstype == "cgroup2",
            Some(c) => fstype == "cgroup" && right.nth(1).is_some_and(|o| o.split(',').any(|x| x == c)),
        };
        if !fits {
            continue;
        }
        let mut left = left.split(' ').skip(3);
        let (Some(root), Some(mount)) = (left.next(), left.next()) else { continue };
        let Some(rest) = path.strip_prefix(root.trim_end_matches('/')) else { continue };
        let own = PathBuf::from(mount).join(rest.trim_start_matches('/'));
        if own.is_dir() {
            return Some(Hierarchy { own });
        }
    }
    None
}
