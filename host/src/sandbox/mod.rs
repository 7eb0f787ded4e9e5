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
//! missing) — never weakened. The started child (`spawn.rs`) applies
//! each mechanism before `exec` and a failure there stops the command from
//! starting (fail-closed). What `standard` sets up at its first RUN (the
//! subreaper, the cgroup) was probed before the plan started, and a set-up
//! that fails all the same refuses that RUN.
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
use std::os::fd::RawFd;
use std::path::Path;
use std::sync::Mutex;

use ::landlock::RulesetCreated;

pub use profile::{Isolation, Limits, Profile};

use crate::environment;
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
    /// each missing one. `standard` only probes: the subreaper and the
    /// run's cgroup are set up at the first RUN, so a plan without RUN makes
    /// no cgroup; `strict` makes its cgroups here, as its limits must be
    /// written to be known to hold.
    pub fn prepare(profile: Profile, workspace: &Path, limits: Limits) -> Result<Sandbox, Refusal> {
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

    /// What a RUN starts confined in (its own session, the cgroups,
    /// rlimits, no new privileges, then `strict`'s namespace and Landlock,
    /// put in force by [`Confined::in_child`] before `exec`). The
    /// [`Confined`] ends the RUN's whole tree.
    pub fn confine(&self) -> io::Result<Confined<'_>> {
        let mut confined = Confined {
            sandbox: self,
            cgroups: None,
            rlimits: self.rlimits,
            network: None,
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
        confined.network = self.network.as_ref().map(network::Namespace::fd);
        confined.ruleset = self.fs.as_ref().map(FsRules::for_run).transpose()?;
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
    tempfile::Builder::new().prefix("tissvm-tmp-").tempdir()
}

/// A confined RUN's set-up for its child, and its hold on its cgroups:
/// ending it kills whatever is left of the RUN's tree and reaps it.
#[derive(Debug)]
pub struct Confined<'s> {
    sandbox: &'s Sandbox,
    cgroups: Option<RunCgroups>,
    /// `None` for `none`: a process group of its own, nothing else.
    rlimits: Option<Rlimits>,
    network: Option<RawFd>,
    ruleset: Option<RulesetCreated>,
    /// [`Confined::end`] has run: dropping it ends nothing more (a second
    /// sweep of the orphans would only cost a walk of `/proc`).
    ended: bool,
}

impl Confined<'_> {
    /// Whether the child is confined at all (not `none`).
    pub fn confines(&self) -> bool {
        self.rlimits.is_some()
    }

    /// Whether the child may share this process's memory until it execs:
    /// not when it takes the Landlock ruleset (`restrict_self` consumes it,
    /// which would move it out of the parent's hands too).
    pub fn may_share_memory(&self) -> bool {
        self.ruleset.is_none()
    }

    /// The cgroup v2 directory the child is to start in
    /// (`CLONE_INTO_CGROUP`), if it has one.
    pub fn cgroup_dir(&self) -> Option<RawFd> {
        self.cgroups.as_ref().and_then(RunCgroups::v2_dir)
    }

    /// In the started child, before `exec`: the confinement, in order. With
    /// `in_v2` the child already is in [`Confined::cgroup_dir`]; the other
    /// cgroups (v1 controllers) it joins here. Plain system calls only: no
    /// allocation, no lock, and (the child may share this process's memory,
    /// [`Confined::may_share_memory`]) no write but the ruleset's taking.
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
        if let Some(namespace) = self.network {
            network::enter(namespace)?;
        }
        rustix::thread::set_no_new_privs(true)?;
        if let Some(ruleset) = self.ruleset.take() {
            landlock::enforce(ruleset)?;
        }
        Ok(())
    }

    /// Kills everything the RUN left behind (call once its shell is reaped):
    /// the cgroup kill where there is one, and the sweep of orphans.
    pub fn end(&mut self) {
        if self.rlimits.is_none() || std::mem::replace(&mut self.ended, true) {
            return;
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
