//! The sandbox of RUN (SPEC §8): what a command's processes may do, enforced
//! by the kernel, one file per mechanism.
//!
//! - `profile.rs`: the profiles, the limits, the isolation reported;
//! - `rlimits.rs`: no core dumps, a largest file, open files;
//! - `reaper.rs`: tissvm a child subreaper, the sweep of a RUN's orphans;
//! - `cgroup.rs`: the cgroups a RUN runs in (the kill, `pids`, `memory`);
//! - `landlock.rs`: writes only in the workspace, `TMPDIR`, `/dev/null`;
//! - `network.rs`: a network namespace with only loopback.
//!
//! Invariants: a profile is enforced whole or refused before anything runs
//! ([`Sandbox::prepare`] probes every mechanism; the refusal names what is
//! missing) — never weakened. The forked child applies each mechanism before
//! `exec` and a failure there stops the command from starting (fail-closed).
//! The only fallback is `standard`'s kill: without `cgroup.kill` the
//! subreaper's sweep ends the tree, and the report lists `cgroup_kill` as
//! missing.

pub mod cgroup;
pub mod landlock;
pub mod network;
pub mod profile;
pub mod reaper;
pub mod rlimits;

use std::io;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

pub use profile::{Isolation, Limits, Profile};

use crate::host::environment;
use cgroup::{RunCgroups, Wanted};
use landlock::{FsPolicy, FsRules};
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
    network: Option<network::Namespace>,
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
            network: None,
            tmpdir: None,
        }
    }

    /// Detects and probes every mechanism `profile` needs for RUNs in
    /// `workspace`. A [`Refusal`] (a `security_violation`, exit 5) names
    /// each missing one.
    pub fn prepare(profile: Profile, workspace: &Path, limits: Limits) -> Result<Sandbox, Refusal> {
        let mut sandbox = Sandbox::none();
        if profile == Profile::None {
            return Ok(sandbox);
        }
        let strict = profile == Profile::Strict;
        let mut missing: Vec<(&'static str, String)> = Vec::new();
        let mut enforced = vec!["env_allowlist", "session", "no_new_privs", "rlimits"];
        match reaper::enable() {
            Ok(()) => enforced.push("subreaper"),
            Err(e) => missing.push(("subreaper", e)),
        }
        let wanted = Wanted { kill: true, limits: strict.then_some(limits) };
        let created = RunCgroups::create(wanted);
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
        sandbox.cgroup_wanted = Some(wanted);
        if strict {
            match private_tmpdir() {
                Ok(tmpdir) => {
                    let policy =
                        FsPolicy { workspace: workspace.to_path_buf(), tmpdir: tmpdir.path().to_path_buf() };
                    match FsRules::new(&policy) {
                        Ok(rules) => {
                            enforced.push("landlock");
                            sandbox.fs = Some(rules);
                        }
                        Err(e) => missing.push(("landlock", e)),
                    }
                    sandbox.tmpdir = Some(tmpdir);
                }
                Err(e) => missing.push(("private_tmpdir", format!("cannot create a private TMPDIR: {e}"))),
            }
            match network::Namespace::new() {
                Ok(namespace) => {
                    enforced.push("network_namespace");
                    sandbox.network = Some(namespace);
                }
                Err(e) => missing.push(("network_namespace", e)),
            }
        }
        if !missing.is_empty() {
            return Err(Refusal { profile, missing });
        }
        sandbox.isolation.profile = profile;
        sandbox.isolation.enforced = enforced;
        sandbox.rlimits = Some(Rlimits::new());
        Ok(sandbox)
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
    /// caller's, else the allowlist (SPEC §8), `strict` adding its `TMPDIR`;
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

    /// Sets `command` up to start confined (a session of its own, the
    /// cgroups, rlimits, no new privileges, then `strict`'s namespace and
    /// Landlock, in the forked child before `exec`). The [`Confined`] ends
    /// the RUN's whole tree.
    pub fn confine(&self, command: &mut Command) -> io::Result<Confined<'_>> {
        let Some(rlimits) = self.rlimits else {
            command.process_group(0);
            return Ok(Confined { sandbox: self, cgroups: None });
        };
        let cgroups = match self.cgroup_wanted {
            Some(wanted) => {
                let idle = self.cgroups.lock().unwrap_or_else(|e| e.into_inner()).pop();
                match idle {
                    Some(c) => Some(c),
                    None => fresh_cgroups(wanted)?,
                }
            }
            None => None,
        };
        let confined = Confined { sandbox: self, cgroups };
        let join = confined.cgroups.as_ref().map(RunCgroups::join_fds).unwrap_or_default();
        let network = self.network.as_ref().map(network::Namespace::fd);
        let mut ruleset = self.fs.as_ref().map(FsRules::for_run).transpose()?;
        // SAFETY: the closure runs in the forked child and makes plain
        // system calls only: no allocation, no lock.
        unsafe {
            command.pre_exec(move || {
                rustix::process::setsid()?;
                for &fd in &join {
                    if libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                        return Err(io::Error::last_os_error());
                    }
                }
                rlimits.apply()?;
                if let Some(namespace) = network {
                    network::enter(namespace)?;
                }
                rustix::thread::set_no_new_privs(true)?;
                if let Some(ruleset) = ruleset.take() {
                    landlock::enforce(ruleset)?;
                }
                Ok(())
            });
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

/// A new cgroup set during the run (a second RUN in flight at once): it must
/// have all that the one probed had.
fn fresh_cgroups(wanted: Wanted) -> io::Result<Option<RunCgroups>> {
    let created = RunCgroups::create(wanted);
    if let Some((mechanism, reason)) = created.missing.iter().find(|(m, _)| *m != "cgroup_kill") {
        return Err(io::Error::other(format!("sandbox: {mechanism}: {reason}")));
    }
    Ok(created.cgroups)
}

/// A private directory for `TMPDIR` (mode 0700), removed with the sandbox.
fn private_tmpdir() -> io::Result<tempfile::TempDir> {
    tempfile::Builder::new().prefix("tissvm-tmp-").tempdir()
}

/// A confined RUN's hold on its cgroups: ending it kills whatever is left of
/// the RUN's tree and reaps it.
#[derive(Debug)]
pub struct Confined<'s> {
    sandbox: &'s Sandbox,
    cgroups: Option<RunCgroups>,
}

impl Confined<'_> {
    /// Kills everything the RUN left behind (call once its shell is reaped):
    /// the cgroup kill where there is one, and the sweep of orphans.
    pub fn end(&mut self) {
        if self.sandbox.rlimits.is_none() {
            return;
        }
        match self.cgroups.take() {
            Some(cgroups) => {
                cgroups.kill();
                self.sandbox.cgroups.lock().unwrap_or_else(|e| e.into_inner()).push(cgroups);
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
