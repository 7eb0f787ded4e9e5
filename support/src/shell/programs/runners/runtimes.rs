//! Container tools below the engines: buildah's `buildah run [OPTIONS]
//! CONTAINER [--] CMD…`, which runs CMD in a working container; the CRI's
//! `crictl exec` and containerd's `ctr run`, `ctr task exec` ([`crictl`],
//! [`ctr`]).
//!
//! buildah is a cobra program (buildah 1.44's `cmd/buildah/run.go` and
//! `main.go`): its own options and `run`'s are read as pflag reads them
//! ([`pflag`]), before `run` and after it, and `run` stops reading options
//! at the container, so every word after it is the command's (one `--`
//! right after the container is dropped). The command runs as its words,
//! with no shell. An option the tables do not know, a word that expands
//! where an option or the container may be, and what makes buildah run a
//! program on the host or the command run code it does not name pass no
//! list: `--runtime` and `--runtime-flag` (the OCI runtime buildah runs),
//! CNI's `--cni-plugin-path` and `--cni-config-dir`, a storage option that
//! names a mount program, and `--env` of a variable that steers a program,
//! of a name that expands, or of host variables by a pattern (`-e 'LD*'`,
//! `-e '*'`: buildah copies them in).

use super::super::code_variables;
use super::pflag::{self, Table};
use super::{Runs, Start};
use crate::shell::parse::Word;

/// buildah's own options and `run`'s (pflag takes either before `run` or
/// after it, up to the container).
#[rustfmt::skip]
const BUILDAH_RUN: Table = Table {
    valued: &["-e", "-v", "--cap-add", "--cap-drop", "--runtime-flag", "--device", "--env", "--volume",
        "--mount", "--cdi-config-dir", "--contextdir", "--hostname", "--isolation", "--runtime",
        "--workingdir", "--valid-exit-codes", "--user", "--cgroupns", "--ipc", "--network", "--net",
        "--pid", "--uts", "--cni-config-dir", "--cni-plugin-path", "--registries-conf",
        "--registries-conf-dir", "--short-name-alias-conf", "--root", "--runroot", "--cgroup-manager",
        "--storage-driver", "--imagestore", "--storage-opt", "--userns-uid-map", "--userns-gid-map",
        "--log-level", "--default-mounts-file", "--cpu-profile", "--memory-profile"],
    flags: &["-t", "-h", "--add-history", "--no-hostname", "--no-hosts", "--no-pivot", "--terminal",
        "--tty", "--help", "--transient-store", "--debug"],
};

/// Options whose value names a program buildah runs on the host.
const HOST_PROGRAMS: &[&str] = &["--runtime", "--runtime-flag", "--cni-plugin-path", "--cni-config-dir"];

/// What `words`, a buildah line, runs: `None` for a subcommand that runs
/// no command (`buildah from`, `buildah commit`), and for `run` without
/// one, which fails.
pub(super) fn buildah(words: &[Word]) -> Option<Start> {
    let unknown = Some(Start::Runs(Runs::Unknown));
    let mut run = false;
    let mut at = 1;
    loop {
        let word = words.get(at)?;
        let start = word.known_start();
        if word.literal() == Some("--") {
            at += 1;
            if !run {
                // `buildah -- run`: what follows is no subcommand cobra finds.
                return None;
            }
            break;
        }
        if start.starts_with('-') && start != "-" {
            let Ok(reads) = pflag::read(words, at, &BUILDAH_RUN) else { return unknown };
            if reads.iter().any(hides) {
                return unknown;
            }
            at += pflag::taken(&reads);
            continue;
        }
        if run {
            break;
        }
        match word.literal() {
            Some("run") => run = true,
            Some(_) => return None,
            None => return unknown,
        }
        at += 1;
    }
    // The container, which may be any word that is no option; then one `--`.
    let container = words.get(at)?;
    if container.literal().is_none() && container.known_start().is_empty() {
        return unknown;
    }
    at += 1;
    if words.get(at).and_then(Word::literal) == Some("--") {
        at += 1;
    }
    (at < words.len())
        .then(|| Start::Runs(Runs::Command { besides: Vec::new(), command: words[at..].to_vec() }))
}

/// Whether an option read may make buildah run a program on the host, or
/// the command code it does not name.
fn hides(read: &pflag::Read) -> bool {
    let name = read.name.as_str();
    let (value, whole) = read.value.clone().unwrap_or_default();
    if HOST_PROGRAMS.contains(&name) {
        return true;
    }
    match name {
        "-e" | "--env" => value.contains('*') || code_variables::may_steer(&value, whole),
        // containers/storage's `mount_program` (fuse-overlayfs, run on the host).
        "--storage-opt" => !whole || value.contains("mount_program"),
        _ => false,
    }
}

