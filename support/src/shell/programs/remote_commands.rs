//! Tools that run a command line on other machines, read as ssh's remote
//! command is ([`super::tool_commands`]): the line a shell there runs, or,
//! where only running tells, the tool's input. pdsh runs its command on
//! each node it targets through its rcmd module, and its `exec` module runs
//! it here (`pdsh -R exec -w h CMD`, with `%h` and the others replaced);
//! vagrant's `ssh -c`, gcloud's `… ssh --command` and minikube's `ssh --`
//! give a line to the machine's shell.

use super::given::{Given, attached, is_prefix, line_of, literal_like, take};
use crate::shell::parse::Word;

/// The tools read here.
pub(super) const NAMES: &[&str] = &["pdsh", "vagrant", "gcloud", "minikube"];

/// pdsh 2.34's options (`pdsh -h`): those that take a value, and flags. Its
/// getopt does not permute: the command starts at the first word that is
/// none of these.
const PDSH_VALUED: &str = "ltufwxRMgXF";
const PDSH_FLAGS: &str = "ShVqbdNLiaA";

/// What `name` given `args` runs besides itself.
pub(super) fn given(name: &str, args: &[Word]) -> Vec<Given> {
    let given = match name {
        "pdsh" => pdsh(args),
        "vagrant" => vagrant(args),
        "gcloud" => gcloud(args),
        "minikube" => minikube(args),
        _ => None,
    };
    given.into_iter().collect()
}

/// `pdsh [OPTIONS] CMD…`: the words joined are the line each node runs
/// (the `exec` module splits it into words and runs them here). Without a
/// command it reads commands from its input; an option of a module pdsh
/// loads (unknown here), a word that expands where an option may be, and
/// `%h`, `%u`, `%n` (which the `exec` module replaces with the node's name,
/// the user, the rank: 2.34 in the arguments only) leave what runs to
/// running.
fn pdsh(args: &[Word]) -> Option<Given> {
    let mut at = 0;
    while let Some(word) = args.get(at) {
        let Some(text) = word.literal() else { return Some(Given::Input) };
        if text == "--" {
            at += 1;
            break;
        }
        if !text.starts_with('-') || text.len() == 1 {
            break;
        }
        at += 1;
        for (i, letter) in text.char_indices().skip(1) {
            if PDSH_VALUED.contains(letter) {
                at += usize::from(i + 1 == text.len());
                break;
            }
            if !PDSH_FLAGS.contains(letter) {
                return Some(Given::Input);
            }
        }
    }
    let command = args.get(at..).unwrap_or_default();
    if command.is_empty() || command.iter().any(|word| word.text().contains('%')) {
        return Some(Given::Input);
    }
    Some(Given::Line(line_of(command)))
}

/// `vagrant ssh -c LINE` (and `winrm` and `powershell`, whose `-c` is a
/// command for the guest's shell): the line; their words after `--` go to
/// ssh, which may take them as the command, and without `-c` a shell there
/// runs its input. `docker-run` and `docker-exec` run the words after
/// their `--` in a container. Options are Ruby's OptionParser's: anywhere,
/// short ones clustered, a long one by any prefix.
fn vagrant(args: &[Word]) -> Option<Given> {
    let sub = args.iter().position(|word| !word.text().starts_with('-'))?;
    let Some(sub_name) = args[sub].literal() else { return Some(Given::Input) };
    match sub_name {
        "docker-run" | "docker-exec" => return Some(Given::Input),
        "ssh" | "winrm" | "powershell" => {}
        _ => return None,
    }
    let mut line = None;
    let mut at = sub + 1;
    while let Some(word) = args.get(at) {
        at += 1;
        let text = word.text();
        if text == "--" {
            return Some(Given::Input);
        }
        let value = if let Some(long) = text.strip_prefix("--") {
            let (option, glued) = long.split_once('=').map_or((long, None), |(o, v)| (o, Some(v)));
            if option.is_empty() || !is_prefix(option, "command") {
                continue;
            }
            match glued {
                Some(value) => Some(literal_like(word, value)),
                None => take(args, &mut at),
            }
        } else if let Some(cluster) = text.strip_prefix('-') {
            let Some(c) = cluster.find('c') else { continue };
            attached(word, &cluster[c + 1..], args, &mut at)
        } else {
            continue;
        };
        line = Some(value);
    }
    Some(match line {
        Some(value) => Given::Line(value),
        None => Given::Input,
    })
}

/// gcloud's `ssh` commands (`compute ssh`, `compute tpus tpu-vm ssh`,
/// `cloud-shell ssh`): `--command LINE`; the words after `--` and
/// `--ssh-flag` go to ssh, which may take them as a command or an option
/// that runs one (`-o ProxyCommand=…`), and without `--command` a shell
/// there runs its input.
fn gcloud(args: &[Word]) -> Option<Given> {
    let groups = args.iter().take_while(|word| word.text() != "--");
    if !groups.clone().any(|word| word.literal() == Some("ssh")) {
        // A word that expands where a group is may be `ssh`.
        return groups
            .take_while(|word| !word.text().starts_with('-'))
            .any(|w| w.literal().is_none())
            .then_some(Given::Input);
    }
    let mut line = None;
    let mut at = 0;
    while let Some(word) = args.get(at) {
        at += 1;
        let text = word.text();
        if text == "--" || text.starts_with("--ssh-flag") {
            return Some(Given::Input);
        }
        if text == "--command" {
            line = Some(take(args, &mut at));
        } else if let Some(value) = text.strip_prefix("--command=") {
            line = Some(Some(literal_like(word, value)));
        }
    }
    Some(match line {
        Some(value) => Given::Line(value),
        None => Given::Input,
    })
}

