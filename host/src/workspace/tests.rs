use std::fs;

use crate::sandbox::UNCONFINED;
use std::os::unix::fs::symlink;

use super::*;
use crate::workspace::resolve::check_relative;

/// A workspace and, beside it, an "outside" directory holding a secret.
struct Fixture {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    ws: Workspace,
}

const SECRET: &str = "top secret\n";

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    let outside = tmp.path().join("outside");
    fs::create_dir(&root).unwrap();
    fs::create_dir(&outside).unwrap();
    fs::write(outside.join("secret.txt"), SECRET).unwrap();
    // A symlinked file and a symlinked directory leading out, both ways.
    symlink(outside.join("secret.txt"), root.join("abs_file")).unwrap();
    symlink("../outside/secret.txt", root.join("rel_file")).unwrap();
    symlink(&outside, root.join("abs_dir")).unwrap();
    symlink("../outside", root.join("rel_dir")).unwrap();
    symlink("/nonexistent-tiss/x", root.join("dangling_out")).unwrap();
    fs::create_dir(root.join("sub")).unwrap();
    symlink("../../outside", root.join("sub/up_dir")).unwrap();
    let ws = Workspace::open(&root).unwrap();
    Fixture { root, outside, ws, _tmp: tmp }
}

impl Fixture {
    /// The outside directory holds exactly the secret, unchanged.
    fn outside_untouched(&self) {
        let names: Vec<_> = fs::read_dir(&self.outside).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["secret.txt"]);
        assert_eq!(fs::read_to_string(self.outside.join("secret.txt")).unwrap(), SECRET);
    }

    fn entries(&self, dir: &str) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }
}

fn is_security<T: std::fmt::Debug>(result: Result<T, Error>) -> bool {
    matches!(result, Err(Error::Security(_)))
}

fn command_message<T: std::fmt::Debug>(result: Result<T, Error>) -> String {
    match result {
        Err(Error::Command(message)) => message,
        other => panic!("expected a command error, got {other:?}"),
    }
}

#[test]
fn a_trailing_slash_names_a_directory() {
    let f = fixture();
    // Escapes are still security violations first.
    assert!(is_security(f.ws.read("../outside/")));
    assert!(is_security(f.ws.write("abs_dir/", "x", false)));
    fs::write(f.root.join("f.txt"), "hi").unwrap();
    let read = command_message(f.ws.read("f.txt/"));
    assert_eq!(
        read,
        "cannot read `f.txt/`: a path ending in `/` names a directory, not a file; write `f.txt`"
    );
    let write = command_message(f.ws.write("g.txt/", "x", false));
    assert!(write.starts_with("cannot write `g.txt/`"), "{write}");
    assert!(command_message(f.ws.write("sub//", "x", true)).contains("write `sub`"));
    assert_eq!(f.entries(""), ["abs_dir", "abs_file", "dangling_out", "f.txt", "rel_dir", "rel_file", "sub"]);
    assert!(!f.ws.file_test("f.txt/", FileQuery::Exists).unwrap());
    assert!(f.ws.file_test("f.txt", FileQuery::Exists).unwrap());
    assert!(f.ws.file_test("sub/", FileQuery::Exists).unwrap());
}

const HOSTILE: &[&str] = &[
    "",
    "/etc/passwd",
    "~/x",
    "..",
    "../outside/secret.txt",
    "a/../../outside/secret.txt",
    "abs_file",
    "rel_file",
    "abs_dir/secret.txt",
    "rel_dir/secret.txt",
    "abs_dir/new.txt",
    "rel_dir/new/deeper.txt",
    "sub/up_dir/secret.txt",
    "sub/up_dir/new.txt",
    "dangling_out",
    "dangling_out/new.txt",
    "sub/../../outside/x",
    "sub/up_dir/../x",
];

#[test]
fn hostile_reads_are_refused() {
    let f = fixture();
    for path in HOSTILE {
        assert!(is_security(f.ws.read(path)), "READ {path:?}");
    }
}