/// Options that urfave/cli reads with Go's `flag` package (crictl 1.36's
/// and containerd 2's `ctr`): one dash or two, no abbreviations, a value
/// after `=` or in the next word (whatever it is), a flag given a value
/// only after `=`; reading stops at the first word that is no option, and
/// at a `--`, which is dropped. `valued` and `flags` are names without
/// their dashes. With `clusters` (crictl's `exec`), a word of one dash
/// whose letters are all options is read as those options (`-it`).
struct GoOptions {
    valued: &'static [&'static str],
    flags: &'static [&'static str],
    clusters: bool,
}

impl GoOptions {
    /// Where the options from `words[at]` end, each read (name, value as
    /// far as known, whether all of it is; a flag's is empty unless given
    /// after `=`) given to `hides`; `Err(())` for
    /// an option it does not know, a word that expands where one may be,
    /// a value the shell may split, and what `hides` says may hide the command.
    fn skip(
        &self,
        words: &[Word],
        mut at: usize,
        hides: &dyn Fn(&str, &str, bool) -> bool,
    ) -> Result<usize, ()> {
        while let Some(word) = words.get(at) {
            let start = word.known_start();
            if word.literal() == Some("--") {
                return Ok(at + 1);
            }
            if !start.starts_with('-') || start == "-" {
                // A word that expands from its start may be an option.
                return if start.is_empty() && word.literal().is_none() { Err(()) } else { Ok(at) };
            }
            let whole = word.literal().is_some();
            let text = start.strip_prefix("--").unwrap_or(&start[1..]);
            let (name, glued) = match text.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None if !whole => return Err(()),
                None => (text, None),
            };
            let mut names = vec![name];
            if self.clusters && !start.starts_with("--") && glued.is_none() && !self.known(name) {
                names = name.char_indices().map(|(i, c)| &name[i..i + c.len_utf8()]).collect();
            }
            at += 1;
            for (i, name) in names.iter().enumerate() {
                if self.flags.contains(name) {
                    if hides(name, glued.unwrap_or_default(), whole) {
                        return Err(());
                    }
                    continue;
                }
                // Only the last of a cluster may take the next word.
                if !self.valued.contains(name) || i + 1 < names.len() {
                    return Err(());
                }
                let (value, whole) = match glued {
                    Some(value) => (value.to_string(), whole),
                    None => {
                        let value = words.get(at).ok_or(())?;
                        at += 1;
                        if value.splits() {
                            return Err(());
                        }
                        (value.known_start(), value.literal().is_some())
                    }
                };
                if hides(name, &value, whole) {
                    return Err(());
                }
            }
        }
        Ok(at)
    }

    fn known(&self, name: &str) -> bool {
        self.valued.contains(&name) || self.flags.contains(&name)
    }
}

/// crictl's own options, before its subcommand.
#[rustfmt::skip]
const CRICTL_GLOBAL: GoOptions = GoOptions {
    valued: &["c", "config", "r", "runtime-endpoint", "i", "image-endpoint", "t", "timeout", "max-retries",
        "tracing-sampling-rate-per-million", "tracing-endpoint", "profile-cpu", "profile-mem"],
    flags: &["D", "debug", "enable-tracing", "h", "help", "v", "version"],
    clusters: false,
};

/// `crictl exec`'s options; those that choose containers by a filter,
/// after which every word is the command's.
#[rustfmt::skip]
const CRICTL_EXEC: GoOptions = GoOptions {
    valued: &["timeout", "r", "transport", "name", "p", "pod", "image", "state", "label", "n", "last",
        "tls-sni", "tls-server-name", "tls-ca", "tls-cert", "tls-key"],
    flags: &["s", "sync", "t", "tty", "i", "interactive", "l", "latest", "q", "quiet", "e", "ignore-errors",
        "x", "parallel", "h", "help"],
    clusters: true,
};
const CRICTL_FILTERS: &[&str] = &["name", "p", "pod", "image", "state", "label", "l", "latest", "n", "last"];

