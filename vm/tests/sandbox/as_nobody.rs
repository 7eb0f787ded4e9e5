//! Running the real `tissvm` as the ordinary user `nobody` from a test
//! started as root, with the cgroups `strict` needs delegated to it (as
//! systemd delegates a user's slice): a `pids` and a `memory` cgroup beneath
//! the test's own, owned by `nobody`, which the run moves into before it
//! drops to `nobody` (`setpriv`). Where the machine cannot (not root, no
//! `setpriv`, no such controller), [`Nobody::new`] says why.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `nobody`'s uid and gid on Debian.
pub const NOBODY: u32 = 65534;

/// The delegated cgroups, removed when dropped.
pub struct Nobody {
    cgroups: Vec<PathBuf>,
}

impl Nobody {
    /// Delegates the cgroups, or says why this machine cannot.
    pub fn new() -> Result<Nobody, String> {
        // SAFETY: a plain system call.
        if unsafe { libc::geteuid() } != 0 || !Path::new("/usr/bin/setpriv").exists() {
            return Err("running as nobody needs the tests started as root and setpriv(1)".into());
        }
        let mut nobody = Nobody { cgroups: Vec::new() };
        let name = format!("tiss-nobody-{}-{}", std::process::id(), crate::common::marker::Marker::new().0);
        for controller in ["pids", "memory"] {
            let own =
                own_v1_cgroup(controller).ok_or(format!("no cgroup v1 `{controller}` hierarchy here"))?;
            let dir = own.join(&name);
            std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            nobody.cgroups.push(dir.clone());
            for entry in std::fs::read_dir(&dir).map_err(|e| e.to_string())?.flatten() {
                std::os::unix::fs::chown(entry.path(), Some(NOBODY), Some(NOBODY))
                    .map_err(|e| e.to_string())?;
            }
            std::os::unix::fs::chown(&dir, Some(NOBODY), Some(NOBODY)).map_err(|e| e.to_string())?;
        }
        Ok(nobody)
    }

    /// `tissvm ARGS` as `nobody` in `cwd` (which it must be able to use),
    /// with `env`, started in the delegated cgroups; the pid of the command
    /// is tissvm's (each step `exec`s the next).
    pub fn command(&self, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut join = String::new();
        for dir in &self.cgroups {
            join.push_str(&format!("echo $$ > '{}/cgroup.procs' && ", dir.display()));
        }
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("{join}exec setpriv --reuid {NOBODY} --regid {NOBODY} --clear-groups \"$@\""))
            .arg("sh")
            .arg(env!("CARGO_BIN_EXE_tissvm"))
            .args(args)
            .current_dir(cwd)
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("TISS_SNAPSHOT_KEY_FILE", cwd.join("nobody-key"))
            .stdin(Stdio::null());
        for (name, value) in env {
            command.env(name, value);
        }
        command
    }
}

impl Drop for Nobody {
    fn drop(&mut self) {
        // The init of a `strict` run ends a moment after its tissvm (at the
        // end of its pipe): the cgroup is busy until then.
        let deadline = std::time::Instant::now() + crate::common::marker::DEADLINE;
        for dir in &self.cgroups {
            while std::fs::remove_dir(dir).is_err_and(|e| e.raw_os_error() == Some(libc::EBUSY))
                && std::time::Instant::now() < deadline
            {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
    }
}

/// Hands `paths` (recursively) to `nobody`.
pub fn give(paths: &[&Path]) {
    for path in paths {
        let status = Command::new("chown").args(["-R", "65534:65534"]).arg(path).status().unwrap();
        assert!(status.success(), "chown {}", path.display());
    }
}

/// This process's cgroup in the v1 hierarchy of `controller`.
fn own_v1_cgroup(controller: &str) -> Option<PathBuf> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = cgroups.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers.split(',').any(|c| c == controller).then(|| path.to_string())
    })?;
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    mounts.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        let mut fs = right.split(' ');
        let (kind, _, options) = (fs.next()?, fs.next()?, fs.next()?);
        if kind != "cgroup" || !options.split(',').any(|o| o == controller) {
            return None;
        }
        let mut fields = left.split(' ').skip(3);
        let (root, mount) = (fields.next()?, fields.next()?);
        let rest = path.strip_prefix(root.trim_end_matches('/'))?;
        Some(Path::new(mount).join(rest.trim_start_matches('/')))
    })
}
