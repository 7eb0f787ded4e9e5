//! The risky-command list: what one RUN command's words show (privilege,
//! network tools, disk-level tools, recursive `rm`, world-writable `chmod`,
//! a pipe into a shell, package installs, pushes). `tissvm inspect`'s risk
//! level (`lower/risk.rs`) and the linter's W0004 both read commands here,
//! so they never disagree about what a command does. Only the programs a
//! command runs count, found as the shell finds them
//! (`tiss_support::shell::commands`): `echo curl` uses no network tool.

use tiss_support::shell::commands;

pub const NETWORK_TOOLS: &[&str] =
    &["curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "ftp", "telnet", "socat"];
pub const DISK_TOOLS: &[&str] = &["mkfs", "dd", "fdisk", "parted", "shred", "mount"];
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh"];
const INSTALLERS: &[(&str, &str)] = &[
    ("pip", "install"),
    ("pip3", "install"),
    ("npm", "install"),
    ("apt-get", "install"),
    ("apt", "install"),
    ("cargo", "install"),
    ("gem", "install"),
    ("brew", "install"),
];

/// What one command's words show.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct CommandRisk {
    /// `sudo`, `su` or `doas`.
    pub privilege: bool,
    pub network: Option<&'static str>,
    pub disk: Option<&'static str>,
    /// `rm -r`, `rm -rf`, `rm --recursive`.
    pub recursive_rm: bool,
    /// `chmod 777` (or `0777`, `a+rwx`): every user may change the files.
    pub world_writable: bool,
    /// `... | sh`: the shell runs whatever the command before it printed.
    pub pipe_to_shell: Option<&'static str>,
    pub installs: bool,
    pub push: bool,
}

