//! Analyses of a module's bytecode that both sides apply: the static cost
//! model (the compiler while it emits code, `tissvm estimate` on the
//! bytecode) and taint (`tissc lint`, `tissvm inspect`).

pub mod cost_model;
pub mod taint;