#[test]
fn hostile_writes_touch_nothing() {
    let f = fixture();
    let before = f.entries("");
    for path in HOSTILE {
        assert!(is_security(f.ws.write(path, "pwned\n", false)), "WRITE {path:?}");
        assert!(is_security(f.ws.write(path, "pwned\n", true)), "APPEND {path:?}");
        f.outside_untouched();
    }
    assert_eq!(f.entries(""), before);
    assert_eq!(f.entries("sub"), ["up_dir"]);
    assert!(!Path::new("/nonexistent-tiss").exists());
}

#[test]
fn hostile_mkdir_delete_tests_and_run_dirs_are_refused() {
    let f = fixture();
    let before = f.entries("");
    for path in HOSTILE {
        assert!(is_security(f.ws.mkdir(path)), "MKDIR {path:?}");
        assert!(is_security(f.ws.file_test(path, FileQuery::Exists)), "FILE EXISTS {path:?}");
        assert!(is_security(f.ws.file_test(path, FileQuery::Contains("secret"))), "CONTAINS {path:?}");
        assert!(is_security(f.ws.dir_for_run(Some(path))), "RUN IN {path:?}");
        f.outside_untouched();
    }
    // DELETE of a link itself is allowed (below); through one, never.
    for path in HOSTILE.iter().filter(|p| p.contains('/') || p.is_empty() || p.starts_with('.')) {
        assert!(is_security(f.ws.delete(path, true)), "DELETE {path:?}");
        f.outside_untouched();
    }
    assert_eq!(f.entries(""), before);
    for dir in ["abs_dir", "rel_dir", "sub/up_dir"] {
        assert!(is_security(f.ws.dir_for_run(Some(dir))), "RUN IN {dir:?}");
    }
}

#[test]
fn deleting_a_link_removes_only_the_link() {
    let f = fixture();
    f.ws.delete("abs_file", false).unwrap();
    f.ws.delete("rel_dir", false).unwrap();
    f.ws.delete("abs_dir", true).unwrap();
    f.ws.delete("dangling_out", false).unwrap();
    f.outside_untouched();
    assert_eq!(f.entries(""), ["rel_file", "sub"]);
    // A recursive delete does not follow links inside the tree either.
    f.ws.delete("sub", true).unwrap();
    f.outside_untouched();
    assert_eq!(f.entries(""), ["rel_file"]);
}

#[test]
fn a_link_planted_by_a_command_is_refused() {
    let f = fixture();
    let secret = f.outside.join("secret.txt");
    let command = format!(
        "ln -s '{}' evil_abs && ln -s ../outside/secret.txt evil_rel && ln -s ../outside evil_dir",
        secret.display()
    );
    let run_dir = f.ws.dir_for_run(None).unwrap();
    let env = vec![("PATH".to_string(), "/usr/bin:/bin".to_string())];
    let spec = crate::process::ProcessSpec {
        command: &command,
        cwd: crate::process::WorkDir::Held(&run_dir),
        env: &env,
        timeout: Some(std::time::Duration::from_secs(30)),
        output_cap: 1000,
        sandbox: &UNCONFINED,
    };
    let r = crate::process::run(&spec, None).unwrap();
    assert_eq!(r.exit_code, 0, "{}", r.stderr);
    for path in ["evil_abs", "evil_rel", "evil_dir/secret.txt", "evil_dir/new.txt"] {
        assert!(is_security(f.ws.write(path, "pwned", false)), "WRITE {path}");
        assert!(is_security(f.ws.write(path, "pwned", true)), "APPEND {path}");
        assert!(is_security(f.ws.read(path)), "READ {path}");
    }
    f.outside_untouched();
}

