//! The shape of a typed answer: `STRING`, `INT`, `BOOL`, an enum of string
//! literals, `LIST OF T`, a record of named fields (some optional).
//!
//! A module keeps its shapes in one table (`Module::shapes`); a shape refers
//! to another only by an index *below its own*, so the table is acyclic by
//! construction and every walk over it ends. Names (fields, enum literals)
//! are string indices in the module ([`Shape<u32>`]); [`Shapes`] is the same
//! table with the names resolved, what validation and printing use.

use serde::{Deserialize, Serialize};

use crate::types::ValueType;

/// One shape. `N` is how a name is held: a string index in the module, the
/// text itself once resolved.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(bound(deserialize = "N: Deserialize<'de>"))]
pub enum Shape<N = u32> {
    Str,
    Int,
    Bool,
    /// One of these literals (at least one, each once).
    Enum(#[serde(deserialize_with = "bounded::literals")] Vec<N>),
    /// A list of values of the shape at this index.
    List(u32),
    /// Named fields in declared order (names unique).
    Record(#[serde(deserialize_with = "bounded::fields")] Vec<ShapeField<N>>),
}

/// Decoding claims each list's memory before allocating it (`codec/decode_budget.rs`).
mod bounded {
    crate::bounded_vecs! {
        literals: "literals of an enum shape",
        fields: "fields of a record shape",
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShapeField<N = u32> {
    pub name: N,
    /// `name?:` — the field may be absent (or `null`).
    pub optional: bool,
    /// Index of the field's shape.
    pub shape: u32,
}

impl<N> Shape<N> {
    /// The type a value of this shape has on the VM's stack, `index` being
    /// the shape's own index: a leaf is a plain scalar (an enum is a
    /// string), a list or record stays a typed answer.
    pub fn value_type(&self, index: u32) -> ValueType {
        match self {
            Shape::Str | Shape::Enum(_) => ValueType::Str,
            Shape::Int => ValueType::Int,
            Shape::Bool => ValueType::Bool,
            Shape::List(_) | Shape::Record(_) => ValueType::Answer(index),
        }
    }

    /// The shapes this one refers to.
    pub fn children(&self) -> impl Iterator<Item = u32> + '_ {
        let (list, fields) = match self {
            Shape::List(element) => (Some(*element), &[][..]),
            Shape::Record(fields) => (None, &fields[..]),
            _ => (None, &[][..]),
        };
        list.into_iter().chain(fields.iter().map(|f| f.shape))
    }
}

/// Whether a value of shape `index` in `table` can hold free text (a
/// `STRING` somewhere inside); an index out of range is taken to (the
/// verifier refuses such a module, and text is the safe guess). One pass
/// over the shapes up to `index`, children first (they lie below their
/// parents): linear, where a recursion would revisit a shape used twice at
/// every level exponentially often.
pub fn holds_text<N>(table: &[Shape<N>], index: u32) -> bool {
    let Some(upto) = table.get(..=index as usize) else { return true };
    let mut text: Vec<bool> = Vec::with_capacity(upto.len());
    for (i, shape) in upto.iter().enumerate() {
        let below =
            |child: u32| text.get(child as usize).copied().filter(|_| (child as usize) < i).unwrap_or(true);
        let holds = match shape {
            Shape::Str => true,
            Shape::Int | Shape::Bool | Shape::Enum(_) => false,
            Shape::List(e) => below(*e),
            Shape::Record(fields) => fields.iter().any(|f| below(f.shape)),
        };
        text.push(holds);
    }
    text[index as usize]
}

/// A module's shape table with its names resolved to text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shapes {
    pub shapes: Vec<Shape<Box<str>>>,
}

impl Shapes {
    pub fn get(&self, index: u32) -> Option<&Shape<Box<str>>> {
        self.shapes.get(index as usize)
    }

    /// The shape at `index`; the caller holds an index the verifier checked.
    pub fn at(&self, index: u32) -> &Shape<Box<str>> {
        &self.shapes[index as usize]
    }

    /// The table of a module: every name looked up in `string`, every
    /// reference checked to point below its own shape.
    pub fn resolve<'a>(
        table: &[Shape<u32>],
        string: impl Fn(u32) -> Option<&'a str>,
    ) -> Result<Shapes, String> {
        let name = |i: usize, n: u32| {
            string(n)
                .map(Box::from)
                .ok_or_else(|| format!("shape {i} names string {n}, which does not exist"))
        };
        let mut shapes = Vec::with_capacity(table.len());
        for (i, shape) in table.iter().enumerate() {
            if let Some(child) = shape.children().find(|&c| c as usize >= i) {
                return Err(format!("shape {i} refers to shape {child}, not one before it"));
            }
            shapes.push(match shape {
                Shape::Str => Shape::Str,
                Shape::Int => Shape::Int,
                Shape::Bool => Shape::Bool,
                Shape::List(e) => Shape::List(*e),
                Shape::Enum(names) => {
                    if names.is_empty() {
                        return Err(format!("shape {i} is an enum of no literals"));
                    }
                    Shape::Enum(names.iter().map(|&n| name(i, n)).collect::<Result<_, _>>()?)
                }
                Shape::Record(fields) => Shape::Record(
                    fields
                        .iter()
                        .map(|f| {
                            Ok(ShapeField { name: name(i, f.name)?, optional: f.optional, shape: f.shape })
                        })
                        .collect::<Result<_, String>>()?,
                ),
            });
        }
        for (i, shape) in shapes.iter().enumerate() {
            let names: Vec<&str> = match shape {
                Shape::Enum(names) => names.iter().map(|n| &**n).collect(),
                Shape::Record(fields) => fields.iter().map(|f| &*f.name).collect(),
                _ => continue,
            };
            let mut sorted = names.clone();
            sorted.sort_unstable();
            if let Some(pair) = sorted.windows(2).find(|w| w[0] == w[1]) {
                return Err(format!("shape {i} names `{}` twice", pair[0]));
            }
        }
        Ok(Shapes { shapes })
    }

    /// The field `name` of record shape `index`: its position and itself.
    pub fn field(&self, index: u32, name: &str) -> Option<(usize, &ShapeField<Box<str>>)> {
        match self.get(index)? {
            Shape::Record(fields) => fields.iter().enumerate().find(|(_, f)| &*f.name == name),
            _ => None,
        }
    }

    /// Whether a value of shape `index` can hold free text (a `STRING`
    /// somewhere inside): such values are tainted, others are clean (book: reference/policy.md).
    pub fn holds_text(&self, index: u32) -> bool {
        holds_text(&self.shapes, index)
    }

    /// The type as written in TissLang, for messages and the debugger:
    /// `LIST OF STRING`, `{ verdict: "approve" | "reject", files?: LIST OF STRING }`.
    pub fn describe(&self, index: u32) -> String {
        self.describe_within(index, usize::MAX)
    }

    /// [`Self::describe`], cut with `…` once it is longer than `limit`
    /// bytes: a table may use a shape twice at every level, and its text
    /// then doubles with each (the compiler bounds a prompt's type, a
    /// hand-made module does not). Listings of modules use this.
    pub fn describe_within(&self, index: u32, limit: usize) -> String {
        let mut out = String::new();
        if !self.write_described(index, limit, &mut out) {
            let mut end = limit.min(out.len());
            while !out.is_char_boundary(end) {
                end -= 1;
            }
            out.truncate(end);
            out.push('…');
        }
        out
    }

    /// Appends the text of shape `index` to `out`; false once `out` is
    /// past `limit` (every level adds text, so the recursion ends there).
    fn write_described(&self, index: u32, limit: usize, out: &mut String) -> bool {
        if out.len() > limit {
            return false;
        }
        match self.at(index) {
            Shape::Str => out.push_str("STRING"),
            Shape::Int => out.push_str("INT"),
            Shape::Bool => out.push_str("BOOL"),
            Shape::Enum(names) => {
                for (i, n) in names.iter().enumerate() {
                    if i > 0 {
                        out.push_str(" | ");
                    }
                    out.push_str(&format!("\"{}\"", n.escape_default()));
                    if out.len() > limit {
                        return false;
                    }
                }
            }
            Shape::List(e) => {
                out.push_str("LIST OF ");
                if !self.write_described(*e, limit, out) {
                    return false;
                }
            }
            Shape::Record(fields) => {
                out.push_str("{ ");
                for (i, f) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&f.name);
                    out.push_str(if f.optional { "?: " } else { ": " });
                    if !self.write_described(f.shape, limit, out) {
                        return false;
                    }
                }
                out.push_str(" }");
            }
        }
        out.len() <= limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(i: u32) -> Option<&'static str> {
        ["verdict", "approve", "reject", "files"].get(i as usize).copied()
    }

    #[test]
    fn resolves_a_record() {
        let table = vec![
            Shape::Enum(vec![1, 2]),
            Shape::Str,
            Shape::List(1),
            Shape::Record(vec![
                ShapeField { name: 0, optional: false, shape: 0 },
                ShapeField { name: 3, optional: true, shape: 2 },
            ]),
        ];
        let shapes = Shapes::resolve(&table, strings).unwrap();
        assert_eq!(shapes.describe(3), r#"{ verdict: "approve" | "reject", files?: LIST OF STRING }"#);
        assert!(shapes.holds_text(3));
        assert!(!shapes.holds_text(0));
        assert_eq!(shapes.field(3, "files").unwrap().0, 1);
        assert_eq!(shapes.at(3).value_type(3), ValueType::Answer(3));
        assert_eq!(shapes.at(0).value_type(0), ValueType::Str);
    }

    #[test]
    fn a_description_is_cut_at_its_limit() {
        let review = crate::answer::review();
        let whole = review.describe(7);
        assert_eq!(review.describe_within(7, whole.len()), whole);
        let cut = review.describe_within(7, 20);
        assert_eq!(cut, format!("{}…", &whole[..20]));
        // Each level uses the one below twice: 2^40 fields written out in full.
        let mut shapes = vec![Shape::Int];
        for i in 0..40 {
            let field = |name: &str| ShapeField { name: name.into(), optional: false, shape: i };
            shapes.push(Shape::Record(vec![field("a"), field("b")]));
        }
        let text = Shapes { shapes }.describe_within(40, 100);
        assert!(text.starts_with("{ a: { a: { a: ") && text.ends_with('…'), "{text}");
        assert_eq!(text.chars().count(), 101);
    }

    #[test]
    fn holds_text_is_linear_in_a_table_that_reuses_shapes() {
        // Each record uses the one below twice: 2^60 paths, 61 shapes.
        let mut table = vec![Shape::<u32>::Int];
        for i in 0..60u32 {
            table.push(Shape::Record(vec![
                ShapeField { name: 0, optional: false, shape: i },
                ShapeField { name: 1, optional: false, shape: i },
            ]));
        }
        assert!(!holds_text(&table, 60));
        table[0] = Shape::Str;
        assert!(holds_text(&table, 60));
        assert!(holds_text(&table, 99), "out of range: text, the safe guess");
    }

    #[test]
    fn refuses_cycles_unknown_names_and_twins() {
        assert!(Shapes::resolve(&[Shape::List(0)], strings).unwrap_err().contains("not one before it"));
        assert!(Shapes::resolve(&[Shape::Enum(vec![9])], strings).unwrap_err().contains("string 9"));
        assert!(Shapes::resolve(&[Shape::Enum(vec![])], strings).unwrap_err().contains("no literals"));
        assert!(Shapes::resolve(&[Shape::Enum(vec![1, 1])], strings).unwrap_err().contains("twice"));
    }
}
