//! Programs that start a daemon, or set up its environment, in ways a
//! wrapper's table cannot say: dpkg's `start-stop-daemon --start --exec
//! PATH -- ARGS…` runs the program an option names ([`start_stop_daemon`]);
//! daemontools' `envdir DIR CMD` and s6's `s6-envdir` set a variable from
//! each file of DIR ([`envdir`]), s6-overlay's `with-contenv CMD` from each
//! of the container's environment directory ([`with_contenv`]).

use super::super::wrapper_options::{abbreviated, option_words};
use super::{Runs, Start};
use crate::shell::parse::Word;

/// The programs read here.
pub(super) const NAMES: &[&str] = &["start-stop-daemon", "envdir", "s6-envdir", "with-contenv"];

/// What a line of `name` runs.
pub(super) fn start(name: &str, words: &[Word]) -> Option<Start> {
    match name {
        "start-stop-daemon" => start_stop_daemon(words),
        "with-contenv" => Some(with_contenv()),
        _ => envdir(name, words),
    }
}

/// `envdir DIR CMD…` (daemontools 0.76) and `s6-envdir [-IinfL] [-c MAX]
/// DIR CMD…`: each file of DIR sets a variable (it may be `LD_PRELOAD`),
/// which only reading DIR when the line runs would tell.
fn envdir(name: &str, words: &[Word]) -> Option<Start> {
    let dir = words.iter().skip(1).find(|word| !word.text().starts_with('-'))?;
    Some(Start::Runs(Runs::Unreadable(format!(
        "`{name} {}`: each file of the directory sets a variable of its command's environment (it may be \
         `LD_PRELOAD`, which makes a program run code its command does not name), which only reading them \
         when it runs would tell",
        dir.text()
    ))))
}

/// s6-overlay's `with-contenv CMD…`: each file of the container's
/// environment directory sets a variable, as envdir's do.
fn with_contenv() -> Start {
    Start::Runs(Runs::Unreadable(
        "`with-contenv`: each file of s6-overlay's container environment (`/run/s6/container_environment`) sets \
         a variable of its command's environment (it may be `LD_PRELOAD`), which only reading them when it runs \
         would tell"
            .to_string(),
    ))
}

/// start-stop-daemon's options that take a value (dpkg 1.22's
/// `utils/start-stop-daemon.c`: `HKSVTa:n:op:qr:s:tu:vx:c:N:P:I:k:bCO:mR:g:d:`).
#[rustfmt::skip]
const VALUED: &[&str] = &[
    "-a", "-n", "-p", "-s", "-u", "-g", "-r", "-x", "-c", "-N", "-P", "-I", "-k", "-O", "-R", "-d",
    "--startas", "--name", "--pidfile", "--signal", "--user", "--group", "--chroot", "--exec", "--chuid",
    "--nicelevel", "--procsched", "--iosched", "--umask", "--output", "--retry", "--chdir", "--pid",
    "--ppid", "--notify-timeout",
];

/// Its long options that take none (`--start` is no prefix of `--startas`
/// to it: getopt_long takes a whole name first).
#[rustfmt::skip]
const FLAGS: &[&str] = &[
    "--help", "--version", "--start", "--stop", "--status", "--pidof", "--test", "--oknodo", "--quiet",
    "--verbose", "--background", "--no-close", "--make-pidfile", "--remove-pidfile", "--notify-await",
];

/// `start-stop-daemon --start [OPTIONS] [-- ARGS…]` runs `--startas`'s
/// program, else `--exec`'s, given the words that are no option (its getopt
/// permutes) and those after `--`, as they are (no shell, no `PATH`).
/// `--stop`, `--status` and `--pidof` run nothing. A word that expands where
/// an option may be, or a value the shell may split, passes no list.
fn start_stop_daemon(words: &[Word]) -> Option<Start> {
    let unknown = Some(Start::Runs(Runs::Unknown));
    let (mut start, mut startas, mut exec) = (false, None, None);
    let mut args = Vec::new();
    let mut at = 1;
    while let Some(word) = words.get(at) {
        let Some(text) = word.literal() else {
            if word.known_start().starts_with('-') || word.known_start().is_empty() || word.splits() {
                return unknown;
            }
            args.push(word.clone());
            at += 1;
            continue;
        };
        if text == "--" {
            args.extend(words[at + 1..].iter().cloned());
            break;
        }
        if !text.starts_with('-') || text == "-" {
            args.push(word.clone());
            at += 1;
            continue;
        }
        let flag = FLAGS.contains(&text);
        let Some(taken) = (if flag { Some(1) } else { option_words(text, VALUED) }) else {
            return Some(Start::Runs(Runs::Unreadable(abbreviated("start-stop-daemon", text, VALUED))));
        };
        let (name, value) = match text.strip_prefix("--") {
            Some(long) => match long.split_once('=') {
                Some((name, value)) => (format!("--{name}"), Some(Word::Literal(value.to_string()))),
                None => (text.to_string(), (taken == 2).then(|| words.get(at + 1).cloned()).flatten()),
            },
            // A cluster: its flags, then a letter that takes the rest or the next word.
            None => {
                let letters = &text[1..];
                let valued =
                    letters.char_indices().find(|&(_, l)| VALUED.contains(&format!("-{l}").as_str()));
                start |= letters[..valued.map_or(letters.len(), |(i, _)| i)].contains('S');
                match valued {
                    Some((i, letter)) => {
                        let rest = &letters[i + letter.len_utf8()..];
                        let value = if rest.is_empty() {
                            words.get(at + 1).cloned()
                        } else {
                            Some(Word::Literal(rest.to_string()))
                        };
                        (format!("-{letter}"), value)
                    }
                    None => (String::new(), None),
                }
            }
        };
        start |= is_long(&name, "--start") || name == "--start";
        if value.as_ref().is_some_and(Word::splits) {
            return unknown;
        }
        if name == "-a" || is_long(&name, "--startas") {
            startas = value;
        } else if name == "-x" || is_long(&name, "--exec") {
            exec = value;
        }
        at += taken;
    }
    let program = startas.or(exec).filter(|_| start)?;
    let command = std::iter::once(program).chain(args).collect();
    Some(Start::Runs(Runs::Command { besides: Vec::new(), command }))
}

