//! What drives a run from outside the dispatch loop and lets it stop and go
//! on: snapshots and the key that signs them, the workspace a resumed run
//! may use, answers given in advance, Ctrl-C and the scheduler's signals,
//! one resume of a snapshot at a time, the debugger, and the journal of
//! what a run took from outside.

pub mod answers;
pub mod debugger;
pub mod interrupt;
pub mod journal;
pub mod resume_command;
pub mod resume_lock;
pub mod snapshot;
pub mod snapshot_key;
pub mod workspace_claim;
