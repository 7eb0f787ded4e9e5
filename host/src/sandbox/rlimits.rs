//! The resource limits every confined RUN starts with (`standard` and
//! `strict`): no core dumps (a crashing tool must not drop a copy of its
//! memory, secrets included, into the workspace), a largest file, and a
//! number of open files. A limit the caller already set lower stays lower.

use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};

/// The largest file a RUN may write: 8 GiB.
pub const MAX_FILE_SIZE: u64 = 8 << 30;

/// Open files per process.
pub const MAX_OPEN_FILES: u64 = 8192;

/// The limits to set, computed in the parent from its own (which the child
/// inherits), so that the child makes one `setrlimit` per limit to lower
/// and no `getrlimit`.
#[derive(Debug, Clone, Copy)]
pub struct Rlimits([Option<(Resource, u64)>; 3]);

impl Rlimits {
    /// Each limit, soft and hard, at the lower of the wanted value and this
    /// process's hard limit; `None` where both already are that value.
    pub fn new() -> Rlimits {
        let wanted =
            [(Resource::Core, 0), (Resource::Fsize, MAX_FILE_SIZE), (Resource::Nofile, MAX_OPEN_FILES)];
        Rlimits(wanted.map(|(resource, wanted)| {
            let current = getrlimit(resource);
            let target = current.maximum.map_or(wanted, |hard| hard.min(wanted));
            let set = current.current != Some(target) || current.maximum != Some(target);
            set.then_some((resource, target))
        }))
    }

    /// Sets them in the started child before `exec`: plain system calls, no
    /// allocation.
    pub fn apply(&self) -> std::io::Result<()> {
        for &(resource, target) in self.0.iter().flatten() {
            setrlimit(resource, Rlimit { current: Some(target), maximum: Some(target) })?;
        }
        Ok(())
    }
}

impl Default for Rlimits {
    fn default() -> Rlimits {
        Rlimits::new()
    }
}
