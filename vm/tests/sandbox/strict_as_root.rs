//! `strict` against a RUN running as root, and as an ordinary user (book: reference/sandbox.md;
//! issue 25, items 1, 2, 4, 5, 6): each test is a plan whose RUN tries what
//! an attacker would, and checks from outside that nothing happened. Under
//! the old `strict` (Landlock ABI 3 and a network namespace, every
//! capability kept, refused to ordinary users) each of them succeeded as
//! root. Each runs twice: as root, and as `nobody` (through `setpriv`, with
//! cgroups delegated to it, [`crate::as_nobody`]), whose `strict` is a user
//! namespace of its own.
//!
//! The files and sockets "outside" live in Cargo's scratch directory for
//! tests (beneath the checkout) or, for a checkout beneath `/tmp`, the home
//! directory: not in `/tmp`, which `strict` shows empty, but a place the RUN
//! can see, read-only.
//!
//! Skipped where `strict` is refused or `nobody` cannot be used (not root,
//! no `setpriv`); with `CI=true` that fails instead.

use std::io::Read;
use std::os::linux::net::SocketAddrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::{SocketAddr, UnixListener};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::as_nobody::{NOBODY, Nobody, give};
use crate::common::Fixture;

fn plan(body: &str) -> String {
    format!("TASK \"Attacker\"\nSTEP \"s\" {{\n{body}\n}}\n")
}

/// Who runs tissvm.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Who {
    Root,
    Nobody,
}

const BOTH: [Who; 2] = [Who::Root, Who::Nobody];

/// A directory the RUN sees (read-only) outside its workspace, owned by
/// whoever runs tissvm: in Cargo's scratch directory, or (a checkout
/// beneath `/tmp`, which `strict` shows empty) in `/var/cache`; one that
/// `nobody` can reach too.
fn outside(who: Who) -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let shown = |dir: &Path| {
        let Ok(dir) = std::fs::canonicalize(dir) else { return false };
        !["/tmp", "/var/tmp", "/run", "/dev/shm"].iter().any(|h| dir.starts_with(h))
            && dir
                .ancestors()
                .all(|d| std::fs::metadata(d).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
    };
    let place = [Path::new(env!("CARGO_TARGET_TMPDIR")), Path::new("/var/cache"), Path::new("/srv")]
        .into_iter()
        .find(|d| shown(d))
        .expect("a directory outside /tmp that the RUN sees");
    let dir = tempfile::Builder::new().prefix(".tiss-outside-").tempdir_in(place).unwrap();
    if who == Who::Nobody {
        give(&[dir.path()]);
    }
    dir
}

/// `tissvm ARGS` in the fixture as `who`, with its stdout and stderr
/// piped, and what must live as long as it does (`nobody`'s cgroups); or
/// `None` (the test skips, loudly; under `CI=true` it fails) where that
/// cannot be done.
fn command(f: &Fixture, who: Who, args: &[&str], env: &[(&str, &str)]) -> Option<(Command, Option<Nobody>)> {
    let (mut command, nobody) = match who {
        Who::Root => {
            // SAFETY: a plain system call.
            if unsafe { libc::geteuid() } != 0 {
                return skip("the attacks as root need the tests started as root");
            }
            let mut c = crate::common::command();
            c.args(args).current_dir(f.root.path()).stdin(Stdio::null()).envs(env.iter().copied());
            (c, None)
        }
        Who::Nobody => {
            let nobody = match Nobody::new() {
                Ok(nobody) => nobody,
                Err(why) => return skip(&why),
            };
            give(&[f.root.path()]);
            (nobody.command(f.root.path(), args, env), Some(nobody))
        }
    };
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    Some((command, nobody))
}

/// [`command`] run to its end.
fn tissvm(f: &Fixture, who: Who, args: &[&str], env: &[(&str, &str)]) -> Option<tiss_test_support::Run> {
    let (mut command, _nobody) = command(f, who, args, env)?;
    Some(command.output().expect("run tissvm").into())
}

