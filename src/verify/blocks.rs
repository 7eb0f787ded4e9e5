//! What the verifier keeps of the state at each instruction, a record per
//! basic block rather than per pc. Most instructions are reached only by
//! falling through from the one before: what they are reached with follows
//! from that instruction's, and their dominator is that instruction. So the
//! state is stored where a block starts (a unit's entry, a jump, option or
//! handler target, a pc after one that does not fall through) and the pcs
//! after it in the block are told by their position. On the plans a
//! compiler emits a block is 4–10 instructions long: the steps shape's
//! 126,000 instructions are 12,000 blocks, and the state 0.3 MiB instead of
//! 2 MiB (a per-pc vector written whole, first touched page by page).
//!
//! A pc finds its block in constant time: one bit per pc marks the starts,
//! and beside each word of bits the count of blocks that start before it.

use std::collections::HashMap;
#[cfg(all(target_arch = "x86_64", not(target_feature = "popcnt")))]
use std::sync::atomic::{AtomicBool, Ordering};

use foldhash::fast::RandomState;

use super::flow::{At, ROOT};

/// Reached pcs `start..end`: `start` with `at`, and each later one reached
/// only by falling through from the one before, its dominator.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Block {
    pub start: u32,
    pub end: u32,
    pub at: At,
}

impl Block {
    /// The immediate dominator of `pc`, one of this block's pcs: the
    /// start's is the one stored, every later pc's is the pc before it.
    #[inline]
    pub fn idom_of(&self, pc: u32) -> u32 {
        if pc == self.start { self.at.idom() } else { pc - 1 }
    }
}

#[derive(Debug)]
pub(crate) struct Blocks {
    /// In pc order; every reached pc lies in one.
    list: Vec<Block>,
    /// One bit per pc: a block starts there.
    starts: Vec<u64>,
    /// Per word of `starts`: how many blocks start before it. Filled up to
    /// `filled` as blocks open (they open in pc order).
    before: Vec<u32>,
    filled: usize,
}

impl Blocks {
    /// Room for the blocks of `len` instructions: compiled plans have a
    /// block per 4–10 (room that is never written costs address space only;
    /// growing by doubling would copy and touch it again).
    pub fn new(len: usize) -> Blocks {
        if len >= ASK_POPCNT {
            ask_popcnt();
        }
        let words = len.div_ceil(64);
        Blocks {
            list: Vec::with_capacity(len / 2 + 1),
            starts: vec![0; words],
            before: vec![0; words],
            filled: 0,
        }
    }

    /// Opens a block at `pc` (after every block so far) holding `pc` alone.
    pub fn open(&mut self, pc: u32, at: At) {
        let word = pc as usize / 64;
        let count = self.list.len() as u32;
        for before in &mut self.before[self.filled.min(word + 1)..=word] {
            *before = count;
        }
        self.filled = self.filled.max(word + 1);
        self.starts[word] |= 1 << (pc % 64);
        self.list.push(Block { start: pc, end: pc + 1, at });
    }

    /// Adds `pc`, reached by falling through, to the last block.
    pub fn extend(&mut self, pc: u32) {
        if let Some(block) = self.list.last_mut() {
            block.end = pc + 1;
        }
    }

    pub fn list(&self) -> &[Block] {
        &self.list
    }

    /// The index of the block holding `pc`, or `None` if no path reaches it.
    #[inline]
    pub fn index_of(&self, pc: u32) -> Option<usize> {
        let word = pc as usize / 64;
        let count = if word < self.filled {
            // The starts at or before `pc` in its word, moved to the top.
            let mine = self.starts[word] << (63 - pc % 64);
            self.before[word] as usize + ones(mine) as usize
        } else {
            self.list.len()
        };
        let index = count.checked_sub(1)?;
        (pc < self.list[index].end).then_some(index)
    }

    /// The block holding `pc`, if a path reaches it.
    #[inline]
    pub fn of(&self, pc: u32) -> Option<Block> {
        self.index_of(pc).map(|index| self.list[index])
    }

    /// The block that starts at `pc`, if one does.
    #[inline]
    pub fn starting_at(&self, pc: u32) -> Option<Block> {
        let word = *self.starts.get(pc as usize / 64)?;
        if word & (1 << (pc % 64)) == 0 {
            return None;
        }
        self.of(pc)
    }

