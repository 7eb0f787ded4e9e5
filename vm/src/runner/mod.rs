//! The run logic of `tissvm`, as a library: a run of one plan from start to
//! finish (`execute/`), resuming a snapshot (`resume/`), many plans at once
//! (`many/`), the step-through debugger on the real host, and the
//! subcommands that read a plan without running it. The top layer of the
//! library: it uses every other module, and none uses it. Its entry points
//! take plain option structs (no command-line parsing: the binary maps its
//! arguments onto them) and return the exit status (SPEC §9).

pub mod color;
