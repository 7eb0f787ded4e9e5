//! Stacks kept as a forest: a stack is a node whose parent is the stack
//! below its top. The verifier keeps one stack of value types and one of
//! open steps per instruction; as nodes, each costs one `u32`, a push is one
//! new node, and the paths that share a bottom share its nodes. The same
//! stack met on two paths may be two nodes: [`Forest::same`] compares them
//! from the top down and stops where they meet.
//!
//! A plan's code pushes the same few value types on the same few stacks
//! over and over (a string, then another, then their comparison), so the
//! type forest remembers the node each recent push made ([`Recent`]) and
//! hands it out again: its nodes number the distinct stacks met, not the
//! pushes, and most paths that meet hold the very same node.

use crate::types::ValueType;

/// The empty stack.
pub(crate) const EMPTY: u32 = 0;

/// Packed: a value type's node is 9 bytes instead of 12 (the nodes are
/// most of what the verifier keeps of a large module).
#[derive(Debug, Clone, Copy)]
#[repr(C, packed)]
struct Node<T> {
    parent: u32,
    depth: u32,
    top: T,
}

#[derive(Debug, Clone)]
pub(crate) struct Forest<T: Copy> {
    nodes: Vec<Node<T>>,
}

impl<T: Copy + PartialEq> Forest<T> {
    /// A forest holding only the empty stack, with room for `pushes`
    /// more; `filler` is the empty stack's top, never a value.
    pub fn with_capacity(pushes: usize, filler: T) -> Forest<T> {
        let mut nodes = Vec::with_capacity(pushes + 1);
        nodes.push(Node { parent: EMPTY, depth: 0, top: filler });
        Forest { nodes }
    }

    /// The stack `below` with `top` pushed on it.
    pub fn push(&mut self, below: u32, top: T) -> u32 {
        let depth = self.nodes[below as usize].depth + 1;
        self.nodes.push(Node { parent: below, depth, top });
        (self.nodes.len() - 1) as u32
    }

    pub fn depth(&self, node: u32) -> u32 {
        self.nodes[node as usize].depth
    }

    /// The top value (the filler for the empty stack: look at the depth first).
    pub fn top(&self, node: u32) -> T {
        self.nodes[node as usize].top
    }

    /// The stack without its top (the empty stack stays empty).
    pub fn pop(&self, node: u32) -> u32 {
        self.nodes[node as usize].parent
    }

    /// The stack cut back to its bottom `depth` values (`depth` at most its
    /// depth). `work` counts the nodes passed.
    pub fn cut(&self, mut node: u32, depth: u32, work: &mut u64) -> u32 {
        while self.depth(node) > depth {
            node = self.pop(node);
            *work += 1;
        }
        node
    }

    /// Whether two nodes hold the same stack. `work` counts the nodes compared.
    pub fn same(&self, mut a: u32, mut b: u32, work: &mut u64) -> bool {
        if self.depth(a) != self.depth(b) {
            return false;
        }
        while a != b {
            *work += 1;
            if self.top(a) != self.top(b) {
                return false;
            }
            (a, b) = (self.pop(a), self.pop(b));
        }
        true
    }

    /// The values, bottom first.
    pub fn to_vec(&self, mut node: u32) -> Vec<T> {
        let mut out = Vec::with_capacity(self.depth(node) as usize);
        while node != EMPTY {
            out.push(self.top(node));
            node = self.pop(node);
        }
        out.reverse();
        out
    }
}

/// The verifier's stacks of value types: a [`Forest`] of 2-byte ids, each
/// standing for one [`ValueType`] met in the module (a `ValueType` is 8
/// bytes since it may name an answer shape: the nodes would be 16 bytes,
/// not 10). A module has at most [`MAX_SHAPES`] shapes, so the ids never
/// run out.
#[derive(Debug, Clone)]
pub(crate) struct TypeForest {
    forest: Forest<u16>,
    types: Vec<ValueType>,
    /// The ids of the types that name no shape, by [`plain_index`]
    /// (`NO_ID` until met): looked up on every push, without hashing.
    plain: [u16; PLAIN],
    /// The ids of answer types.
    ids: std::collections::HashMap<ValueType, u16>,
    recent: Recent,
}

/// The node made by a recent push, by (stack below, type id): a table of
/// [`RECENT`] entries indexed by a hash of the pair, each keeping the last
/// push whose pair hashed there. A miss makes a new node, which is never
/// wrong (stacks are compared by their values), only larger.
#[derive(Debug, Clone)]
struct Recent {
    /// (below, id, node); `below == NO_NODE` while empty.
    entries: Box<[(u32, u16, u32)]>,
}

/// Entries in [`Recent`]: 12 bytes each. The distinct stacks of a compiled
/// plan are a few dozen; a table this size keeps them all.
const RECENT: usize = 1024;
const NO_NODE: u32 = u32::MAX;

impl Recent {
    fn new() -> Recent {
        Recent { entries: vec![(NO_NODE, 0, 0); RECENT].into_boxed_slice() }
    }

    fn slot(below: u32, id: u16) -> usize {
        // Fibonacci hashing: the high bits of the product mix both halves.
        let key = (u64::from(below) << 16) | u64::from(id);
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - RECENT.trailing_zeros())) as usize
    }
}