fn skip<T>(why: &str) -> Option<T> {
    tiss_test_support::skip::cannot(why);
    None
}

/// `run PLAN --workdir WS --sandbox-profile strict`, then `more`.
fn strict_args<'a>(plan: &'a str, ws: &'a Path, more: &[&'a str]) -> Vec<&'a str> {
    let run = ["run", plan, "--workdir", ws.to_str().unwrap(), "--sandbox-profile", "strict"];
    [&run[..], more].concat()
}

/// `tissvm ARGS` as `who`, or `None` where it cannot run here, or where
/// `strict` was refused for what this machine lacks (told by the skip).
fn strict_run(f: &Fixture, who: Who, args: &[&str], env: &[(&str, &str)]) -> Option<tiss_test_support::Run> {
    let run = tissvm(f, who, args, env)?;
    (!crate::common::strict_refused(run.code, &run.stderr)).then_some(run)
}

/// Runs `command` as the plan's one RUN under `strict` as `who` and returns
/// its stdout, or `None` where that cannot be done here.
fn attack(f: &Fixture, who: Who, command: &str, env: &[(&str, &str)]) -> Option<String> {
    let body = format!("    RUN {command:?} TIMEOUT 30s\n    LOG \"${{LAST_RUN.STDOUT}}\"");
    let plan = f.write_plan(&plan(&body));
    let ws = f.ws();
    let mut more = vec!["--output-format", "json"];
    more.extend(env.iter().flat_map(|(name, _)| ["--env-allow", name]));
    let run = strict_run(f, who, &strict_args(&plan, &ws, &more), env)?;
    run.expect(0);
    let report = run.json();
    let logs = report["steps"][0]["logs"].as_array().cloned().unwrap_or_default();
    Some(logs.iter().filter_map(|l| l.as_str()).collect::<Vec<_>>().join("\n"))
}

#[test]
fn no_device_node_and_no_disk_is_reachable() {
    for who in BOTH {
        let f = Fixture::new();
        let Some(out) = attack(
            &f,
            who,
            "mknod blk b 7 0; echo mknod=$?; mknod chr c 1 3; echo mknodc=$?; \
             python3 -c 'import os; os.mknod(\"py\", 0o600 | 0o60000, os.makedev(7, 0))' 2>/dev/null; echo py=$?; \
             ls /dev; echo end",
            &[],
        ) else {
            continue;
        };
        assert!(
            out.contains("mknod=1") && out.contains("mknodc=1") && out.contains("py=1"),
            "{who:?}: {out}"
        );
        for name in ["blk", "chr", "py"] {
            assert!(!f.ws().join(name).exists(), "{who:?}: {name} was made:\n{out}");
        }
        // The minimal /dev: no disk, no loop device, no memory device.
        let devices: Vec<&str> =
            out.lines().skip_while(|l| !l.starts_with("py=")).skip(1).take_while(|l| *l != "end").collect();
        let allowed = [
            "full", "null", "random", "urandom", "zero", "tty", "pts", "ptmx", "shm", "fd", "stdin",
            "stdout", "stderr",
        ];
        for name in &devices {
            assert!(allowed.contains(name), "{who:?}: /dev has {name}: {devices:?}");
        }
    }
}

