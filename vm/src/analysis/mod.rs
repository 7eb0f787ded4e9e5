//! What is known about a plan without running it: static cost bounds
//! (`tissvm estimate`), the effects it could have (`--dry-run`), where data
//! from a model or a file may reach a command (`taint`) and its manifest for
//! approval (`tissvm inspect`).

pub mod dry_run;
pub mod estimate;
pub mod inspect;
pub use tisslang::analysis::taint;
