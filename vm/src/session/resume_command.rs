//! The commands that continue a snapshot, printed so that each can be
//! pasted into a shell as it stands: paths shell-quoted, and one command per
//! answer the waiting interaction takes (no `approve|reject` to edit).

use std::path::Path;

use crate::host::Question;
use tiss_compiler::cli_support::shell_word;

/// The commands that continue the snapshot at `snapshot`: one per answer
/// the interaction it waits for takes (a CHOOSE's options named in a shell
/// comment), or the plain `tissvm resume` of a run that waits for none.
pub fn commands(snapshot: &Path, waiting: Option<&Question>) -> Vec<String> {
    let resume = format!("tissvm resume {}", shell_word(&snapshot.display().to_string()));
    match waiting {
        None => vec![resume],
        Some(Question::Pause { .. }) => vec![format!("{resume} --answer continue")],
        Some(Question::Review { .. }) => {
            vec![format!("{resume} --answer approve"), format!("{resume} --answer reject --comment '...'")]
        }
        Some(Question::Choose { options, .. }) => options
            .iter()
            .enumerate()
            .map(|(i, label)| format!("{resume} --answer {}  # {}", i + 1, one_line(label)))
            .collect(),
    }
}

/// The command that continues the snapshot with the answers in `file`.
pub fn with_answers_file(snapshot: &Path, file: &Path) -> String {
    format!(
        "tissvm resume {} --answers {}",
        shell_word(&snapshot.display().to_string()),
        shell_word(&file.display().to_string())
    )
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
        assert_eq!(commands(snap, Some(&pause)), ["tissvm resume ws/.tiss/t-1.snap --answer continue"]);
        assert_eq!(commands(snap, None), ["tissvm resume ws/.tiss/t-1.snap"]);
        let review = Question::Review { message: "r".into() };
        assert_eq!(
            commands(Path::new("a b.snap"), Some(&review)),
            [
                "tissvm resume 'a b.snap' --answer approve",
                "tissvm resume 'a b.snap' --answer reject --comment '...'"
            ]
        );
        let choose = Question::Choose { prompt: None, options: vec!["one".into(), "two\nrm -rf x".into()] };
        assert_eq!(
            commands(snap, Some(&choose)),
            [
                "tissvm resume ws/.tiss/t-1.snap --answer 1  # one",
                "tissvm resume ws/.tiss/t-1.snap --answer 2  # two rm -rf x"
            ]
        );
    }
}
