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
//! - The functions a compile runs (`link/tissc-hot.txt`) and those a run
//!   runs (`vm/link/tissvm-hot.txt`), both made by `benches/hot_text.sh`,
//!   placed together before the rest of the code by a linker script. The
//!   kernel maps code in 64 KiB chunks around each page touched; spread
//!   through 6 MiB of code, the functions made it touch far more than they
//!   hold (book: performance.md: a one-step compile peaked at 5.5 MiB, 3.9
//!   so placed, each plan shape 1.4-1.9 MiB lower; a trivial run 7.1 and
//!   3.8 MiB, 0.94x the time). Rust's symbol names end in a hash that
//!   changes from build to build, so the list holds each name up to its
//!   hash and the script matches the rest. The list ends with the sections
//!   of read-only data the runs read, which open `.rodata` and
//!   `.data.rel.ro` the same way (a one-step compile 3.4 -> 2.9 MiB, a
//!   trivial run 3.9 -> 3.3). gold and mold cannot insert into their
//!   layout: with either named in the flags, or `TISS_HOT_TEXT=0`, the
//!   list is left out.

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
    let binary = match var("CARGO_PKG_NAME").as_str() {
        "tiss-compiler" => Some("tissc"),
        "tiss-vm" => Some("tissvm"),
        _ => None,
    };
    if let Some(binary) = binary
        && var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
    {
        let list = PathBuf::from(var("CARGO_MANIFEST_DIR")).join(format!("link/{binary}-hot.txt"));
        let out = PathBuf::from(var("OUT_DIR"));
        hot_text(binary, &list, &var("RUSTC_LINKER"), &var("CARGO_ENCODED_RUSTFLAGS"), &out);
    }
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

/// Links `binary` with the functions `list` names first (see the top of
/// this file).
fn hot_text(binary: &str, list: &std::path::Path, linker: &str, rustflags: &str, out_dir: &std::path::Path) {
    println!("cargo:rerun-if-changed={}", list.display());
    println!("cargo:rerun-if-env-changed=TISS_HOT_TEXT");
    // What the tests read (`tiss-test-support`'s `hot_text`): `yes`, or why not.
    let linked = |what: &str| println!("cargo:rustc-env=TISS_HOT_TEXT_LINKED={what}");
    if std::env::var_os("TISS_HOT_TEXT").is_some_and(|v| v == "0") {
        return linked("TISS_HOT_TEXT=0");
    }
    if names_gold_or_mold(linker) || names_gold_or_mold(rustflags) {
        return linked("the linker is gold or mold");
    }
    let Ok(names) = std::fs::read_to_string(list) else {
        return linked("its list cannot be read");
    };
    // `TISS_LINK_MAP=DIR` (benches/hot_text.sh): the linker writes where it
    // put each input section into DIR/BINARY.map.
    println!("cargo:rerun-if-env-changed=TISS_LINK_MAP");
    if let Some(dir) = std::env::var_os("TISS_LINK_MAP") {
        let map = PathBuf::from(dir).join(format!("{binary}.map"));
        println!("cargo:rustc-link-arg-bin={binary}=-Wl,-Map={}", map.display());
    }
    // A name the linker script's lexer could misread is left out.
    let plain = |name: &&str| name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_$.".contains(&b));
    let entries: Vec<&str> =
        names.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).filter(plain).collect();
    // Functions by name; the data the runs read by input section
    // (`.rodata.NAME`, `.data.rel.ro..Lanon.N`), a name cut at Rust's
    // hash (`17h`) matching any hash.
    let (sections, functions): (Vec<&str>, Vec<&str>) = entries.iter().partition(|e| e.starts_with('.'));
    let data = |prefix: &str| {
        let mut patterns = String::new();
        for section in sections.iter().filter(|s| s.starts_with(prefix)) {
            let any_hash = if section.ends_with("17h") { "*" } else { "" };
            patterns.push_str(&format!("    *({section}{any_hash})\n"));
        }
        patterns
    };
    // The functions open `.text`, after the C runtime's start-up code
    // (`_start` and the constructors' helpers, in sections named `.text`
    // alone); the linker adds the rest of the code after them (one
    // section, as tools such as valgrind expect).
    let mut script =
        String::from("SECTIONS\n{\n  .text :\n  {\n    *crt1.o(.text) *crti.o(.text) *crtbegin*.o(.text)\n");
    for name in &functions {
        // A compiler puts a function it thinks runs rarely (once, say) in
        // `.text.unlikely.NAME`, a C constructor in `.text.startup.NAME`,
        // a C destructor in `.text.exit.NAME`.
        script.push_str(&format!(
            "    *(.text.{name}* .text.unlikely.{name}* .text.startup.{name}* .text.hot.{name}* .text.exit.{name}*)\n"
        ));
    }
    script.push_str("  }\n}\nINSERT BEFORE .init;\n");
    // The read-only data the same runs read opens `.rodata` likewise: the
    // constants every build merges (numbers, C strings), each listed
    // function's jump and lookup tables, and the listed sections; and the
    // constants that hold addresses (vtables, tables of strings) open
    // `.data.rel.ro`.
    script.push_str("SECTIONS\n{\n  .rodata.hot :\n  {\n    *(.rodata.cst* .rodata.str1.*)\n");
    for name in &functions {
        script.push_str(&format!("    *(.rodata.{name}* .rodata..Lswitch.table.{name}*)\n"));
    }
    script.push_str(&data(".rodata."));
    script.push_str("  }\n}\nINSERT BEFORE .rodata;\n");
    // (Named `.data.rel.ro` itself: the linker keeps that section, and no
    // other, among those made read-only after relocation.)
    script.push_str("SECTIONS\n{\n  .data.rel.ro :\n  {\n");
    script.push_str(&data(".data.rel.ro."));
    script.push_str("  }\n}\nINSERT AFTER .init_array;\n");
    let path = out_dir.join(format!("{binary}-hot.ld"));
    match std::fs::write(&path, script) {
        Ok(()) => {
            println!("cargo:rustc-link-arg-bin={binary}=-Wl,-T,{}", path.display());
            linked("yes");
        }
        Err(_) => linked("the linker script cannot be written"),
    }
}

/// Whether linker flags (or the linker's path) choose gold or mold:
/// `-fuse-ld=mold`, `ld.gold`, `/usr/bin/mold`; not a directory that merely
/// contains the letters.
fn names_gold_or_mold(text: &str) -> bool {
    text.split(|c: char| c.is_whitespace() || "\x1f=,/".contains(c))
        .any(|word| matches!(word, "gold" | "mold" | "ld.gold" | "ld.mold" | "ld64.mold"))
}
