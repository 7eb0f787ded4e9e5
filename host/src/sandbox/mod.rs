//! The sandbox of RUN (book: reference/sandbox.md): what a command's processes may do, enforced
//! by the kernel, one file per mechanism.
//!
//! - `profile.rs`: the profiles, the limits, the isolation reported;
//! - `rlimits.rs`: no core dumps, a largest file, open files;
//! - `reaper.rs`: tissvm a child subreaper, the sweep of a RUN's orphans;
//! - `cgroup.rs`: the cgroups a RUN runs in (the kill, `pids`, `memory`);
//! - `landlock.rs`: writes only in the workspace, `TMPDIR`, `/dev/null`,
//!   no device node, no signal or abstract socket out of the RUN;
//! - `namespaces.rs`: `strict`'s mount, PID, UTS, IPC and network
//!   namespaces, made once per plan by an init that sweeps them;
//! - `mounts.rs`: the read-only view of the host with a minimal `/dev`;
//! - `capabilities.rs`: every capability dropped;
//! - `seccomp.rs`: the system calls nothing else covers.
//!
//! Invariants: a profile is enforced whole or refused before anything runs
//! ([`Sandbox::prepare`] probes every mechanism; the refusal names what is
//! missing) — never weakened. The started child (`spawn.rs`) applies
//! each mechanism before `exec` and a failure there stops the command from
//! starting (fail-closed). What `standard` sets up at its first RUN (the
//! subreaper, the cgroup) was probed before the plan started, and a set-up
//! that fails all the same refuses that RUN.
//! The only fallback is `standard`'s kill: without `cgroup.kill` the
//! subreaper's sweep ends the tree, and the report lists `cgroup_kill` as
//! missing.

pub mod capabilities;
pub mod cgroup;
pub mod landlock;
pub mod mounts;
pub mod namespaces;
pub mod profile;
pub mod reaper;
pub mod rlimits;
pub mod seccomp;

use std::io;
use std::os::fd::RawFd;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ::landlock::RulesetCreated;

pub use profile::{Isolation, Limits, Profile, mechanism, mechanisms};

use crate::environment;
use cgroup::{RunCgroups, Wanted};
use landlock::{FsPolicy, FsRules};
use namespaces::Namespaces;
use rlimits::Rlimits;

/// The `none` profile, for callers that confine nothing (tests, benches).
pub static UNCONFINED: Sandbox = Sandbox::none();

/// The confinement of every RUN of one run of tissvm.
#[derive(Debug)]
pub struct Sandbox {
    isolation: Isolation,
    /// `None` for `none`: nothing beyond a process group.
    rlimits: Option<Rlimits>,
    /// Idle cgroup sets, emptied, for the next RUN.
    cgroups: Mutex<Vec<RunCgroups>>,
    cgroup_wanted: Option<Wanted>,
    fs: Option<FsRules>,
    /// `strict`'s namespaces and their init. Dropped before `tmpdir`,
    /// which its view binds.
    namespaces: Option<Namespaces>,
    seccomp: Option<seccomp::Filter>,
    /// `strict`'s private `TMPDIR`, removed with the sandbox.
    tmpdir: Option<tempfile::TempDir>,
}

impl Sandbox {
    /// `none`: the caller's environment and no limits.
    pub const fn none() -> Sandbox {
        Sandbox {
            isolation: Isolation { profile: Profile::None, enforced: Vec::new(), missing: Vec::new() },
            rlimits: None,
            cgroups: Mutex::new(Vec::new()),
            cgroup_wanted: None,
            fs: None,
            namespaces: None,
            seccomp: None,
            tmpdir: None,
        }
    }

    /// Detects and probes every mechanism `profile` needs for RUNs in
    /// `workspace`. A [`Refusal`] (a `security_violation`, exit 5) names
    /// each missing one. `standard` only probes: the subreaper and the
    /// run's cgroup are set up at the first RUN, so a plan without RUN makes
    /// no cgroup; `strict` makes its cgroups here, as its limits must be
    /// written to be known to hold.
    pub fn prepare(profile: Profile, workspace: &Path, limits: Limits) -> Result<Sandbox, Refusal> {
        Sandbox::prepare_hiding(profile, workspace, limits, &[], &[])
    }

