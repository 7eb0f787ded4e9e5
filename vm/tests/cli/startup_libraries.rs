//! What the dynamic loader loads when `tissvm` starts (book: performance.md): on Linux with glibc, libc alone. The unwinder comes from
//! the C compiler's `libgcc_eh.a` (compiler/build.rs) and `pow` from the
//! `libm` crate (src/bin/tissvm/libm_pow.rs), so neither `libgcc_s.so.1`
//! (whose constructor's `cpuid`s trap to the hypervisor on a virtual
//! machine) nor `libm.so.6` is mapped and relocated at every start. A new
//! dependency that calls another C maths function, or a build that lost
//! the static unwinder, fails here.

#![cfg(all(target_os = "linux", target_env = "gnu"))]

use std::process::Command;

/// The shared objects the loader would map for the built `tissvm`, as
/// `ldd` lists them: the loader's own trace mode, which runs nothing of
/// the program.
fn loaded_objects() -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_tissvm"))
        .env("LD_TRACE_LOADED_OBJECTS", "1")
        .output()
        .expect("start tissvm under the loader's trace mode");
    assert!(out.status.success(), "the loader's trace failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Whether the C compiler the build links with has `libgcc_eh.a`; the
/// build script falls back to `libgcc_s.so.1` without it.
fn static_unwinder_available() -> bool {
    Command::new("cc")
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .is_ok_and(|out| std::path::Path::new(String::from_utf8_lossy(&out.stdout).trim()).is_absolute())
}

#[test]
fn tissvm_starts_without_libm() {
    let objects = loaded_objects();
    assert!(objects.contains("libc.so.6"), "not the listing of a glibc program:\n{objects}");
    assert!(!objects.contains("libm.so"), "tissvm loads the C maths library again:\n{objects}");
}

#[test]
fn tissvm_starts_without_libgcc_s() {
    if !static_unwinder_available() {
        let message = "the C compiler has no libgcc_eh.a: the build links libgcc_s.so.1, not tested";
        tiss_test_support::skip::cannot(message);
        return;
    }
    let objects = loaded_objects();
    assert!(!objects.contains("libgcc_s"), "tissvm loads libgcc_s.so.1 again:\n{objects}");
}

/// The functions a run runs are linked first, before the rest of the code
/// (compiler/build.rs, `vm/link/tissvm-hot.txt`, book: performance.md): the
/// debug adapter, which a run never enters, after.
#[test]
fn the_functions_a_run_runs_are_linked_first() {
    let (binary, dir, linked) =
        (env!("CARGO_BIN_EXE_tissvm"), env!("CARGO_MANIFEST_DIR"), option_env!("TISS_HOT_TEXT_LINKED"));
    tiss_test_support::hot_text::check(
        binary,
        dir,
        linked,
        &["_ZN7tiss_vm", "_ZN8tisslang"],
        "_ZN7tiss_vm3dap",
    );
}