/// What `crictl [OPTIONS] exec [OPTIONS] CONTAINER CMD…` runs: CMD, as its
/// words, in the container; with a filter instead of a container (`--name
/// web`, `--pod P`, `--latest`: crictl 1.32 and later) every word after the
/// options is the command's. Other subcommands run no command of the line's.
pub(super) fn crictl(words: &[Word]) -> Option<Start> {
    let unknown = Some(Start::Runs(Runs::Unknown));
    let never = |_: &str, _: &str, _: bool| false;
    let Ok(at) = CRICTL_GLOBAL.skip(words, 1, &never) else { return unknown };
    match words.get(at)?.literal() {
        Some("exec") => {}
        Some(_) => return None,
        None => return unknown,
    }
    let filtered = std::cell::Cell::new(false);
    let note = |name: &str, _: &str, _: bool| {
        filtered.set(filtered.get() || CRICTL_FILTERS.contains(&name));
        false
    };
    let Ok(mut at) = CRICTL_EXEC.skip(words, at + 1, &note) else { return unknown };
    if !filtered.get() {
        at += 1;
    }
    let command = words.get(at..).filter(|command| !command.is_empty())?;
    Some(Start::Runs(Runs::Command { besides: Vec::new(), command: command.to_vec() }))
}

/// ctr's own options, before its subcommand.
const CTR_GLOBAL: GoOptions = GoOptions {
    valued: &["a", "address", "n", "namespace", "timeout", "connect-timeout"],
    flags: &["debug", "h", "help", "v", "version"],
    clusters: false,
};

/// `ctr run`'s and `ctr container create`'s options (containerd 2.x).
#[rustfmt::skip]
const CTR_RUN: GoOptions = GoOptions {
    valued: &["log-uri", "fifo-dir", "cgroup", "platform", "dump-config", "runtime", "runtime-config-path",
        "runc-binary", "runc-root", "snapshotter", "snapshotter-label", "c", "config", "cwd", "env",
        "env-file", "label", "annotation", "mount", "sandbox", "with-ns", "pid-file", "gpus",
        "memory-limit", "cap-add", "cap-drop", "seccomp-profile", "apparmor-default-profile",
        "apparmor-profile", "blockio-config-file", "blockio-class", "rdt-class", "hostname", "u", "user",
        "cpu-quota", "cpu-period", "rootfs-propagation", "device", "uidmap", "gidmap", "cpus",
        "cpu-shares", "cpuset-cpus", "cpuset-mems", "rlimit-nofile"],
    flags: &["rm", "null-io", "d", "detach", "cni", "sync-fs", "runc-systemd-cgroup", "net-host",
        "privileged", "read-only", "t", "tty", "allow-new-privs", "seccomp", "rootfs", "no-pivot",
        "remap-labels", "privileged-without-host-devices", "h", "help"],
    clusters: false,
};

/// `ctr task exec`'s options.
const CTR_EXEC: GoOptions = GoOptions {
    valued: &["cwd", "exec-id", "fifo-dir", "log-uri", "user"],
    flags: &["t", "tty", "d", "detach", "h", "help"],
    clusters: false,
};

/// What a ctr line runs: `ctr run [OPTIONS] IMAGE ID [CMD…]` and `ctr
/// container create …` (kept for `ctr task start`) run CMD, as its words,
/// in the container (without one, the image's own command); `ctr task exec
/// [OPTIONS] CONTAINER CMD…` (`ctr t exec`, `ctr tasks exec`) runs CMD in
/// it. What names a program ctr's containerd runs on the host (`--runtime`
/// given as a path, `--runc-binary`, `--runtime-config-path`), a spec of
/// the container's (`--config`, whose hooks run on the host) and a file of
/// variables (`--env-file`) pass no list, as `--env` of a variable that
/// steers a program does.
pub(super) fn ctr(words: &[Word]) -> Option<Start> {
    let unknown = Some(Start::Runs(Runs::Unknown));
    let never = |_: &str, _: &str, _: bool| false;
    let Ok(at) = CTR_GLOBAL.skip(words, 1, &never) else { return unknown };
    let sub = |at: usize| words.get(at).map(Word::literal);
    let (options, at, before) = match sub(at)? {
        Some("run") => (&CTR_RUN, at + 1, 2),
        Some("c" | "container" | "containers") => match sub(at + 1)? {
            Some("create") => (&CTR_RUN, at + 2, 2),
            Some(_) => return None,
            None => return unknown,
        },
        Some("t" | "task" | "tasks") => match sub(at + 1)? {
            Some("exec") => (&CTR_EXEC, at + 2, 1),
            Some(_) => return None,
            None => return unknown,
        },
        Some(_) => return None,
        None => return unknown,
    };
    let hides = |name: &str, value: &str, whole: bool| match name {
        "runc-binary" | "runtime-config-path" | "env-file" | "c" | "config" => true,
        "runtime" => !whole || value.contains('/'),
        "env" => code_variables::may_steer(value, whole),
        _ => false,
    };
    let Ok(at) = options.skip(words, at, &hides) else { return unknown };
    // The image (or root) and the container's ID, or the container.
    if words[at.min(words.len())..]
        .iter()
        .take(before)
        .any(|w| w.literal().is_none() && w.known_start().is_empty())
    {
        return unknown;
    }
    let command = words.get(at + before..).filter(|command| !command.is_empty())?;
    Some(Start::Runs(Runs::Command { besides: Vec::new(), command: command.to_vec() }))
}

