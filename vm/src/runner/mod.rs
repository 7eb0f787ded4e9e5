//! Running a plan for real.

pub mod os_host;