#[test]
fn metadata_outside_the_workspace_cannot_change() {
    for who in BOTH {
        let f = Fixture::new();
        let dir = outside(who);
        // The victim is the attacker's own file: only the view stops it.
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "v").unwrap();
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).unwrap();
        if who == Who::Nobody {
            give(&[&victim]);
        }
        let before = std::fs::metadata(&victim).unwrap();
        let v = victim.to_str().unwrap();
        let Some(out) = attack(
            &f,
            who,
            &format!(
                "test -f {v} && echo seen; chmod 4777 {v}; echo chmod=$?; chown 1:1 {v}; echo chown=$?; touch -d 2001-01-01 {v}; \
                 echo touch=$?; python3 -c 'import os; os.setxattr(\"{v}\", \"user.tiss\", b\"1\")' 2>/dev/null; \
                 echo xattr=$?; echo x >> {v}; echo append=$?; rm {v} 2>/dev/null; echo rm=$?"
            ),
            &[],
        ) else {
            continue;
        };
        assert!(out.starts_with("seen"), "{who:?}: the RUN does not see the file it attacks:\n{out}");
        for op in ["chmod", "chown", "touch", "xattr", "append", "rm"] {
            assert!(!out.contains(&format!("{op}=0")), "{who:?}: {op} succeeded:\n{out}");
        }
        let after = std::fs::metadata(&victim).unwrap();
        assert_eq!(after.mode(), before.mode());
        assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
        assert_eq!(after.mtime(), before.mtime());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "v");
        assert!(xattr_absent(&victim));
    }
}

fn xattr_absent(path: &Path) -> bool {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    let mut buf = [0u8; 8];
    // SAFETY: valid C strings and buffer.
    unsafe { libc::getxattr(c.as_ptr(), c"user.tiss".as_ptr(), buf.as_mut_ptr().cast(), buf.len()) < 0 }
}

#[test]
fn no_host_process_can_be_signalled_or_seen() {
    for who in BOTH {
        let f = Fixture::new();
        // The victim runs as the attacker's own user.
        let mut victim = match who {
            Who::Root => std::process::Command::new("sleep").arg("300").spawn().unwrap(),
            Who::Nobody => std::process::Command::new("setpriv")
                .args(["--reuid", "65534", "--regid", "65534", "--clear-groups", "sleep", "300"])
                .spawn()
                .unwrap(),
        };
        let pid = victim.id().to_string();
        let me = std::process::id();
        let out = attack(
            &f,
            who,
            &format!(
                "kill -9 $VICTIM; echo victim=$?; ls /proc/{me} >/dev/null 2>&1; echo seen=$?; \
                 ls /proc | grep -c '^[0-9]'"
            ),
            &[("VICTIM", &pid)],
        );
        let alive = victim.try_wait().unwrap().is_none();
        victim.kill().ok();
        victim.wait().ok();
        let Some(out) = out else { continue };
        assert!(out.contains("victim=1"), "{who:?}: {out}");
        assert!(out.contains("seen=2"), "{who:?}: the test's own process is visible:\n{out}");
        assert!(alive, "{who:?}: the host process was killed");
        // Only the PID namespace's processes: its init, the shell, ls, grep.
        let count: usize = out.lines().last().unwrap().trim().parse().unwrap();
        assert!(count <= 5, "{who:?}: {count} processes visible:\n{out}");
    }
}

