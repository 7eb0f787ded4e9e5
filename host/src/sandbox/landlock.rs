//! `strict`'s file-system confinement, enforced by the kernel (Landlock):
//! the whole system may be read and executed; writes (create, remove,
//! rename, truncate, write) only beneath the workspace, the run's private
//! `TMPDIR`, and to `/dev/null`.
//!
//! The rights handled are those of Landlock ABI 3 (file writes, renames
//! across directories, truncation). The ruleset is built BestEffort, as the
//! `landlock` crate advises, and then its status is checked: anything short
//! of fully enforced is a refusal, never a weaker run. [`FsRules::new`]
//! asks the kernel once, on a throwaway thread, before the plan runs; the
//! forked child checks again as it restricts itself.

use std::io;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, RulesetStatus,
};

/// The Landlock ABI whose file-system rights are handled.
const FS_ABI: ABI = ABI::V3;

/// The directories a RUN may write in.
#[derive(Debug, Clone)]
pub struct FsPolicy {
    pub workspace: PathBuf,
    pub tmpdir: PathBuf,
}

/// The policy's ruleset, built once per run of tissvm; each RUN restricts
/// itself with a duplicate of it.
#[derive(Debug)]
pub struct FsRules(RulesetCreated);

impl FsRules {
    /// Builds the ruleset and asks the kernel, on a throwaway thread,
    /// whether it enforces it fully; the error names what is missing.
    pub fn new(policy: &FsPolicy) -> Result<FsRules, String> {
        let ruleset = policy.ruleset().map_err(|e| format!("Landlock: {e}"))?;
        let probe = ruleset.try_clone().map_err(|e| format!("Landlock: {e}"))?;
        // Restricting a thread that then ends leaves the process as it was.
        let status = std::thread::spawn(move || probe.restrict_self().map(|s| s.ruleset))
            .join()
            .map_err(|_| "Landlock: the probe thread panicked".to_string())?
            .map_err(|e| format!("Landlock: {e}"))?;
        match status {
            RulesetStatus::FullyEnforced => Ok(FsRules(ruleset)),
            RulesetStatus::PartiallyEnforced => Err(format!(
                "Landlock ABI {} (Linux ≥ 6.2): this kernel enforces only part of the file-system rules",
                FS_ABI as i32
            )),
            RulesetStatus::NotEnforced => {
                Err("Landlock (Linux ≥ 5.13 with `landlock` in the `lsm=` list): not enabled in this kernel"
                    .into())
            }
        }
    }

    /// The ruleset for one RUN (a duplicated descriptor), for the child to
    /// restrict itself with ([`enforce`]).
    pub fn for_run(&self) -> io::Result<RulesetCreated> {
        self.0.try_clone()
    }
}

impl FsPolicy {
    /// The ruleset: reads everywhere, writes beneath the two directories
    /// and to `/dev/null`.
    fn ruleset(&self) -> io::Result<RulesetCreated> {
        let fail = |e: &dyn std::fmt::Display| io::Error::other(format!("Landlock ruleset: {e}"));
        let beneath = |path: &Path, access| -> io::Result<PathBeneath<PathFd>> {
            Ok(PathBeneath::new(PathFd::new(path).map_err(|e| fail(&e))?, access))
        };
        let all = AccessFs::from_all(FS_ABI);
        let null = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate;
        let rules = [
            beneath(Path::new("/"), AccessFs::from_read(FS_ABI))?,
            beneath(&self.workspace, all)?,
            beneath(&self.tmpdir, all)?,
            beneath(Path::new("/dev/null"), null)?,
        ];
        let build = || -> Result<RulesetCreated, landlock::RulesetError> {
            Ruleset::default()
                .set_compatibility(CompatLevel::BestEffort)
                .handle_access(all)?
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
