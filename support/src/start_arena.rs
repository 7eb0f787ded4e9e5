//! A global allocator that serves a process's first small allocations from
//! one dense block, then hands everything to the allocator it wraps.
//!
//! Why: a short `tissvm run` spends more of its time in page faults than in
//! its own code, and on a virtual machine a fault on fresh memory costs
//! about 1.7 µs (zeroing the page, charging it, entering the kernel).
//! mimalloc gives each size class a page of its own, so the allocations of
//! start-up (the command line's definitions, the options, the plan) touch
//! pages spread over megabytes; packed one after the other they touch
//! fewer: a trivial `tissvm run` takes 169 page faults instead of 216, and
//! 0.91x the time (book: performance.md). The block is zeroed memory in
//! `.bss`, so it costs nothing until touched.
//!
//! A block allocation is never given back, except the last one (a vector
//! growing as it is built grows in place); once the block is full, every
//! allocation goes to the wrapped allocator. At most [`ARENA_BYTES`] stay
//! unused for the rest of a long run.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The size of the block.
pub const ARENA_BYTES: usize = 1024 * 1024;
/// Larger allocations go to the wrapped allocator at once.
const LARGEST: usize = 64 * 1024;

#[repr(C, align(4096))]
struct Block(UnsafeCell<[u8; ARENA_BYTES]>);

// SAFETY: the bytes are handed out in disjoint ranges (the bump pointer
// moves atomically), each to one owner.
unsafe impl Sync for Block {}

/// The wrapped allocator `A`, behind the block.
pub struct StartArena<A> {
    inner: A,
    block: Block,
    /// The end of what is handed out.
    used: AtomicUsize,
}

impl<A> StartArena<A> {
    pub const fn new(inner: A) -> StartArena<A> {
        StartArena { inner, block: Block(UnsafeCell::new([0; ARENA_BYTES])), used: AtomicUsize::new(0) }
    }

    fn base(&self) -> usize {
        self.block.0.get() as usize
    }

    /// Whether `ptr` is in the block.
    fn holds(&self, ptr: *mut u8) -> bool {
        (ptr as usize).wrapping_sub(self.base()) < ARENA_BYTES
    }

    /// `layout` from the block, if it fits.
    fn bump(&self, layout: Layout) -> Option<*mut u8> {
        if layout.size() > LARGEST {
            return None;
        }
        let base = self.base();
        let mut used = self.used.load(Ordering::Relaxed);
        loop {
            let start = (base + used).next_multiple_of(layout.align()) - base;
            let end = start.checked_add(layout.size()).filter(|&end| end <= ARENA_BYTES)?;
            match self.used.compare_exchange_weak(used, end, Ordering::Relaxed, Ordering::Relaxed) {
                // SAFETY: `start..end` is inside the block and now this caller's alone.
                Ok(_) => return Some(unsafe { (self.block.0.get() as *mut u8).add(start) }),
                Err(now) => used = now,
            }
        }
    }
}

