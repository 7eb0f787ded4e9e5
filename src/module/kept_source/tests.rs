use super::*;
use crate::module::Module;
use crate::verify::tests::builder::sample;

const TEXT: &str = "TASK \"test\"\n";

fn hashed() -> Module {
    let mut m = sample();
    m.source.drop_text();
    m
}

/// A directory holding `plan.tbc` (never read here) and, if given, `plan.tiss`.
fn plan_dir(tiss: Option<&[u8]>) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    if let Some(bytes) = tiss {
        std::fs::write(dir.path().join("plan.tiss"), bytes).unwrap();
    }
    let tbc = dir.path().join("plan.tbc");
    (dir, tbc)
}

#[test]
fn the_hash_is_a_sha256_prefix_shown_in_hex() {
    let h = SourceHash::of(TEXT);
    assert_eq!(h.0[..], sha256(TEXT.as_bytes())[..HASH_LEN]);
    assert_eq!(h.to_string().len(), 2 * HASH_LEN);
    assert_eq!(h.to_string(), h.0.iter().map(|b| format!("{b:02x}")).collect::<String>());
    assert_ne!(SourceHash::of("TASK \"test\" \n"), h);
}

#[test]
fn dropping_the_text_keeps_its_hash() {
    let mut source = Source::Embedded { name: "plan.tiss".into(), text: TEXT.into() };
    assert_eq!(source.text(), Some(TEXT));
    source.drop_text();
    assert_eq!(source, Source::Hash(SourceHash::of(TEXT)));
    assert_eq!(source.text(), None);
    let mut stripped = Source::Stripped;
    stripped.drop_text();
    assert_eq!(stripped, Source::Stripped);
}

#[test]
fn embedded_text_needs_no_file() {
    let found = find(&sample().source, None).unwrap();
    assert_eq!(found, SourceText { name: "sample.tiss".into(), text: TEXT.into(), beside: false });
}

#[test]
fn the_matching_file_beside_is_found() {
    let (_dir, tbc) = plan_dir(Some(TEXT.as_bytes()));
    let found = find(&hashed().source, Some(&tbc)).unwrap();
    assert_eq!(found.text, TEXT);
    assert!(found.beside);
    assert_eq!(found.name, beside(&tbc).display().to_string());
    // A byte-order mark is not part of the text the compiler saw.
    let (_dir, tbc) = plan_dir(Some(format!("\u{feff}{TEXT}").as_bytes()));
    assert_eq!(find(&hashed().source, Some(&tbc)).unwrap().text, TEXT);
}

#[test]
fn each_reason_for_no_text_is_told() {
    let mut stripped = sample();
    stripped.source = Source::Stripped;
    let (_dir, tbc) = plan_dir(Some(TEXT.as_bytes()));
    let e = find(&stripped.source, Some(&tbc)).unwrap_err();
    assert_eq!(e, Unavailable::Stripped);
    assert!(e.to_string().contains("--strip"), "{e}");

    let e = find(&hashed().source, None).unwrap_err();
    assert_eq!(e, Unavailable::NoPlanFile);

    let (_dir, tbc) = plan_dir(None);
    let e = find(&hashed().source, Some(&tbc)).unwrap_err();
    assert_eq!(e, Unavailable::Missing { path: beside(&tbc) });
    let text = e.to_string();
    assert!(text.contains(&beside(&tbc).display().to_string()) && text.contains("--embed-source"), "{text}");

    for changed in [&b"TASK \"test\"\n# edited\n"[..], b"TASK \"t\xffst\"\n"] {
        let (_dir, tbc) = plan_dir(Some(changed));
        let e = find(&hashed().source, Some(&tbc)).unwrap_err();
        assert_eq!(e, Unavailable::Changed { path: beside(&tbc) });
        assert!(e.to_string().contains("recompile with `tissc compile"), "{e}");
    }

    let (dir, tbc) = plan_dir(None);
    std::fs::create_dir(dir.path().join("plan.tiss")).unwrap();
    let e = find(&hashed().source, Some(&tbc)).unwrap_err();
    assert!(matches!(&e, Unavailable::Unreadable { path, .. } if *path == beside(&tbc)), "{e:?}");
    assert!(e.to_string().starts_with("cannot read `"), "{e}");
}
