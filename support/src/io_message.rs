//! I/O errors in messages: what the system says, without Rust's
//! ` (os error N)` suffix, which means nothing to a user (every crate's
//! messages about files go through it).

use std::io;

/// An I/O error's message without the ` (os error N)` suffix.
pub fn io_message(e: &io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_os_error_suffix_goes() {
        let e = io::Error::from_raw_os_error(2); // ENOENT
        assert_eq!(io_message(&e), "No such file or directory");
        assert_eq!(io_message(&io::Error::other("plain")), "plain");
    }
}
