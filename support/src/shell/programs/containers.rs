//! Container engines: `docker run [OPTIONS] IMAGE [CMD…]` (and `create`,
//! which keeps CMD for `docker start`), `docker exec [OPTIONS] CONTAINER
//! CMD…`, the same under `docker container`, and Podman's and nerdctl's
//! (docker's options, nerdctl's own before its subcommand); Compose's `run
//! SERVICE [CMD…]` and `exec SERVICE CMD…` (`docker compose`,
//! `docker-compose`), whose service the project's file describes; and
//! Apptainer's and SingularityCE's `exec IMAGE CMD…` (`run` and `test`, whose
//! script is given the words after the image, alike). What runs is the
//! `--entrypoint` followed by the words after the image (else those words;
//! else the image's own command, as a Makefile's rules are make's), and a
//! `--health-cmd`, which the engine runs with `/bin/sh -c` (a JSON array,
//! `["CMD", "ARG"]`, is a command's words).
//!
//! The engines read options as Go's pflag does (docker's option table
//! below, taken from `docker run --help` of Docker 28): no abbreviations, a
//! long option's value after `=` or in the next word, short ones in
//! clusters, options only before the image. An option the table does not
//! know may take the next word, so it passes no list, and so does a word
//! that expands before the command (`docker run "$OPTS" img rm x`: it may
//! be `--entrypoint=sh`) and the options in [`OPAQUE_GLOBAL`] and
//! [`OPAQUE`] (`--env-file`, whose file may set `LD_PRELOAD`; Podman's
//! `--hooks-dir`, whose hooks run on the host).

use super::code_variables;
use super::given::{Besides, Runs, Start};
use crate::shell::parse::{self, Word};

/// The engines read here.
pub(super) const ENGINES: &[&str] =
    &["docker", "podman", "docker-compose", "nerdctl", "apptainer", "singularity"];

/// An engine's options: (those that take a value, those that do not).
type Table = (&'static [&'static str], &'static [&'static str]);

/// docker's own options, before its subcommand (`docker -H tcp://h run`).
#[rustfmt::skip]
const DOCKER_GLOBAL: Table = (
    &["-H", "-c", "-l", "--host", "--context", "--log-level", "--config", "--tlscacert", "--tlscert", "--tlskey"],
    &["-D", "-v", "-h", "--debug", "--version", "--help", "--tls", "--tlsverify"],
);

/// Podman's own options.
#[rustfmt::skip]
const PODMAN_GLOBAL: Table = (
    &["-c", "--connection", "--url", "--identity", "--root", "--runroot", "--storage-driver",
        "--storage-opt", "--log-level", "--cgroup-manager", "--conmon", "--events-backend",
        "--hooks-dir", "--network-cmd-path", "--network-config-dir", "--runtime", "--runtime-flag",
        "--tmpdir", "--volumepath", "--imagestore", "--module", "--ssh", "--db-backend", "--out",
        "--config"],
    &["-r", "-v", "-h", "--remote", "--syslog", "--noout", "--transient-store", "--help", "--version"],
);

/// nerdctl's own options (its command reference's global flags; a newer
/// one it does not list passes no list).
#[rustfmt::skip]
const NERDCTL_GLOBAL: Table = (
    &["-a", "-H", "-n", "--address", "--host", "--namespace", "--snapshotter", "--storage-driver",
        "--cni-path", "--cni-netconfpath", "--data-root", "--cgroup-manager", "--host-gateway-ip",
        "--cdi-spec-dirs"],
    &["-h", "-v", "--help", "--version", "--debug", "--debug-full", "--insecure-registry", "--experimental"],
);

