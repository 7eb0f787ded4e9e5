//! Stacks kept as a forest: a stack is a node whose parent is the stack
//! below its top. The verifier keeps one stack of value types and one of
//! open steps per instruction; as nodes, each costs one `u32`, a push is one
//! new node, and the paths that share a bottom share its nodes. The same
//! stack met on two paths may be two nodes: [`Forest::same`] compares them
//! from the top down and stops where they meet.

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
    pub fn with_capacity(pushes: usize) -> TypeForest {
        TypeForest {
            forest: Forest::with_capacity(pushes, 0),
            types: vec![ValueType::Str],
            plain: [NO_ID; PLAIN],
            ids: Default::default(),
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

    pub fn push(&mut self, below: u32, top: ValueType) -> u32 {
        let id = self.id(top);
        self.forest.push(below, id)
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
}
