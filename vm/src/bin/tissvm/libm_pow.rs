//! `pow`, the one function of the C maths library that tissvm calls (from
//! indicatif's rate estimates, for the many-plans status line), defined here
//! from the `libm` crate. With no other symbol of `libm.so.6` wanted, the
//! linker (`--as-needed`) drops it, and the dynamic loader no longer maps
//! and relocates it at every start: 0.07 ms of a 1.2 ms process start
//! (book: performance.md). The executable's definition is the one every
//! caller in the process gets.

/// `x` to the power `y`, as C's `pow` (the same algorithm as glibc's, from
/// ARM's optimized routines).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[unsafe(no_mangle)]
pub extern "C" fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}