/// `docker run`'s and `docker create`'s options (Podman's too, where they
/// share a name; Podman's others pass no list).
#[rustfmt::skip]
const RUN: Table = (
    &["-a", "-c", "-e", "-h", "-l", "-m", "-p", "-u", "-v", "-w", "--attach", "--cpu-shares", "--env",
        "--hostname", "--label", "--memory", "--publish", "--user", "--volume", "--workdir",
        "--add-host", "--annotation", "--blkio-weight", "--blkio-weight-device", "--cap-add",
        "--cap-drop", "--cgroup-parent", "--cgroupns", "--cidfile", "--cpu-count", "--cpu-percent",
        "--cpu-period", "--cpu-quota", "--cpu-rt-period", "--cpu-rt-runtime", "--cpus", "--cpuset-cpus",
        "--cpuset-mems", "--detach-keys", "--device", "--device-cgroup-rule", "--device-read-bps",
        "--device-read-iops", "--device-write-bps", "--device-write-iops", "--dns", "--dns-option",
        "--dns-search", "--domainname", "--entrypoint", "--env-file", "--expose", "--gpus", "--group-add",
        "--health-cmd", "--health-interval", "--health-retries", "--health-start-interval",
        "--health-start-period", "--health-timeout", "--io-maxbandwidth", "--io-maxiops", "--ip", "--ip6",
        "--ipc", "--isolation", "--kernel-memory", "--label-file", "--link", "--link-local-ip",
        "--log-driver", "--log-opt", "--mac-address", "--memory-reservation", "--memory-swap",
        "--memory-swappiness", "--mount", "--name", "--network", "--network-alias", "--oom-score-adj",
        "--pid", "--pids-limit", "--platform", "--pull", "--restart", "--runtime", "--security-opt",
        "--shm-size", "--stop-signal", "--stop-timeout", "--storage-opt", "--sysctl", "--tmpfs",
        "--ulimit", "--userns", "--uts", "--volume-driver", "--volumes-from"],
    &["-d", "-i", "-t", "-P", "-q", "--detach", "--interactive", "--tty", "--publish-all", "--quiet",
        "--rm", "--init", "--privileged", "--read-only", "--no-healthcheck", "--oom-kill-disable",
        "--disable-content-trust", "--sig-proxy", "--use-api-socket", "--help"],
);

/// `docker exec`'s options.
#[rustfmt::skip]
const EXEC: Table = (
    &["-e", "-u", "-w", "--env", "--user", "--workdir", "--detach-keys", "--env-file"],
    &["-d", "-i", "-t", "--detach", "--interactive", "--tty", "--privileged", "--help"],
);

/// Options whose value may make the engine run what the line does not
/// say: before the subcommand, docker's configuration (a credential helper,
/// plugin directories) and Podman's OCI hooks, runtime, conmon, network
/// helper and configuration module, which run on the host; after it, a file
/// of variables (`LD_PRELOAD`).
const OPAQUE_GLOBAL: &[&str] =
    &["--config", "--hooks-dir", "--runtime", "--conmon", "--network-cmd-path", "--module"];
const OPAQUE: &[&str] = &["--env-file"];
/// nerdctl runs on the host the CNI plugins of a directory, a CDI spec's
/// hooks, a runtime or a logging shim given as a path (`--runtime
/// ./runc`, `--log-driver binary:///x`): before its subcommand and after.
const NERDCTL_OPAQUE_GLOBAL: &[&str] = &["--cni-path", "--cni-netconfpath", "--cdi-spec-dirs"];
const NERDCTL_OPAQUE: &[&str] = &["--env-file", "--runtime", "--log-driver"];

/// Apptainer's own options, before its subcommand (Apptainer 1.5's, August 2026:
/// `cmd/internal/cli/apptainer.go`; SingularityCE shares its command line,
/// and an option of its own the table does not know passes no list).
#[rustfmt::skip]
const APPTAINER_GLOBAL: Table = (
    &["-c", "--config"],
    &["-d", "-q", "-s", "-v", "-h", "--debug", "--nocolor", "--quiet", "--silent", "--verbose", "--build-config",
        "--help"],
);

