//! ssh's options as the tools that run it read them: `-o KEY=VALUE`
//! (ssh, scp, and sshfs, which passes its unknown `-o` options to ssh) and
//! where ssh's remote command starts among its words.

use super::super::given::{self, Given, literal_like};
use super::with_words;
use crate::shell::parse::Word;

/// ssh's programs, whose `-o KEY=VALUE` runs VALUE for these keys, and
/// loads code or more configuration (which may say anything) for those.
/// Their `-F FILE` (a configuration) and ssh's `-I LIB` (a PKCS#11 library)
/// do the second too.
pub(super) const SSH: &[&str] = &["ssh", "scp"];
const SSH_COMMAND_KEYS: &[&str] = &["proxycommand", "localcommand", "knownhostscommand", "remotecommand"];
const SSH_CODE_KEYS: &[&str] = &["pkcs11provider", "securitykeyprovider", "include"];
/// ssh's and scp's short options that take a value.
pub(super) const SSH_VALUED: &str = "BbcDEeFIiJLlmOoPpQRSWw";

/// `ssh -o KEY=VALUE` (or `KEY VALUE`): VALUE when KEY runs it; a word
/// whose key expands runs what only running tells.
pub(super) fn ssh_option(option: &Word) -> Option<Given> {
    let text = option.text();
    let (key, value) = text.split_once(['=', ' ', '\t']).unwrap_or((text, ""));
    if option.literal().is_none() && key.contains(['$', '`', '\\', '"', '\'']) {
        return Some(Given::Input);
    }
    let key = key.to_ascii_lowercase();
    if SSH_CODE_KEYS.contains(&key.as_str()) {
        return Some(Given::Input);
    }
    let runs = SSH_COMMAND_KEYS.contains(&key.as_str());
    runs.then(|| Given::Line(Some(literal_like(option, value.trim_start_matches(['=', ' ', '\t'])))))
}

/// What sshfs's `-o A,B=C,…` runs: `ssh_command=CMD` runs CMD with ssh's
/// words after it; every other option it does not know it gives ssh
/// (`-o ProxyCommand=CMD`), read as ssh's `-o`. A list that expands, or is
/// written with a shell's quotes inside, is what only running tells.
pub(super) fn sshfs_options(value: &Word) -> Vec<Given> {
    let Some(text) = value.literal() else { return vec![Given::Input] };
    let mut found = Vec::new();
    for option in text.split(',') {
        let (key, command) = option.split_once('=').unwrap_or((option, ""));
        if key.trim().eq_ignore_ascii_case("ssh_command") {
            found.push(Given::Line(Some(with_words(Word::Literal(command.to_string())))));
        } else {
            found.extend(ssh_option(&Word::Literal(option.to_string())));
        }
    }
    found
}

/// Where the remote command of `ssh [OPTIONS] DESTINATION [OPTIONS]
/// COMMAND…` starts among its words, and what it runs on the host: its
/// words joined, a line the remote shell runs (OpenSSH reads options again
/// after the destination, unless a `--` came before it). Without one, ssh
/// runs a shell there that runs its input (`ssh host <<EOF`), unless `-N`,
/// `-W`, `-O`, `-G`, `-Q` or `-V` asks for no command, or `-s` names a
/// subsystem.
pub(super) fn ssh_remote_command(args: &[Word]) -> (usize, Option<Given>) {
    let (mut at, mut destination, mut ended) = (0, false, false);
    let mut no_command = false;
    while let Some(word) = args.get(at) {
        let text = word.text();
        if !ended && text == "--" {
            ended = true;
            at += 1;
            continue;
        }
        if ended || !text.starts_with('-') || text.len() == 1 {
            if destination {
                break;
            }
            destination = true;
            at += 1;
            continue;
        }
        at += 1;
        for (i, letter) in text.char_indices().skip(1) {
            no_command |= "NWOGQVs".contains(letter);
            if SSH_VALUED.contains(letter) {
                at += usize::from(i + 1 == text.len());
                break;
            }
        }
    }
    let at = at.min(args.len());
    let given = match given::line_of(&args[at..]) {
        _ if no_command || !destination => None,
        None => Some(Given::Input),
        line => Some(Given::Line(line)),
    };
    (at, given)
}
