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
//! (`NAME.from-plan`) for the user to read, and stderr says so. So that a
//! tissvm killed before it could look still has them put back, each run
//! keeps them in a record outside the workspace too (`unfinished.rs`), which
//! the next tissvm reads ([`settle_before_reading`]).

use std::cell::RefCell;
use std::ffi::OsStr;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use tiss_host::workspace::own_path;

use super::unfinished::{self, Kept, KeptFile, KeptState, Record};
use crate::provider::settings::as_it_stood::{self, StoodFile};
use crate::report::style::Tone;
use crate::runner::color;
use crate::runner::os_host::OsHost;

const NAME: &str = "tiss.toml";

/// What a watched file is to tissvm.
#[derive(Clone, Copy)]
enum Watched {
    Project,
    Answers,
    Policy,
}

impl Watched {
    const ALL: [Watched; 3] = [Watched::Project, Watched::Answers, Watched::Policy];

    /// For the warning.
    fn what(self) -> &'static str {
        match self {
            Watched::Project => {
                "the project file every tissvm run there reads (the provider the API key goes to, the command policy)"
            }
            Watched::Answers => {
                "the answers file this run's resume reads (answers for a person, approvals among them)"
            }
            Watched::Policy => "the command policy file this run was given",
        }
    }
}

/// The files tissvm reads in a run's workspace, as they were before it ran.
pub struct ProjectFiles {
    workspace: PathBuf,
    /// Each file (its absolute path), what it stood as, and what it is to
    /// tissvm: what the record outside the workspace keeps too.
    kept: Rc<Kept>,
    /// That record, from just before the run's first effect that can change
    /// a file ([`Self::keep_before_change`]).
    outside: Rc<RefCell<Outside>>,
    /// For each file kept, whether it was already changed when the run
    /// began (by another run going on, whose plan's it may be).
    changed_before: Vec<bool>,
}

/// The record outside the workspace: not yet written (a plan that changes
/// nothing never costs one), written, or not to be.
enum Outside {
    Pending,
    Written(Record),
    None,
}

/// What stands at a watched file's name; `None` for anything else (a
/// directory, a file that cannot be read), which is not watched.
fn state_of(path: &Path) -> Option<KeptState> {
    match std::fs::symlink_metadata(path) {
        Err(_) => Some(KeptState::Absent),
        Ok(m) if m.is_file() => std::fs::read(path).ok().map(KeptState::File),
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::read_link(path).ok().map(|target| KeptState::Link(target.into_os_string().into_vec()))
        }
        Ok(_) => None,
    }
}

/// A path kept as bytes.
fn path_of(bytes: &[u8]) -> &Path {
    Path::new(OsStr::from_bytes(bytes))
}

/// What a tissvm that reads these files does first: puts back the files
/// of earlier runs that ended without looking at them (killed), as
/// [`ProjectFiles::after`] would have, and has those a run going on may
/// have changed read as they stood before it began.
pub fn settle_before_reading() {
    for mut orphan in unfinished::orphans() {
        let kept = std::mem::take(&mut orphan.kept);
        let workspace = path_of(&kept.workspace).to_path_buf();
        if std::fs::symlink_metadata(&workspace).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
            // Gone with its files: nothing there to read.
            orphan.done();
            continue;
        }
        let outside = Rc::new(RefCell::new(Outside::None));
        let files = ProjectFiles { workspace, kept: Rc::new(kept), outside, changed_before: Vec::new() };
        files.put_back_changed(Who::KilledRun(&orphan.pid));
        orphan.done();
    }
    read_as_before_living_runs();
}

/// The files runs still going on keep that are no longer as they stood
/// when the first of them began: its plan may have changed them (put back
/// when it ends), so this tissvm reads them as they stood, and says so.
fn read_as_before_living_runs() {
    let mut stood: Vec<StoodFile> = Vec::new();
    for kept in unfinished::live() {
        let workspace = path_of(&kept.workspace).display().to_string();
        for KeptFile { path, state, .. } in kept.files {
            let at = path_of(&path).to_path_buf();
            if stood.iter().any(|file| file.path == at) || state_of(&at).as_ref() == Some(&state) {
                continue;
            }
            let bytes = match state {
                KeptState::Absent => None,
                KeptState::File(bytes) => Some(bytes),
                // As it stood, a link: what it pointed to (what stands at
                // its name now may be the plan's).
                KeptState::Link(target) => {
                    let dir = at.parent().unwrap_or(Path::new("/"));
                    std::fs::read(dir.join(path_of(&target))).ok()
                }
            };
            let note = format!(
                "{}: `{}` changed while a tissvm still running in `{workspace}` ran, whose plan may have \
                 changed it: it is read as it stood before that run began (that run puts it back when it ends)",
                color::stderr().paint(Tone::Warn, "warning"),
                at.display()
            );
            stood.push(StoodFile::new(at, bytes, note));
        }
    }
    as_it_stood::read_as_it_stood(stood);
}

/// Who is told to have changed a file, in the warning.
#[derive(Clone, Copy)]
enum Who<'a> {
    /// The plan's commands, in this run.
    Plan,
    /// Someone, while a run that was then killed (its pid) lasted, or since.
    KilledRun(&'a str),
}

