//! `tissc parse --emit ast-json`, streamed: the same text as
//! `ast_json::to_string_pretty` (the tests' oracle) without building the
//! tree as a `serde_json::Value` first (a plan of 200,000 statements took
//! 877 MiB that way). Each value is asked its shape ([`Probe`]: a scalar, a
//! sequence and its length, or an object and its keys, without descending);
//! an object's fields are then written in reading order (`type` first,
//! `span` last), each by serializing the value again and picking that one
//! field ([`Pick`]), so no field is ever held rendered; sequences stream
//! element by element. Spans, small, go through `Value` and are rewritten to
//! line/column positions as there. A value whose shape this cannot read (an
//! externally tagged variant with fields; the AST has none) is written
//! through `Value`, the same text.

use std::io::{self, Write};

use serde::Serialize;
use serde::ser::{self, Impossible};
use serde_json::{Error, Value};

use crate::source_file::SourceFile;
use crate::syntax::ast::Plan;
use crate::syntax::ast_json::{is_span_key, key_rank, position, rewrite_spans, write_pretty};
use crate::syntax::expr::with_source;

/// Writes the plan's items as pretty JSON to `w` (no trailing newline).
pub fn write(w: &mut dyn Write, file: &SourceFile, plan: &Plan) -> io::Result<()> {
    let mut out = Out { w, spans: Some(file), pretty: true };
    with_source(&file.text, || out.value(&plan.items, 0, None)).map_err(io::Error::other)
}

/// Writes `node` as compact JSON without its positions (every `span` and
/// `*_span` field left out): what formatting must keep, compared without
/// building the tree (`fmt::same_meaning`). `src` is the text it was parsed from.
pub fn write_without_positions<T: Serialize + ?Sized>(
    w: &mut dyn Write,
    src: &str,
    node: &T,
) -> io::Result<()> {
    let mut out = Out { w, spans: None, pretty: false };
    with_source(src, || out.value(node, 0, None)).map_err(io::Error::other)
}

struct Out<'a> {
    w: &'a mut dyn Write,
    /// Spans rewritten to positions in this file; `None`: left out.
    spans: Option<&'a SourceFile>,
    /// Indented, one value per line; else compact.
    pretty: bool,
}

impl Out<'_> {
    fn text(&mut self, text: &str) -> Result<(), Error> {
        self.w.write_all(text.as_bytes()).map_err(Error::io)
    }

    /// A piece of the layout (brackets, separators, line ends): compact
    /// output keeps only its punctuation (the blanks are at its ends).
    fn punct(&mut self, text: &str) -> Result<(), Error> {
        self.text(if self.pretty { text } else { text.trim_matches(char::is_whitespace) })
    }

    fn pad(&mut self, n: usize) -> Result<(), Error> {
        if !self.pretty {
            return Ok(());
        }
        const SPACES: &str = "                                                                ";
        let mut left = n;
        while left > 0 {
            let take = left.min(SPACES.len());
            self.text(&SPACES[..take])?;
            left -= take;
        }
        Ok(())
    }

    /// `v` at `indent`, as the field `key` of its object if it is one.
    fn value<T: Serialize + ?Sized>(&mut self, v: &T, indent: usize, key: Option<&str>) -> Result<(), Error> {
        if key.is_some_and(is_span_key) {
            return self.through_value(v, indent, key);
        }
        match v.serialize(Probe) {
            Ok(Shape::Scalar(value)) => self.text(&value.to_string()),
            Ok(Shape::Seq(0)) => self.punct("[]"),
            Ok(Shape::Seq(_)) => {
                self.punct("[\n")?;
                v.serialize(&mut Elements { out: self, indent: indent + 2 })?;
                self.pad(indent)?;
                self.punct("]")
            }
            Ok(Shape::Object(mut keys)) => {
                if self.spans.is_none() {
                    keys.retain(|k| !is_span_key(k));
                }
                if keys.is_empty() {
                    return self.punct("{}");
                }
                keys.sort_by(|a, b| (key_rank(a), a).cmp(&(key_rank(b), b)));
                keys.dedup();
                self.punct("{\n")?;
                for (i, key) in keys.iter().enumerate() {
                    self.pad(indent + 2)?;
                    self.text(&Value::String(key.clone()).to_string())?;
                    self.punct(": ")?;
                    let mut pick =
                        Pick { key, out: self, indent: indent + 2, matched: false, written: false };
                    v.serialize(&mut pick)?;
                    self.punct(if i + 1 < keys.len() { ",\n" } else { "\n" })?;
                }
                self.pad(indent)?;
                self.punct("}")
            }
            Err(_) => self.through_value(v, indent, key),
        }
    }

    /// `v` built as a `Value`, spans rewritten (or left out), then written.
    fn through_value<T: Serialize + ?Sized>(
        &mut self,
        v: &T,
        indent: usize,
        key: Option<&str>,
    ) -> Result<(), Error> {
        let mut value = serde_json::to_value(v)?;
        let Some(file) = self.spans else {
            strip_spans(&mut value);
            return self.text(&value.to_string());
        };
        match key.and_then(|k| position(file, k, &value)) {
            Some(pos) => value = pos,
            None => rewrite_spans(file, &mut value),
        }
        let mut text = String::new();
        write_pretty(&mut text, &value, indent);
        self.text(&text)
    }
}