    /// The immediate dominator of `pc`, a reached pc (`ROOT` otherwise).
    #[inline]
    pub fn idom(&self, pc: u32) -> u32 {
        self.of(pc).map_or(ROOT, |block| block.idom_of(pc))
    }

    /// The blocks that start in `first..=last`.
    pub fn within(&self, first: u32, last: u32) -> std::ops::Range<usize> {
        let from = self.list.partition_point(|block| block.start < first);
        let to = self.list.partition_point(|block| block.start <= last);
        from..to.max(from)
    }
}

/// The ways into a pc ahead so far.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Way {
    pub at: At,
    /// The dominator the last way in brought, below `at`'s (see [`lca`]);
    /// `None` after the first.
    pub last: Option<u32>,
}

/// How far ahead of the pc visited a target's ways in are kept in an array.
const NEAR: usize = 1024;

/// The ways into the pcs ahead that control jumps or fails to, each kept
/// until its pc is visited: most targets are a few pcs ahead (the end of
/// an AND chain, an ELSE), so those within [`NEAR`] of the pc visited sit
/// in a direct-mapped array, and only the rest (the end of a long block)
/// in a map. A target in the array is ahead of the pc visited and less than
/// the array's length beyond it, so two of them never share a place.
pub(crate) struct Ahead {
    /// A power of two long: `NEAR`, or less for a shorter module (a small
    /// plan's run should not fault in pages it never needs).
    near: Vec<(u32, Way)>,
    /// Hashed with foldhash, seeded at random as SipHash is, but a few
    /// instructions a key: SipHash was about 4% of a compile's instructions.
    far: HashMap<u32, Way, RandomState>,
    /// One bit per pc: a way into it is kept (checked at every pc, where a
    /// lookup would cost more).
    targets: Vec<u64>,
}

impl Ahead {
    pub fn new(len: usize) -> Ahead {
        let none = Way { at: At::new(0, 0, 0, ROOT, false, false), last: None };
        let near = vec![(u32::MAX, none); len.next_power_of_two().min(NEAR)];
        Ahead { near, far: HashMap::default(), targets: vec![0; len.div_ceil(64)] }
    }

    /// Whether a way into `pc` is kept.
    #[inline]
    pub fn has(&self, pc: u32) -> bool {
        self.targets[pc as usize / 64] & (1 << (pc % 64)) != 0
    }

    /// The ways into `target` so far.
    #[inline]
    pub fn get(&self, target: u32) -> Option<Way> {
        if !self.has(target) {
            return None;
        }
        match self.near[target as usize & (self.near.len() - 1)] {
            (pc, way) if pc == target => Some(way),
            _ => self.far.get(&target).copied(),
        }
    }

    /// Keeps `way` as the ways into `target`, ahead of `from`, the pc visited.
    #[inline]
    pub fn set(&mut self, from: u32, target: u32, way: Way) {
        let new = !self.has(target);
        let near = self.near.len();
        let slot = &mut self.near[target as usize & (near - 1)];
        if slot.0 == target || (new && (target.wrapping_sub(from) as usize) < near) {
            *slot = (target, way);
        } else {
            self.far.insert(target, way);
        }
        self.targets[target as usize / 64] |= 1 << (target % 64);
    }

    /// Takes the ways into `pc`, now visited.
    #[inline]
    pub fn take(&mut self, pc: u32) -> Option<Way> {
        if !self.has(pc) {
            return None;
        }
        self.targets[pc as usize / 64] &= !(1 << (pc % 64));
        let mask = self.near.len() - 1;
        let slot = &mut self.near[pc as usize & mask];
        if slot.0 == pc {
            slot.0 = u32::MAX;
            return Some(slot.1);
        }
        self.far.remove(&pc)
    }
}

/// The nearest common dominator of `a` and `b`, visited pcs (or `ROOT`):
/// every pc's dominator comes before it, so the later of the two climbs
/// until they meet, a block at a time. `known`: a pc `a` dominates (the last
/// way into the same target), where the climb from `b` may stop, `a` being
/// above `b` too. Without it the jumps of a long `AND` chain to its end
/// would each climb back to the first term: steps quadratic in the terms,
/// where with it each climbs one term.
pub(crate) fn lca(blocks: &Blocks, mut a: u32, mut b: u32, known: Option<u32>, work: &mut u64) -> u32 {
    while a != b {
        if a == ROOT || b == ROOT {
            return ROOT;
        }
        // `a` only climbs once `b` is above it, and `known` is below it.
        if Some(b) == known {
            return a;
        }
        *work += 1;
        if a > b {
            a = climb(blocks, a, b, None);
        } else {
            b = climb(blocks, b, a, known);
        }
    }
    a
}

