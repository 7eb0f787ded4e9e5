//! A secret taken out of the process's environment (book: reference/sandbox.md: the provider's
//! API key is in no RUN's environment and cannot be read from tissvm): read
//! once, its bytes overwritten where the environment block holds them (which
//! is what `/proc/PID/environ` shows), the variable removed so that no child
//! inherits it, and the process made not dumpable, so that another process
//! of the same user can neither read its memory nor attach to it.

use std::ffi::CStr;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::sync::Mutex;

/// The variable that names the descriptor through which a parent process
/// hands a child the key it took ([`hand_over`]): a child of a batch
/// (`tissvm run -j`) gets the key without its environment ever holding it.
pub const KEY_FD_VAR: &str = "TISS_KEY_FD";

/// The most a handed-over key may hold.
const MAX_KEY: u64 = 64 * 1024;

/// What [`take_env`] took, by variable name: a second call gives the same.
static TAKEN: Mutex<Vec<(String, Option<Secret>)>> = Mutex::new(Vec::new());

/// A secret's text: never shown (`Debug` prints a placeholder), its bytes
/// overwritten when dropped.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(text: String) -> Secret {
        Secret(text)
    }

    /// The text, for the one place it is sent.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

impl Drop for Secret {
    fn drop(&mut self) {
        // SAFETY: zero bytes are valid UTF-8, so the String stays valid.
        unsafe { self.0.as_bytes_mut() }.fill(0);
    }
}

/// Takes the variable `name` out of this process's environment: its value
/// (`None` when unset or empty), its bytes scrubbed from the environment
/// block and the variable removed; or, when a parent handed a key over
/// ([`KEY_FD_VAR`]), that key, its descriptor closed. The process is then
/// not dumpable. A second call for the same name gives the same value.
///
/// # Safety
/// No other thread may read or change the environment meanwhile: call it
/// while the process has one thread, before anything is started.
pub unsafe fn take_env(name: &str) -> Option<Secret> {
    let mut taken = TAKEN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, secret)) = taken.iter().find(|(n, _)| n == name) {
        return secret.clone();
    }
    // SAFETY: the caller's guarantee.
    let handed = unsafe { take_var(KEY_FD_VAR) }.and_then(|fd| read_handed(&fd));
    // SAFETY: the caller's guarantee.
    let own = unsafe { take_var(name) };
    let secret = handed.or(own).filter(|v| !v.is_empty()).map(Secret);
    not_dumpable();
    taken.push((name.to_string(), secret.clone()));
    secret
}

/// A variable's value, its bytes scrubbed and the variable removed.
///
/// # Safety
/// As [`take_env`].
unsafe fn take_var(name: &str) -> Option<String> {
    let value = std::env::var_os(name)?;
    let text = String::from_utf8(value.as_bytes().to_vec()).ok();
    scrub(name.as_bytes());
    // SAFETY: the caller guarantees a single thread.
    unsafe { std::env::remove_var(name) };
    text
}

/// The key in the descriptor a parent handed over (`fd` is its number, as
/// text): a regular file (a memory file) of at most [`MAX_KEY`] bytes,
/// closed once read. Anything else is no key.
fn read_handed(fd: &str) -> Option<String> {
    let fd: i32 = fd.parse().ok().filter(|&fd| fd > 2)?;
    // SAFETY: fstat on any number is harmless; ownership is taken only of a
    // descriptor that is open and a regular file.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut stat) } != 0 || stat.st_mode & libc::S_IFMT != libc::S_IFREG {
        return None;
    }
    let file = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    let size = file.metadata().ok()?.len();
    if size > MAX_KEY {
        return None;
    }
    let mut bytes = vec![0; size as usize];
    file.read_exact_at(&mut bytes, 0).ok()?;
    String::from_utf8(bytes).ok()
}

/// A memory file holding `secret`, to hand to a child process: give the
/// child its number in [`KEY_FD_VAR`]; it is inherited across `exec` (not
/// close-on-exec), and the child closes it as it takes the key.
pub fn hand_over(secret: &Secret) -> std::io::Result<OwnedFd> {
    // SAFETY: a NUL-terminated name and no flags: a new descriptor or -1.
    let fd = unsafe { libc::memfd_create(c"tiss-key".as_ptr(), 0) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a new descriptor, owned from here on.
    let file = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    file.write_all_at(secret.expose().as_bytes(), 0)?;
    Ok(file.into())
}

/// Overwrites, in place, the value of every `NAME=value` entry of the C
/// environment: the memory `/proc/PID/environ` reads for the variables the
/// process started with.
fn scrub(name: &[u8]) {
    unsafe extern "C" {
        static mut environ: *const *mut libc::c_char;
    }
    // SAFETY: `environ` is a NULL-terminated array of NUL-terminated strings
    // (POSIX); the caller guarantees no other thread changes it meanwhile.
    unsafe {
        let mut entry = environ;
        while !entry.is_null() && !(*entry).is_null() {
            let text = *entry;
            let bytes = CStr::from_ptr(text).to_bytes();
            if bytes.len() > name.len() && bytes.starts_with(name) && bytes[name.len()] == b'=' {
                let value = text.add(name.len() + 1);
                std::ptr::write_bytes(value, 0, bytes.len() - name.len() - 1);
            }
            entry = entry.add(1);
        }
    }
}

/// Makes the process not dumpable: no core file, and its `/proc/PID` files
/// (`environ`, `mem`) and `ptrace` closed to other processes without
/// `CAP_SYS_PTRACE`.
pub fn not_dumpable() {
    // SAFETY: PR_SET_DUMPABLE takes an integer and no pointer.
    unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
}

/// Whether the process is dumpable (for tests and reports).
pub fn dumpable() -> bool {
    // SAFETY: PR_GET_DUMPABLE takes no argument.
    unsafe { libc::prctl(libc::PR_GET_DUMPABLE, 0, 0, 0, 0) == 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_never_shown() {
        let secret = Secret::new("sk-very-secret".into());
        assert_eq!(format!("{secret:?}"), "Secret(..)");
        assert_eq!(secret.expose(), "sk-very-secret");
    }
}