    /// [`Sandbox::prepare`], `strict`'s view covering `secrets`, tissvm's own
    /// files no RUN is to read (the snapshot key), where they exist, and
    /// showing `records` read-only: the files in the workspace tissvm writes
    /// as the run goes (its journal, its log), which a RUN may read, not
    /// change.
    pub fn prepare_hiding(
        profile: Profile,
        workspace: &Path,
        limits: Limits,
        secrets: &[PathBuf],
        records: &[PathBuf],
    ) -> Result<Sandbox, Refusal> {
        let mut sandbox = Sandbox::none();
        if profile == Profile::None {
            return Ok(sandbox);
        }
        let strict = profile == Profile::Strict;
        let mut missing: Vec<(&'static str, String)> = Vec::new();
        let mut enforced = vec!["env_allowlist", "session", "no_new_privs", "rlimits"];
        match reaper::available() {
            Ok(()) => enforced.push("subreaper"),
            Err(e) => missing.push(("subreaper", e)),
        }
        let wanted = Wanted { kill: true, limits: strict.then_some(limits) };
        let created = if strict {
            RunCgroups::create(wanted)
        } else {
            let mut probed = cgroup::Created::default();
            match RunCgroups::probe_kill() {
                Ok(()) => probed.enforced.push("cgroup_kill"),
                Err(reason) => probed.missing.push(("cgroup_kill", reason)),
            }
            probed
        };
        enforced.extend(&created.enforced);
        for (mechanism, reason) in created.missing {
            if mechanism == "cgroup_kill" {
                // The sweep of the subreaper's orphans ends the tree instead.
                sandbox.isolation.missing.push(mechanism);
            } else {
                missing.push((mechanism, reason));
            }
        }
        if !enforced.contains(&"cgroup_kill") {
            enforced.push("orphan_sweep");
        }
        sandbox.cgroups = Mutex::new(created.cgroups.into_iter().collect());
        // Without the kill and without limits a cgroup would add nothing.
        if strict || enforced.contains(&"cgroup_kill") {
            sandbox.cgroup_wanted = Some(wanted);
        }
        if strict {
            sandbox.prepare_strict(workspace, secrets, records, &mut enforced, &mut missing);
        }
        if !missing.is_empty() {
            return Err(Refusal { profile, missing });
        }
        sandbox.isolation.profile = profile;
        sandbox.isolation.enforced = enforced;
        sandbox.rlimits = Some(Rlimits::new());
        Ok(sandbox)
    }

    /// `strict` beyond `standard`: the private `TMPDIR`, Landlock, the
    /// namespaces and their view, no capabilities, seccomp.
    fn prepare_strict(
        &mut self,
        workspace: &Path,
        secrets: &[PathBuf],
        records: &[PathBuf],
        enforced: &mut Vec<&'static str>,
        missing: &mut Vec<(&'static str, String)>,
    ) {
        let tmpdir = match private_tmpdir() {
            Ok(tmpdir) => tmpdir,
            Err(e) => {
                return missing.push(("private_tmpdir", format!("cannot create a private TMPDIR: {e}")));
            }
        };
        let policy = FsPolicy { workspace: workspace.to_path_buf(), tmpdir: tmpdir.path().to_path_buf() };
        match FsRules::new(&policy) {
            Ok(rules) => {
                enforced.push("landlock");
                if rules.scoped {
                    enforced.push("landlock_scopes");
                }
                self.fs = Some(rules);
            }
            Err(e) => missing.push(("landlock", e)),
        }
        match Namespaces::new(&[workspace, tmpdir.path()], secrets, records) {
            Ok(namespaces) => {
                enforced.extend(profile::NAMESPACES);
                self.namespaces = Some(namespaces);
            }
            Err(e) => missing.push(("namespaces", e)),
        }
        match seccomp::Filter::new() {
            Ok(filter) => {
                enforced.push("seccomp");
                self.seccomp = Some(filter);
            }
            Err(e) => missing.push(("seccomp", e)),
        }
        self.tmpdir = Some(tmpdir);
    }

    /// Whether a RUN enters a mount namespace of its own view: its working
    /// directory must then be given by path (a descriptor would lead out
    /// of the view).
    pub fn enters_mount_namespace(&self) -> bool {
        self.namespaces.is_some()
    }

    /// A new cgroup set: `standard`'s first RUN, or a second RUN in flight
    /// at once. It must have every mechanism the isolation reports in force;
    /// a failure refuses the RUN (fail-closed).
    fn fresh_cgroups(&self, wanted: Wanted) -> io::Result<Option<RunCgroups>> {
        let created = RunCgroups::create(wanted);
        if let Some((mechanism, reason)) =
            created.missing.iter().find(|(m, _)| self.isolation.enforced.contains(m))
        {
            return Err(io::Error::other(format!("{mechanism}: {reason}")));
        }
        Ok(created.cgroups)
    }

    pub fn isolation(&self) -> &Isolation {
        &self.isolation
    }

    pub fn profile(&self) -> Profile {
        self.isolation.profile
    }

    /// `strict`'s private `TMPDIR`.
    pub fn tmpdir(&self) -> Option<&Path> {
        self.tmpdir.as_ref().map(tempfile::TempDir::path)
    }

    /// The complete environment of a RUN in `workdir`: for `none` the
    /// caller's, else the allowlist (book: reference/sandbox.md), `strict` adding its `TMPDIR`;
    /// the plan's ENV values win in each.
    pub fn environment(
        &self,
        workdir: &Path,
        allow: &[String],
        plan_env: &[(String, String)],
    ) -> Vec<(String, String)> {
        if self.profile() == Profile::None {
            return environment::caller_env(plan_env);
        }
        let mut env = environment::build_env(workdir, allow, plan_env);
        if let Some(tmpdir) = self.tmpdir()
            && !plan_env.iter().any(|(name, _)| name == "TMPDIR")
        {
            env.retain(|(name, _)| name != "TMPDIR");
            env.push(("TMPDIR".to_string(), tmpdir.to_string_lossy().into_owned()));
        }
        env
    }

    /// What a RUN starts confined in (its own session, the cgroups,
    /// rlimits, no new privileges, then `strict`'s namespace and Landlock,
    /// put in force by [`Confined::in_child`] before `exec`). The
    /// [`Confined`] ends the RUN's whole tree.
    pub fn confine(&self) -> io::Result<Confined<'_>> {
        let mut confined = Confined {
            sandbox: self,
            cgroups: None,
            rlimits: self.rlimits,
            namespaces: self.namespaces.as_ref(),
            seccomp: self.seccomp.as_ref(),
            ruleset: None,
            ended: false,
        };
        if self.rlimits.is_none() {
            return Ok(confined);
        }
        reaper::enable().map_err(|e| io::Error::other(format!("subreaper: {e}")))?;
        confined.cgroups = match self.cgroup_wanted {
            Some(wanted) => {
                let idle = self.cgroups.lock().unwrap_or_else(|e| e.into_inner()).pop();
                match idle {
                    Some(c) => Some(c),
                    None => self.fresh_cgroups(wanted)?,
                }
            }
            None => None,
        };
        confined.ruleset = self.fs.as_ref().map(FsRules::for_run).transpose()?;
        if let Some(namespaces) = &self.namespaces {
            namespaces.cover_new_sockets()?;
        }
        Ok(confined)
    }
}

/// Why a profile cannot be enforced here: each missing mechanism, by name,
/// with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub profile: Profile,
    pub missing: Vec<(&'static str, String)>,
}

impl Refusal {
    /// The isolation a refused profile would have had: none in force.
    pub fn isolation(&self) -> Isolation {
        Isolation {
            profile: self.profile,
            enforced: Vec::new(),
            missing: self.missing.iter().map(|(m, _)| *m).collect(),
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let missing: Vec<String> = self.missing.iter().map(|(m, reason)| format!("{m} ({reason})")).collect();
        write!(
            f,
            "the `{}` sandbox profile cannot be enforced on this machine, missing: {}; refusing to run with weaker \
             isolation",
            self.profile.name(),
            missing.join("; ")
        )?;
        if self.profile == Profile::Strict {
            write!(f, " (`--sandbox-profile standard` runs confined less)")?;
        }
        Ok(())
    }
}

/// A private directory for `TMPDIR` (mode 0700), removed with the sandbox.
fn private_tmpdir() -> io::Result<tempfile::TempDir> {
    tiss_support::private_dir::private_tempdir("tissvm-tmp-")
}

/// A confined RUN's set-up for its child, and its hold on its cgroups:
/// ending it kills whatever is left of the RUN's tree and reaps it.
#[derive(Debug)]
pub struct Confined<'s> {
    sandbox: &'s Sandbox,
    cgroups: Option<RunCgroups>,
    /// `None` for `none`: a process group of its own, nothing else.
    rlimits: Option<Rlimits>,
    namespaces: Option<&'s Namespaces>,
    seccomp: Option<&'s seccomp::Filter>,
    ruleset: Option<RulesetCreated>,
    /// [`Confined::end`] has run: dropping it ends nothing more (a second
    /// sweep of the orphans would only cost a walk of `/proc`).
    ended: bool,
}

impl<'s> Confined<'s> {
    /// Whether the child is confined at all (not `none`).
    pub fn confines(&self) -> bool {
        self.rlimits.is_some()
    }

