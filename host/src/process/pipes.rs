//! A RUN's two output pipes, read as they deliver into their bounded
//! captures while every chunk also goes to the caller.

use std::io::{self, Read};
use std::os::fd::{AsRawFd, RawFd};
use std::time::Duration;

use crate::process::capture::Capture;

const CHUNK: usize = 64 * 1024;

/// Which stream a chunk of output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// The two pipes and their captures.
pub(super) struct Pipes<'p> {
    pub(super) stdout: &'p mut Option<std::fs::File>,
    pub(super) stderr: &'p mut Option<std::fs::File>,
    pub(super) out: &'p mut Capture,
    pub(super) err: &'p mut Capture,
    /// What a read fills, [`CHUNK`] bytes once a pipe has been readable.
    pub(super) buf: Vec<u8>,
}

impl Pipes<'_> {
    pub(super) fn closed(&self) -> bool {
        self.stdout.is_none() && self.stderr.is_none()
    }

    /// Waits (at most `wait`; `None` = no limit) until a pipe is readable or
    /// `extra` (the shell's pidfd) is; reads one chunk from each readable
    /// pipe. Returns whether any output (or end of file) was seen.
    pub(super) fn poll_once(
        &mut self,
        extra: Option<RawFd>,
        wait: Option<Duration>,
        sink: &mut dyn FnMut(Stream, &[u8]),
    ) -> io::Result<bool> {
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(3);
        let mut push = |fd: RawFd| {
            fds.push(libc::pollfd { fd, events: libc::POLLIN, revents: 0 });
        };
        let out_fd = self.stdout.as_ref().map(AsRawFd::as_raw_fd);
        let err_fd = self.stderr.as_ref().map(AsRawFd::as_raw_fd);
        out_fd.into_iter().chain(err_fd).chain(extra).for_each(&mut push);
        if fds.is_empty() {
            // Nothing to watch: just let the time pass (only reached with a
            // limit: the callers never wait without limit on nothing).
            if let Some(wait) = wait {
                std::thread::sleep(wait);
            }
            return Ok(false);
        }
        let timeout_ms = match wait {
            None => -1,
            // Round up so a short wait does not turn into a busy loop.
            Some(d) => i32::try_from(d.as_micros().div_ceil(1000)).unwrap_or(i32::MAX),
        };
        // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
        if ready < 0 {
            let e = io::Error::last_os_error();
            // A signal (Ctrl-C): back to the caller, which looks at its
            // deadline and cancel check and comes back.
            return if e.kind() == io::ErrorKind::Interrupted { Ok(false) } else { Err(e) };
        }
        if ready == 0 {
            return Ok(false);
        }
        let readable = |fd: Option<RawFd>| {
            fd.is_some_and(|fd| {
                fds.iter()
                    .any(|p| p.fd == fd && p.revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0)
            })
        };
        let (out_ready, err_ready) = (readable(out_fd), readable(err_fd));
        if out_ready || err_ready {
            // Made at the first read, not at every wake: zeroing 64 KiB is
            // not free.
            self.buf.resize(CHUNK, 0);
            if out_ready {
                read_chunk(self.stdout, &mut self.buf, self.out, Stream::Stdout, sink)?;
            }
            if err_ready {
                read_chunk(self.stderr, &mut self.buf, self.err, Stream::Stderr, sink)?;
            }
        }
        Ok(out_ready || err_ready)
    }
}

/// Reads one chunk from a readable pipe; closes it at end of file.
fn read_chunk<R: Read>(
    pipe: &mut Option<R>,
    buf: &mut [u8],
    capture: &mut Capture,
    stream: Stream,
    sink: &mut dyn FnMut(Stream, &[u8]),
) -> io::Result<()> {
    let Some(reader) = pipe.as_mut() else { return Ok(()) };
    loop {
        match reader.read(buf) {
            Ok(0) => {
                *pipe = None;
                return Ok(());
            }
            Ok(n) => {
                capture.push(&buf[..n]);
                sink(stream, &buf[..n]);
                return Ok(());
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}
