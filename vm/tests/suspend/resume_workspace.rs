//! A snapshot's workspace is a claim, not an authority (book: reference/snapshots.md; issue 16,
//! defect 4), through the real binary: `tissvm resume` follows the stored
//! workspace only for a snapshot this user's key signed, needs `--workdir`
//! for any other, refuses a relative path or a system directory whichever
//! way it was named, and says on stderr which workspace it uses before
//! anything runs. The key file is made private on first use.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::common::{Fixture, Run};
use tiss_vm::session::snapshot::{self, SnapshotRef, read_snapshot};
use tiss_vm::session::snapshot_key::{KEY_FILE_VAR, KeyFile, SnapshotKey};

/// Pauses, then writes a file named for this test process (so a resume
/// that wrongly went ahead in a system directory is seen, and cleaned up).
fn plan(marker: &str) -> String {
    format!(
        "TASK \"Claims\"\nSTEP \"s\" {{\n    PAUSE \"go on?\"\n    WRITE \"{marker}\" <<T\nwritten\nT\n}}\n"
    )
}

/// A file name no other test or process uses.
fn marker(test: &str) -> String {
    format!("tiss-claim-{test}-{}.txt", std::process::id())
}

/// Removes `dir/name` when dropped, so a resume that went ahead where it
/// must not leaves nothing behind even when the test fails.
struct Removed(PathBuf);

impl Drop for Removed {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl Fixture {
    /// Runs `plan(marker)` to its PAUSE with this test's key and returns
    /// the snapshot it wrote.
    fn suspended(&self, marker: &str) -> PathBuf {
        let run = self.run(&plan(marker), &["--non-interactive", "--output-format", "json"]);
        run.expect(3);
        PathBuf::from(run.json()["snapshot"].as_str().expect("a snapshot path"))
    }

    /// `tissvm resume SNAP --answer continue ARGS` in `cwd`, with `env`.
    fn resume_continue_in(&self, cwd: &Path, snap: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
        let snap = snap.to_str().unwrap();
        crate::common::tissvm(cwd, &[&["resume", snap, "--answer", "continue"], args].concat(), env)
    }

