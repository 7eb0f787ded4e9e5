//! `strict`'s Landlock ruleset: the whole system may be read and executed;
//! writes (create, remove, rename, truncate, write) only beneath the
//! workspace, the run's private `TMPDIR`, and to `/dev/null`; no device
//! node made anywhere; and, from ABI 6, no signal to a process outside the
//! RUN and no connection to an abstract unix socket made outside it.
//!
//! Every file-system right and scope the running kernel's ABI knows is
//! handled (up to the ABI the `landlock` crate knows). Its network rights
//! (ABI 4: TCP ports) are not: the network namespace has no way out at all
//! and a RUN's own servers on loopback must keep working. The ruleset is
//! built for that ABI and its status checked: anything short of fully
//! enforced is a refusal, never a weaker run. [`FsRules::new`] asks the
//! kernel once, on a throwaway thread, before the plan runs; the forked
//! child checks again as it restricts itself.

use std::io;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope,
};

/// The running kernel's Landlock ABI, as far as the crate knows it.
pub fn kernel_abi() -> ABI {
    // SAFETY: LANDLOCK_CREATE_RULESET_VERSION with no attribute only asks.
    let version = unsafe {
        libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<u8>(), 0usize, 1 as libc::c_uint)
    };
    ABI::from(version as i32)
}

/// The directories a RUN may write in.
#[derive(Debug, Clone)]
pub struct FsPolicy {
    pub workspace: PathBuf,
    pub tmpdir: PathBuf,
}

/// The policy's ruleset, built once per run of tissvm; each RUN restricts
/// itself with a duplicate of it.
#[derive(Debug)]
pub struct FsRules {
    ruleset: RulesetCreated,
    /// Whether the kernel's ABI has scopes (signals, abstract sockets).
    pub scoped: bool,
}

impl FsRules {
    /// Builds the ruleset and asks the kernel, on a throwaway thread,
    /// whether it enforces it fully; the error names what is missing.
    pub fn new(policy: &FsPolicy) -> Result<FsRules, String> {
        let abi = kernel_abi();
        if abi == ABI::Unsupported {
            return Err(
                "Landlock (Linux ≥ 5.13 with `landlock` in the `lsm=` list): not enabled in this kernel"
                    .into(),
            );
        }
        let ruleset = policy.ruleset(abi).map_err(|e| format!("Landlock: {e}"))?;
        let probe = ruleset.try_clone().map_err(|e| format!("Landlock: {e}"))?;
        // Restricting a thread that then ends leaves the process as it was.
        let status = std::thread::spawn(move || probe.restrict_self().map(|s| s.ruleset))
            .join()
            .map_err(|_| "Landlock: the probe thread panicked".to_string())?
            .map_err(|e| format!("Landlock: {e}"))?;
        match status {
            RulesetStatus::FullyEnforced => Ok(FsRules { ruleset, scoped: abi >= ABI::V6 }),
            RulesetStatus::PartiallyEnforced => {
                Err(format!("Landlock ABI {abi}: this kernel enforces only part of the rules it reports"))
            }
            RulesetStatus::NotEnforced => {
                Err("Landlock (Linux ≥ 5.13 with `landlock` in the `lsm=` list): not enabled in this kernel"
                    .into())
            }
        }
    }

    /// The ruleset for one RUN (a duplicated descriptor), for the child to
    /// restrict itself with ([`enforce`]).
    pub fn for_run(&self) -> io::Result<RulesetCreated> {
        self.ruleset.try_clone()
    }
}

impl FsPolicy {
    /// The ruleset for `abi`: reads everywhere, writes (but no device
    /// node) beneath the two directories and to `/dev/null`, the scopes.
    fn ruleset(&self, abi: ABI) -> io::Result<RulesetCreated> {
        let fail = |e: &dyn std::fmt::Display| io::Error::other(format!("Landlock ruleset: {e}"));
        let beneath = |path: &Path, access| -> io::Result<PathBeneath<PathFd>> {
            Ok(PathBeneath::new(PathFd::new(path).map_err(|e| fail(&e))?, access))
        };
        let all = AccessFs::from_all(abi);
        let writes = all & !(AccessFs::MakeChar | AccessFs::MakeBlock);
        let null = (AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate) & all;
        let rules = [
            beneath(Path::new("/"), AccessFs::from_read(abi))?,
            beneath(&self.workspace, writes)?,
            beneath(&self.tmpdir, writes)?,
            beneath(Path::new("/dev/null"), null)?,
        ];
        let build = || -> Result<RulesetCreated, landlock::RulesetError> {
            let handled = Ruleset::default().set_compatibility(CompatLevel::BestEffort).handle_access(all)?;
            // Before ABI 6 there is no scope to handle (an empty set is an error).
            let handled = if abi >= ABI::V6 { handled.scope(Scope::from_all(abi))? } else { handled };
            handled
                .create()?
                .no_new_privs(true)
                .add_rules(rules.into_iter().map(Ok::<_, landlock::RulesetError>))
        };
        build().map_err(|e| fail(&e))
    }
}

/// Restricts the calling (forked) process; anything short of full
/// enforcement fails, so the command never runs less confined.
pub fn enforce(ruleset: RulesetCreated) -> io::Result<()> {
    match ruleset.restrict_self() {
        Ok(status) if status.ruleset == RulesetStatus::FullyEnforced => Ok(()),
        Ok(_) => Err(io::Error::from_raw_os_error(libc::ENOSYS)),
        Err(_) => Err(io::Error::from_raw_os_error(libc::EPERM)),
    }
}