    /// Whether the child may share this process's memory until it execs:
    /// not when it takes the Landlock ruleset (`restrict_self` consumes it,
    /// which would move it out of the parent's hands too).
    pub fn may_share_memory(&self) -> bool {
        self.ruleset.is_none() && self.namespaces.is_none()
    }

    /// The cgroup v2 directory the child is to start in
    /// (`CLONE_INTO_CGROUP`), if it has one.
    pub fn cgroup_dir(&self) -> Option<RawFd> {
        self.cgroups.as_ref().and_then(RunCgroups::v2_dir)
    }

    /// `strict`'s namespaces, whose PID namespace the child is to start in
    /// ([`Namespaces::children_in`]).
    pub fn namespaces(&self) -> Option<&'s Namespaces> {
        self.namespaces
    }

    /// In the started child, first (before it enters its working
    /// directory, by path): `strict`'s namespaces. Plain system calls.
    pub fn enter_namespaces(&self) -> io::Result<()> {
        self.namespaces.map_or(Ok(()), Namespaces::enter)
    }

    /// In the started child, before `exec`: the confinement, in order. With
    /// `in_v2` the child already is in [`Confined::cgroup_dir`]; the other
    /// cgroups (v1 controllers) it joins here. Plain system calls only: no
    /// allocation, no lock, and (the child may share this process's memory,
    /// [`Confined::may_share_memory`]) no write but the ruleset's taking.
    /// Whatever needs a capability comes before they are dropped; seccomp
    /// comes last, as its filter refuses some of what comes before.
    pub fn in_child(&mut self, in_v2: bool) -> io::Result<()> {
        let Some(rlimits) = self.rlimits else {
            rustix::process::setpgid(None, None)?;
            return Ok(());
        };
        rustix::process::setsid()?;
        if let Some(cgroups) = &self.cgroups {
            cgroups.join(!in_v2)?;
        }
        rlimits.apply()?;
        rustix::thread::set_no_new_privs(true)?;
        if self.namespaces.is_some() {
            capabilities::drop_all()?;
        }
        if let Some(ruleset) = self.ruleset.take() {
            landlock::enforce(ruleset)?;
        }
        close_inherited()?;
        self.seccomp.map_or(Ok(()), seccomp::Filter::install)
    }