#[test]
fn a_run_that_kills_tissvm_does_not_stop_the_report() {
    for who in BOTH {
        let f = Fixture::new();
        let plan_path = f.write_plan(&plan(
            "    RUN \"while [ ! -s tissvm.pid ]; do sleep 0.02; done; kill -9 $(cat tissvm.pid); echo rc=$?\" \
             TIMEOUT 30s\n    ASSERT LAST_RUN.STDOUT CONTAINS \"rc=1\"",
        ));
        let ws = f.ws();
        let Some((mut command, _nobody)) = command(&f, who, &strict_args(&plan_path, &ws, &[]), &[]) else {
            continue;
        };
        let child = command.spawn().unwrap();
        std::fs::write(ws.join("tissvm.pid"), child.id().to_string()).unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if crate::common::strict_refused(out.status.code(), &stderr) {
            continue;
        }
        assert_eq!(out.status.code(), Some(0), "{who:?}: {stderr}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("passed"), "{who:?}");
    }
}

#[test]
fn no_unix_socket_outside_the_workspace_is_reachable() {
    for who in BOTH {
        let f = Fixture::new();
        let dir = outside(who);
        let path = dir.path().join("service.sock");
        let named = UnixListener::bind(&path).unwrap();
        // Anyone may connect, as far as the file's mode goes.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777)).unwrap();
        let abstract_name = format!("tiss-test-{}-{who:?}", std::process::id());
        let hidden =
            UnixListener::bind_addr(&SocketAddr::from_abstract_name(abstract_name.as_bytes()).unwrap())
                .unwrap();
        for listener in [&named, &hidden] {
            listener.set_nonblocking(true).unwrap();
        }
        let p = path.to_str().unwrap();
        let connect = |address: &str| {
            format!(
                "python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect({address}); \
                 s.send(b\"hi\")' 2>/dev/null; echo $?"
            )
        };
        let command =
            format!("{}; {}", connect(&format!("\"{p}\"")), connect(&format!("\"\\0{abstract_name}\"")));
        let Some(out) = attack(&f, who, &command, &[]) else { continue };
        let codes: Vec<&str> = out.lines().collect();
        assert_eq!(codes, ["1", "1"], "{who:?}: a connection got through:\n{out}");
        std::thread::sleep(Duration::from_millis(50));
        for listener in [&named, &hidden] {
            match listener.accept() {
                Ok((mut stream, _)) => {
                    let mut got = String::new();
                    stream.read_to_string(&mut got).ok();
                    panic!("{who:?}: the RUN reached a socket outside: {got:?}");
                }
                Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock),
            }
        }
    }
}

#[test]
fn the_host_name_and_mounts_stay_the_hosts() {
    for who in BOTH {
        let f = Fixture::new();
        let before = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
        let out = attack(
            &f,
            who,
            "hostname tiss-attacker 2>/dev/null; echo host=$?; \
             echo tiss-attacker > /proc/sys/kernel/hostname 2>/dev/null; echo proc=$?; \
             mkdir m; mount -t tmpfs none m 2>/dev/null; echo mount=$?; \
             echo 1 > /proc/sysrq-trigger 2>/dev/null; echo sysrq=$?",
            &[],
        );
        let after = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
        if after != before {
            // Put the machine back before failing.
            let _ = std::fs::write("/proc/sys/kernel/hostname", &before);
        }
        let Some(out) = out else { continue };
        for op in ["host", "proc", "mount", "sysrq"] {
            assert!(!out.contains(&format!("{op}=0")), "{who:?}: {op} succeeded:\n{out}");
        }
        assert_eq!(after, before, "{who:?}: the host was renamed");
    }
}

#[test]
fn every_capability_is_dropped() {
    for who in BOTH {
        let f = Fixture::new();
        let Some(out) =
            attack(&f, who, "id -u; grep '^Cap' /proc/self/status; grep NoNewPrivs /proc/self/status", &[])
        else {
            continue;
        };
        for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
            let line = out.lines().find(|l| l.starts_with(set)).unwrap_or_else(|| panic!("{set}:\n{out}"));
            assert!(line.ends_with("0000000000000000"), "{who:?}: {line}");
        }
        assert!(out.contains("NoNewPrivs:\t1"), "{who:?}: {out}");
        // The user is who ran tissvm: an ordinary user's files stay theirs.
        let uid = if who == Who::Root { 0 } else { NOBODY };
        assert_eq!(out.lines().next(), Some(uid.to_string().as_str()), "{who:?}: {out}");
    }
}