    fn resume_continue(&self, snap: &Path, args: &[&str]) -> Run {
        self.resume_continue_in(self.root.path(), snap, args, &[])
    }
}

/// The tests' snapshot key, which every `tissvm` they start signs with.
fn own_key() -> SnapshotKey {
    KeyFile { path: crate::common::key_file() }.load_or_create().expect("the tests' key")
}

/// `snap` re-encoded with its workspace replaced by `workspace`, its
/// checksum made right and, with `key`, signed again, as `out`.
fn with_workspace(snap: &Path, workspace: &str, key: Option<&SnapshotKey>, out: &Path) {
    let read = read_snapshot(&std::fs::read(snap).unwrap()).expect("a valid snapshot");
    let bytes = snapshot::encode(&SnapshotRef {
        machine: &read.machine,
        bytecode: &read.bytecode,
        content_hash: &read.content_hash,
        workspace: Path::new(workspace),
        answers: read.answers.as_ref(),
        options: &read.options,
        resumed: None,
        key,
    })
    .unwrap();
    std::fs::write(out, bytes).unwrap();
}

#[track_caller]
fn assert_refused(run: &Run, says: &str) {
    run.expect(2);
    assert!(run.stderr.contains(says), "expected `{says}` in:\n{}", run.stderr);
}

#[test]
fn a_snapshot_claiming_a_system_directory_is_refused_and_writes_nothing() {
    let fx = Fixture::new();
    let marker = marker("etc");
    let _cleanup = Removed(Path::new("/etc").join(&marker));
    let snap = fx.suspended(&marker);
    let forged = fx.path("forged.snap");
    // Unsigned, it needs --workdir, and /etc is not offered as one.
    with_workspace(&snap, "/etc", None, &forged);
    let before = std::fs::read(&forged).unwrap();
    let run = fx.resume_continue(&forged, &[]);
    assert_refused(&run, "not signed by your snapshot key");
    assert!(run.stderr.contains("the workspace it names, `/etc`, is only a claim"), "{}", run.stderr);
    assert!(run.stderr.contains("--answer continue --workdir DIR\n"), "{}", run.stderr);
    assert!(!Path::new("/etc").join(&marker).exists(), "nothing is written into /etc");
    assert_eq!(std::fs::read(&forged).unwrap(), before, "the refused snapshot is not marked");
    // Even signed with this user's key, /etc is no workspace.
    let key = own_key();
    with_workspace(&snap, "/etc", Some(&key), &forged);
    let run = fx.resume_continue(&forged, &[]);
    assert_refused(&run, "the snapshot's workspace `/etc` is a system directory");
    assert!(!run.stderr.contains("tissvm: workspace:"), "{}", run.stderr);
    // Named through `..` or a symbolic link, it is the same directory.
    std::os::unix::fs::symlink("/etc", fx.path("link")).unwrap();
    for claim in ["/tmp/../etc", fx.path("link").to_str().unwrap()] {
        with_workspace(&snap, claim, Some(&key), &forged);
        assert_refused(
            &fx.resume_continue(&forged, &[]),
            &format!("`{claim}` is `/etc`, which is a system directory"),
        );
    }
    // Given with --workdir, it is refused too.
    for dir in ["/etc", "/", "/usr/lib", fx.path("link").to_str().unwrap()] {
        assert_refused(&fx.resume_continue(&snap, &["--workdir", dir]), "system directory");
    }
    assert!(!Path::new("/etc").join(&marker).exists());
    assert_eq!(std::fs::read_dir(fx.ws()).unwrap().count(), 1, "only .tiss/ is in the workspace");
}

#[test]
fn a_relative_workspace_is_refused_not_resolved_against_the_current_directory() {
    let fx = Fixture::new();
    let marker = marker("relative");
    let snap = fx.suspended(&marker);
    let forged = fx.path("forged.snap");
    with_workspace(&snap, "../../..", Some(&own_key()), &forged);
    let deep = fx.path("a/b/c");
    std::fs::create_dir_all(&deep).unwrap();
    let run = fx.resume_continue_in(&deep, &forged, &[], &[]);
    assert_refused(&run, "`../../..` is not an absolute path");
    assert!(!fx.path(&marker).exists(), "nothing is written where `../../..` leads from here");
}

#[test]
fn a_snapshot_signed_by_another_key_needs_workdir_and_resumes_with_it() {
    let fx = Fixture::new();
    let marker = marker("foreign");
    let other_key = fx.path("elsewhere/snapshot.key");
    let other_key = other_key.to_str().unwrap();
    // Written by "another user": the same binary with another key.
    let plan = fx.write_plan(&plan(&marker));
    let ws = fx.ws().canonicalize().unwrap();
    let run = crate::common::tissvm(
        fx.root.path(),
        &["run", &plan, "--workdir", ws.to_str().unwrap(), "--non-interactive", "--output-format", "json"],
        &[(KEY_FILE_VAR, other_key)],
    );
    run.expect(3);
    let snap = PathBuf::from(run.json()["snapshot"].as_str().unwrap());
    // Its workspace exists here and is harmless, but it is not this user's claim.
    let run = fx.resume_continue(&snap, &[]);
    assert_refused(&run, "not signed by your snapshot key");
    let command = format!("tissvm resume {} --answer continue --workdir {}", snap.display(), ws.display());
    assert!(run.stderr.contains(&command), "the command to paste, `{command}`, in:\n{}", run.stderr);
    assert!(!ws.join(&marker).exists(), "nothing ran");
    // With --workdir it resumes, and says where.
    let run = fx.resume_continue(&snap, &["--workdir", ws.to_str().unwrap()]);
    run.expect(0);
    assert!(run.stderr.contains(&format!("tissvm: workspace: {}", ws.display())), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(ws.join(&marker)).unwrap(), "written\n");
}

#[test]
fn an_own_snapshot_resumes_in_its_workspace_and_says_so() {
    let fx = Fixture::new();
    let marker = marker("own");
    let snap = fx.suspended(&marker);
    let elsewhere = fx.path("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let run = fx.resume_continue_in(&elsewhere, &snap, &[], &[]);
    run.expect(0);
    let ws = fx.ws().canonicalize().unwrap();
    assert!(run.stderr.contains(&format!("tissvm: workspace: {}", ws.display())), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(ws.join(&marker)).unwrap(), "written\n");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn the_key_file_is_private_and_made_once() {
    let fx = Fixture::new();
    let key = fx.path("config/tisslang/snapshot.key");
    let run = crate::common::tissvm(
        fx.root.path(),
        &["run", &fx.write_plan(&plan("x.txt")), "--workdir", fx.ws().to_str().unwrap(), "--non-interactive"],
        &[(KEY_FILE_VAR, key.to_str().unwrap())],
    );
    run.expect(3);
    let meta = std::fs::metadata(&key).expect("the key file was made on the first snapshot");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_eq!(meta.len(), 32);
    assert_eq!(std::fs::metadata(key.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o700);
}

#[test]
fn a_tampered_signature_is_refused_without_workdir() {
    let fx = Fixture::new();
    let marker = marker("tampered");
    let snap = fx.suspended(&marker);
    let mut bytes = std::fs::read(&snap).unwrap();
    // The signature is the payload's last 32 bytes: change one, and make
    // the checksum right again.
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let header = snapshot::HEADER_LEN;
    let payload = bytes[header..].to_vec();
    let trailer = tisslang::codec::seal::trailer(&payload);
    bytes[header - trailer.len()..header].copy_from_slice(&trailer);
    let tampered = fx.path("tampered.snap");
    std::fs::write(&tampered, &bytes).unwrap();
    assert_refused(&fx.resume_continue(&tampered, &[]), "not signed by your snapshot key");
    assert!(!fx.ws().join(&marker).exists());
}