/// `minikube ssh [-- ] WORDS…`: the words that are no option, joined, are
/// the line the node's shell runs (pflag takes options anywhere before
/// `--`); without words a shell there runs its input. Its options here are
/// `-n`/`--node` and `-p`/`--profile` (with a value), `--native-ssh`; any
/// other (one of minikube's many global ones) leaves it to running.
fn minikube(args: &[Word]) -> Option<Given> {
    let mut at = 0;
    let mut ssh = false;
    let mut command = Vec::new();
    while let Some(word) = args.get(at) {
        at += 1;
        let Some(text) = word.literal() else { return Some(Given::Input) };
        if text == "--" {
            if !ssh {
                return None;
            }
            command.extend(args[at..].iter().cloned());
            break;
        }
        let option = text.split('=').next().unwrap_or(text);
        match option {
            "-n" | "--node" | "-p" | "--profile" => at += usize::from(!text.contains('=')),
            "--native-ssh" => {}
            _ if text.starts_with('-') => return ssh.then_some(Given::Input),
            _ if ssh => command.push(word.clone()),
            "ssh" => ssh = true,
            _ => return None,
        }
    }
    if !ssh {
        return None;
    }
    Some(match line_of(&command) {
        None => Given::Input,
        line => Given::Line(line),
    })
}

#[cfg(test)]
mod tests {
    use crate::shell::programs::tests::{hidden, texts};

    /// Each tool's line is read as the line the machine's shell runs
    /// (`pdsh -R exec -w localhost canary %h` ran the canary here, read as
    /// the program pdsh), the tool's own words too.
    #[test]
    fn a_remote_tools_command_line_is_read() {
        for (line, inner) in [
            ("pdsh -w n1,n2 uptime", "uptime"),
            ("pdsh -R exec -w localhost rm x", "rm x"),
            ("pdsh -Rexec -wlocalhost -N -f 4 -- rm -f x", "rm -f x"),
            ("pdsh -w n1 'ls; rm x'", "rm x"),
            ("vagrant ssh -c 'rm x'", "rm x"),
            ("vagrant ssh default --command='ls; rm x'", "rm x"),
            ("vagrant ssh -tc 'rm x' web", "rm x"),
            ("vagrant ssh --com 'rm x'", "rm x"),
            ("vagrant winrm -c 'rm x'", "rm x"),
            ("gcloud compute ssh vm --zone z --command 'rm x'", "rm x"),
            ("gcloud compute tpus tpu-vm ssh t --worker=all --command='ls && rm x'", "rm x"),
            ("gcloud cloud-shell ssh --command=rm", "rm"),
            ("minikube ssh -- rm -f x", "rm -f x"),
            ("minikube -p dev ssh -n m02 'rm x'", "rm x"),
        ] {
            let texts = texts(line);
            assert!(texts.iter().any(|text| text == inner), "{line}: {texts:?}");
            assert!(texts.len() >= 2, "{line}: its command and the tool: {texts:?}");
        }
        // Commands of theirs that run none.
        for line in ["vagrant up", "vagrant status web", "gcloud compute instances list", "minikube status"] {
            assert_eq!(texts(line), [line], "{line}");
        }
    }

    /// Where only running tells what runs: no command (a shell there runs
    /// its input, or pdsh reads commands), an option unknown here, words
    /// for ssh, `%h` (the exec module's host, maybe the program), a word
    /// that expands where an option or the subcommand may be.
    #[test]
    fn a_remote_tool_that_may_run_anything_passes_no_list() {
        for line in [
            "pdsh -w n1",
            "pdsh -R exec -w canary %h",
            "pdsh -w n1 -K x rm y",
            "pdsh \"$OPT\" rm y",
            "vagrant ssh",
            "vagrant ssh -- rm x",
            "vagrant docker-run -- rm x",
            "vagrant \"$SUB\" -c 'rm x'",
            "gcloud compute ssh vm",
            "gcloud compute ssh vm -- rm x",
            "gcloud compute ssh vm --ssh-flag='-o ProxyCommand=canary' --command=ls",
            "gcloud \"$G\" ssh2 x",
            "minikube ssh",
            "minikube ssh --alsologtostderr ls",
            // Tools only running tells about.
            "clush -w n1 rm x",
            "salt-call cmd.run 'rm x'",
            "watchexec -e rs -- rm x",
            "nodemon --exec 'rm x'",
            "xterm -e rm x",
            "mosh host -- rm x",
        ] {
            assert!(hidden(line), "{line}");
        }
        assert_eq!(
            crate::shell::programs::code_variables::named("PDSH_SSH_ARGS='-o ProxyCommand=x' pdsh -w h ls"),
            Some("PDSH_SSH_ARGS")
        );
    }
}
