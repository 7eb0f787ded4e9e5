//! The protocol's side of the server: JSON-RPC framing on stdio
//! ([`transport`]), LSP's UTF-16 positions (`position`) and the compiler's
//! diagnostics in LSP's shape (`diagnostics`).

pub(crate) mod diagnostics;
pub(crate) mod position;
pub mod transport;
