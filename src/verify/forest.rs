//! Stacks kept as a forest: a stack is a node whose parent is the stack
//! below its top. The verifier keeps one stack of value types and one of
//! open steps per instruction; as nodes, each costs one `u32`, a push is one
//! new node, and the paths that share a bottom share its nodes. The same
//! stack met on two paths may be two nodes: [`Forest::same`] compares them
//! from the top down and stops where they meet.

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
