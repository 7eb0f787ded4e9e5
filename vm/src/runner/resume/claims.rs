//! What a resumed run follows of its snapshot (book: reference/snapshots.md): the snapshot is
//! this user's if this user's key signed it; then the options it
//! remembers are followed, a sandbox profile or limit given again only
//! tightening them unless `--raise-budget`.

use std::path::PathBuf;

use tiss_support::shell::quote::shell_word;

use crate::provider::settings::Key;
use crate::runner::options::HostOptions;
use crate::session::snapshot::{self, RememberedOptions};
use crate::session::snapshot_key::SnapshotKey;
use tiss_host::sandbox::{Limits, Profile};

/// Why a snapshot signed with another key is not this user's.
const OTHER_KEY: &str =
    "it is signed with another key: by another user, on another machine, or it was changed since";

/// Why a snapshot without a signature is not this user's.
const NO_SIGNATURE: &str = "it carries no signature: the tissvm that wrote it, or the last to mark it resumed, \
                            had no usable key or not the one that signed it";

/// Whether the snapshot file `bytes` (which carries a signature if
/// `signed`) is signed by this user's `key`; if not, why, in words.
pub fn signed_by_user(bytes: &[u8], signed: bool, key: &Result<SnapshotKey, String>) -> Result<(), String> {
    match key {
        Ok(key) if snapshot::signed_by(bytes, key) => Ok(()),
        Ok(_) if signed => Err(OTHER_KEY.into()),
        Ok(_) => Err(NO_SIGNATURE.into()),
        Err(why) => Err(why.clone()),
    }
}

/// The options the run had, other than a fresh run's defaults, that this
/// resume goes on with (none given again), as flags.
pub fn kept_options(run: &RememberedOptions, now: &RememberedOptions) -> Vec<String> {
    let fresh = RememberedOptions::default();
    let mut flags = Vec::new();
    let path = |p: &Option<PathBuf>| p.as_ref().map(|p| shell_word(&p.display().to_string()));
    if run.snapshot_dir != fresh.snapshot_dir && now.snapshot_dir == run.snapshot_dir {
        flags.extend(path(&run.snapshot_dir).map(|p| format!("--snapshot-dir {p}")));
    }
    if run.log_file != fresh.log_file && now.log_file == run.log_file {
        flags.extend(path(&run.log_file).map(|p| format!("--log-file {p}")));
    }
    for key in Key::ALL {
        let value = run.provider.text(key);
        if value != fresh.provider.text(key)
            && now.provider.text(key) == value
            && let Some(value) = value
        {
            flags.push(format!("--{} {}", key.flag(), shell_word(&value)));
        }
    }
    if run.sandbox_profile != fresh.sandbox_profile && now.sandbox_profile == run.sandbox_profile {
        flags.push(format!("--sandbox-profile {}", shell_word(&run.sandbox_profile)));
    }
    if run.policy != fresh.policy && now.policy == run.policy {
        flags.push(format!("policy from {}", run.policy.origin));
    }
    if run.limits.max_procs != fresh.limits.max_procs && now.limits.max_procs == run.limits.max_procs {
        flags.push(format!("--max-procs {}", run.limits.max_procs));
    }
    if run.limits.max_memory != fresh.limits.max_memory && now.limits.max_memory == run.limits.max_memory {
        flags.push(format!("--max-memory {}", run.limits.max_memory));
    }
    if let Some(max) = run.log_max_output.filter(|_| now.log_max_output == run.log_max_output) {
        flags.push(format!("--log-max-output {max}"));
    }
    if now.env_allow == run.env_allow {
        flags.extend(run.env_allow.iter().map(|name| format!("--env-allow {}", shell_word(name))));
    }
    flags
}

/// Why a sandbox profile given on resume (flag or `TISS_SANDBOX_PROFILE`)
/// is refused: it would confine the run less than it was.
pub fn weakened(run: &str, now: &str, host: &HostOptions) -> Option<String> {
    let strength = |name: &str| Profile::ALL.iter().position(|p| p.name() == name);
    if strength(now)? >= strength(run)? {
        return None;
    }
    let given = if host.sandbox_profile.is_some() {
        format!("--sandbox-profile {now}")
    } else {
        format!("TISS_SANDBOX_PROFILE={now}")
    };
    Some(format!(
        "{given} would confine the resumed run less than the run's `{run}` sandbox; resume without it to keep \
         `{run}`, or add --raise-budget to loosen it"
    ))
}

/// Like a budget, a sandbox limit given on resume only lowers the run's
/// (`--raise-budget` lets it rise): `now` keeps `run`'s where it would
/// raise it, and what is returned says so, per limit.
pub fn keep_limits_down(run: &Limits, now: &mut Limits) -> Vec<String> {
    let mut notes = Vec::new();
    if now.max_procs > run.max_procs {
        notes.push(format!(
            "--max-procs {} does not raise the run's limit ({}); add --raise-budget to raise it",
            now.max_procs, run.max_procs
        ));
        now.max_procs = run.max_procs;
    }
    if now.max_memory > run.max_memory {
        notes.push(format!(
            "--max-memory {} does not raise the run's limit ({} bytes); add --raise-budget to raise it",
            now.max_memory, run.max_memory
        ));
        now.max_memory = run.max_memory;
    }
    notes
}