#[test]
fn links_inside_the_workspace_are_followed() {
    let f = fixture();
    f.ws.write("real/file.txt", "one\n", false).unwrap();
    symlink("real/file.txt", f.root.join("alias")).unwrap();
    symlink("real", f.root.join("real_dir")).unwrap();
    symlink("../real", f.root.join("sub/back")).unwrap();
    assert_eq!(f.ws.read("alias").unwrap(), "one\n");
    f.ws.write("alias", "two\n", false).unwrap();
    f.ws.write("sub/back/file.txt", "three\n", true).unwrap();
    assert_eq!(fs::read_to_string(f.root.join("real/file.txt")).unwrap(), "two\nthree\n");
    assert!(fs::symlink_metadata(f.root.join("alias")).unwrap().file_type().is_symlink());
    f.ws.write("real_dir/new.txt", "new", false).unwrap();
    assert_eq!(fs::read_to_string(f.root.join("real/new.txt")).unwrap(), "new");
    assert!(f.ws.file_test("sub/back/new.txt", FileQuery::Contains("ew")).unwrap());
    let run_dir = f.ws.dir_for_run(Some("sub/back")).unwrap();
    assert_eq!(run_dir.real_path(), f.root.canonicalize().unwrap().join("real"));
    // `..` inside the workspace is fine.
    assert_eq!(f.ws.read("sub/../real/./new.txt").unwrap(), "new");
}

#[test]
fn link_loops_are_a_command_error() {
    let f = fixture();
    symlink("loop_b", f.root.join("loop_a")).unwrap();
    symlink("loop_a", f.root.join("loop_b")).unwrap();
    let message = command_message(f.ws.read("loop_a"));
    assert!(message.contains("symbolic links"), "{message}");
}

#[test]
fn write_is_atomic_and_leaves_no_temporary_file() {
    let f = fixture();
    f.ws.write("a/b/c.txt", "first version, rather long\n", false).unwrap();
    assert_eq!(f.ws.read("a/b/c.txt").unwrap(), "first version, rather long\n");
    let inode = |p: &str| std::os::unix::fs::MetadataExt::ino(&fs::metadata(f.root.join(p)).unwrap());
    let before = inode("a/b/c.txt");
    f.ws.write("a/b/c.txt", "second\n", false).unwrap();
    assert_eq!(f.ws.read("a/b/c.txt").unwrap(), "second\n");
    assert_ne!(inode("a/b/c.txt"), before, "replaced by rename, not rewritten in place");
    assert_eq!(f.entries("a/b"), ["c.txt"]);
    f.ws.write("top.txt", "x", false).unwrap();
    assert_eq!(
        f.entries(""),
        ["a", "abs_dir", "abs_file", "dangling_out", "rel_dir", "rel_file", "sub", "top.txt"]
    );
}

#[test]
fn write_keeps_the_permissions_of_a_replaced_file() {
    use std::os::unix::fs::PermissionsExt;
    let f = fixture();
    f.ws.write("run.sh", "#!/bin/sh\n", false).unwrap();
    fs::set_permissions(f.root.join("run.sh"), fs::Permissions::from_mode(0o750)).unwrap();
    f.ws.write("run.sh", "#!/bin/sh\necho hi\n", false).unwrap();
    assert_eq!(fs::metadata(f.root.join("run.sh")).unwrap().permissions().mode() & 0o777, 0o750);
}

#[test]
fn append_creates_then_extends() {
    let f = fixture();
    f.ws.write("log/out.txt", "one\n", true).unwrap();
    f.ws.write("log/out.txt", "two\n", true).unwrap();
    assert_eq!(f.ws.read("log/out.txt").unwrap(), "one\ntwo\n");
    assert_eq!(f.entries("log"), ["out.txt"]);
}

