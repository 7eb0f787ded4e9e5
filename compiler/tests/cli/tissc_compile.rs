//! End-to-end tests of `tissc compile` and `tissc disasm` on real files in
//! temporary directories.

use std::path::PathBuf;

use tiss_test_support::{listing, stderr, stdout, tissc, workspace};

use tisslang::module::kept_source::{HASH_LEN, Source, SourceHash, SourceText};

const GOOD: &str = r#"#TISS! Language=Python
TASK "Say hello"

STEP "Write" {
    WRITE "main.py" <<PYTHON
print("Hello, TissLang!")
PYTHON
}

STEP "Run" {
    RUN "python3 main.py" TIMEOUT 30s
    ASSERT LAST_RUN.EXIT_CODE == 0
    ASSERT LAST_RUN.STDOUT CONTAINS "Hello, TissLang!"
}
"#;

const BAD: &str = "TASK \"t\"\n\nStep \"a\" {\n    RUN \"make\"\n}\n";

fn read(path: PathBuf) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn compile_writes_file_tbc_beside_the_source() {
    let dir = workspace(&[("hello.tiss", GOOD)]);
    let o = tissc(dir.path(), &["compile", "hello.tiss"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    assert_eq!(stderr(&o), "");
    // Only the .tbc was added: no temporary file is left behind.
    assert_eq!(listing(dir.path()), ["hello.tbc", "hello.tiss"]);
    let bytes = read(dir.path().join("hello.tbc"));
    assert!(bytes.starts_with(&tisslang::container::MAGIC));
    let module = tisslang::container::load(&bytes).expect("the VM loads what tissc writes");
    // By default only the source's hash is kept.
    assert_eq!(module.source, Source::Hash(SourceHash::of(GOOD)));
    // What the library gives with the text dropped (what `tests/tbc_size.rs` measures).
    let Ok((mut library, _)) = tiss_compiler::compile("hello.tiss", GOOD.as_bytes(), Default::default())
    else {
        panic!("GOOD compiles");
    };
    library.source.drop_text();
    assert_eq!(bytes, tisslang::container::encode(&library));
}

#[test]
fn embed_source_keeps_the_text_under_its_file_name() {
    let dir = workspace(&[("hello.tiss", GOOD), ("nested/deeper/hello.tiss", GOOD)]);
    let o = tissc(dir.path(), &["compile", "hello.tiss", "--embed-source", "-o", "embedded.tbc"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(tissc(dir.path(), &["compile", "hello.tiss"]).status.code(), Some(0));
    let embedded = read(dir.path().join("embedded.tbc"));
    let hashed = read(dir.path().join("hello.tbc"));
    let module = tisslang::container::load(&embedded).unwrap();
    assert_eq!(module.source, Source::Embedded { name: "hello.tiss".into(), text: GOOD.into() });
    // The text in place of the hash.
    assert!(hashed.len() - HASH_LEN + GOOD.len() <= embedded.len(), "{} vs {}", hashed.len(), embedded.len());
    // The same code either way.
    let hashed = tisslang::container::load(&hashed).unwrap();
    assert_eq!(tisslang::container::content_hash(&module), tisslang::container::content_hash(&hashed));
    // The name is the file name alone: the directory does not change the bytes.
    let o = tissc(dir.path(), &["compile", "nested/deeper/hello.tiss", "--embed-source", "-o", "nested.tbc"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(read(dir.path().join("nested.tbc")), embedded);
    // Listed with its text wherever it is.
    std::fs::create_dir(dir.path().join("elsewhere")).unwrap();
    std::fs::rename(dir.path().join("embedded.tbc"), dir.path().join("elsewhere/x.tbc")).unwrap();
    let o = tissc(dir.path(), &["disasm", "elsewhere/x.tbc"]);
    let out = stdout(&o);
    assert!(out.contains("\nsource    \"hello.tiss\" (embedded, 14 lines, "), "{out}");
    assert!(out.contains("      11 |     RUN \"python3 main.py\" TIMEOUT 30s\n"), "{out}");

    let o = tissc(dir.path(), &["compile", "hello.tiss", "--embed-source", "--strip"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
}

#[test]
fn output_option_chooses_the_file() {
    let dir = workspace(&[("plans/hello.tiss", GOOD)]);
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let o = tissc(dir.path(), &["compile", "plans/hello.tiss", "-o", "out/x.tbc"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(listing(&dir.path().join("out")), ["x.tbc"]);
    assert_eq!(listing(&dir.path().join("plans")), ["hello.tiss"]);

    let o = tissc(dir.path(), &["compile", "--output", "y.tbc", "plans/hello.tiss"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(read(dir.path().join("y.tbc")), read(dir.path().join("out/x.tbc")));

    // An existing file is replaced.
    std::fs::write(dir.path().join("z.tbc"), "old").unwrap();
    let o = tissc(dir.path(), &["compile", "plans/hello.tiss", "-o", "z.tbc"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(read(dir.path().join("z.tbc")), read(dir.path().join("y.tbc")));
}

#[test]
fn compile_errors_write_nothing() {
    let dir = workspace(&[("bad.tiss", BAD)]);
    let o = tissc(dir.path(), &["compile", "bad.tiss"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    assert!(err.starts_with("error[E0101]: "), "{err}");
    assert!(err.contains("  --> bad.tiss:3:1\n"), "{err}");
    assert!(err.ends_with("error: could not compile `bad.tiss` due to 1 previous error\n"), "{err}");
    assert_eq!(listing(dir.path()), ["bad.tiss"]);

    // An existing output is left as it was.
    std::fs::write(dir.path().join("bad.tbc"), "previous").unwrap();
    let o = tissc(dir.path(), &["compile", "bad.tiss"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(read(dir.path().join("bad.tbc")), b"previous");
    let o = tissc(dir.path(), &["compile", "bad.tiss", "-o", "other.tbc"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(listing(dir.path()), ["bad.tbc", "bad.tiss"]);

    // JSON diagnostics work for compile too.
    let o = tissc(dir.path(), &["compile", "--error-format", "json", "bad.tiss"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(stderr(&o).lines().next().unwrap()).unwrap();
    assert_eq!(v["code"], "E0101");
}

#[test]
fn strip_keeps_nothing_of_the_source() {
    let dir = workspace(&[("hello.tiss", GOOD)]);
    let o = tissc(dir.path(), &["compile", "hello.tiss", "-o", "hashed.tbc"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = tissc(dir.path(), &["compile", "hello.tiss", "--strip", "-o", "stripped.tbc"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let hashed = read(dir.path().join("hashed.tbc"));
    let stripped = read(dir.path().join("stripped.tbc"));
    assert!(stripped.len() + HASH_LEN <= hashed.len(), "{} vs {}", stripped.len(), hashed.len());
    let module = tisslang::container::load(&stripped).expect("loads");
    assert_eq!(module.source, Source::Stripped);
    // Stripping does not change the code's identity.
    let hashed = tisslang::container::load(&hashed).unwrap();
    assert_eq!(tisslang::container::content_hash(&module), tisslang::container::content_hash(&hashed));

    // Even with the plan's source beside it, a stripped file shows no source.
    std::fs::rename(dir.path().join("stripped.tbc"), dir.path().join("hello.tbc")).unwrap();
    let o = tissc(dir.path(), &["disasm", "hello.tbc"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("\nsource    stripped\n"), "{out}");
    assert!(out.contains("\n      11 |\n"), "line numbers stay: {out}");
    assert!(!out.contains("RUN \"python3 main.py\" TIMEOUT 30s\n"), "{out}");
}

#[test]
fn compiling_twice_gives_identical_bytes() {
    let dir = workspace(&[("hello.tiss", GOOD)]);
    assert_eq!(tissc(dir.path(), &["compile", "hello.tiss"]).status.code(), Some(0));
    let first = read(dir.path().join("hello.tbc"));
    assert_eq!(tissc(dir.path(), &["compile", "hello.tiss"]).status.code(), Some(0));
    assert_eq!(read(dir.path().join("hello.tbc")), first);
}

#[test]
fn the_directory_does_not_change_the_bytes() {
    let a = workspace(&[("hello.tiss", GOOD)]);
    let b = workspace(&[("nested/deeper/hello.tiss", GOOD)]);
    // By a relative path from the plan's directory, by a relative path from
    // elsewhere, and by an absolute path.
    assert_eq!(tissc(a.path(), &["compile", "hello.tiss"]).status.code(), Some(0));
    assert_eq!(tissc(b.path(), &["compile", "nested/deeper/hello.tiss"]).status.code(), Some(0));
    let abs = a.path().join("hello.tiss");
    let out = b.path().join("abs.tbc");
    let o = tissc(b.path(), &["compile", abs.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let first = read(a.path().join("hello.tbc"));
    assert_eq!(read(b.path().join("nested/deeper/hello.tbc")), first);
    assert_eq!(read(out), first);
}

#[test]
fn the_input_is_never_overwritten() {
    let dir = workspace(&[("plan.tbc", GOOD)]);
    let o = tissc(dir.path(), &["compile", "plan.tbc"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("`plan.tbc` is the input file"), "{}", stderr(&o));
    assert_eq!(read(dir.path().join("plan.tbc")), GOOD.as_bytes());
    let o = tissc(dir.path(), &["compile", "plan.tbc", "-o", "./plan.tbc"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(read(dir.path().join("plan.tbc")), GOOD.as_bytes());
}

#[test]
fn unreadable_input_and_unwritable_output_are_usage_errors() {
    let dir = workspace(&[("hello.tiss", GOOD)]);
    let o = tissc(dir.path(), &["compile", "missing.tiss"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o), "tissc: cannot read `missing.tiss`: No such file or directory\n");

    let o = tissc(dir.path(), &["compile", "hello.tiss", "-o", "no/such/dir/x.tbc"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("tissc: cannot write `no/such/dir/x.tbc`: "), "{}", stderr(&o));

    // A directory in the way of the output.
    std::fs::create_dir(dir.path().join("taken.tbc")).unwrap();
    let o = tissc(dir.path(), &["compile", "hello.tiss", "-o", "taken.tbc"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("tissc: cannot write `taken.tbc`: "), "{}", stderr(&o));
    assert_eq!(listing(dir.path()), ["hello.tiss", "taken.tbc"]);
}

#[test]
fn disasm_lists_constants_code_with_source_and_tables() {
    let dir = workspace(&[("hello.tiss", GOOD)]);
    assert_eq!(tissc(dir.path(), &["compile", "hello.tiss"]).status.code(), Some(0));
    let o = tissc(dir.path(), &["disasm", "hello.tbc"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    let out = stdout(&o);
    let module = tisslang::container::load(&read(dir.path().join("hello.tbc"))).unwrap();
    let hash = tisslang::container::content_hash(&module);
    // The text is that of hello.tiss beside hello.tbc, which has the hash kept.
    let found = SourceText { name: "hello.tiss".into(), text: GOOD.into(), beside: true };
    assert_eq!(out, tisslang::disasm::disassemble_with_source(&module, &hash, &Ok(found)));
    for part in [
        "; TissLang bytecode listing\n",
        "task      \"Say hello\"\n",
        &format!("hash      {hash}\n"),
        &format!(
            "source    \"hello.tiss\" (beside the bytecode, same hash, 14 lines, {} bytes)\n",
            GOOD.len()
        ),
        "\nconstants (",
        "      11 |     RUN \"python3 main.py\" TIMEOUT 30s\n",
        "RUN            flags=TIMEOUT\n",
        "\nsteps (2):\n",
        "\nmanifest:\n",
    ] {
        assert!(out.contains(part), "missing {part:?} in\n{out}");
    }

    // Edited since: its lines would not be the code's, so none are shown.
    std::fs::write(dir.path().join("hello.tiss"), GOOD.replace("Say hello", "Say hi")).unwrap();
    let out = stdout(&tissc(dir.path(), &["disasm", "hello.tbc"]));
    let hash = SourceHash::of(GOOD);
    assert!(
        out.contains(&format!(
            "\nsource    hash {hash}, text not shown: `hello.tiss` is not the text this bytecode was compiled \
             from (it changed since), so its lines would not match the code; recompile with `tissc compile \
             hello.tiss`\n"
        )),
        "{out}"
    );
    assert!(out.contains("\n      11 |\n"), "line numbers stay: {out}");
    // Gone.
    std::fs::remove_file(dir.path().join("hello.tiss")).unwrap();
    let out = stdout(&tissc(dir.path(), &["disasm", "hello.tbc"]));
    assert!(
        out.contains(
            "text not shown: the bytecode keeps only its source's hash, and `hello.tiss` is not there"
        ),
        "{out}"
    );
}

#[test]
fn disasm_refuses_bad_files_with_status_2() {
    let dir = workspace(&[("hello.tiss", GOOD), ("notes.txt", "just some text\n"), ("empty.tbc", "")]);
    assert_eq!(tissc(dir.path(), &["compile", "hello.tiss"]).status.code(), Some(0));
    let good = read(dir.path().join("hello.tbc"));

    let mut corrupt = good.clone();
    let last = corrupt.len() - 1;
    corrupt[last] ^= 0x55;
    std::fs::write(dir.path().join("corrupt.tbc"), &corrupt).unwrap();
    std::fs::write(dir.path().join("truncated.tbc"), &good[..good.len() / 2]).unwrap();
    std::fs::write(dir.path().join("header.tbc"), &good[..10]).unwrap();
    let mut version = good.clone();
    version[8] = 0xEE;
    std::fs::write(dir.path().join("version.tbc"), &version).unwrap();

    for (file, expect) in [
        ("corrupt.tbc", "checksum"),
        ("truncated.tbc", "truncated"),
        ("header.tbc", "truncated"),
        ("version.tbc", "format"),
        ("notes.txt", "not a TissLang bytecode file"),
        ("hello.tiss", "compile it first"),
        ("empty.tbc", "empty"),
    ] {
        let o = tissc(dir.path(), &["disasm", file]);
        assert_eq!(o.status.code(), Some(2), "{file}");
        assert_eq!(stdout(&o), "", "{file}");
        let err = stderr(&o);
        assert!(err.starts_with(&format!("tissc: {file}: ")), "{file}: {err}");
        assert!(err.contains(expect), "{file}: {err}");
        assert_eq!(err.lines().count(), 1, "{file}: {err}");
    }

    let o = tissc(dir.path(), &["disasm", "missing.tbc"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o), "tissc: cannot read `missing.tbc`: No such file or directory\n");
}

#[test]
fn compile_and_disasm_have_help() {
    let dir = tempfile::tempdir().unwrap();
    for (args, expect) in [
        (&["compile", "--help"][..], "--strip"),
        (&["compile", "--help"][..], "--embed-source"),
        (&["compile", "--help"][..], "-o, --output <OUT>"),
        (&["disasm", "--help"][..], "Usage: tissc disasm"),
        (&["help", "compile"][..], "Usage: tissc compile"),
        (&["--help"][..], "disasm"),
    ] {
        let o = tissc(dir.path(), args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(stdout(&o).contains(expect), "{args:?}: {}", stdout(&o));
    }
    for args in [&["compile"][..], &["disasm"][..], &["compile", "a.tiss", "--strip=yes"][..]] {
        let o = tissc(dir.path(), args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
}

/// The functions a compile runs are linked first, before the rest of the
/// code (compiler/build.rs, `compiler/link/tissc-hot.txt`, book:
/// performance.md): the language server, which a compile never runs, after.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_functions_a_compile_runs_are_linked_first() {
    let (binary, dir, linked) =
        (env!("CARGO_BIN_EXE_tissc"), env!("CARGO_MANIFEST_DIR"), option_env!("TISS_HOT_TEXT_LINKED"));
    tiss_test_support::hot_text::check(
        binary,
        dir,
        linked,
        &["_ZN13tiss_compiler", "_ZN8tisslang"],
        "13tiss_compiler3lsp",
    );
}

/// The rows of a `--timings` table: (phase, wall ms, page faults, the last column).
fn timing_rows(stderr: &str) -> Vec<(String, f64, u64, String)> {
    let table = stderr.split_once("tissc: timings of ").map_or("", |(_, table)| table);
    table
        .lines()
        .skip(2)
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            assert!(words.len() >= 4, "a row of four columns: {line:?}");
            let millis = words[1].parse().unwrap_or_else(|_| panic!("wall ms in {line:?}"));
            let faults = words[2].replace(',', "").parse().unwrap_or_else(|_| panic!("faults in {line:?}"));
            (words[0].to_string(), millis, faults, words[3..].join(" "))
        })
        .collect()
}

#[test]
fn timings_name_each_phase_and_change_nothing_else() {
    let dir = workspace(&[("hello.tiss", GOOD), ("bad.tiss", BAD)]);
    let o = tissc(dir.path(), &["compile", "hello.tiss", "--timings", "-o", "timed.tbc"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    assert!(err.starts_with("tissc: timings of `hello.tiss`\n  phase "), "{err}");
    let rows = timing_rows(&err);
    let phases: Vec<&str> = rows.iter().map(|row| row.0.as_str()).collect();
    assert_eq!(phases, ["read", "parse", "check", "lower", "write", "total"], "{err}");
    // The total is the sum of the phases (each rounded to 0.01 ms).
    let (body, total) = rows.split_at(rows.len() - 1);
    let millis: f64 = body.iter().map(|row| row.1).sum();
    assert!((total[0].1 - millis).abs() <= 0.01 * body.len() as f64, "{err}");
    assert_eq!(total[0].2, body.iter().map(|row| row.2).sum::<u64>(), "{err}");
    assert!(total[0].3.starts_with("peak "), "{err}");
    if cfg!(target_os = "linux") {
        // Memory is read back on Linux: resident after each phase, at most the peak.
        let peak: f64 = total[0].3["peak ".len()..].parse().expect("a peak in MiB");
        for row in body {
            let resident: f64 = row.3.parse().unwrap_or_else(|_| panic!("resident MiB in {err}"));
            assert!(0.0 < resident && resident <= peak + 0.05, "{err}");
        }
        // Reading the plan faults in at least the page it is read into.
        assert!(rows[0].2 > 0, "{err}");
    }
    // The same bytes as without it.
    assert_eq!(tissc(dir.path(), &["compile", "hello.tiss"]).status.code(), Some(0));
    assert_eq!(read(dir.path().join("timed.tbc")), read(dir.path().join("hello.tbc")));
    // `--verify` adds its phase, and changes no byte either.
    let o = tissc(dir.path(), &["compile", "hello.tiss", "--verify", "--timings", "-o", "verified.tbc"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let phases: Vec<String> = timing_rows(&stderr(&o)).into_iter().map(|row| row.0).collect();
    assert_eq!(phases, ["read", "parse", "check", "lower", "verify", "write", "total"], "{}", stderr(&o));
    assert_eq!(read(dir.path().join("verified.tbc")), read(dir.path().join("hello.tbc")));
    // A plan with errors: its diagnostics, then the phases that ran.
    let o = tissc(dir.path(), &["compile", "bad.tiss", "--timings"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    let (diagnostics, _) = err.split_once("tissc: timings of `bad.tiss`").expect("a table after the errors");
    assert!(diagnostics.contains("error["), "{err}");
    let phases: Vec<String> = timing_rows(&err).into_iter().map(|row| row.0).collect();
    assert_eq!(phases, ["read", "parse", "check", "total"], "{err}");
    // Without the flag, nothing of it.
    assert!(!stderr(&tissc(dir.path(), &["compile", "bad.tiss"])).contains("timings"));
}
