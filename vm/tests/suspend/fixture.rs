//! What this binary's tests add to the common [`Fixture`]: one definition
//! each, since an inherent method is the whole binary's.

use std::path::Path;

use crate::common::{Fixture, Run, tissvm};

impl Fixture {
    /// A file beside the workspace, written; its path.
    pub fn write(&self, rel: &str, text: &str) -> String {
        let path = self.path(rel);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    }

    /// A file of the workspace, empty if there is none.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.ws().join(rel)).unwrap_or_default()
    }

    /// `tissvm run plan.tiss --workdir ws --output-format json ARGS`.
    pub fn run_json(&self, plan: &str, args: &[&str]) -> Run {
        self.run(plan, &[&["--output-format", "json"][..], args].concat())
    }

    /// `tissvm resume SNAP --output-format json ARGS` from `cwd`, with `env`.
    pub fn resume_in(&self, cwd: &Path, snap: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
        tissvm(cwd, &[&["resume", snap, "--output-format", "json"], args].concat(), env)
    }

    /// `tissvm resume SNAP --output-format json ARGS` from the fixture's directory.
    pub fn resume(&self, snap: &str, args: &[&str]) -> Run {
        self.resume_in(self.root.path(), snap, args, &[])
    }
}
