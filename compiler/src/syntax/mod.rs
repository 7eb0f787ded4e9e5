//! The syntax tree and what it is made of: the tree ([`ast`]) and its JSON
//! form ([`ast_json`]), byte spans ([`span`]), tokens ([`token`]), the
//! tree's compact strings ([`text`]) and the one-or-many sequence that holds
//! a string literal's parts ([`parts`]); how a path is read, however the
//! tree holds it ([`path_view`]); and the one walk over the tree
//! that the passes share (`visit`).

pub mod ast;
pub mod ast_json;
pub mod ast_json_stream;
pub mod expr;
pub mod parts;
pub mod path_view;
pub mod span;
pub mod text;
pub mod token;
pub(crate) mod visit;
