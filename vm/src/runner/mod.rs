//! Running a plan for real: the run logic of `tissvm`, as a library. The
//! host on the OS (`os_host`); a run of one plan from start to finish
//! (`execute/`, started fresh by `run` or from a snapshot by `resume/`),
//! many plans at once (`many/`, with `collect` and `slurm`), the
//! step-through debugger on the real host (`debug`), and what reads a plan
//! without running it (`inspect`, `estimate`). The top layer of the
//! library: it uses every other module, and none uses it. Its entry points
//! take plain option structs (`options`; the command line is the binary's)
//! and return the exit status (book: reference/failures.md); what goes wrong is told on stderr.

pub mod color;
pub mod debug;
pub mod estimate;
pub mod execute;
pub mod inspect;
pub mod invalid;
pub mod many;
pub mod options;
pub mod os_host;
pub mod plan;
pub mod providers;
pub mod replay;
mod report_out;
pub mod resume;
pub mod run;

/// This program's name, for messages.
pub const PROGRAM: &str = "tissvm";

/// Exit statuses (book: reference/failures.md).
pub mod status {
    pub const OK: u8 = 0;
    /// The plan failed; for `tissvm replay`, the plan parted from its journal.
    pub const FAILED: u8 = 1;
    /// Bad arguments, or a plan that does not compile, or bytecode that is
    /// invalid, corrupt or of an unsupported version.
    pub const INVALID: u8 = 2;
    pub const SUSPENDED: u8 = 3;
    pub const SECURITY: u8 = 5;
    pub const INTERNAL: u8 = 70;
}
