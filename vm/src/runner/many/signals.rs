//! Signals to a run of many plans: SIGINT (Ctrl-C), SIGUSR1 and SIGTERM
//! are passed on to every plan running, each of which suspends as a single
//! run would (`crate::session::interrupt`), and no plan starts after one.
//!
//! The children run in process groups of their own, so a Ctrl-C at the
//! terminal reaches this process alone and each child gets it once, from
//! here. The handler passes it on itself (`kill(2)` is async-signal-safe),
//! so a plan suspends even while this process waits for another to end.

use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicUsize, Ordering};

/// One slot per plan that may run at once: its pid, or 0.
static SLOTS: AtomicPtr<AtomicI32> = AtomicPtr::new(std::ptr::null_mut());
static SLOT_COUNT: AtomicUsize = AtomicUsize::new(0);
/// Signals received so far, and the last one.
static RECEIVED: AtomicUsize = AtomicUsize::new(0);
static LAST: AtomicI32 = AtomicI32::new(0);

fn slots() -> &'static [AtomicI32] {
    let pointer = SLOTS.load(Ordering::SeqCst);
    if pointer.is_null() {
        return &[];
    }
    // SAFETY: set once by `install` from a leaked boxed slice of
    // SLOT_COUNT elements, never freed.
    unsafe { std::slice::from_raw_parts(pointer, SLOT_COUNT.load(Ordering::SeqCst)) }
}

extern "C" fn pass_on(signal: libc::c_int) {
    RECEIVED.fetch_add(1, Ordering::SeqCst);
    LAST.store(signal, Ordering::SeqCst);
    for slot in slots() {
        let pid = slot.load(Ordering::SeqCst);
        if pid > 0 {
            // SAFETY: kill(2) is async-signal-safe.
            unsafe { libc::kill(pid, signal) };
        }
    }
    let message: &[u8] = match signal {
        libc::SIGINT => b"\ntissvm: interrupted: every running plan suspends at its next instruction boundary; no new plan starts\n",
        libc::SIGUSR1 => b"\ntissvm: SIGUSR1: every running plan suspends at its next instruction boundary; no new plan starts\n",
        _ => b"\ntissvm: SIGTERM: every running plan kills its RUN in flight and suspends; no new plan starts\n",
    };
    // SAFETY: errno is saved and restored around write(2), which is
    // async-signal-safe.
    unsafe {
        let errno = libc::__errno_location();
        let saved = *errno;
        libc::write(2, message.as_ptr().cast(), message.len());
        *errno = saved;
    }
}

/// Makes room for `jobs` running plans and installs the handlers, once.
pub fn install(jobs: usize) -> std::io::Result<()> {
    let slots: Box<[AtomicI32]> = (0..jobs).map(|_| AtomicI32::new(0)).collect();
    SLOT_COUNT.store(jobs, Ordering::SeqCst);
    SLOTS.store(Box::leak(slots).as_mut_ptr(), Ordering::SeqCst);
    for signal in [libc::SIGINT, libc::SIGUSR1, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction is valid; the handler only touches
        // atomics and async-signal-safe calls.
        let r = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = pass_on as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut())
        };
        if r != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Signals received so far: none means plans may still start.
pub fn received() -> usize {
    RECEIVED.load(Ordering::SeqCst)
}

/// Records the plan running in `slot`; a signal that came since `seen`
/// (what [`received`] said before it started) is passed on to it now,
/// since the handler may have missed it.
pub fn started(slot: usize, pid: i32, seen: usize) {
    if let Some(s) = slots().get(slot) {
        s.store(pid, Ordering::SeqCst);
    }
    if received() != seen {
        // SAFETY: kill(2) of our own child.
        unsafe { libc::kill(pid, LAST.load(Ordering::SeqCst)) };
    }
}

/// The plan in `slot` ended.
pub fn ended(slot: usize) {
    if let Some(s) = slots().get(slot) {
        s.store(0, Ordering::SeqCst);
    }
}
