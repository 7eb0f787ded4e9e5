//! `tisslang`: the contract both sides of the toolchain agree on.
//!
//! The compiler (`tiss-compiler`) produces and the VM (`tiss-vm`) consumes what
//! this crate defines. It knows nothing about syntax or execution.

pub mod analysis;
pub mod answer;
pub mod codec;
pub mod container;
pub mod cost;
pub mod disasm;
pub mod duration;
pub mod isa;
pub mod module;
pub mod types;
pub mod verify;
pub mod version;