/// How many [`ValueType`]s name no answer shape.
const PLAIN: usize = 9;
const NO_ID: u16 = u16::MAX;

/// The index of `ty` among the types that name no shape, `None` for an
/// answer type.
fn plain_index(ty: ValueType) -> Option<usize> {
    Some(match ty {
        ValueType::Str => 0,
        ValueType::Int => 1,
        ValueType::Duration => 2,
        ValueType::Bool => 3,
        ValueType::LastRun => 4,
        ValueType::Cost => 5,
        ValueType::Error => 6,
        ValueType::Review => 7,
        ValueType::Estimate => 8,
        ValueType::Answer(_) => return None,
    })
}

/// The most answer shapes a module may have (`verify/tables.rs`).
pub(crate) const MAX_SHAPES: usize = 65_000;

impl TypeForest {
    pub fn new() -> TypeForest {
        TypeForest {
            forest: Forest::with_capacity(RECENT, 0),
            types: vec![ValueType::Str],
            plain: [NO_ID; PLAIN],
            ids: Default::default(),
            recent: Recent::new(),
        }
    }

    fn id(&mut self, ty: ValueType) -> u16 {
        let plain = plain_index(ty);
        let known = match plain {
            Some(i) => Some(self.plain[i]).filter(|&id| id != NO_ID),
            None => self.ids.get(&ty).copied(),
        };
        if let Some(id) = known {
            return id;
        }
        let id = u16::try_from(self.types.len()).unwrap_or(u16::MAX);
        self.types.push(ty);
        match plain {
            Some(i) => self.plain[i] = id,
            None => {
                self.ids.insert(ty, id);
            }
        }
        id
    }

    /// The stack `below` with `top` pushed on it: the node a recent push of
    /// the same type on the same stack made, or a new one.
    pub fn push(&mut self, below: u32, top: ValueType) -> u32 {
        let id = self.id(top);
        let slot = Recent::slot(below, id);
        let (was_below, was_id, node) = self.recent.entries[slot];
        if was_below == below && was_id == id {
            return node;
        }
        let node = self.forest.push(below, id);
        self.recent.entries[slot] = (below, id, node);
        node
    }

    pub fn depth(&self, node: u32) -> u32 {
        self.forest.depth(node)
    }

    pub fn top(&self, node: u32) -> ValueType {
        self.types[self.forest.top(node) as usize]
    }

    pub fn pop(&self, node: u32) -> u32 {
        self.forest.pop(node)
    }

    pub fn cut(&self, node: u32, depth: u32, work: &mut u64) -> u32 {
        self.forest.cut(node, depth, work)
    }

    pub fn same(&self, a: u32, b: u32, work: &mut u64) -> bool {
        self.forest.same(a, b, work)
    }

    pub fn to_vec(&self, node: u32) -> Vec<ValueType> {
        self.forest.to_vec(node).into_iter().map(|id| self.types[id as usize]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stacks_share_their_bottoms() {
        let mut f = Forest::with_capacity(4, 0u8);
        let one = f.push(EMPTY, 1);
        let a = f.push(one, 2);
        let b = f.push(one, 2);
        let c = f.push(one, 3);
        let mut work = 0;
        assert!(f.same(a, b, &mut work));
        assert!(!f.same(a, c, &mut work));
        assert!(!f.same(a, one, &mut work));
        assert!(f.same(EMPTY, EMPTY, &mut work));
        assert_eq!(f.to_vec(a), vec![1, 2]);
        assert_eq!(f.cut(a, 1, &mut work), one);
        assert_eq!(f.cut(a, 0, &mut work), EMPTY);
        assert_eq!((f.top(a), f.pop(EMPTY), f.depth(a)), (2, EMPTY, 2));
    }

    /// A push of a type on a stack seen before gives the node made then,
    /// and never a node of another stack: many more distinct pushes than
    /// the table's entries (so entries are overwritten) all read back.
    #[test]
    fn repeated_pushes_reuse_their_node() {
        let mut f = TypeForest::new();
        let s = f.push(EMPTY, ValueType::Str);
        assert_eq!(f.push(EMPTY, ValueType::Str), s);
        let ss = f.push(s, ValueType::Str);
        assert_eq!(f.push(s, ValueType::Str), ss);
        assert_ne!(f.push(s, ValueType::Int), ss);
        let mut stacks = vec![EMPTY];
        for i in 0..4 * RECENT {
            let below = stacks[i / 3];
            let ty = [ValueType::Str, ValueType::Int, ValueType::Bool][i % 3];
            let node = f.push(below, ty);
            assert_eq!((f.pop(node), f.top(node), f.depth(node)), (below, ty, f.depth(below) + 1));
            stacks.push(node);
        }
        let mut work = 0;
        let again = f.push(stacks[5], ValueType::Int);
        let int = f.id(ValueType::Int);
        let twin = f.forest.push(stacks[5], int);
        assert!(f.same(again, twin, &mut work));
        assert_eq!(f.to_vec(ss), vec![ValueType::Str, ValueType::Str]);
    }
}