/// Whether `written` is the long option `option`, or a prefix of its name
/// (getopt_long takes one).
fn is_long(written: &str, option: &str) -> bool {
    written.len() > 3 && written.starts_with("--") && option.starts_with(written)
}

#[cfg(test)]
mod tests {
    use super::super::super::tests::{passes_no_list, texts};

    #[test]
    fn a_daemons_program_is_read_as_the_command_it_runs() {
        for (line, inner) in [
            ("start-stop-daemon --start --exec /bin/rm -- x", "rm x"),
            ("start-stop-daemon -S -x /bin/rm -b -m -p /run/r.pid -- -f x", "rm -f x"),
            ("start-stop-daemon --start --startas /bin/rm --exec /usr/bin/daemon x", "rm x"),
            ("start-stop-daemon --start --chuid nobody --exec=/bin/rm x", "rm x"),
            ("start-stop-daemon -Sx/bin/rm x", "rm x"),
            ("start-stop-daemon -bSx /bin/rm x", "rm x"),
            // An option it may not know is read as a flag: the program is
            // `--exec`'s, whatever the words around it.
            ("start-stop-daemon --start --new-option --exec /bin/rm x", "rm x"),
        ] {
            assert_eq!(texts(line).last().map(String::as_str), Some(inner), "{line}");
        }
        for line in ["start-stop-daemon --stop --exec /bin/rm", "start-stop-daemon --status -p /run/x.pid"] {
            assert_eq!(texts(line), [line], "{line}");
        }
    }

    /// The daemon tools a wrapper's table reads (daemontools, s6,
    /// daemonize, systemd-cat, the UCSPI servers).
    #[test]
    fn a_daemon_tools_command_is_read_after_its_options() {
        for line in [
            "softlimit -m 100000 -t 5 rm x",
            "setuidgid nobody rm x",
            "envuidgid nobody rm x",
            "setlock -n /tmp/l rm x",
            "pgrphack rm x",
            "s6-softlimit -m 100000 rm x",
            "s6-envuidgid -D 0:0 nobody rm x",
            "s6-applyuidgid -u 0 -g 0 rm x",
            "s6-setlock -t 100 /tmp/l rm x",
            "s6-setsid -d 3 rm x",
            "daemonize -c / -p /run/r.pid -E A=1 /bin/rm x",
            "systemd-cat -t tag -p info rm x",
            "tcpserver -c 10 0 8080 rm x",
            "tcpsvd -u nobody 0 8080 rm x",
            "udpsvd -l host 0 53 rm x",
        ] {
            assert_eq!(texts(line).last().map(String::as_str), Some("rm x"), "{line}");
        }
    }

    #[test]
    fn what_only_running_tells_passes_no_list() {
        for line in [
            "daemonize -E LD_PRELOAD=/x.so /bin/ls",
            "daemonize -E \"$V\" /bin/ls",
            "tcpserver -x rules.cdb 0 8080 ls",
            "tcpsvd -i ./peers 0 8080 ls",
            "envdir ./env rm x",
            "with-contenv rm x",
            "s6-envdir -I ./env ls",
            "start-stop-daemon --start \"$OPT\" /bin/rm x",
            "start-stop-daemon --start --exec $P ls",
            // `--ex` may be `--exec` or `--exclude`-like options of a newer dpkg.
            "start-stop-daemon --start --ex /bin/ls x",
        ] {
            passes_no_list(line);
        }
    }
}
