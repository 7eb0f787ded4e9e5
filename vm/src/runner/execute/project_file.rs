//! The files tissvm reads in the workspace, where the plan's commands can
//! write them (book: reference/sandbox.md, "tissvm's own files"). Every
//! `tissvm` reads `./tiss.toml`, which names the provider (where the API key
//! is sent), the command policy and the cassettes; and a resume reads the
//! run's `--answers` file, whose entries answer for a person (a RUN's
//! approval too); a `--policy` file is read by every run given it. Run in its workspace, a plan could rewrite either for what
//! comes after it: a `base_url` of its own, and the next run sends it the
//! key; an `approve`, and a resume runs a command the policy holds for a
//! person. So the `tiss.toml` of the workspace and of the current directory
//! (when that lies in the workspace), and an answers or policy file in the
//! workspace, are read before the plan runs and compared after: one the plan's commands
//! changed is put back as it was, the plan's version kept beside it
//! (`NAME.from-plan`) for the user to read, and stderr says so.

use std::path::{Path, PathBuf};

use tiss_host::workspace::own_path;

use crate::report::style::Tone;
use crate::runner::color;

const NAME: &str = "tiss.toml";

/// What a watched file is to tissvm, for the warning.
const PROJECT: &str =
    "the project file every tissvm run there reads (the provider the API key goes to, the command policy)";
const ANSWERS: &str = "the answers file this run's resume reads (answers for a person, approvals among them)";
const POLICY: &str = "the command policy file this run was given";

/// The files tissvm reads in a run's workspace, as they were before it ran.
pub struct ProjectFiles {
    workspace: PathBuf,
    /// Each file, what it stood as, and what it is to tissvm.
    files: Vec<(PathBuf, State, &'static str)>,
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
    /// Reads the files a plan running in `workspace` could change: its
    /// project files, and the run's answers file (`answers`) and command
    /// policy file (`policy`) if they lie there.
    pub fn before(workspace: &Path, answers: Option<&Path>, policy: Option<&Path>) -> ProjectFiles {
        let mut dirs = vec![workspace.to_path_buf()];
        if let (Ok(cwd), Ok(root)) = (std::env::current_dir(), std::fs::canonicalize(workspace))
            && cwd.starts_with(&root)
            && cwd != root
        {
            dirs.push(cwd);
        }
        let project =
            dirs.into_iter().filter_map(|dir| Some((own_path(workspace, &dir).ok()?.join(NAME), PROJECT)));
        let given = [(answers, ANSWERS), (policy, POLICY)].into_iter().filter_map(|(file, what)| {
            let file = file.filter(|file| tiss_host::workspace::lies_in(workspace, file))?;
            Some((own_path(workspace, file).ok()?, what))
        });
        let files = project
            .chain(given)
            .map(|(path, what)| (State::of(&path), path, what))
            .filter(|(state, ..)| *state != State::Other)
            .map(|(state, path, what)| (path, state, what))
            .collect();
        ProjectFiles { workspace: workspace.to_path_buf(), files }
    }

    /// Puts back each project file the run changed, keeping the plan's
    /// version beside it, and says so on stderr.
    pub fn after(self) {
        for (path, before, what) in &self.files {
            if State::of(path) == *before {
                continue;
            }
            let warning = color::stderr().paint(Tone::Warn, "warning");
            match self.put_back(path, before) {
                Ok(kept) => eprintln!(
                    "tissvm: {warning}: the plan's commands changed `{}`, {what}: it is {}; the plan's \
                     version is `{}`: read it before you use it",
                    path.display(),
                    if *before == State::Absent { "taken away" } else { "put back as it was" },
                    kept.display()
                ),
                Err(why) => eprintln!(
                    "tissvm: {warning}: the plan's commands changed `{}`, {what}, and it could not be put \
                     back ({why}): read it before tissvm reads it again",
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
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return Err("it has no directory".into());
        };
        let dir = own_path(&self.workspace, dir).map_err(|e| {
            let (tiss_host::Error::Security(why) | tiss_host::Error::Command(why)) = e;
            why
        })?;
        let name = name.to_string_lossy();
        let (file, mut kept) = (dir.join(&*name), dir.join(format!("{name}.from-plan")));
        let mut n = 1;
        while std::fs::symlink_metadata(&kept).is_ok() {
            n += 1;
            kept = dir.join(format!("{name}.from-plan-{n}"));
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