/// From `pc` up toward `other` (an earlier pc), stopping at `stop` if it is
/// on the way: within `pc`'s block every earlier pc dominates it, so the
/// climb goes to `other` or `stop` if either is there, else to the block's
/// start, and from a start to its dominator.
fn climb(blocks: &Blocks, pc: u32, other: u32, stop: Option<u32>) -> u32 {
    let Some(block) = blocks.of(pc) else { return ROOT };
    if pc == block.start {
        return block.at.idom();
    }
    if other >= block.start {
        return other;
    }
    match stop {
        Some(stop) if block.start <= stop && stop < pc => stop,
        _ => block.start,
    }
}

/// From how many instructions a module's verifier asks the CPU whether it
/// counts bits in one instruction: a small module's lookups are few, and
/// the question (`cpuid`) traps to the hypervisor on a virtual machine,
/// which a trivial run would pay for nothing (see `codec/crc32.rs`).
const ASK_POPCNT: usize = 1 << 14;

/// Whether `popcnt` may run: set once a large module is verified on a CPU
/// that has it (all x86-64 CPUs since 2009, but not the baseline the
/// binaries are built for, where `count_ones` is a dozen instructions).
#[cfg(all(target_arch = "x86_64", not(target_feature = "popcnt")))]
static POPCNT: AtomicBool = AtomicBool::new(false);

/// Not inlined: the feature detection inlined into `verify` made its
/// straight-line loop a quarter slower (the heredoc shape, 256 → 322 µs).
#[inline(never)]
fn ask_popcnt() {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "popcnt")))]
    if !POPCNT.load(Ordering::Relaxed) && std::arch::is_x86_feature_detected!("popcnt") {
        POPCNT.store(true, Ordering::Relaxed);
    }
}

/// The bits set in `word`: the rank of a pc among the block starts, which
/// every way into a join and every dominator climb asks (in software, a
/// tenth of the verifier's time on join-heavy code).
#[inline]
fn ones(word: u64) -> u32 {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "popcnt")))]
    if POPCNT.load(Ordering::Relaxed) {
        let count: u64;
        // SAFETY: `popcnt` runs only where the CPU said it has it
        // (`ask_popcnt`); it reads one register and writes one (and flags).
        unsafe {
            std::arch::asm!("popcnt {0}, {1}", out(reg) count, in(reg) word, options(pure, nomem, nostack));
        }
        return count as u32;
    }
    word.count_ones()
}

#[cfg(test)]
mod tests {
    use super::{Blocks, ROOT, lca};
    use crate::verify::flow::At;

    fn at(idom: u32, join: bool) -> At {
        At::new(0, 0, 0, idom, join, false)
    }

