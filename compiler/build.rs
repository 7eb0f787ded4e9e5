//! The link arguments of the binaries on Linux (glibc); only the binaries:
//! tests, benches and the proc-macros are linked as before. A static build
//! (`cargo build-static`, `crt-static`) keeps its `-static-pie` and its own
//! static unwinder. `vm/Cargo.toml` uses this file too.
//!
//! - `-no-pie`: a position-independent executable makes the dynamic loader
//!   apply about 9,000 relocations to `tissvm` at every start and copy each
//!   page of the data they touch (175 page faults for a trivial run instead
//!   of 125; 0.85x the wall time of the PIE build, measured). The code is the
//!   same (compiled position-independent as before, linked at a fixed
//!   address); what is given up is the address randomization of the
//!   executable's own image (the stack, the heap and the shared libraries
//!   are still randomized).
//! - The unwinder (panics) linked in from the C compiler's `libgcc_eh.a`
//!   instead of loaded from `libgcc_s.so.1`: loading that library runs its
//!   constructor, which asks the CPU for its features with `cpuid`, and on a
//!   virtual machine each `cpuid` traps to the hypervisor: 0.14 ms of a
//!   1.2 ms process start, measured (book: performance.md). Rust asks for
//!   `-lgcc_s` itself, so the binaries' library path starts with a directory
//!   holding a `libgcc_s.so` that is a linker script naming `libgcc_eh.a`
//!   (what gcc's `-static-libgcc` links). A C compiler without
//!   `libgcc_eh.a` (clang with compiler-rt, say) leaves the shared library.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    // The path is resolved against the manifest of the package being built,
    // and `vm/` has no build.rs of its own: a path that does not exist makes
    // cargo rerun the script, and rebuild tiss-vm, on every invocation. This
    // one names this file from either package.
    println!("cargo:rerun-if-changed={}", concat!(env!("CARGO_MANIFEST_DIR"), "/../compiler/build.rs"));
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let static_crt = var("CARGO_CFG_TARGET_FEATURE").split(',').any(|f| f == "crt-static");
    if var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" || static_crt {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-no-pie");
    if let Some(dir) = static_unwinder(&var("RUSTC_LINKER"), &PathBuf::from(var("OUT_DIR"))) {
        println!("cargo:rustc-link-arg-bins=-L{}", dir.display());
    }
}

/// A directory whose `libgcc_s.so` links the linker's `libgcc_eh.a` in its
/// place, or `None` if the linker (`cc` unless configured) has none.
fn static_unwinder(linker: &str, out_dir: &std::path::Path) -> Option<PathBuf> {
    let linker = if linker.is_empty() { "cc" } else { linker };
    let output = Command::new(linker).arg("-print-file-name=libgcc_eh.a").output().ok()?;
    // Without the file, the compiler prints the bare name back.
    let archive = PathBuf::from(String::from_utf8(output.stdout).ok()?.trim());
    if !output.status.success() || !archive.is_absolute() || !archive.is_file() {
        return None;
    }
    let dir = out_dir.join("static-unwinder");
    std::fs::create_dir_all(&dir).ok()?;
    std::fs::write(dir.join("libgcc_s.so"), format!("INPUT(\"{}\")\n", archive.display())).ok()?;
    Some(dir)
}