/// A plan's command can make a file of any size for nothing (a sparse
/// one): READ refuses one over `MAX_READ` before reading it, and APPEND
/// copies what the file holds rather than holding it.
#[test]
fn a_huge_file_is_refused_by_read_and_streamed_by_append() {
    let f = fixture();
    let big = f.root.join("big");
    fs::File::create(&big).unwrap().set_len(MAX_READ + 1).unwrap();
    let message = command_message(f.ws.read("big"));
    assert!(message.contains("larger than the 64 MiB a READ takes"), "{message}");
    fs::File::create(&big).unwrap().set_len(3).unwrap();
    f.ws.write("big", "tail", true).unwrap();
    assert_eq!(fs::read(&big).unwrap(), b"\0\0\0tail");
    assert_eq!(f.ws.read("big").unwrap(), "\0\0\0tail");
}

#[test]
fn writing_a_directory_is_a_command_error() {
    let f = fixture();
    command_message(f.ws.write("sub", "x", false));
    command_message(f.ws.write(".", "x", false));
    command_message(f.ws.write("sub/..", "x", true));
    f.ws.write("file", "x", false).unwrap();
    command_message(f.ws.write("file/inner", "x", false));
}

#[test]
fn read_errors_name_the_path() {
    let f = fixture();
    let message = command_message(f.ws.read("missing/file.txt"));
    assert!(message.contains("`missing/file.txt`"), "{message}");
    fs::write(f.root.join("bin.dat"), b"ok\xff\xfe").unwrap();
    let message = command_message(f.ws.read("bin.dat"));
    assert!(message.contains("`bin.dat`") && message.contains("UTF-8"), "{message}");
    let message = command_message(f.ws.read("sub"));
    assert!(message.contains("directory"), "{message}");
    let message = command_message(f.ws.read("."));
    assert!(message.contains("directory"), "{message}");
}

#[test]
fn mkdir_semantics() {
    let f = fixture();
    f.ws.mkdir("x/y/z").unwrap();
    f.ws.mkdir("x/y/z").unwrap();
    f.ws.mkdir("x/../w").unwrap();
    f.ws.mkdir(".").unwrap();
    assert!(f.root.join("x/y/z").is_dir());
    assert!(f.root.join("w").is_dir());
    f.ws.write("x/file", "", false).unwrap();
    command_message(f.ws.mkdir("x/file"));
}

#[test]
fn delete_semantics() {
    let f = fixture();
    f.ws.write("d/e/f.txt", "x", false).unwrap();
    f.ws.write("g.txt", "x", false).unwrap();
    f.ws.mkdir("empty").unwrap();
    f.ws.delete("g.txt", false).unwrap();
    assert!(!f.root.join("g.txt").exists());
    f.ws.delete("empty", false).unwrap();
    assert!(!f.root.join("empty").exists());
    let message = command_message(f.ws.delete("d", false));
    assert!(message.contains("DELETE \"d\" RECURSIVE"), "{message}");
    assert!(f.root.join("d/e/f.txt").exists());
    f.ws.delete("d", true).unwrap();
    assert!(!f.root.join("d").exists());
    let message = command_message(f.ws.delete("nothing", false));
    assert!(message.contains("`nothing`"), "{message}");
    command_message(f.ws.delete("nothing/deeper", true));
    command_message(f.ws.delete(".", true));
    command_message(f.ws.delete("sub/..", true));
    assert!(f.root.is_dir());
}

#[test]
fn file_test_semantics() {
    let f = fixture();
    f.ws.write("empty.txt", "", false).unwrap();
    f.ws.write("full.txt", "hello world", false).unwrap();
    f.ws.mkdir("empty_dir").unwrap();
    let t = |p: &str, q| f.ws.file_test(p, q).unwrap();
    assert!(t("empty.txt", FileQuery::Exists));
    assert!(t("empty.txt", FileQuery::IsEmpty));
    assert!(!t("full.txt", FileQuery::IsEmpty));
    assert!(t("full.txt", FileQuery::Contains("o w")));
    assert!(t("full.txt", FileQuery::Contains("")));
    assert!(!t("full.txt", FileQuery::Contains("xyz")));
    assert!(t("empty_dir", FileQuery::Exists));
    assert!(t("empty_dir", FileQuery::IsEmpty));
    assert!(!t("sub", FileQuery::IsEmpty));
    assert!(!t("sub", FileQuery::Contains("")));
    assert!(t(".", FileQuery::Exists));
    assert!(!t(".", FileQuery::IsEmpty));
    assert!(t("sub/..", FileQuery::Exists));
    for q in [FileQuery::Exists, FileQuery::IsEmpty, FileQuery::Contains("x")] {
        assert!(!t("missing", q));
        assert!(!t("missing/deeper", q));
    }
}

