//! Directories of one run's own in the shared temporary directory.

use std::io;

/// A new directory `PREFIX…` in the system's temporary directory, mode
/// 0700 as `mktemp -d` makes one: tempfile leaves a directory's mode to the
/// umask (0755 by default), and every local user could then list and read
/// what a run keeps there.
pub fn private_tempdir(prefix: &str) -> io::Result<tempfile::TempDir> {
    use std::os::unix::fs::PermissionsExt;
    tempfile::Builder::new().prefix(prefix).permissions(std::fs::Permissions::from_mode(0o700)).tempdir()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn only_its_owner_may_enter() {
        let dir = super::private_tempdir("tiss-private-test-").unwrap();
        let mode = std::fs::metadata(dir.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o7777, 0o700);
        assert!(dir.path().file_name().unwrap().to_str().unwrap().starts_with("tiss-private-test-"));
    }
}
