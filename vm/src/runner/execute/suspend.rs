//! A suspended run's snapshot: written signed with this user's key (or
//! unsigned, never lost) as `DIR/<task>-<n>.snap` — or, if nothing ran
//! since the snapshot it resumed, that one still holds — and the commands
//! that continue it, told on stderr.

use std::path::{Path, PathBuf};

use crate::machine::program::Program;
use crate::machine::{Machine, Outcome, Suspension};
use crate::report::style::Tone;
use crate::runner::color;
use crate::runner::execute::host::AnswersFile;
use crate::runner::execute::mark::Mark;
use crate::session::resume_command;
use crate::session::snapshot::{self, AnswersPosition, Continuation, RememberedOptions, SnapshotRef};
use crate::session::snapshot_key::{KeyError, KeyFile, SnapshotKey};

/// Where a suspended run's state went.
pub struct Kept {
    /// The snapshot that holds it.
    pub path: PathBuf,
    /// The workspace of a snapshot written unsigned, which resuming it names.
    pub unsigned_in: Option<PathBuf>,
}

/// The snapshot of a suspended run: the one it resumed from if nothing
/// changed the state since (`original`), its mark cleared; else a new one in
/// `dir`, which the mark names as what continued the old one.
pub fn keep_suspended(
    program: &Program,
    machine: &Machine,
    bytecode: Option<Vec<u8>>,
    resumed: Option<(&Path, &Machine)>,
    mark: Option<&Mark>,
    parts: &Parts<'_>,
    dir: &Path,
) -> Result<Kept, String> {
    if let Some((path, original)) = resumed
        && machine.is_unchanged_since(original)
    {
        if let Some(mark) = mark {
            mark.clear();
        }
        return Ok(Kept { path: path.to_path_buf(), unsigned_in: None });
    }
    let key = signing_key();
    let path = write_snapshot(program, machine, bytecode, parts, dir, key.as_ref().ok())?;
    if let Some(mark) = mark {
        mark.finish(&Continuation::Snapshot(std::path::absolute(&path).unwrap_or(path.clone())));
    }
    Ok(Kept { path, unsigned_in: key.is_err().then(|| parts.workspace.to_path_buf()) })
}

/// Where a suspended run's snapshot goes: `--snapshot-dir`, else `.tiss` in
/// the workspace; in the workspace, reached as the plan's own paths are
/// (`Workspace::own_dir`, `own_path`). Should it lead out of the workspace
/// (a link a command made) or be unusable, the snapshot goes to this user's
/// own directory instead and stderr says why: tissvm, which no sandbox
/// confines, never writes where a plan's command pointed it, and the run's
/// state is not lost.
pub fn snapshot_dir(explicit: Option<&Path>, workspace: &Path) -> PathBuf {
    let own = match explicit {
        Some(dir) => tiss_host::workspace::own_path(workspace, dir),
        None => tiss_host::workspace::Workspace::open(workspace).and_then(|ws| {
            let dir = ws.own_dir(".tiss")?;
            // The path as it was given where no link is on the way.
            Ok(if dir == ws.root().join(".tiss") { workspace.join(".tiss") } else { dir })
        }),
    };
    match own {
        Ok(dir) => dir,
        Err(tiss_host::Error::Security(why) | tiss_host::Error::Command(why)) => {
            let dir = user_snapshot_dir();
            let warning = color::stderr().paint(Tone::Warn, "warning");
            let place = match explicit {
                Some(given) => format!("`{}`", given.display()),
                None => "`.tiss` in the workspace".to_string(),
            };
            eprintln!(
                "tissvm: {warning}: the snapshot cannot go to {place} ({why}); it goes to `{}` instead",
                dir.display()
            );
            dir
        }
    }
}

/// This user's own directory for snapshots the workspace cannot take:
/// `$XDG_STATE_HOME/tisslang/snapshots`, else `~/.local/state/tisslang/snapshots`
/// (made private, 0700), else a new private directory of its own in the
/// system's temporary directory.
fn user_snapshot_dir() -> PathBuf {
    use std::os::unix::fs::DirBuilderExt;
    let Some(state) = super::unfinished::tisslang_state_dir() else {
        let made = tempfile::Builder::new().prefix("tisslang-snapshots-").tempdir();
        return made.map_or_else(|_| std::env::temp_dir(), tempfile::TempDir::keep);
    };
    let dir = state.join("snapshots");
    let _ = std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir);
    dir
}

/// What a snapshot holds besides the machine and the bytecode.
pub struct Parts<'a> {
    pub workspace: &'a Path,
    pub answers: Option<&'a AnswersPosition>,
    pub options: &'a RememberedOptions,
}

/// This user's snapshot key, made now if there is none yet; if there is no
/// usable one, stderr says why: the snapshot is written unsigned (never
/// lost), and resuming it needs `--workdir`.
pub fn signing_key() -> Result<SnapshotKey, KeyError> {
    let key = KeyFile::locate().and_then(|file| file.load_or_create());
    if let Err(e) = &key {
        let warning = color::stderr().paint(Tone::Warn, "warning");
        eprintln!("tissvm: {warning}: the snapshot is not signed: {e}; resuming it needs --workdir");
    }
    key
}

/// Writes the snapshot of a suspended run as `DIR/<task>-<n>.snap`, signed
/// with `key` if there is one.
fn write_snapshot(
    program: &Program,
    machine: &Machine,
    bytecode: Option<Vec<u8>>,
    parts: &Parts<'_>,
    dir: &Path,
    key: Option<&SnapshotKey>,
) -> Result<PathBuf, String> {
    let bytecode = bytecode.unwrap_or_else(|| tisslang::container::encode(&program.module));
    let bytes = snapshot::encode(&SnapshotRef {
        machine,
        bytecode: &bytecode,
        content_hash: program.hash(),
        workspace: parts.workspace,
        answers: parts.answers,
        options: parts.options,
        resumed: None,
        key,
    })
    .map_err(|e| e.to_string())?;
    let stem = snapshot::file_stem(program.string(program.module.task));
    snapshot::write_new_snapshot(dir, &stem, &bytes).map_err(|e| format!("in `{}`: {e}", dir.display()))
}

/// Tells on stderr why the run stopped and the commands that continue it,
/// each ready to paste.
pub fn print_resume_hint(
    program: &Program,
    machine: &Machine,
    outcome: &Outcome,
    path: &Path,
    workdir: Option<&Path>,
    answers_file: Option<&AnswersFile>,
) {
    let mut text = String::new();
    let waiting = match outcome {
        Outcome::Suspended(Suspension::Interaction { question, line }) => {
            text.push_str(&format!(
                "tissvm: suspended at line {line}, waiting for an answer to {}\n",
                question.describe()
            ));
            Some(question)
        }
        _ => {
            text.push_str(&format!("tissvm: suspended at line {} (interrupted)\n", program.line(machine.pc)));
            None
        }
    };
    let commands = resume_command::commands(path, workdir, waiting);
    let one_of = if commands.len() > 1 { " one of" } else { "" };
    text.push_str(&format!("tissvm: snapshot written to {}; continue with{one_of}:\n", path.display()));
    for command in commands {
        text.push_str(&format!("  {command}\n"));
    }
    if let Some(file) = answers_file {
        text.push_str(&format!(
            "tissvm: or, with more answers in the answers file:\n  {}\n",
            resume_command::with_answers_file(path, workdir, &file.path)
        ));
    }
    eprint!("{text}");
}