/// `apptainer exec`'s, `run`'s and `test`'s options (`action_flags.go`,
/// those registered for them): cobra reads them as pflag does, before the
/// image only.
#[rustfmt::skip]
const APPTAINER_ACTION: Table = (
    &["-B", "-H", "-S", "-W", "-o", "--add-caps", "--app", "--apply-cgroups", "--authfile", "--bind",
        "--blkio-weight", "--blkio-weight-device", "--cdi-dirs", "--containlibs", "--cpu-shares", "--cpus",
        "--cpuset-cpus", "--cpuset-mems", "--cwd", "--device", "--dns", "--docker-host", "--docker-password",
        "--docker-username", "--drop-caps", "--env", "--env-file", "--fusemount", "--home", "--hostname",
        "--memory", "--memory-reservation", "--memory-swap", "--mount", "--netns-path", "--network",
        "--network-args", "--no-env", "--no-mount", "--overlay", "--pem-path", "--pids-limit", "--pwd",
        "--runscript-timeout", "--scratch", "--security", "--tmpdir", "--workdir"],
    &["-C", "-c", "-e", "-f", "-i", "-n", "-p", "-u", "-w", "-h", "--allow-setuid", "--cleanenv", "--compat",
        "--compat32", "--contain", "--containall", "--disable-cache", "--docker-login", "--fakeroot",
        "--ignore-fakeroot-command", "--ignore-subuid", "--ignore-userns", "--intel-hpu", "--ipc", "--keep-privs",
        "--net", "--no-eval", "--no-home", "--no-https", "--no-init", "--no-nv", "--no-pid", "--no-privs",
        "--no-rocm", "--no-umask", "--nohttps", "--nv", "--nvccli", "--oom-kill-disable", "--passphrase", "--pid",
        "--rocm", "--sharens", "--underlay", "--unsquash", "--userns", "--uts", "--writable", "--writable-tmpfs",
        "--help"],
);

/// Apptainer's options that make it run or load what the line does not
/// say: its configuration file (CNI plugins it runs on the host), a file of
/// variables, a FUSE mount (`--fusemount host:sshfs …` runs its program on
/// the host), libraries bound into the container, CDI specs (whose hooks run
/// on the host) and CNI plugins' arguments.
const APPTAINER_OPAQUE_GLOBAL: &[&str] = &["-c", "--config"];
const APPTAINER_OPAQUE: &[&str] =
    &["--env-file", "--fusemount", "--containlibs", "--cdi-dirs", "--network-args"];

/// Compose's own options (`docker compose -f c.yaml run`, `docker-compose`),
/// from its reference (`docs/reference/docker_compose*.yaml`).
#[rustfmt::skip]
const COMPOSE_GLOBAL: Table = (
    &["-f", "-p", "--ansi", "--env-file", "--file", "--insecure-registry", "--parallel", "--profile",
        "--progress", "--project-directory", "--project-name", "--workdir"],
    &["-v", "-h", "--all-resources", "--compatibility", "--dry-run", "--no-ansi", "--verbose", "--version",
        "--help"],
);

/// `docker compose run`'s options.
#[rustfmt::skip]
const COMPOSE_RUN: Table = (
    &["-e", "-l", "-p", "-u", "-v", "-w", "--cap-add", "--cap-drop", "--entrypoint", "--env",
        "--env-from-file", "--label", "--name", "--publish", "--pull", "--user", "--volume", "--workdir"],
    &["-d", "-i", "-T", "-q", "-P", "-t", "-h", "--build", "--detach", "--interactive", "--no-deps",
        "--no-tty", "--quiet", "--quiet-build", "--quiet-pull", "--remove-orphans", "--rm",
        "--service-ports", "--tty", "--use-aliases", "--dry-run", "--help"],
);

/// `docker compose exec`'s options.
#[rustfmt::skip]
const COMPOSE_EXEC: Table = (
    &["-e", "-u", "-w", "--env", "--index", "--user", "--workdir"],
    &["-d", "-i", "-T", "-t", "-h", "--detach", "--interactive", "--no-tty", "--privileged", "--tty",
        "--dry-run", "--help"],
);

/// Compose's files of variables: the project's (which may set what its
/// file interpolates, an entrypoint among them) and a container's.
const COMPOSE_OPAQUE: &[&str] = &["--env-file", "--env-from-file"];

