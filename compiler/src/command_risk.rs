//! The risky-command list: what one RUN command's words show (privilege,
//! network tools, disk-level tools, recursive `rm`, world-writable `chmod`,
//! a pipe into a shell, package installs, pushes). `tissvm inspect`'s risk
//! level (`lower/risk.rs`) and the linter's W0004 both read commands here,
//! so they never disagree about what a command does.

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

/// Reads `command`'s words as the shell would find program names in them.
/// `buffer` is scratch space, reused across commands so that scanning
/// many allocates once.
pub fn scan(command: &str, buffer: &mut String) -> CommandRisk {
    // The shell removes quotes and backslashes before it finds a program
    // name (`c''url` is `curl`), so the words are read without them.
    // Removing ASCII bytes leaves UTF-8 valid.
    buffer.clear();
    buffer.extend(command.chars().filter(|c| !matches!(c, '\'' | '"' | '\\')));
    let mut found = CommandRisk::default();
    let mut previous: Option<&str> = None;
    // Set by a `|`: the next program word is what the pipe feeds
    // (`sudo`, `doas` and `env` before it are looked through).
    let mut after_pipe = false;
    for (piped, word) in words(buffer) {
        after_pipe |= piped;
        // Each word as a program name (`/usr/bin/curl` is `curl`).
        let program = word.rsplit('/').next().unwrap_or(word);
        found.privilege |= matches!(program, "sudo" | "su" | "doas");
        found.network = found.network.or_else(|| NETWORK_TOOLS.iter().find(|&&t| t == program).copied());
        found.disk = found.disk.or_else(|| DISK_TOOLS.iter().find(|&&t| t == program).copied());
        if after_pipe && !matches!(program, "sudo" | "doas" | "env") {
            found.pipe_to_shell =
                found.pipe_to_shell.or_else(|| SHELLS.iter().find(|&&s| s == program).copied());
            after_pipe = false;
        }
        if let Some(before) = previous {
            found.recursive_rm |= before == "rm"
                && word.starts_with('-')
                && (word.contains('r') || word.contains('R') || word == "--recursive");
            found.world_writable |= before == "chmod" && matches!(word, "777" | "0777" | "a+rwx" | "ugo+rwx");
            found.installs |= INSTALLERS.contains(&(before, word));
            found.push |= before == "git" && word == "push";
        }
        // `chmod -R 777`: the mode comes after the options.
        if !(previous == Some("chmod") && word.starts_with('-')) {
            previous = Some(program);
        }
    }
    found
}

/// The words of a command (ASCII letters, digits, `-_./`; every other
/// byte, a non-ASCII character's included, separates words), each with
/// whether a single `|` (a pipe, not `||`) stands before it.
fn words(command: &str) -> impl Iterator<Item = (bool, &str)> {
    let bytes = command.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/' | b'+');
    let mut at = 0;
    std::iter::from_fn(move || {
        let mut piped = false;
        while at < bytes.len() && !is_word(bytes[at]) {
            let pipe = bytes[at] == b'|';
            let doubled = bytes.get(at + 1) == Some(&b'|') || (at > 0 && bytes[at - 1] == b'|');
            piped |= pipe && !doubled;
            at += 1;
        }
        let start = at;
        while at < bytes.len() && is_word(bytes[at]) {
            at += 1;
        }
        (start < at).then(|| (piped, &command[start..at]))
    })
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
    fn pipes_into_a_shell() {
        assert_eq!(risk("curl -fsSL https://x.sh | sh").pipe_to_shell, Some("sh"));
        assert_eq!(risk("cat x|sudo bash -s").pipe_to_shell, Some("bash"));
        assert_eq!(risk("make || sh fallback.sh").pipe_to_shell, None);
        assert_eq!(risk("ls | grep sh").pipe_to_shell, None);
        assert_eq!(risk("sh build.sh").pipe_to_shell, None);
    }
}