/// Leaves out every span field of the tree.
fn strip_spans(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|key, _| !is_span_key(key));
            map.values_mut().for_each(strip_spans);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_spans),
        _ => {}
    }
}

/// What a value is, seen from outside.
enum Shape {
    Scalar(Value),
    Seq(usize),
    Object(Vec<String>),
}

/// A value's [`Shape`], without serializing what it holds.
struct Probe;

fn scalar(value: Result<Value, Error>) -> Result<Shape, Error> {
    value.map(Shape::Scalar)
}

fn unsupported<T>() -> Result<T, Error> {
    Err(ser::Error::custom("not a shape the streamed AST JSON writes"))
}

macro_rules! scalars {
    ($($method:ident($ty:ty)),*) => {
        $(fn $method(self, v: $ty) -> Result<Shape, Error> {
            scalar(serde_json::value::Serializer.$method(v))
        })*
    };
}

impl ser::Serializer for Probe {
    type Ok = Shape;
    type Error = Error;
    type SerializeSeq = Count;
    type SerializeTuple = Count;
    type SerializeTupleStruct = Count;
    type SerializeTupleVariant = Impossible<Shape, Error>;
    type SerializeMap = Keys;
    type SerializeStruct = Keys;
    type SerializeStructVariant = Impossible<Shape, Error>;

    scalars!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8])
    );

    fn serialize_none(self) -> Result<Shape, Error> {
        Ok(Shape::Scalar(Value::Null))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Shape, Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Shape, Error> {
        Ok(Shape::Scalar(Value::Null))
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Shape, Error> {
        Ok(Shape::Scalar(Value::Null))
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<Shape, Error> {
        Ok(Shape::Scalar(Value::String(variant.to_string())))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result<Shape, Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: &T,
    ) -> Result<Shape, Error> {
        Ok(Shape::Object(vec![variant.to_string()]))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Count, Error> {
        Ok(Count(0))
    }
    fn serialize_tuple(self, _: usize) -> Result<Count, Error> {
        Ok(Count(0))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Count, Error> {
        Ok(Count(0))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        unsupported()
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Keys, Error> {
        Ok(Keys(Vec::new()))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Keys, Error> {
        Ok(Keys(Vec::new()))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        unsupported()
    }
}

/// The elements of a sequence, counted and not looked at.
struct Count(usize);

/// The three ways serde hands a sequence over, one behaviour: `$ty`'s
/// `element` for each element, its `finish` at the end.
macro_rules! sequence {
    ([$($gen:tt)*] $ty:ty, $ok:ty) => {
        impl<$($gen)*> ser::SerializeSeq for $ty {
            type Ok = $ok;
            type Error = Error;
            fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
                self.element(v)
            }
            fn end(self) -> Result<$ok, Error> {
                self.finish()
            }
        }
        impl<$($gen)*> ser::SerializeTuple for $ty {
            type Ok = $ok;
            type Error = Error;
            fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
                self.element(v)
            }
            fn end(self) -> Result<$ok, Error> {
                self.finish()
            }
        }
        impl<$($gen)*> ser::SerializeTupleStruct for $ty {
            type Ok = $ok;
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
                self.element(v)
            }
            fn end(self) -> Result<$ok, Error> {
                self.finish()
            }
        }
    };
}

impl Count {
    fn element<T: Serialize + ?Sized>(&mut self, _: &T) -> Result<(), Error> {
        self.0 += 1;
        Ok(())
    }
    fn finish(self) -> Result<Shape, Error> {
        Ok(Shape::Seq(self.0))
    }
}

sequence!([] Count, Shape);

/// The keys of an object, its values not looked at.
struct Keys(Vec<String>);

impl ser::SerializeStruct for Keys {
    type Ok = Shape;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, _: &T) -> Result<(), Error> {
        self.0.push(key.to_string());
        Ok(())
    }
    fn end(self) -> Result<Shape, Error> {
        Ok(Shape::Object(self.0))
    }
}

impl ser::SerializeMap for Keys {
    type Ok = Shape;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.0.push(key_text(key)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, _: &T) -> Result<(), Error> {
        Ok(())
    }
    fn end(self) -> Result<Shape, Error> {
        Ok(Shape::Object(self.0))
    }
}

/// A map key as JSON writes it: a string.
fn key_text<T: Serialize + ?Sized>(key: &T) -> Result<String, Error> {
    match serde_json::to_value(key)? {
        Value::String(text) => Ok(text),
        other => Ok(other.to_string()),
    }
}

/// Writes the elements of a sequence, one per line.
struct Elements<'o, 'a> {
    out: &'o mut Out<'a>,
    indent: usize,
}

impl Elements<'_, '_> {
    fn one<T: Serialize + ?Sized>(&mut self, v: &T, first: bool) -> Result<(), Error> {
        if !first {
            self.out.punct(",\n")?;
        }
        self.out.pad(self.indent)?;
        self.out.value(v, self.indent, None)
    }
}

/// The state of a sequence being written: whether an element came yet.
struct Writing<'e, 'o, 'a> {
    elements: &'e mut Elements<'o, 'a>,
    first: bool,
}

impl Writing<'_, '_, '_> {
    fn element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        let first = std::mem::take(&mut self.first);
        self.elements.one(v, first)
    }
    fn finish(self) -> Result<(), Error> {
        self.elements.out.punct("\n")
    }
}