/// Programs that run the command after their own options and arguments
/// (`sudo curl …`, `xargs rm -rf`), with the options of theirs that take a
/// value (`sudo -u root …`).
const WRAPPERS: &[(&str, &[&str])] = &[
    ("sudo", &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"]),
    ("doas", &["-u", "-C"]),
    ("env", &["-u", "-C", "-S"]),
    ("xargs", &["-I", "-n", "-P", "-d", "-L", "-s", "-a", "-E"]),
    ("nohup", &[]),
    ("exec", &["-a"]),
    ("time", &["-f", "-o"]),
    ("nice", &["-n"]),
    ("ionice", &["-c", "-n", "-p"]),
    ("timeout", &["-s", "-k"]),
    ("command", &[]),
    ("builtin", &[]),
    ("stdbuf", &["-i", "-o", "-e"]),
    ("setsid", &[]),
    ("chroot", &[]),
];

/// Shell words that leave the next word in command position.
const KEYWORDS: &[&str] = &["if", "then", "else", "elif", "while", "until", "do", "!", "{", "}"];

/// How deep `sh -c '…'` inside `sh -c '…'` is read.
const MAX_NESTING: usize = 8;

/// Reads `command` as the shell would find the programs it runs: the word
/// in command position of each simple command (at the start, after `|`,
/// `;`, `&&`, `||`, `$(`, a backtick, a keyword, and after wrappers such
/// as `sudo`, `env`, `xargs`, `nohup`, `time`), and that program's
/// arguments; `sh -c '…'` and `find -exec … ;` are read as the commands
/// they run. `buffer` is scratch space, reused across commands.
pub fn scan(command: &str, buffer: &mut String) -> CommandRisk {
    let mut found = CommandRisk::default();
    scan_into(command, buffer, &mut found, 0);
    found
}

fn scan_into(command: &str, buffer: &mut String, found: &mut CommandRisk, depth: usize) {
    let mut text = std::mem::take(buffer);
    let commands = commands::split(command, &mut text);
    let mut nested = Vec::new();
    for simple in &commands {
        let words: Vec<&str> = simple.words.iter().map(|w| &text[w.clone()]).collect();
        simple_command(&words, simple.piped, found, &mut nested);
    }
    if depth < MAX_NESTING {
        for line in nested {
            scan_into(&line, buffer, found, depth + 1);
        }
    }
    *buffer = text;
}

/// One simple command's words; the command lines it hands a shell
/// (`sh -c LINE`) go to `nested`.
fn simple_command(words: &[&str], piped: bool, found: &mut CommandRisk, nested: &mut Vec<String>) {
    let mut at = 0;
    let program = loop {
        let Some(&word) = words.get(at) else { return };
        at += 1;
        if KEYWORDS.contains(&word) || is_assignment(word) {
            continue;
        }
        // `/usr/bin/curl` is `curl`.
        let program = word.rsplit('/').next().unwrap_or(word);
        found.privilege |= matches!(program, "sudo" | "su" | "doas");
        let Some((wrapper, valued)) = WRAPPERS.iter().find(|(w, _)| *w == program) else { break program };
        // The wrapper's options, and `timeout`'s duration.
        let mut duration = *wrapper == "timeout";
        while let Some(&option) = words.get(at) {
            if option.starts_with('-') && option.len() > 1 {
                at += if valued.contains(&option) { 2 } else { 1 };
            } else if duration {
                duration = false;
                at += 1;
            } else {
                break;
            }
        }
    };
    let args = &words[at..];
    found.network = found.network.or_else(|| NETWORK_TOOLS.iter().find(|&&t| t == program).copied());
    found.disk = found.disk.or_else(|| DISK_TOOLS.iter().find(|&&t| t == program).copied());
    let shell = SHELLS.iter().find(|&&s| s == program).copied();
    if piped {
        found.pipe_to_shell = found.pipe_to_shell.or(shell);
    }
    if (shell.is_some() || program == "su")
        && let Some(line) = args.iter().position(|&a| a == "-c").and_then(|c| args.get(c + 1))
    {
        nested.push((*line).to_string());
    }
    match program {
        "rm" => found.recursive_rm |= args.iter().any(|&a| is_recursive_flag(a)),
        "chmod" => {
            found.world_writable |= args.iter().any(|a| matches!(*a, "777" | "0777" | "a+rwx" | "ugo+rwx"))
        }
        "git" => found.push |= subcommand(args, &["-C", "-c"]) == Some("push"),
        "find" => {
            // `-exec rm -rf {} ;`: the words up to `;` or `+` are a command.
            let mut rest = args;
            while let Some(exec) =
                rest.iter().position(|&a| matches!(a, "-exec" | "-execdir" | "-ok" | "-okdir"))
            {
                let inner = &rest[exec + 1..];
                let end = inner.iter().position(|&a| a == ";" || a == "+").unwrap_or(inner.len());
                simple_command(&inner[..end], false, found, nested);
                rest = &inner[end..];
            }
        }
        _ => {}
    }
    found.installs |=
        INSTALLERS.iter().any(|&(tool, verb)| tool == program && subcommand(args, &[]) == Some(verb));
}

/// `NAME=value` before a command (or after `env`).
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// `-r`, `-rf`, `-Rf`, `--recursive`; not `--force`.
fn is_recursive_flag(arg: &str) -> bool {
    match arg.strip_prefix("--") {
        Some(long) => long == "recursive",
        None => arg.starts_with('-') && (arg.contains('r') || arg.contains('R')),
    }
}

/// The first argument that is not an option (or the value of one of
/// `valued`): `git -C dir push` → `push`.
fn subcommand<'w>(args: &[&'w str], valued: &[&str]) -> Option<&'w str> {
    let mut at = 0;
    while let Some(&arg) = args.get(at) {
        if !arg.starts_with('-') {
            return Some(arg);
        }
        at += if valued.contains(&arg) { 2 } else { 1 };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn risk(command: &str) -> CommandRisk {
        scan(command, &mut String::new())
    }

    #[test]
    fn finds_program_names_through_quotes_and_paths() {
        assert_eq!(risk("c''url -s x").network, Some("curl"));
        assert_eq!(risk("/usr/bin/wget x").network, Some("wget"));
        assert!(risk("sudo make install").privilege);
        assert!(risk("rm -rf build").recursive_rm);
        assert!(!risk("rm build.o").recursive_rm);
        assert_eq!(risk("echo curl-like").network, None);
    }

    #[test]
    fn world_writable_chmod() {
        assert!(risk("chmod 777 out").world_writable);
        assert!(risk("chmod -R 0777 out").world_writable);
        assert!(risk("chmod a+rwx out").world_writable);
        assert!(!risk("chmod 755 out").world_writable);
        assert!(!risk("echo 777").world_writable);
    }

    #[test]
    fn only_words_in_command_position_are_programs() {
        assert_eq!(risk("echo curl").network, None);
        assert_eq!(risk("grep -r wget docs").network, None);
        assert_eq!(risk("echo hi > curl").network, None);
        assert!(!risk("echo sudo rm -rf /").privilege);
        assert!(!risk("echo rm -rf /").recursive_rm);
        assert!(!risk("echo chmod 777 x").world_writable);
        assert!(!risk("rm --force x").recursive_rm);
        for command in [
            "make && curl x",
            "make || curl x",
            "make; curl x",
            "make | curl x",
            "echo $(curl x)",
            "echo `curl x`",
            "sudo -u bob curl x",
            "env A=1 B=2 curl x",
            "A=1 curl x",
            "xargs -n 1 curl < urls",
            "nohup curl x &",
            "exec curl x",
            "time curl x",
            "timeout 5s curl x",
            "if true; then curl x; fi",
            "sh -c 'curl x'",
            "find . -exec curl {} ;",
        ] {
            assert_eq!(risk(command).network, Some("curl"), "{command}");
        }
        assert!(risk("find . -name x -exec rm -rf {} +").recursive_rm);
        assert!(risk("git -C repo push").push);
        assert!(risk("pip install -r req.txt").installs);
        assert!(!risk("echo pip install x").installs);
    }

    #[test]
    fn pipes_into_a_shell() {
        assert_eq!(risk("curl -fsSL https://x.sh | sh").pipe_to_shell, Some("sh"));
        assert_eq!(risk("cat x|sudo bash -s").pipe_to_shell, Some("bash"));
        assert_eq!(risk("make || sh fallback.sh").pipe_to_shell, None);
        assert_eq!(risk("ls | grep sh").pipe_to_shell, None);
        assert_eq!(risk("sh build.sh").pipe_to_shell, None);
        assert_eq!(risk("echo 'a | sh'").pipe_to_shell, None);
        assert_eq!(risk("curl x | sudo -E sh").pipe_to_shell, Some("sh"));
    }
}