// SAFETY: block memory is handed out once and in bounds, aligned as asked;
// everything else is the wrapped allocator's, given back to it.
unsafe impl<A: GlobalAlloc> GlobalAlloc for StartArena<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match self.bump(layout) {
            Some(ptr) => ptr,
            // SAFETY: as the caller promised for `layout`.
            None => unsafe { self.inner.alloc(layout) },
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match self.bump(layout) {
            // SAFETY: fresh block memory is zero: nothing in the block is
            // handed out twice, and the last allocation, given back and
            // handed out again, is zeroed here.
            Some(ptr) => {
                unsafe { ptr.write_bytes(0, layout.size()) };
                ptr
            }
            // SAFETY: as the caller promised for `layout`.
            None => unsafe { self.inner.alloc_zeroed(layout) },
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if !self.holds(ptr) {
            // SAFETY: not block memory, so the wrapped allocator's.
            return unsafe { self.inner.dealloc(ptr, layout) };
        }
        // The last allocation is taken back; any other stays where it is.
        let end = ptr as usize - self.base() + layout.size();
        let _ = self.used.compare_exchange(end, end - layout.size(), Ordering::Relaxed, Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !self.holds(ptr) {
            // SAFETY: not block memory, so the wrapped allocator's.
            return unsafe { self.inner.realloc(ptr, layout, new_size) };
        }
        let start = ptr as usize - self.base();
        let end = start + layout.size();
        // The last allocation grows or shrinks in place while it fits.
        if new_size <= LARGEST && start + new_size <= ARENA_BYTES {
            let grown =
                self.used.compare_exchange(end, start + new_size, Ordering::Relaxed, Ordering::Relaxed);
            if grown.is_ok() || new_size <= layout.size() {
                return ptr;
            }
        }
        // SAFETY: the new layout has the old alignment and a size the
        // caller promised is valid for it.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: as above.
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            // SAFETY: both are valid for the smaller size and do not overlap
            // (the new one is past the old one in the block, or elsewhere).
            unsafe { std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size)) };
            // SAFETY: `ptr` is this block's, with `layout`.
            unsafe { self.dealloc(ptr, layout) };
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::System;

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).unwrap()
    }

    #[test]
    fn small_allocations_pack_in_the_block_aligned_and_the_rest_goes_on() {
        static ARENA: StartArena<System> = StartArena::new(System);
        let arena = &ARENA;
        unsafe {
            let a = arena.alloc(layout(3, 1));
            let b = arena.alloc(layout(8, 8));
            assert!(arena.holds(a) && arena.holds(b));
            assert_eq!(b as usize % 8, 0);
            assert_eq!(b as usize - a as usize, 8, "packed");
            let big = arena.alloc(layout(LARGEST + 1, 8));
            assert!(!arena.holds(big));
            arena.dealloc(big, layout(LARGEST + 1, 8));
        }
    }

    #[test]
    fn the_last_allocation_grows_in_place_others_move_and_keep_their_bytes() {
        static ARENA: StartArena<System> = StartArena::new(System);
        let arena = &ARENA;
        unsafe {
            let a = arena.alloc(layout(16, 8));
            a.write_bytes(7, 16);
            let grown = arena.realloc(a, layout(16, 8), 64);
            assert_eq!(grown, a, "the last one grows in place");
            let b = arena.alloc(layout(8, 8));
            let moved = arena.realloc(grown, layout(64, 8), 128);
            assert_ne!(moved, grown);
            assert_eq!(std::slice::from_raw_parts(moved, 16), &[7; 16]);
            let out = arena.realloc(moved, layout(128, 8), LARGEST * 2);
            assert!(!arena.holds(out));
            assert_eq!(std::slice::from_raw_parts(out, 16), &[7; 16]);
            arena.dealloc(out, layout(LARGEST * 2, 8));
            arena.dealloc(b, layout(8, 8));
            let again = arena.alloc_zeroed(layout(8, 8));
            assert_eq!(again, b, "the last one given back is handed out again");
            assert_eq!(std::slice::from_raw_parts(again, 8), &[0; 8]);
        }
    }

    #[test]
    fn a_full_block_sends_every_allocation_on() {
        static ARENA: StartArena<System> = StartArena::new(System);
        let arena = &ARENA;
        unsafe {
            let mut kept = Vec::new();
            for _ in 0..ARENA_BYTES / LARGEST {
                kept.push(arena.alloc(layout(LARGEST, 8)));
            }
            assert!(kept.iter().all(|&p| arena.holds(p)));
            let next = arena.alloc(layout(8, 8));
            assert!(!arena.holds(next));
            arena.dealloc(next, layout(8, 8));
        }
    }

    #[test]
    fn threads_never_share_a_byte() {
        static ARENA: StartArena<System> = StartArena::new(System);
        let arena = &ARENA;
        let threads: Vec<_> = (0..4u8)
            .map(|t| {
                std::thread::spawn(move || unsafe {
                    let mut mine = Vec::new();
                    for _ in 0..500 {
                        let p = arena.alloc(layout(24, 8));
                        p.write_bytes(t, 24);
                        mine.push(p as usize);
                    }
                    mine.iter()
                        .all(|&p| std::slice::from_raw_parts(p as *const u8, 24).iter().all(|&b| b == t))
                })
            })
            .collect();
        assert!(threads.into_iter().all(|t| t.join().unwrap()));
    }
}