    /// The bits of a word are counted alike by the instruction (where the
    /// CPU has it) and in software: every single bit, every prefix of an
    /// alternating pattern, and words spread over the range.
    #[test]
    fn bits_are_counted_alike_either_way() {
        super::ask_popcnt();
        let mut words: Vec<u64> = (0..64).map(|i| 1u64 << i).collect();
        words.extend((0..=64).map(|n| 0xAAAA_AAAA_AAAA_AAAAu64.checked_shr(64 - n).unwrap_or(0)));
        words.extend((0..1000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i << 17)));
        words.extend([0, u64::MAX, u64::MAX >> 1, 1 << 63]);
        for word in words {
            assert_eq!(super::ones(word), word.count_ones(), "{word:#x}");
        }
    }

    /// Blocks across word boundaries, with unreached gaps: every pc finds
    /// its block (or none), its dominator, and whether a block starts there.
    #[test]
    fn each_pc_finds_its_block() {
        // (start, end): gaps at 3..5, 70..130, and after 200.
        let spans = [(0, 3), (5, 6), (6, 64), (64, 65), (65, 70), (130, 131), (131, 200)];
        let mut blocks = Blocks::new(260);
        for &(start, end) in &spans {
            blocks.open(start, at(if start == 0 { ROOT } else { start - 1 }, start == 6));
            for pc in start + 1..end {
                blocks.extend(pc);
            }
        }
        for pc in 0..260u32 {
            let expected = spans.iter().position(|&(start, end)| start <= pc && pc < end);
            assert_eq!(blocks.index_of(pc), expected, "pc {pc}");
            let starts = spans.iter().any(|&(start, _)| start == pc);
            assert_eq!(blocks.starting_at(pc).is_some(), starts, "pc {pc}");
            let idom = match expected {
                None => ROOT,
                Some(i) if spans[i].0 == pc => blocks.list()[i].at.idom(),
                Some(_) => pc - 1,
            };
            assert_eq!(blocks.idom(pc), idom, "pc {pc}");
        }
        assert_eq!(blocks.within(5, 65), 1..5);
        assert_eq!(blocks.within(66, 129), 5..5);
    }

    /// Ways into pcs near and far ahead, some sharing a place in the array
    /// (`NEAR` apart), read back, replaced and taken as the walk reaches
    /// them; nothing is found twice or lost.
    #[test]
    fn the_ways_ahead_are_kept_until_taken() {
        use super::{Ahead, NEAR, Way};
        let len = 5 * NEAR as u32;
        let mut ahead = Ahead::new(len as usize);
        let way = |pc: u32| Way { at: at(pc, false), last: Some(pc) };
        // From pc 0: targets 1 ahead up to 3 * NEAR ahead, two to each place.
        let targets: Vec<u32> = (1..4).flat_map(|k| [k, k + NEAR as u32, k + 3 * NEAR as u32]).collect();
        for &t in &targets {
            ahead.set(0, t, way(t));
        }
        // A second way into each replaces the first, wherever it was kept.
        let mut expected = std::collections::HashMap::new();
        for &t in &targets {
            let mut again = ahead.get(t).unwrap();
            again.last = Some(t + 1);
            ahead.set(0, t, again);
            expected.insert(t, Some(t + 1));
        }
        for pc in 0..len {
            let taken = ahead.take(pc).map(|w| (w.at.idom(), w.last));
            assert_eq!(taken, expected.remove(&pc).map(|last| (pc, last)), "pc {pc}");
            assert!(ahead.get(pc).is_none() && ahead.take(pc).is_none(), "pc {pc}");
            // New targets from here on, near and far.
            if pc % 97 == 5 && pc + 2 * NEAR as u32 + 1 < len {
                for t in [pc + 1, pc + 2 * NEAR as u32 + 1] {
                    ahead.set(pc, t, way(t));
                    expected.insert(t, Some(t));
                }
            }
        }
        assert!(expected.is_empty());
        let small = Ahead::new(3);
        assert_eq!(small.near.len(), 4);
    }

    /// The common dominator: along one block, across blocks, with a stop
    /// on the way, and at the root.
    #[test]
    fn the_common_dominator_climbs_a_block_at_a_time() {
        // 0..10 straight; 10..20 dominated by 4; 20..30 by 15.
        let mut blocks = Blocks::new(30);
        for (start, idom) in [(0, ROOT), (10, 4), (20, 15)] {
            blocks.open(start, at(idom, false));
            for pc in start + 1..start + 10 {
                blocks.extend(pc);
            }
        }
        let mut work = 0;
        assert_eq!(lca(&blocks, 7, 3, None, &mut work), 3);
        assert_eq!(lca(&blocks, 3, 7, None, &mut work), 3);
        assert_eq!(lca(&blocks, 25, 12, None, &mut work), 12);
        assert_eq!(lca(&blocks, 25, 8, None, &mut work), 4);
        // 2 dominates 15, the last way in: the climb from 28 stops there.
        let before = work;
        assert_eq!(lca(&blocks, 2, 28, Some(15), &mut work), 2);
        assert_eq!(work - before, 2);
        assert_eq!(lca(&blocks, 28, ROOT, None, &mut work), ROOT);
        // A climb of a long block is one step, not one per pc.
        let before = work;
        assert_eq!(lca(&blocks, 1, 9, None, &mut work), 1);
        assert_eq!(work - before, 1);
    }
}
