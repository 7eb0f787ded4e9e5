//! The commands that continue a snapshot, printed so that each can be
//! pasted into a shell as it stands: paths shell-quoted, and one command per
//! answer the waiting interaction takes (no `approve|reject` to edit). A
//! snapshot that is not signed by this user's key (book: reference/snapshots.md) is resumed with
//! `--workdir`, so the commands for one name the workspace too.

use std::path::Path;

use crate::host::Question;
use tiss_support::shell::quote::shell_word;

/// The commands that continue the snapshot at `snapshot` (in `workdir`,
/// if given): one per answer the interaction it waits for takes (a
/// CHOOSE's options named in a shell comment), or the plain `tissvm resume`
/// of a run that waits for none.
pub fn commands(snapshot: &Path, workdir: Option<&Path>, waiting: Option<&Question>) -> Vec<String> {
    let resume = resume(snapshot, workdir);
    match waiting {
        None => vec![resume],
        Some(Question::Pause { .. }) => vec![format!("{resume} --answer continue")],
        Some(Question::Review { .. } | Question::Approval { .. }) => {
            vec![format!("{resume} --answer approve"), format!("{resume} --answer reject --comment '...'")]
        }
        Some(Question::Choose { options, .. }) => options
            .iter()
            .enumerate()
            .map(|(i, label)| format!("{resume} --answer {}  # {}", i + 1, one_line(label)))
            .collect(),
    }
}

/// The command that continues the snapshot (in `workdir`, if given) with
/// the answers in `file`.
pub fn with_answers_file(snapshot: &Path, workdir: Option<&Path>, file: &Path) -> String {
    format!("{} --answers {}", resume(snapshot, workdir), shell_word(&file.display().to_string()))
}

/// `tissvm resume SNAPSHOT [--workdir DIR]`.
fn resume(snapshot: &Path, workdir: Option<&Path>) -> String {
    let mut command = format!("tissvm resume {}", shell_word(&snapshot.display().to_string()));
    if let Some(dir) = workdir {
        command.push_str(&format!(" --workdir {}", shell_word(&dir.display().to_string())));
    }
    command
}

/// A label fit for a shell comment: no line break or control character can
/// end the comment and turn the rest into a command.
fn one_line(label: &str) -> String {
    label.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_command_per_answer() {
        let snap = Path::new("ws/.tiss/t-1.snap");
        let pause = Question::Pause { message: "p".into() };
        assert_eq!(commands(snap, None, Some(&pause)), ["tissvm resume ws/.tiss/t-1.snap --answer continue"]);
        assert_eq!(commands(snap, None, None), ["tissvm resume ws/.tiss/t-1.snap"]);
        let review = Question::Review { message: "r".into() };
        assert_eq!(
            commands(Path::new("a b.snap"), None, Some(&review)),
            [
                "tissvm resume 'a b.snap' --answer approve",
                "tissvm resume 'a b.snap' --answer reject --comment '...'"
            ]
        );
        let choose = Question::Choose { prompt: None, options: vec!["one".into(), "two\nrm -rf x".into()] };
        assert_eq!(
            commands(snap, None, Some(&choose)),
            [
                "tissvm resume ws/.tiss/t-1.snap --answer 1  # one",
                "tissvm resume ws/.tiss/t-1.snap --answer 2  # two rm -rf x"
            ]
        );
        let ws = Some(Path::new("/my ws"));
        assert_eq!(
            commands(snap, ws, Some(&pause)),
            ["tissvm resume ws/.tiss/t-1.snap --workdir '/my ws' --answer continue"]
        );
        assert_eq!(
            with_answers_file(snap, ws, Path::new("a.json")),
            "tissvm resume ws/.tiss/t-1.snap --workdir '/my ws' --answers a.json"
        );
    }
}