    /// Kills everything the RUN left behind (call once its shell is reaped):
    /// the cgroup kill where there is one, and the sweep of orphans.
    pub fn end(&mut self) {
        if self.rlimits.is_none() || std::mem::replace(&mut self.ended, true) {
            return;
        }
        // Every orphan of a `strict` RUN is the init's: it kills them all.
        // (Should the init be gone, the kernel has ended its namespace.)
        if let Some(namespaces) = self.namespaces {
            let _ = namespaces.sweep();
        }
        match self.cgroups.take() {
            // A cgroup that was killed is removed (dropped) rather than
            // kept for the next RUN (see `RunCgroups::kill`).
            Some(cgroups) => {
                if !cgroups.kill() {
                    self.sandbox.cgroups.lock().unwrap_or_else(|e| e.into_inner()).push(cgroups);
                }
            }
            None => {
                reaper::sweep();
            }
        }
    }
}

impl Drop for Confined<'_> {
    fn drop(&mut self) {
        self.end();
    }
}

/// Marks every descriptor above stderr close-on-exec (book: reference/sandbox.md: under
/// `standard` and `strict` no descriptor the caller left open reaches the
/// command, `tissvm run … 9>>file` included), with `close_range` where the
/// kernel has `CLOSE_RANGE_CLOEXEC` (5.11), else one `fcntl` per possible
/// descriptor. Marked rather than closed: the child still needs its own
/// close-on-exec pipe until `execve`. Plain system calls only (the child may
/// share tissvm's memory).
fn close_inherited() -> io::Result<()> {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    // SAFETY: close_range takes three integers.
    let done = unsafe {
        libc::syscall(libc::SYS_close_range, 3 as libc::c_uint, libc::c_uint::MAX, CLOSE_RANGE_CLOEXEC)
    };
    if done == 0 {
        return Ok(());
    }
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let highest = limit.rlim_cur.min(1 << 20) as libc::c_int;
    for fd in 3..highest {
        // SAFETY: fcntl on a number that is not open fails with EBADF, harmlessly.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    Ok(())
}