/// What `words`, an engine's line (`words[0]` names `engine`), runs;
/// `None` when its subcommand runs no command (`docker ps`, `docker build`).
pub(super) fn start(engine: &str, words: &[Word]) -> Option<Start> {
    let unknown = Some(Start::Runs(Runs::Unknown));
    let Ok(found) = subcommand(engine, words) else { return unknown };
    let sub = found?;
    let Some(given) = Options::read(words, sub.at, sub.table, sub.opaque) else { return unknown };
    // The image, the container or the service (without one the engine
    // runs nothing): a word that expands may be an option.
    match words.get(given.end) {
        None => return None,
        Some(Word::Expands(_)) => return unknown,
        Some(Word::Literal(_)) => {}
    }
    if sub.seen_opaque || given.opaque {
        return unknown;
    }
    // `--entrypoint ''` resets the image's.
    let entrypoint = given.entrypoint.filter(|word| word.literal() != Some(""));
    let (Some(entrypoint), Some(health)) = (Form::of(entrypoint), Form::of(given.health)) else {
        return unknown;
    };
    let mut command = match entrypoint {
        Form::Exec(words) => words,
        Form::Value(word) => vec![word],
        Form::None => Vec::new(),
    };
    command.extend(words[given.end + 1..].iter().cloned());
    let besides = match health {
        Form::Exec(words) => vec![Besides::Command(words)],
        Form::Value(line) => vec![Besides::Line(line)],
        Form::None => Vec::new(),
    };
    Some(Start::Runs(Runs::Command { besides, command }))
}

/// An engine's subcommand that runs a command.
struct Sub {
    /// Where its options start.
    at: usize,
    table: Table,
    /// Its options whose value may say anything.
    opaque: &'static [&'static str],
    /// Whether such an option came before it (the engine's own).
    seen_opaque: bool,
}

/// The subcommand of `words` that runs a command (`run`, `create`, `exec`,
/// also under `container`; Compose's `run` and `exec`); `Ok(None)` for
/// another; `Err` for what only running tells (an option no table knows, a
/// word that expands where an option or the subcommand may be).
fn subcommand(engine: &str, words: &[Word]) -> Result<Option<Sub>, ()> {
    let sub = |at: usize| words.get(at).map(|word| word.literal().ok_or(())).transpose();
    if matches!(engine, "apptainer" | "singularity") {
        let own = Options::read(words, 1, APPTAINER_GLOBAL, APPTAINER_OPAQUE_GLOBAL).ok_or(())?;
        let (at, seen_opaque) = (own.end, own.opaque);
        let (table, opaque) = (APPTAINER_ACTION, APPTAINER_OPAQUE);
        return match sub(at)? {
            // The words after the image: `exec`'s command; the arguments of
            // `run`'s and `test`'s script, which often runs them.
            Some("exec" | "run" | "test") => Ok(Some(Sub { at: at + 1, table, opaque, seen_opaque })),
            // A shell that runs its input, an instance's start script (and
            // what it is given), the OCI mode's `exec`.
            Some("shell" | "instance" | "oci") => Err(()),
            _ => Ok(None),
        };
    }
    let mut compose = engine == "docker-compose";
    let (mut at, mut seen) = (1, false);
    if !compose {
        let (global, opaque) = match engine {
            "podman" => (PODMAN_GLOBAL, OPAQUE_GLOBAL),
            "nerdctl" => (NERDCTL_GLOBAL, NERDCTL_OPAQUE_GLOBAL),
            _ => (DOCKER_GLOBAL, OPAQUE_GLOBAL),
        };
        let own = Options::read(words, 1, global, opaque).ok_or(())?;
        (at, seen) = (own.end, own.opaque);
        if sub(at)? == Some("compose") {
            compose = true;
            at += 1;
        }
    }
    if compose {
        let own = Options::read(words, at, COMPOSE_GLOBAL, COMPOSE_OPAQUE).ok_or(())?;
        (at, seen) = (own.end, seen || own.opaque);
    }
    let Some(mut name) = sub(at)? else { return Ok(None) };
    if !compose && name == "container" {
        at += 1;
        let Some(next) = sub(at)? else { return Ok(None) };
        name = next;
    }
    let opaque = if engine == "nerdctl" { NERDCTL_OPAQUE } else { OPAQUE };
    let (table, opaque) = match (compose, name) {
        (false, "run" | "create") => (RUN, opaque),
        (false, "exec") => (EXEC, opaque),
        (true, "run") => (COMPOSE_RUN, COMPOSE_OPAQUE),
        (true, "exec") => (COMPOSE_EXEC, COMPOSE_OPAQUE),
        _ => return Ok(None),
    };
    Ok(Some(Sub { at: at + 1, table, opaque, seen_opaque: seen }))
}

