//! The plans' fresh workspaces (book: guide/many-plans.md): `WORKDIR/<plan path>/` (the
//! plan's key, `plans::key`: no two plans share one, none holds another's),
//! or a temporary directory. Made ahead of their plans, in the
//! order of the list, on a thread of their own: a directory costs up to a
//! millisecond on a busy disk, which would otherwise stand between one
//! plan's end and the next one's start (`benches/many_plans.sh`).

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

pub struct Workspace {
    pub path: PathBuf,
    /// Made in the temporary directory: removed when its plan passes.
    pub temporary: bool,
    /// Made here, rather than found.
    created: bool,
}

impl Workspace {
    /// Removes a workspace made for a plan that does not start in it.
    pub fn discard(self) {
        if self.created {
            let _ = if self.temporary {
                std::fs::remove_dir_all(&self.path)
            } else {
                std::fs::remove_dir(&self.path)
            };
        }
    }
}

/// The workspaces made ahead.
pub struct Ahead {
    receiver: Option<Receiver<Result<Workspace, String>>>,
    maker: Option<JoinHandle<()>>,
}

impl Ahead {
    /// Starts making the workspaces of `plans`, at most `ahead` before they are taken.
    pub fn start(plans: Vec<PathBuf>, workdir: Option<PathBuf>, ahead: usize) -> Ahead {
        let (sender, receiver) = sync_channel(ahead);
        let maker = std::thread::spawn(move || make_all(plans, workdir.as_deref(), sender));
        Ahead { receiver: Some(receiver), maker: Some(maker) }
    }

    /// The next plan's workspace.
    pub fn next(&self) -> Result<Workspace, String> {
        let received = self.receiver.as_ref().and_then(|r| r.recv().ok());
        received.unwrap_or_else(|| Err("its workspace could not be made".into()))
    }
}

impl Drop for Ahead {
    /// Workspaces made for plans that did not start are removed again.
    fn drop(&mut self) {
        if let Some(receiver) = self.receiver.take() {
            receiver.try_iter().flatten().for_each(Workspace::discard);
        }
        if let Some(maker) = self.maker.take() {
            let _ = maker.join();
        }
    }
}

fn make_all(plans: Vec<PathBuf>, workdir: Option<&Path>, sender: SyncSender<Result<Workspace, String>>) {
    for plan in plans {
        if let Err(unsent) = sender.send(make(&plan, workdir)) {
            // Nobody takes it any more: the run has ended.
            if let Ok(workspace) = unsent.0 {
                workspace.discard();
            }
            return;
        }
    }
}

fn make(plan: &Path, workdir: Option<&Path>) -> Result<Workspace, String> {
    let key = super::plans::key(plan);
    match workdir {
        Some(dir) => {
            let path = dir.join(&key);
            let created = !path.exists();
            std::fs::create_dir_all(&path)
                .map_err(|e| format!("cannot create its workspace `{}`: {e}", path.display()))?;
            Ok(Workspace { path, temporary: false, created })
        }
        None => {
            let stem = key.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let path = tiss_support::private_dir::private_tempdir(&format!("tiss-{stem}-"))
                .map_err(|e| format!("cannot make its temporary workspace: {e}"))?
                .keep();
            Ok(Workspace { path, temporary: true, created: true })
        }
    }
}