#[test]
fn contains_finds_a_needle_across_chunks() {
    let mut data = vec![b'a'; 200_000];
    data[65_535..65_540].copy_from_slice(b"NEEDL");
    let has = |data: &[u8], needle: &[u8]| {
        region_contains(&mut &data[..], u64::MAX, &memchr::memmem::Finder::new(needle)).unwrap()
    };
    assert!(has(&data, b"NEEDL"));
    assert!(!has(&data, b"NEEDLE"));
    assert!(has(b"xyz", b"z"));
    assert!(!has(b"", b"z"));
}

/// A command makes a terabyte of holes for nothing; FILE CONTAINS reads
/// only the data, and finds what lies across a chunk's edge in it. (It
/// scanned the zeros: 36 s for 8 GB.)
#[test]
fn contains_skips_the_holes_of_a_sparse_file() {
    use std::io::{Seek, SeekFrom, Write};
    let f = fixture();
    let path = f.root.join("sparse");
    let mut file = fs::File::create(&path).unwrap();
    file.set_len(1 << 40).unwrap();
    file.seek(SeekFrom::Start(1 << 39)).unwrap();
    let mut data = vec![b'a'; 200_000];
    data[65_534..65_540].copy_from_slice(b"NEEDLE");
    file.write_all(&data).unwrap();
    drop(file);
    let started = std::time::Instant::now();
    assert!(f.ws.file_test("sparse", FileQuery::Contains("NEEDLE")).unwrap());
    assert!(!f.ws.file_test("sparse", FileQuery::Contains("not there")).unwrap());
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
}

#[test]
fn run_dirs() {
    let f = fixture();
    let canonical = f.root.canonicalize().unwrap();
    let root_dir = f.ws.dir_for_run(None).unwrap();
    assert_eq!(root_dir.real_path(), canonical);
    let sub = f.ws.dir_for_run(Some("sub")).unwrap();
    assert_eq!(sub.real_path(), canonical.join("sub"));
    let env = Vec::new();
    let spec = crate::process::ProcessSpec {
        command: "pwd",
        cwd: crate::process::WorkDir::Held(&sub),
        env: &env,
        timeout: None,
        output_cap: 1000,
        sandbox: &UNCONFINED,
    };
    let r = crate::process::run(&spec, None).unwrap();
    assert_eq!(r.stdout.trim_end(), canonical.join("sub").to_str().unwrap());
    let message = command_message(f.ws.dir_for_run(Some("nope")));
    assert!(message.contains("`nope`"), "{message}");
    f.ws.write("file", "x", false).unwrap();
    command_message(f.ws.dir_for_run(Some("file")));
    assert_eq!(f.ws.dir_for_run(Some(".")).unwrap().real_path(), canonical);
}

#[test]
fn opening_a_missing_workspace_fails() {
    command_message(Workspace::open(Path::new("/nonexistent-tiss/ws")));
}

#[test]
fn lexical_escapes_are_refused() {
    assert!(check_relative("a/b.txt").is_ok());
    assert!(check_relative("a/../b").is_ok());
    assert!(check_relative("./a").is_ok());
    for bad in ["", "/etc/passwd", "~/x", "..", "a/../../b", "../x", "a\0b"] {
        assert!(check_relative(bad).is_err(), "{bad:?}");
    }
}
