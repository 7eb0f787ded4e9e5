//! Loading bytecode: hostile modules, decoding memory, the fuzz seeds.
//!
//! One test binary per concern (linked once, not once per file); each
//! file is a module of it.

#[path = "../common/mod.rs"]
mod common;
#[path = "../../../benches/plan_gen.rs"]
mod plan_gen;
#[path = "../resealed/mod.rs"]
mod resealed;

mod decode_memory;
mod fuzz_seeds;
mod hostile_bytecode;
mod table_memory;
