//! The project file where the plan's commands can write it (book:
//! reference/sandbox.md, "tissvm's own files"). Every `tissvm` reads
//! `./tiss.toml`, which names the provider (where the API key is sent), the
//! command policy and the cassettes; run in its workspace, a plan could
//! rewrite it for the runs that come after (a `base_url` of its own, and the
//! next run sends it the key). So the `tiss.toml` of the workspace and of the
//! current directory, when that lies in the workspace, are read before the
//! plan runs and compared after: one the plan's commands changed is put back
//! as it was, the plan's version kept beside it as `tiss.toml.from-plan` for
//! the user to read, and stderr says so.

use std::path::{Path, PathBuf};

use tiss_host::workspace::own_path;

use crate::report::style::Tone;
use crate::runner::color;

const NAME: &str = "tiss.toml";

/// The project files of a run's workspace, as they were before it ran.
pub struct ProjectFiles {
    workspace: PathBuf,
    files: Vec<(PathBuf, State)>,
}

/// What stood at a project file's name.
#[derive(PartialEq)]
enum State {
    Absent,
    File(Vec<u8>),
    /// A symbolic link, and where it points.
    Link(PathBuf),
    /// Anything else (a directory, a file that cannot be read): not watched.
    Other,
}

impl State {
    fn of(path: &Path) -> State {
        match std::fs::symlink_metadata(path) {
            Err(_) => State::Absent,
            Ok(m) if m.is_file() => std::fs::read(path).map_or(State::Other, State::File),
            Ok(m) if m.file_type().is_symlink() => std::fs::read_link(path).map_or(State::Other, State::Link),
            Ok(_) => State::Other,
        }
    }
}

impl ProjectFiles {
    /// Reads the project files a plan running in `workspace` could change.
    pub fn before(workspace: &Path) -> ProjectFiles {
        let mut dirs = vec![workspace.to_path_buf()];
        if let (Ok(cwd), Ok(root)) = (std::env::current_dir(), std::fs::canonicalize(workspace))
            && cwd.starts_with(&root)
            && cwd != root
        {
            dirs.push(cwd);
        }
        let files = dirs
            .into_iter()
            .filter_map(|dir| Some(own_path(workspace, &dir).ok()?.join(NAME)))
            .map(|path| {
                let state = State::of(&path);
                (path, state)
            })
            .filter(|(_, state)| *state != State::Other)
            .collect();
        ProjectFiles { workspace: workspace.to_path_buf(), files }
    }

    /// Puts back each project file the run changed, keeping the plan's
    /// version beside it, and says so on stderr.
    pub fn after(self) {
        for (path, before) in &self.files {
            if State::of(path) == *before {
                continue;
            }
            let warning = color::stderr().paint(Tone::Warn, "warning");
            match self.put_back(path, before) {
                Ok(kept) => eprintln!(
                    "tissvm: {warning}: the plan's commands changed `{}`, the project file every tissvm run \
                     there reads (the provider the API key goes to, the command policy): it is {}; the plan's \
                     version is `{}`: read it before you use it",
                    path.display(),
                    if *before == State::Absent { "taken away" } else { "put back as it was" },
                    kept.display()
                ),
                Err(why) => eprintln!(
                    "tissvm: {warning}: the plan's commands changed `{}`, the project file every tissvm run \
                     there reads, and it could not be put back ({why}): read it before the next run there",
                    path.display()
                ),
            }
        }
    }

    /// Moves what the plan left at `path` aside and puts `before` back;
    /// where the plan's went.
    fn put_back(&self, path: &Path, before: &State) -> Result<PathBuf, String> {
        // The directory as the plan's paths are reached: it may have made
        // a link of it since.
        let dir = path.parent().unwrap_or(Path::new("."));
        let dir = own_path(&self.workspace, dir).map_err(|e| {
            let (tiss_host::Error::Security(why) | tiss_host::Error::Command(why)) = e;
            why
        })?;
        let (file, mut kept) = (dir.join(NAME), dir.join(format!("{NAME}.from-plan")));
        let mut n = 1;
        while std::fs::symlink_metadata(&kept).is_ok() {
            n += 1;
            kept = dir.join(format!("{NAME}.from-plan-{n}"));
        }
        if std::fs::symlink_metadata(&file).is_ok() {
            std::fs::rename(&file, &kept).map_err(|e| e.to_string())?;
        }
        match before {
            State::File(bytes) => {
                tiss_support::atomic_write::write_atomically(&file, bytes, None).map_err(|e| e.to_string())?
            }
            State::Link(target) => std::os::unix::fs::symlink(target, &file).map_err(|e| e.to_string())?,
            State::Absent | State::Other => {}
        }
        Ok(kept)
    }
}