sequence!(['e, 'o, 'a] Writing<'e, 'o, 'a>, ());

/// Serializers that only take what [`Probe`] said the value is; anything
/// else is an error (the value is then written through `Value`).
macro_rules! only_containers {
    () => {
        fn serialize_bool(self, _: bool) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_i8(self, _: i8) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_i16(self, _: i16) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_i32(self, _: i32) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_i64(self, _: i64) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_u8(self, _: u8) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_u16(self, _: u16) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_u32(self, _: u32) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_u64(self, _: u64) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_f32(self, _: f32) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_f64(self, _: f64) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_char(self, _: char) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_str(self, _: &str) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_bytes(self, _: &[u8]) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_none(self) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Error> {
            v.serialize(self)
        }
        fn serialize_unit(self) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Error> {
            unsupported()
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            v: &T,
        ) -> Result<(), Error> {
            v.serialize(self)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, Error> {
            unsupported()
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, Error> {
            unsupported()
        }
    };
}

impl<'e, 'o, 'a> ser::Serializer for &'e mut Elements<'o, 'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Writing<'e, 'o, 'a>;
    type SerializeTuple = Writing<'e, 'o, 'a>;
    type SerializeTupleStruct = Writing<'e, 'o, 'a>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    only_containers!();

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        unsupported()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Ok(Writing { elements: self, first: true })
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Ok(Writing { elements: self, first: true })
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Error> {
        Ok(Writing { elements: self, first: true })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        unsupported()
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        unsupported()
    }
}

/// Writes the one field `key` of an object, skipping the others unread.
struct Pick<'k, 'o, 'a> {
    key: &'k str,
    out: &'o mut Out<'a>,
    indent: usize,
    /// A map's key just given was `key`.
    matched: bool,
    /// The field is written (a key given twice is written once).
    written: bool,
}

impl Pick<'_, '_, '_> {
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, v: &T) -> Result<(), Error> {
        if key == self.key && !self.written {
            self.written = true;
            self.out.value(v, self.indent, Some(key))?;
        }
        Ok(())
    }
    fn done(&mut self) -> Result<(), Error> {
        if self.written { Ok(()) } else { unsupported() }
    }
}

impl ser::SerializeStruct for &mut Pick<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Result<(), Error> {
        self.field(key, v)
    }
    fn end(self) -> Result<(), Error> {
        self.done()
    }
}

impl ser::SerializeMap for &mut Pick<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.matched = key_text(key)? == self.key;
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        if std::mem::take(&mut self.matched) {
            let key = self.key;
            return self.field(key, v);
        }
        Ok(())
    }
    fn end(self) -> Result<(), Error> {
        self.done()
    }
}

impl<'p, 'k, 'o, 'a> ser::Serializer for &'p mut Pick<'k, 'o, 'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), Error>;

    only_containers!();

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.field(variant, v)?;
        self.done()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        unsupported()
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        unsupported()
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Error> {
        unsupported()
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use crate::syntax::ast_json::to_string_pretty;

    /// The streamed text is the tree's, byte for byte, on every example
    /// plan and on plans of every statement, nested blocks and types.
    #[test]
    fn the_stream_writes_what_the_tree_does() {
        let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
        let mut plans: Vec<(String, String)> = std::fs::read_dir(&examples)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "tiss"))
            .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).unwrap()))
            .collect();
        assert!(plans.len() >= 10, "the examples are found");
        plans.push((
            "one line".into(),
            format!("TASK \"t\"\nSTEP \"s\" {{ {} }}\n", "LOG \"é\" ".repeat(300)),
        ));
        let mut compared = 0;
        for (name, text) in &plans {
            let frontend = crate::frontend(name, text.as_bytes());
            if frontend.has_errors() {
                continue;
            }
            let mut streamed = Vec::new();
            super::write(&mut streamed, &frontend.file, &frontend.plan).unwrap();
            let tree = to_string_pretty(&frontend.file, &frontend.plan);
            assert!(String::from_utf8(streamed).unwrap() == tree, "{name}: the streamed JSON differs");
            compared += 1;
        }
        assert!(compared >= 10, "{compared} plans compared");
    }
}