/// Whether `words` are an engine's subcommand that runs a command, what
/// follows it as written (an allow pattern: `docker run *`).
pub(super) fn runs_a_command(words: &[Word]) -> bool {
    let engine = words.first().and_then(Word::literal).filter(|name| ENGINES.contains(name));
    engine.is_some_and(|engine| matches!(subcommand(engine, words), Ok(Some(_))))
}

/// An engine's options, read as pflag reads them.
#[derive(Default)]
struct Options {
    /// The first word that is no option (nor an option's value), past a `--`.
    end: usize,
    /// The last `--entrypoint`'s value (pflag keeps the last).
    entrypoint: Option<Word>,
    /// The last `--health-cmd`'s value.
    health: Option<Word>,
    /// Whether an option whose value may say anything is given ([`OPAQUE`]).
    opaque: bool,
}

impl Options {
    /// The options of `table` from `words[at]` on; `None` for an option the
    /// table does not know and for a word that expands where an option may be.
    fn read(words: &[Word], mut at: usize, (valued, flags): Table, opaque: &[&str]) -> Option<Options> {
        let mut options = Options::default();
        while let Some(word) = words.get(at) {
            // `--name="$N"`: one word, the option named.
            let text = match word {
                Word::Literal(text) => text.as_str(),
                Word::Expands(text) if glued_value(text) => text.as_str(),
                Word::Expands(_) => return None,
            };
            if text == "--" {
                at += 1;
                break;
            }
            if !text.starts_with('-') || text == "-" {
                break;
            }
            let Some(long) = text.strip_prefix("--") else {
                let taken = short_cluster(&text[1..], valued, flags)?;
                if taken == 2 && words.get(at + 1).is_some_and(Word::splits) {
                    return None;
                }
                // `-e NAME=VALUE`, `-eNAME=VALUE`, `-e=NAME=VALUE`.
                let letters = &text[1..];
                let first_valued = letters.char_indices().find(|&(_, l)| short_option(valued, l));
                options.opaque |= first_valued.is_some_and(|(_, l)| short_option(opaque, l));
                if let Some((i, 'e')) = first_valued {
                    let glued = &letters[i + 1..];
                    options.opaque |= match (glued, words.get(at + 1)) {
                        ("", Some(next)) => {
                            code_variables::may_steer(&next.known_start(), next.literal().is_some())
                        }
                        ("", None) => false,
                        (glued, _) => {
                            code_variables::may_steer(glued.strip_prefix('=').unwrap_or(glued), true)
                        }
                    };
                }
                at += taken;
                continue;
            };
            let (name, glued) = match (long.split_once('='), word) {
                (Some((name, value)), Word::Literal(_)) => (name, Some(Word::Literal(value.to_string()))),
                (Some((name, _)), Word::Expands(_)) => (name, Some(word.clone())),
                (None, _) => (long, None),
            };
            let name = &text[..name.len() + 2];
            if !valued.contains(&name) {
                flags.contains(&name).then_some(())?;
                at += 1;
                continue;
            }
            let value = match glued {
                Some(value) => value,
                None => {
                    at += 1;
                    let value = words.get(at)?;
                    if value.splits() {
                        return None;
                    }
                    value.clone()
                }
            };
            match name {
                "--entrypoint" => options.entrypoint = Some(value),
                "--health-cmd" => options.health = Some(value),
                "--env" => {
                    // Glued and expanding, the value is the whole word (`--env="$V"`).
                    let known = value.known_start();
                    let known = match word {
                        Word::Expands(_) => known.split_once('=').map_or("", |(_, value)| value),
                        Word::Literal(_) => known.as_str(),
                    };
                    options.opaque |= code_variables::may_steer(known, value.literal().is_some());
                }
                _ if opaque.contains(&name) => options.opaque = true,
                _ => {}
            }
            at += 1;
        }
        options.end = at;
        Some(options)
    }
}