#[cfg(test)]
mod tests {
    use super::super::super::tests::{passes_no_list, texts};

    #[test]
    fn a_working_containers_command_is_read_as_the_command_it_runs() {
        for (line, inner) in [
            ("buildah run c rm x", "rm x"),
            ("buildah run c -- rm -f x", "rm -f x"),
            ("buildah run -- c rm x", "rm x"),
            ("buildah --root /r --log-level=debug run -t -e A=1 -v /a:/b --user 0 c rm x", "rm x"),
            ("buildah -e A=1 run --isolation chroot --network=none c rm x", "rm x"),
            ("buildah run -tv /a:/b -eA=1 --terminal=false c rm x", "rm x"),
            // Options stop at the container: `-l` is the command's.
            ("buildah run c ls -l", "ls -l"),
            ("buildah run c -- -- x", "-- x"),
        ] {
            assert_eq!(texts(line).last().map(String::as_str), Some(inner), "{line}");
        }
        for line in ["buildah from alpine", "buildah run c", "buildah commit c img", "buildah"] {
            assert_eq!(texts(line), [line], "{line}");
        }
    }

    #[test]
    fn a_cri_containers_command_is_read_as_the_command_it_runs() {
        for (line, inner) in [
            ("crictl exec c rm x", "rm x"),
            ("crictl -r unix:///run/containerd/containerd.sock exec -it c rm x", "rm x"),
            ("crictl --timeout=5s exec -s --timeout 3 c rm -f x", "rm -f x"),
            ("crictl exec -i c ls -l", "ls -l"),
            ("crictl exec -- c rm x", "rm x"),
            // A filter chooses the containers: every word is the command's.
            ("crictl exec --name web rm x", "rm x"),
            ("crictl exec -l rm x", "rm x"),
            ("crictl exec --pod=p -it rm x", "rm x"),
            ("crictl exec -il rm x", "rm x"),
            ("ctr run docker.io/library/alpine:latest c1 rm x", "rm x"),
            ("ctr -n k8s.io run --rm -t --env A=1 --mount type=bind,src=/a,dst=/b img c1 rm x", "rm x"),
            ("ctr run --runtime io.containerd.runc.v2 img c1 rm x", "rm x"),
            ("ctr c create img c1 rm x", "rm x"),
            ("ctr t exec --exec-id e1 -t c1 rm x", "rm x"),
            ("ctr tasks exec --exec-id=e1 c1 -- rm x", "-- rm x"),
            ("ctr task exec --exec-id e1 -- c1 rm x", "rm x"),
        ] {
            assert_eq!(texts(line).last().map(String::as_str), Some(inner), "{line}");
        }
        for line in [
            "crictl ps",
            "crictl exec c",
            "ctr images pull docker.io/library/alpine:latest",
            "ctr run img c1",
            "ctr t ls",
        ] {
            assert_eq!(texts(line), [line], "{line}");
        }
    }

    #[test]
    fn what_only_running_tells_passes_no_list() {
        for line in [
            // An option it may have that the table does not know (it would
            // shift the container), a word that may be an option or splits.
            "buildah run --new-option c rm x",
            "buildah run \"$OPTS\" c rm x",
            "buildah run -v $V c ls",
            "buildah \"$SUB\" c rm x",
            // A program on the host.
            "buildah run --runtime ./runc c ls",
            "buildah --storage-opt overlay.mount_program=./x run c ls",
            "buildah run --cni-plugin-path ./plugins c ls",
            // A variable that steers the command, or may.
            "buildah run -e LD_PRELOAD=/x.so c ls",
            "buildah run --env=\"$V\" c ls",
            "buildah run -e 'LD*' c ls",
            "buildah run -e\"$V\" c ls",
            // crictl's and ctr's: an option they may have that the tables
            // do not know, a word that may be an option, a program or a
            // spec on the host, variables.
            "crictl exec --new c rm x",
            "crictl exec \"$O\" c rm x",
            "crictl exec -iz c rm x",
            "ctr run --new img c1 rm x",
            "ctr run --runtime /tmp/shim img c1 ls",
            "ctr run --runc-binary ./runc img c1 ls",
            "ctr run --env-file e img c1 ls",
            "ctr run --config spec.json c1",
            "ctr run -env LD_PRELOAD=/x.so img c1 ls",
            "ctr run \"$IMG\" c1 ls",
            "ctr \"$SUB\" img c1 ls",
            "ctr t exec --exec-id $E c1 ls",
        ] {
            passes_no_list(line);
        }
    }
}
