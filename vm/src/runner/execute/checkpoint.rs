//! `--checkpoint FILE`: the run's state as it stands before each effect
//! that changes the world (RUN, PROMPT_AGENT, WRITE, APPEND), kept in one
//! snapshot file, replaced atomically at each — but not synced to disk,
//! which cost 6 ms an effect here: it outlives a killed process, not
//! always a crashed machine. A run killed outright
//! (SIGKILL: a scheduler's KillWait ran out, the node lost power) gets no
//! chance to suspend; resumed from its checkpoint (`tissvm resume --force
//! FILE`) it loses at most the effect that was in flight, which runs again.
//! Many plans with `--report-dir` keep one per plan, and
//! `--continue-from-reports` resumes a plan that left no report from it.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::host::Host;
use crate::machine::Machine;
use crate::machine::program::Program;
use crate::runner::os_host::OsHost;
use crate::session::snapshot::{self, SnapshotRef};
use crate::session::snapshot_key::SnapshotKey;
use tiss_support::atomic_write::replace_with;
use tisslang::isa::Instr;

use crate::runner::execute::suspend::{Parts, signing_key};
use tiss_support::io_message::io_message;

/// Where a run keeps its checkpoint, and what each one needs.
pub struct Checkpoint {
    path: PathBuf,
    /// The module's `.tbc` bytes, encoded once.
    bytecode: Vec<u8>,
    key: Option<SnapshotKey>,
}

impl Checkpoint {
    /// Where it is kept, reached beneath the workspace `root` if it lies
    /// there (`None`: it cannot be reached, and is not written).
    pub fn own_path(&self, root: &Path) -> Option<PathBuf> {
        tiss_host::workspace::own_path(root, &self.path).ok()
    }

    /// Checks that `path` can be written (its directory is made) before
    /// anything runs.
    pub fn open(path: &Path, program: &Program, bytecode: Option<&[u8]>) -> Result<Checkpoint, String> {
        let dir = tiss_support::atomic_write::parent_of(path);
        std::fs::create_dir_all(dir).map_err(|e| {
            format!(
                "--checkpoint `{}`: cannot create `{}`: {}",
                path.display(),
                dir.display(),
                io_message(&e)
            )
        })?;
        if path.is_dir() {
            return Err(format!("--checkpoint `{}` is a directory: give the file's name", path.display()));
        }
        Ok(Checkpoint {
            path: std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
            bytecode: bytecode.map_or_else(|| tisslang::container::encode(&program.module), <[u8]>::to_vec),
            key: signing_key().ok(),
        })
    }

    /// Whether the instruction at `machine`'s pc changes the world.
    pub fn due(program: &Program, machine: &Machine) -> bool {
        matches!(
            program.module.code.get(machine.pc as usize),
            Some(Instr::Run { .. } | Instr::Prompt { .. } | Instr::Write {} | Instr::Append {})
        )
    }

    /// Replaces the checkpoint with `machine` as it stands; the log and
    /// the cassette are brought up to it first.
    pub fn write(&self, program: &Program, machine: &Machine, parts: &Parts<'_>, host: &mut OsHost) {
        if let Some(log) = &mut host.log
            && let Err(e) = log.flush()
        {
            eprintln!("tissvm: warning: cannot write the log file: {e}");
        }
        if let Err(e) = host.persist() {
            eprintln!("tissvm: {e}");
        }
        let written = snapshot::encode(&SnapshotRef {
            machine,
            bytecode: &self.bytecode,
            content_hash: program.hash(),
            workspace: parts.workspace,
            answers: parts.answers,
            options: parts.options,
            resumed: None,
            key: self.key.as_ref(),
        })
        .map_err(|e| e.to_string())
        .and_then(|bytes| {
            // In the workspace, reached as the plan's paths are: its commands run between checkpoints.
            let path = tiss_host::workspace::own_path(parts.workspace, &self.path).map_err(|e| {
                let (tiss_host::Error::Security(why) | tiss_host::Error::Command(why)) = e;
                why
            })?;
            replace_with(&path, Some(0o600), |file| file.write_all(&bytes)).map_err(|e| io_message(&e))
        });
        if let Err(e) = written {
            eprintln!("tissvm: warning: cannot write the checkpoint `{}`: {e}", self.path.display());
        }
    }
}