/// Whether `-LETTER` is in `list`.
fn short_option(list: &[&str], letter: char) -> bool {
    list.iter().any(|o| o.len() == 2 && o.ends_with(letter))
}

/// Whether `written`, a word that expands, is a long option with its value
/// glued, the shell making one word of it (`--name="$N"`, not `--name=$N`).
fn glued_value(written: &str) -> bool {
    written.strip_prefix("--").and_then(|long| long.split_once('=')).is_some_and(|(name, _)| {
        !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
    }) && !parse::may_split(written)
}

/// How many words `-LETTERS` takes: each letter a flag until one takes a
/// value, which is the rest of the word (after an `=`, as pflag reads it)
/// or, when it is the last letter, the next word; `None` for a letter the
/// table does not know.
fn short_cluster(letters: &str, valued: &[&str], flags: &[&str]) -> Option<usize> {
    for (i, letter) in letters.char_indices() {
        if short_option(valued, letter) {
            return Some(if i + letter.len_utf8() == letters.len() { 2 } else { 1 });
        }
        short_option(flags, letter).then_some(())?;
    }
    Some(1)
}

/// An `--entrypoint`'s or a health check's value.
enum Form {
    /// The exec form, a JSON array of strings (`["sh", "-c", "rm x"]`, as
    /// Podman takes an entrypoint and both a health check): its words.
    Exec(Vec<Word>),
    /// Any other: a program (an entrypoint) or a line `/bin/sh -c` runs.
    Value(Word),
    /// Not given.
    None,
}

