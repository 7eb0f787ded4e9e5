//! The binaries are linked as position-dependent executables on Linux (glibc),
//! `-no-pie`: a position-independent one makes the dynamic loader apply
//! about 9,000 relocations to `tissvm` at every start and copy each page of
//! the data they touch (175 page faults for a trivial run instead of 125;
//! 0.85x the wall time of the PIE build, measured). The code is the same
//! (compiled position-independent as before, linked at a fixed address); what
//! is given up is the address randomization of the executable's own image
//! (the stack, the heap and the shared libraries are still randomized).
//! Only the binaries: tests, benches and the proc-macros are linked as
//! before. A static build (`cargo build-static`, `crt-static`) keeps its
//! `-static-pie`. `vm/Cargo.toml` uses this file too.

fn main() {
    // The path is resolved against the manifest of the package being built,
    // and `vm/` has no build.rs of its own: a path that does not exist makes
    // cargo rerun the script, and rebuild tiss-vm, on every invocation. This
    // one names this file from either package.
    println!("cargo:rerun-if-changed={}", concat!(env!("CARGO_MANIFEST_DIR"), "/../compiler/build.rs"));
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let static_crt = var("CARGO_CFG_TARGET_FEATURE").split(',').any(|f| f == "crt-static");
    if var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu" && !static_crt {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