#[test]
fn a_socket_bound_after_the_plan_started_is_out_of_reach_of_the_next_run() {
    for who in BOTH {
        let f = Fixture::new();
        let dir = outside(who);
        let path = dir.path().join("late.sock");
        let p = path.to_str().unwrap();
        // The first RUN says it has started and waits; the service starts
        // then; the second RUN tries it.
        let plan_path = f.write_plan(&plan(&format!(
            "    RUN \"touch started; while [ ! -e go ]; do sleep 0.02; done\" TIMEOUT 30s\n    \
             RUN \"python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\\\"{p}\\\")' \
             2>/dev/null; echo $?\" TIMEOUT 30s\n    ASSERT LAST_RUN.STDOUT == \"1\\n\""
        )));
        let ws = f.ws();
        let Some((mut command, _nobody)) = command(&f, who, &strict_args(&plan_path, &ws, &[]), &[]) else {
            continue;
        };
        let mut child = command.spawn().unwrap();
        let deadline = std::time::Instant::now() + crate::common::marker::DEADLINE;
        while !ws.join("started").exists() && child.try_wait().unwrap().is_none() {
            assert!(std::time::Instant::now() < deadline, "{who:?}: the first RUN never started");
            std::thread::sleep(Duration::from_millis(10));
        }
        let listener = UnixListener::bind(&path).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777)).unwrap();
        listener.set_nonblocking(true).unwrap();
        std::fs::write(ws.join("go"), "").unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if crate::common::strict_refused(out.status.code(), &stderr) {
            continue;
        }
        assert_eq!(out.status.code(), Some(0), "{who:?}: {}\n{stderr}", String::from_utf8_lossy(&out.stdout));
        assert_eq!(
            listener.accept().map(drop).unwrap_err().kind(),
            std::io::ErrorKind::WouldBlock,
            "{who:?}"
        );
    }
}

/// The snapshot key signs what `tissvm resume` trusts (the workspace a
/// snapshot names, its remembered options): `strict` lets a RUN read what
/// its user can, and it read the key, with which a plan could sign a
/// snapshot of its own making. The view covers it.
#[test]
fn the_snapshot_key_is_not_in_the_runs_view() {
    for who in BOTH {
        let f = Fixture::new();
        let dir = outside(who);
        let key = dir.path().join("snapshot.key");
        std::fs::write(&key, [b'K'; 32]).unwrap();
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
        if who == Who::Nobody {
            give(&[&key]);
        }
        let k = key.to_str().unwrap();
        let env = [("TISS_SNAPSHOT_KEY_FILE", k)];
        let Some(out) = attack(&f, who, &format!("test -e {k} && echo seen; cat {k}; echo; echo end"), &env)
        else {
            continue;
        };
        assert!(out.starts_with("seen"), "{who:?}: the RUN does not see the key's name:\n{out}");
        assert!(!out.contains("KKKK"), "{who:?}: the RUN read the snapshot key:\n{out}");
    }
}

/// The run's journal and log file are its record; a RUN sees them
/// read-only: it can neither write, truncate, remove, rename, chmod nor
/// hard-link them (before, `echo forged > run.jnl` rewrote the record).
#[test]
fn the_runs_journal_and_log_are_read_only_to_a_run() {
    for who in BOTH {
        let f = Fixture::new();
        let ws = f.ws();
        let (journal, log) = (ws.join("j.jnl"), ws.join("log.jsonl"));
        let attack = "echo forged > j.jnl; echo forged >> log.jsonl; truncate -s 0 j.jnl; rm -f j.jnl; \
                      mv log.jsonl moved; ln j.jnl hard; chmod 666 j.jnl; ls hard moved";
        let plan = f.write_plan(&plan(&format!("    RUN {attack:?} TIMEOUT 10s")));
        let more = ["--journal", journal.to_str().unwrap(), "--log-file", log.to_str().unwrap()];
        let Some(run) = strict_run(&f, who, &strict_args(&plan, &ws, &more), &[]) else { continue };
        run.expect(0);
        let logged = std::fs::read_to_string(&log).unwrap();
        assert!(
            logged.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()),
            "{who:?}: {logged}"
        );
        assert!(logged.contains("Read-only file system"), "{who:?}: {logged}");
        assert!(!ws.join("hard").exists() && !ws.join("moved").exists(), "{who:?}");
        assert_eq!(std::fs::metadata(&journal).unwrap().permissions().mode() & 0o777, 0o600, "{who:?}");
        crate::common::tissvm(f.root.path(), &["replay", journal.to_str().unwrap()], &[]).expect(0);
    }
}