impl Form {
    /// The form of `value`, if given; `None` for one that opens an array
    /// but is none (only the engine tells what it makes of it).
    fn of(value: Option<Word>) -> Option<Form> {
        let Some(value) = value else { return Some(Form::None) };
        match value.literal() {
            Some(text) if text.trim_start().starts_with('[') => {
                let words: Vec<String> = serde_json::from_str(text).ok()?;
                Some(Form::Exec(words.into_iter().map(Word::Literal).collect()))
            }
            _ => Some(Form::Value(value)),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::shell::programs::tests::{hidden, texts};

    /// What a container runs is read as any command (Docker 28's
    /// `docker run --help`: the options before the image are the engine's).
    #[test]
    fn a_containers_command_is_read_as_the_command_it_runs() {
        for (line, inner) in [
            ("docker run alpine rm x", &["rm x"][..]),
            ("docker run --rm -it -v /w:/w -e A=1 --name n alpine rm x", &["rm x"]),
            ("docker run -itv /w:/w alpine rm x", &["rm x"]),
            ("docker run -h box -u 0 -w /w alpine rm x", &["rm x"]),
            ("docker run --rm=true --sig-proxy=false alpine rm x", &["rm x"]),
            ("docker run -- alpine rm x", &["rm x"]),
            // `docker run --runtime` names a runtime the daemon was given.
            ("docker run --runtime=runsc alpine rm x", &["rm x"]),
            ("docker create alpine rm x", &["rm x"]),
            ("docker container run alpine rm x", &["rm x"]),
            ("docker -H tcp://h --tls run alpine rm x", &["rm x"]),
            ("podman run --rm alpine rm x", &["rm x"]),
            ("podman --remote container create alpine rm x", &["rm x"]),
            ("docker exec -it -u root -e A=1 box rm x", &["rm x"]),
            ("docker -H tcp://h exec box rm x", &["rm x"]),
            ("docker container exec box rm x", &["rm x"]),
            ("podman exec -w /srv box rm x", &["rm x"]),
            ("sudo docker run alpine sh -c 'ls; rm x'", &["ls", "rm x"]),
            // The entrypoint runs the words after the image.
            ("docker run --entrypoint rm alpine x", &["rm x"]),
            ("docker run --entrypoint=sh alpine -c 'rm x'", &["rm x"]),
            ("docker run --entrypoint /bin/rm alpine", &["rm"]),
            ("docker run --entrypoint '' alpine rm x", &["rm x"]),
            ("podman run --entrypoint '[\"sh\", \"-c\", \"rm x\"]' alpine", &["rm x"]),
            ("docker run --entrypoint ls --entrypoint rm alpine x", &["rm x"]),
            // A health check's line runs in the container too.
            ("docker run --health-cmd 'rm x' alpine ls", &["rm x", "ls"]),
            ("docker run --health-cmd='[\"rm\", \"x\"]' alpine ls", &["rm x", "ls"]),
            // An option's value is no option: `-e --entrypoint=ls` sets a variable.
            ("docker run -e --entrypoint=ls alpine rm x", &["rm x"]),
            ("docker run --name \"$N\" -e \"A=$B\" --label=\"$L\" alpine rm x", &["rm x"]),
            ("docker run docker:cli docker run alpine rm x", &["rm x"]),
            // Compose: the words after the service.
            ("docker compose run --rm app rm x", &["rm x"]),
            ("docker compose -f ci.yaml -p proj run -e A=1 -T app rm x", &["rm x"]),
            ("docker compose run --entrypoint sh app -c 'rm x'", &["rm x"]),
            ("docker-compose exec -T db rm x", &["rm x"]),
            ("podman compose run app rm x", &["rm x"]),
            // nerdctl: its own options, then docker's.
            ("nerdctl run --rm alpine rm x", &["rm x"]),
            ("nerdctl --namespace k8s.io -a /run/c.sock run -it --rm alpine rm x", &["rm x"]),
            ("nerdctl --insecure-registry container run alpine rm x", &["rm x"]),
            ("nerdctl exec -w /srv box rm x", &["rm x"]),
            ("nerdctl compose run app rm x", &["rm x"]),
            // Apptainer and SingularityCE: the words after the image.
            ("apptainer exec img.sif rm x", &["rm x"]),
            ("apptainer -q exec -B /w:/w --nv --env A=1 -e -c docker://alpine rm x", &["rm x"]),
            ("singularity exec --bind=/w --home /h --pwd /w img.sif rm x", &["rm x"]),
            ("apptainer --debug run -B /d img.sif rm x", &["rm x"]),
            ("apptainer test img.sif rm x", &["rm x"]),
            ("apptainer exec -- img.sif rm x", &["rm x"]),
            ("srun -n 2 apptainer exec img.sif sh -c 'ls; rm x'", &["ls", "rm x"]),
        ] {
            assert_eq!(texts(line), inner, "{line}");
        }
        let program = &super::super::programs("docker run --rm alpine rm x").unwrap()[0];
        assert_eq!(program.wrappers.len(), 1, "{:?}", program.wrappers);
        assert_eq!(&*program.wrappers[0], "docker run --rm alpine rm x");
    }

    /// Without a command the image runs its own, as make runs its
    /// Makefile's: the engine's line is what is judged. The engine's other
    /// subcommands run no command.
    #[test]
    fn an_images_own_command_and_other_subcommands_are_the_engines() {
        for line in [
            "docker run --rm alpine",
            "docker run -d -p 80:80 nginx",
            "docker ps -a",
            "docker build -t x .",
            "docker start box",
            "docker -v",
            "podman images",
            "docker container ls",
            "docker run",
            "docker compose up -d",
            "docker compose run app",
            "docker-compose build",
            "apptainer run img.sif",
            "apptainer pull docker://alpine",
            "singularity build img.sif img.def",
        ] {
            assert_eq!(texts(line), [line], "{line}");
        }
        // An allow pattern through a subcommand that runs a command matches
        // only the image's own: tissvm warns of it (`looked_through`).
        for pattern in ["docker run *", "docker compose run *", "podman container exec *"] {
            let through = crate::shell::programs::looked_through(pattern);
            assert_eq!(through, Some(crate::shell::programs::LookedThrough::Container), "{pattern}");
        }
        assert_eq!(crate::shell::programs::looked_through("docker ps *"), None);
    }

    /// What the table cannot read passes no list: an option it does not
    /// know (it may take the next word: Podman's `--arch amd64`), a word
    /// that expands where an option may be, an env file (which may set
    /// `LD_PRELOAD`), an entrypoint or health check that is no JSON array.
    #[test]
    fn a_variable_the_engine_sets_is_read_where_it_steers_nothing() {
        for line in [
            "docker run -e A=1 -e B=\"$X\" alpine rm x",
            "docker run -e A=\"$X\" --env=B=\"$Y\" --env C alpine rm x",
            "docker exec -e \"A=$X\" box rm x",
        ] {
            assert_eq!(texts(line).last().map(String::as_str), Some("rm x"), "{line}");
        }
    }

    #[test]
    fn what_only_running_tells_passes_no_list() {
        for line in [
            "docker run \"$OPTS\" alpine rm x",
            "docker run $OPTS alpine rm x",
            "docker run \"$IMAGE\" rm x",
            "docker run -e $A alpine rm x",
            "docker run --name=$N alpine rm x",
            "docker \"$SUB\" alpine rm x",
            "docker container \"$SUB\" alpine rm x",
            "docker run --new-option alpine rm x",
            "docker run -Z alpine rm x",
            "docker run -iZ alpine rm x",
            "podman run --arch amd64 alpine rm x",
            "podman --new-global run alpine rm x",
            "docker run --env-file e alpine ls",
            // A variable that steers the command, or may (its name expands).
            "docker run -e \"$V\" alpine ls",
            "docker run -e LD_PRELOAD=/x.so alpine ls",
            "docker run -eLD_PRELOAD=/x.so alpine ls",
            "docker run -it -eLD_PRELOAD=/x.so alpine ls",
            "docker run --env=\"$V\" alpine ls",
            "docker run --env \"${V}\" alpine ls",
            "docker exec -e \"$V\" box ls",
            "podman run -e BASH_ENV=/x alpine ls",
            "docker compose run -e \"$V\" app ls",
            "docker exec --env-file=e box ls",
            "docker --config ./cfg run alpine ls",
            "podman --hooks-dir=./hooks run alpine ls",
            "podman --runtime ./crun run alpine ls",
            "podman --conmon ./c run alpine ls",
            // nerdctl runs these on the host: CNI plugins, a CDI spec's
            // hooks, a runtime or logging shim by path; and options of its
            // own docker's table does not know (`--rootfs` makes the image
            // word a directory).
            "nerdctl --cni-path ./cni run alpine ls",
            "nerdctl --cdi-spec-dirs ./cdi run alpine ls",
            "nerdctl run --runtime ./runc alpine ls",
            "nerdctl run --log-driver binary:///tmp/shim alpine ls",
            "nerdctl run --rootfs ./root rm x",
            "nerdctl --bridge-ip 10.1.0.1 run alpine ls",
            "docker run --entrypoint '[\"sh\"' alpine ls",
            "docker run --health-cmd '[1]' alpine ls",
            "docker run --entrypoint \"$E\" alpine ls",
            "docker run --health-cmd \"$H\" alpine ls",
            "echo 'rm x' | docker run -i alpine sh",
            "docker compose --env-file ci.env run app ls",
            "docker compose run --env-from-file e app ls",
            "docker compose run --new app rm x",
            "docker compose \"$SUB\" app rm x",
            // Apptainer's shell runs its input, an instance its start
            // script; its configuration, a file of variables, a FUSE mount's
            // program, bound libraries, CDI specs and CNI arguments run or
            // load what the line does not say (its own variables, which set
            // its options and the container's, are found by name:
            // `code_variables`).
            "echo 'rm x' | apptainer shell img.sif",
            "apptainer instance start img.sif web",
            "apptainer oci exec box rm x",
            "apptainer -c ./a.conf exec img.sif ls",
            "apptainer --config=./a.conf exec img.sif ls",
            "apptainer exec --env-file e img.sif ls",
            "apptainer exec --fusemount 'host:sshfs h: /m' img.sif ls",
            "apptainer exec --containlibs /x.so img.sif ls",
            "apptainer exec --cdi-dirs ./cdi img.sif ls",
            "apptainer exec --env LD_PRELOAD=/x.so img.sif ls",
            "apptainer exec --new-option img.sif rm x",
            "apptainer exec \"$IMG\" rm x",
        ] {
            assert!(hidden(line), "{line}: {:?}", texts(line));
        }
    }
}
