//! The resource limits every confined RUN starts with (`standard` and
//! `strict`): no core dumps (a crashing tool must not drop a copy of its
//! memory, secrets included, into the workspace), a largest file, and a
//! number of open files. A limit the caller already set lower stays lower.

use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};

/// The largest file a RUN may write: 8 GiB.
pub const MAX_FILE_SIZE: u64 = 8 << 30;

/// Open files per process.
pub const MAX_OPEN_FILES: u64 = 8192;

/// The limits to set, computed in the parent (the child only applies them).
#[derive(Debug, Clone, Copy)]
pub struct Rlimits([(Resource, u64); 3]);

impl Rlimits {
    pub fn new() -> Rlimits {
        Rlimits([(Resource::Core, 0), (Resource::Fsize, MAX_FILE_SIZE), (Resource::Nofile, MAX_OPEN_FILES)])
    }

    /// Sets them, soft and hard, in the forked child before `exec`: plain
    /// system calls, no allocation.
    pub fn apply(&self) -> std::io::Result<()> {
        for (resource, wanted) in self.0 {
            let current = getrlimit(resource);
            let cap = |limit: Option<u64>| Some(limit.map_or(wanted, |l| l.min(wanted)));
            let hard = cap(current.maximum);
            setrlimit(resource, Rlimit { current: hard, maximum: hard })?;
        }
        Ok(())
    }
}

impl Default for Rlimits {
    fn default() -> Rlimits {
        Rlimits::new()
    }
}