impl ProjectFiles {
    /// Reads the files a plan running in `workspace` could change: its
    /// project files, and the run's answers file (`answers`) and command
    /// policy file (`policy`) if they lie there.
    fn before(workspace: &Path, answers: Option<&Path>, policy: Option<&Path>) -> ProjectFiles {
        let mut dirs = vec![workspace.to_path_buf()];
        if let (Ok(cwd), Ok(root)) = (std::env::current_dir(), std::fs::canonicalize(workspace))
            && cwd.starts_with(&root)
            && cwd != root
        {
            dirs.push(cwd);
        }
        let project = dirs
            .into_iter()
            .filter_map(|dir| Some((own_path(workspace, &dir).ok()?.join(NAME), Watched::Project)));
        let given = [(answers, Watched::Answers), (policy, Watched::Policy)].into_iter().filter_map(
            |(file, what)| {
                let file = file.filter(|file| tiss_host::workspace::lies_in(workspace, file))?;
                Some((own_path(workspace, file).ok()?, what))
            },
        );
        let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        // Another run in this workspace may be going on, and its plan may
        // have changed a file already: as it stood before that run is what
        // this one puts back too.
        let live = unfinished::live();
        let mut changed_before = Vec::new();
        let files = project.chain(given).filter_map(|(path, what)| {
            let now = state_of(&path)?;
            let path = absolute(&path).into_os_string().into_vec();
            let earlier = live.iter().flat_map(|kept| &kept.files).find(|file| file.path == path);
            let state = earlier.map_or_else(|| now.clone(), |earlier| earlier.state.clone());
            changed_before.push(state != now);
            Some(KeptFile { path, state, what: what as u8 })
        });
        let files = files.collect();
        let workspace_bytes = absolute(workspace).into_os_string().into_vec();
        let kept = Kept { host: unfinished::this_host(), workspace: workspace_bytes, files };
        let outside = Rc::new(RefCell::new(Outside::Pending));
        ProjectFiles { workspace: workspace.to_path_buf(), kept: Rc::new(kept), outside, changed_before }
    }

    /// [`Self::before`] for a run on `host` in `workspace`, given the
    /// answers file `answers` and the policy flag `policy` (else
    /// `TISS_POLICY`), the record kept before `host`'s first change.
    pub fn watch(
        host: &mut OsHost,
        workspace: &Path,
        answers: Option<&Path>,
        policy: Option<&Path>,
    ) -> ProjectFiles {
        let policy = crate::policy::file::named_policy_file(policy);
        let files = ProjectFiles::before(workspace, answers, policy.as_deref());
        host.before_change = Some(files.keep_before_change());
        files
    }

    /// What the host calls before the run's first effect that can change a
    /// file (a RUN, WRITE, APPEND, MKDIR, DELETE): writes the files as they
    /// stood to a record outside the workspace; if it cannot, stderr says
    /// what that leaves.
    fn keep_before_change(&self) -> Box<dyn FnOnce()> {
        let (kept, outside) = (Rc::clone(&self.kept), Rc::clone(&self.outside));
        Box::new(move || {
            let mut outside = outside.borrow_mut();
            if !matches!(*outside, Outside::Pending) {
                return;
            }
            *outside = match Record::write(&kept) {
                Ok(record) => Outside::Written(record),
                Err(why) => {
                    let warning = color::stderr().paint(Tone::Warn, "warning");
                    eprintln!(
                        "tissvm: {warning}: the project files of this workspace are put back only if tissvm \
                         ends normally: there is no record of them outside it ({why})"
                    );
                    Outside::None
                }
            };
        })
    }

    /// Puts back each project file the run changed, keeping the plan's
    /// version beside it, and says so on stderr.
    pub fn after(self) {
        self.put_back_changed(Who::Plan);
        if let Outside::Written(record) = self.outside.replace(Outside::None) {
            record.done();
        }
    }

    /// Puts back each file that is no longer as it stood, and says so.
    fn put_back_changed(&self, who: Who) {
        for (i, KeptFile { path, state: before, what }) in self.kept.files.iter().enumerate() {
            let (path, Some(what)) = (path_of(path), Watched::ALL.get(usize::from(*what))) else { continue };
            if state_of(path).as_ref() == Some(before) {
                continue;
            }
            let (warning, what) = (color::stderr().paint(Tone::Warn, "warning"), what.what());
            let changed = match who {
                Who::Plan if self.changed_before.get(i) == Some(&true) => format!(
                    "`{}`, {what}, was changed while another tissvm ran there (by its plan, or by you)",
                    path.display()
                ),
                Who::Plan => format!("the plan's commands changed `{}`, {what}", path.display()),
                Who::KilledRun(pid) => format!(
                    "`{}`, {what}, changed while an earlier tissvm (pid {pid}) ran, which was killed before it \
                     could put it back",
                    path.display()
                ),
            };
            let found = match who {
                Who::Plan if self.changed_before.get(i) == Some(&true) => "the version found",
                Who::Plan => "the plan's version",
                Who::KilledRun(_) => "the version found (the plan's, or yours if you changed it since)",
            };
            match self.put_back(path, before) {
                Ok(kept) => eprintln!(
                    "tissvm: {warning}: {changed}: it is {}; {found} is `{}`: read it before you use it",
                    if *before == KeptState::Absent { "taken away" } else { "put back as it was" },
                    kept.display()
                ),
                Err(why) => eprintln!(
                    "tissvm: {warning}: {changed}, and it could not be put back ({why}): read it before tissvm \
                     reads it again"
                ),
            }
        }
    }

    /// Moves what the plan left at `path` aside and puts `before` back;
    /// where the plan's went.
    fn put_back(&self, path: &Path, before: &KeptState) -> Result<PathBuf, String> {
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
            KeptState::File(bytes) => {
                tiss_support::atomic_write::write_atomically(&file, bytes, None).map_err(|e| e.to_string())?
            }
            KeptState::Link(target) => {
                std::os::unix::fs::symlink(path_of(target), &file).map_err(|e| e.to_string())?
            }
            KeptState::Absent => {}
        }
        Ok(kept)
    }
}
