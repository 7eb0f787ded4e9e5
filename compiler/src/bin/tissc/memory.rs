//! How `tissc compile` keeps its resident memory low: the allocator
//! (mimalloc, the binaries' global allocator) is told at phase boundaries to
//! give freed memory back, instead of keeping it resident for reuse.
//!
//! A compile's live heap peaks while lowering starts (the whole syntax tree)
//! and the tree is freed item by item as lowering goes (`tiss_compiler::Frontend::into_module`);
//! mimalloc keeps freed pages resident (purged 10 ms later at the earliest,
//! and a 2 MiB transparent huge page only when all of it is free), so the
//! process's peak was the tree, the module and the verifier's facts added
//! up. Measured on the 50,000-line bench plan (book: performance.md): 31.5
//! MiB peak RSS by default, 18.0 MiB with the first two calls below; with
//! [`give_back`] before verifying, 0.5 MiB less.

use libmimalloc_sys::{mi_collect, mi_option_set, mi_option_t};

/// mimalloc's `mi_option_purge_delay` (v2's `mimalloc.h`; the Rust bindings
/// do not name it): milliseconds before freed pages are returned, 0 = at once.
const PURGE_DELAY: mi_option_t = 15;

/// For the rest of the process, memory comes in 4 KiB pages, not 2 MiB
/// transparent huge pages: a huge page stays resident while any of its
/// blocks lives, so the freed tree could not be returned (19.4 MiB at the
/// end of checking with them, 16.6 without).
#[cfg(target_os = "linux")]
pub fn small_pages() {
    tiss_support::cli::huge_pages(false);
}

/// From now on every page the allocator frees goes back to the OS at once.
/// Called when lowering starts: each page of the tree freed there is then no
/// longer resident, where it used to stay so until the process ended.
pub fn return_freed_pages() {
    // SAFETY: sets one integer option; mimalloc reads it on each purge.
    unsafe { mi_option_set(PURGE_DELAY, 0) }
}

/// Returns to the OS, now, every page the allocator holds free: what was
/// freed while freed pages were still kept (the front end's) and what
/// freeing the tree and the source text left in partly used pages. Called
/// before lowering, which would otherwise build the module on top of what
/// the checks freed (4.2 MiB on the 54,000-line prompts plan, whose peak
/// dropped by 1.4 MiB), and before the verifier, whose facts would
/// otherwise come on top of what lowering freed.
pub fn give_back() {
    // SAFETY: a plain call into the allocator, safe at any time.
    unsafe { mi_collect(true) }
}
