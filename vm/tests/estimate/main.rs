//! Static cost bounds: tissvm estimate, the cost model, properties over generated plans.
//!
//! One test binary per concern (linked once, not once per file); each
//! file is a module of it.

#[path = "../common/mod.rs"]
mod common;
#[path = "../../../benches/plan_gen.rs"]
mod plan_gen;

mod estimate_bounds;
mod estimate_cli;
mod estimate_model;
mod estimate_props;
