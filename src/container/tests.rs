use super::*;
use crate::codec::seal::sha256;
use crate::cost::Dim;
use crate::isa::{Instr, NO_SLOT, run_flags};
use crate::module::kept_source::{HASH_LEN, Source, SourceHash};
use crate::module::{Constant, NONE};
use crate::types::Field;
use crate::verify::tests::builder::{sample, tiny};
use proptest::prelude::*;

/// What the fingerprint test pins: the format version, the hash of the
/// instruction set's description and the hash of the sample module's payload.
/// Changing the instruction set or the module layout changes a hash: bump
/// `FORMAT_VERSION` and update this (the failing test prints the new line).
const PINNED: (u16, &str, &str) = (
    6,
    "b924c664818932d83c3f413b6c5cdfeb0aaab1c0d5dc980cbc43c4ffc9e47701",
    "a76ac3c1396436525385b806d5fcd3b5f5ef318b31d890003228158e894f69f7",
);

/// Everything about the instruction set and the container a `.tbc` depends on,
/// as text: opcodes, mnemonics, operand names and shapes, stack effects and
/// cost classes (of each opcode with all operands 0, then 1, then 3), field and
/// dimension numbers, flag bits, the "none" sentinels, the header layout, the
/// encoding of each form of the source.
fn isa_description() -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for &(opcode, mnemonic, operands) in Instr::TABLE {
        let _ = write!(out, "{opcode:#04x} {mnemonic}");
        for (name, shape) in operands {
            let _ = write!(out, " {name}:{shape}");
        }
        for fill in [0u8, 1, 3] {
            let mut bytes = vec![opcode];
            bytes.extend(std::iter::repeat_n(fill, operands.len()));
            let mut pos = 0;
            match Instr::decode(&bytes, &mut pos) {
                Ok(instr) => {
                    let (pops, pushes) = instr.stack_effect();
                    let _ = write!(out, " | {fill}: -{pops} +{pushes} {:?}", instr.cost_class());
                }
                Err(e) => {
                    let _ = write!(out, " | {fill}: {e}");
                }
            }
        }
        out.push('\n');
    }
    for f in Field::ALL {
        let _ = writeln!(out, "field {} {}", f as u8, f.name());
    }
    for (i, d) in Dim::ALL.into_iter().enumerate() {
        let _ = writeln!(out, "dim {i} {}", d.name());
    }
    let _ = writeln!(out, "run_flags DIR={} TIMEOUT={}", run_flags::DIR, run_flags::TIMEOUT);
    let _ = writeln!(out, "NO_SLOT={NO_SLOT} NONE={NONE}");
    let _ = writeln!(out, "magic={} header={HEADER_LEN} FLAG_SOURCE={FLAG_SOURCE}", hex(&MAGIC));
    // The sample module embeds its text; the other forms of the source too.
    let embedded = Source::Embedded { name: "n".into(), text: "t".into() };
    for source in [Source::Stripped, Source::Hash(SourceHash([7; HASH_LEN])), embedded] {
        let bytes = bincode::serde::encode_to_vec(&source, config()).expect("a Source encodes");
        let _ = writeln!(out, "source {}", hex(&bytes));
    }
    out
}

#[test]
fn fingerprint_is_pinned_with_the_format_version() {
    let isa = hex(&sha256(isa_description().as_bytes()));
    let bytes = encode(&sample());
    let module = hex(&sha256(&bytes[HEADER_LEN..]));
    let now = (FORMAT_VERSION, isa.as_str(), module.as_str());
    if now != PINNED {
        let version = if FORMAT_VERSION == PINNED.0 { FORMAT_VERSION + 1 } else { FORMAT_VERSION };
        let what = match (isa != PINNED.1, module != PINNED.2) {
            (true, true) => "the instruction set and the module layout changed",
            (true, false) => "the instruction set (src/isa.rs) changed",
            (false, true) => {
                "the module layout (src/module/) or the sample module (src/verify/tests/builder.rs) changed"
            }
            (false, false) => "FORMAT_VERSION changed but the pinned fingerprint did not",
        };
        panic!(
            "\n{what}.\nOld .tbc files would be misread: bump FORMAT_VERSION in src/container/mod.rs to {version} \
             (if not done yet) and update PINNED in src/container/tests.rs to:\n\n\
             const PINNED: (u16, &str, &str) = (\n    {version},\n    \"{isa}\",\n    \"{module}\",\n);\n\n\
             pinned: format v{}, isa {}, module {}\nnow:    format v{FORMAT_VERSION}, isa {isa}, module {module}\n\
             instruction set description:\n{}",
            PINNED.0,
            PINNED.1,
            PINNED.2,
            isa_description()
        );
    }
}

#[test]
fn round_trip() {
    let mut hashed = sample();
    hashed.source.drop_text();
    for m in [tiny(), sample(), hashed] {
        let bytes = encode(&m);
        let back = decode(&bytes).unwrap();
        assert_eq!(back, m);
        assert_eq!(load(&bytes).unwrap(), m);
        // Deterministic: the same module always gives the same bytes.
        assert_eq!(encode(&back), bytes);
        assert_eq!(encode(&m.clone()), bytes);
        // Written as it is encoded: the same bytes.
        let mut written = std::io::Cursor::new(Vec::new());
        encode_to(&m, &mut written).unwrap();
        assert_eq!(written.into_inner(), bytes);
    }
}

#[test]
fn header_layout() {
    let m = sample();
    let bytes = encode(&m);
    assert_eq!(&bytes[..8], b"\x1bTBC\r\n\x1a\n");
    assert_eq!(u16_at(&bytes, 8), FORMAT_VERSION);
    assert_eq!([u16_at(&bytes, 10), u16_at(&bytes, 12), u16_at(&bytes, 14)], [1, 0, 0]);
    assert_eq!(u16_at(&bytes, 16), FLAG_SOURCE);
    assert_eq!(seal::u32_at(&bytes, 18) as usize, bytes.len() - HEADER_LEN);
    assert_eq!(seal::u32_at(&bytes, 22), crc32fast::hash(&bytes[26..]));
    for source in [Source::Stripped, Source::Hash(SourceHash::of("TASK \"test\"\n"))] {
        let without_text = Module { source, ..m.clone() };
        assert_eq!(u16_at(&encode(&without_text), 16), 0);
    }
}

#[test]
fn content_hash_ignores_the_source_only() {
    let m = sample();
    let h = content_hash(&m);
    assert_eq!(h.len(), 64);
    assert!(h.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    let stripped = Module { source: Source::Stripped, ..m.clone() };
    assert_eq!(content_hash(&stripped), h);
    assert_eq!(h, hex(&sha256(&encode(&stripped)[HEADER_LEN..])));
    let mut hashed = m.clone();
    hashed.source.drop_text();
    assert!(matches!(hashed.source, Source::Hash(_)));
    assert_eq!(content_hash(&hashed), h);
    let mut other = m.clone();
    other.code[1] = Instr::PushConst { index: 0 };
    assert_ne!(content_hash(&other), h);
    assert_ne!(content_hash(&tiny()), h);
}

/// A header with the right magic, version, length and checksum around `payload`.
fn wrap(payload: &[u8], flags: u16) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    for v in [1u16, 0, 0] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&seal::trailer(payload));
    out.extend_from_slice(payload);
    out
}

#[test]
fn every_truncation_is_refused() {
    for m in [tiny(), sample()] {
        let bytes = encode(&m);
        for len in 0..bytes.len() {
            let e = decode(&bytes[..len]).expect_err("truncated file decoded");
            if len >= HEADER_LEN {
                assert!(matches!(e, LoadError::Truncated { .. }), "at {len}: {e}");
            } else if len >= 8 {
                assert!(matches!(e, LoadError::TruncatedHeader { .. }), "at {len}: {e}");
            }
        }
    }
}

#[test]
fn every_byte_and_bit_flip_is_refused() {
    for m in [tiny(), sample()] {
        let bytes = encode(&m);
        for i in 0..bytes.len() {
            let mut flips = vec![0xFFu8];
            flips.extend((0..8).map(|bit| 1u8 << bit));
            for flip in flips {
                let mut bad = bytes.clone();
                bad[i] ^= flip;
                let e = load(&bad).expect_err("a corrupted file loaded");
                if i >= HEADER_LEN || (22..HEADER_LEN).contains(&i) {
                    assert_eq!(e, LoadError::ChecksumMismatch, "byte {i} ^ {flip:#x}");
                }
            }
        }
    }
}

#[test]
fn trailing_bytes_and_lengths() {
    let mut bytes = encode(&tiny());
    bytes.push(0);
    assert_eq!(decode(&bytes), Err(LoadError::TrailingBytes { count: 1 }));

    let mut bytes = encode(&tiny());
    bytes[18..22].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(decode(&bytes), Err(LoadError::TooLarge { .. })));

    // A payload with bytes its module does not use, checksum and all.
    let mut payload = encode(&tiny())[HEADER_LEN..].to_vec();
    payload.push(0);
    let e = decode(&wrap(&payload, 0)).unwrap_err();
    assert_eq!(e.to_string(), "malformed TissLang bytecode file: 1 unused bytes at the end of the payload");
}

#[test]
fn versions_and_flags() {
    let mut bytes = encode(&tiny());
    bytes[8..10].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    let e = decode(&bytes).unwrap_err();
    assert_eq!(e, LoadError::FormatVersion { found: FORMAT_VERSION + 1, expected: FORMAT_VERSION });
    assert_eq!(
        e.to_string(),
        format!(
            "compiled by a different tissc: format v{}, this VM reads v{FORMAT_VERSION}; recompile",
            FORMAT_VERSION + 1
        )
    );
    // Even a file too short for the rest of this version's header.
    assert!(matches!(decode(&bytes[..10]), Err(LoadError::FormatVersion { .. })));

    let mut bytes = encode(&tiny());
    bytes[10..12].copy_from_slice(&2u16.to_le_bytes());
    let e = decode(&bytes).unwrap_err();
    assert_eq!(e.to_string(), "compiled for TissLang 2.0.0, but this VM implements TissLang 1.1.0");

    let mut bytes = encode(&tiny());
    bytes[16] = 0x80;
    assert_eq!(decode(&bytes), Err(LoadError::UnknownFlags { flags: 0x80 }));

    // Header and payload disagree (with a correct checksum).
    let payload = &encode(&tiny())[HEADER_LEN..];
    assert_eq!(
        decode(&wrap(payload, FLAG_SOURCE)),
        Err(LoadError::HeaderMismatch { what: "source-embedded flag" })
    );
    let mut m = tiny();
    m.language = [1, 0, 3];
    let payload = &encode(&m)[HEADER_LEN..];
    assert_eq!(decode(&wrap(payload, 0)), Err(LoadError::HeaderMismatch { what: "language version" }));
}

#[test]
fn text_and_other_files_are_not_bytecode() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "tiss") {
            let e = load(&std::fs::read(&path).unwrap()).unwrap_err();
            assert_eq!(e, LoadError::NotBytecode { looks_like: Looks::TissSource }, "{}", path.display());
            let text = e.to_string();
            assert!(
                text.starts_with("not a TissLang bytecode file") && text.contains("tissc compile"),
                "{text}"
            );
            seen += 1;
        }
    }
    assert!(seen > 0);
    let e = load(b"hello, world\n").unwrap_err();
    assert_eq!(e, LoadError::NotBytecode { looks_like: Looks::Text });
    assert!(e.to_string().contains("tissc compile"));
    assert_eq!(load(b""), Err(LoadError::NotBytecode { looks_like: Looks::Empty }));
    assert_eq!(load(b"\x7fELF\x02\x01\x01\0\0\0"), Err(LoadError::NotBytecode { looks_like: Looks::Binary }));
    assert_eq!(load(b"\x1bTB"), Err(LoadError::TruncatedHeader { len: 3 }));
}

#[test]
fn text_mode_transfers_are_recognized() {
    let bytes = encode(&tiny());
    let crlf_to_lf: Vec<u8> = [&b"\x1bTBC\n\x1a\n"[..], &bytes[8..]].concat();
    assert_eq!(decode(&crlf_to_lf), Err(LoadError::LineEndingsConverted));
    let lf_to_crlf: Vec<u8> = [&b"\x1bTBC\r\r\n\x1a\r\n"[..], &bytes[8..]].concat();
    assert_eq!(decode(&lf_to_crlf), Err(LoadError::LineEndingsConverted));
    assert!(LoadError::LineEndingsConverted.to_string().contains("text mode"));
}

#[test]
fn decodes_but_does_not_verify() {
    let mut m = tiny();
    m.code[0] = Instr::Jump { target: 40 };
    let bytes = encode(&m);
    assert_eq!(decode(&bytes).unwrap(), m);
    let e = load(&bytes).unwrap_err();
    assert!(matches!(e, LoadError::Verify(VerifyError::TargetOutOfRange { target: 40, .. })));
    assert_eq!(
        e.to_string(),
        "invalid TissLang bytecode: pc 0 (JUMP): jump target 40 is outside the code (3 instructions)"
    );
    assert!(std::error::Error::source(&e).is_some());
}

#[test]
fn huge_declared_lengths_do_not_allocate() {
    // language [1, 0, 0], task 0, no metadata, then the strings table.
    let prefix = [1u8, 0, 0, 0, 0];
    let varint = |v: u64| [&[0xFDu8][..], &v.to_le_bytes()].concat();
    // 2^60 string entries; no entries and 2^40 bytes of text (over the
    // limit); no entries and 32 MiB of text with nothing after it.
    for tail in
        [varint(1 << 60), [&[0u8][..], &varint(1 << 40)].concat(), [&[0u8][..], &varint(32 << 20)].concat()]
    {
        let payload = [&prefix[..], &tail].concat();
        let e = decode(&wrap(&payload, 0)).unwrap_err();
        assert!(matches!(e, LoadError::Malformed { .. }), "{e}");
    }
    let payload = [&prefix[..], &varint(1 << 60)].concat();
    let e = decode(&wrap(&payload, 0)).unwrap_err().to_string();
    assert!(
        e.ends_with(
            "it claims 1,152,921,504,606,846,976 string table entries, more than its 14-byte payload can hold"
        ),
        "{e}"
    );
    // A code section claiming more bytes than there are.
    let mut m = tiny();
    m.strings.clear();
    let bytes = encode(&m);
    assert!(decode(&bytes).is_ok());
    let payload = &bytes[HEADER_LEN..];
    // After language (3 bytes), task, metadata, strings (no entries, no
    // text: 2 bytes) and constants (1 × Str(1): 3 bytes): the code
    // section's length.
    let at = 10;
    assert_eq!(payload[at], 4, "code length byte moved: {payload:?}");
    let mut bad = payload[..at].to_vec();
    bad.extend(varint(1 << 40));
    bad.extend(&payload[at + 1..]);
    assert!(matches!(decode(&wrap(&bad, 0)), Err(LoadError::Malformed { .. })));
}

/// Issue 16, defect 3: a table that would decode to more memory than its
/// payload may claim (`decode_budget.rs`) is refused before it is allocated, and
/// the refusal says what it claimed.
#[test]
fn tables_that_would_amplify_are_refused_before_they_are_allocated() {
    use crate::cost::bound::CostBound;
    // Two bytes each in the file (a length and a mask), 80 bytes each in memory.
    let mut m = tiny();
    m.estimates = vec![CostBound::ZERO; 300_000];
    let e = decode(&encode(&m)).unwrap_err().to_string();
    assert!(
        e.starts_with(
            "malformed TissLang bytecode file: it claims 300,000 cost estimates, 24,000,000 bytes in memory: \
             a 600,0"
        ),
        "{e}"
    );
    // One-byte instructions, twelve bytes each decoded.
    let mut m = tiny();
    m.code = vec![Instr::Pop {}; 300_000];
    let e = decode(&encode(&m)).unwrap_err().to_string();
    assert!(e.contains("it claims 300,000 instructions, 3,600,000 bytes in memory"), "{e}");
    // Within the budget, the same tables decode.
    m.code.truncate(1000);
    m.estimates = vec![CostBound::ZERO; 1000];
    assert_eq!(decode(&encode(&m)), Ok(m));
}

fn mutate(bytes: &mut Vec<u8>, edits: &[(usize, u8, u8)]) {
    for &(at, value, kind) in edits {
        if bytes.is_empty() {
            bytes.push(value);
            continue;
        }
        let at = at % bytes.len();
        match kind % 4 {
            0 | 1 => bytes[at] = value,
            2 => bytes.insert(at, value),
            _ => {
                bytes.remove(at);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        prop_assert!(load(&bytes).is_err());
        let mut with_magic = MAGIC.to_vec();
        with_magic.extend_from_slice(&bytes);
        let _ = load(&with_magic);
    }

    #[test]
    fn random_payloads_never_panic(payload in proptest::collection::vec(any::<u8>(), 0..2048), flags in 0u16..2) {
        if let Ok(m) = decode(&wrap(&payload, flags)) {
            let _ = crate::verify::verify(&m);
        }
    }

    #[test]
    fn mutated_modules_never_panic(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..8),
        which in 0usize..2,
    ) {
        let m = if which == 0 { tiny() } else { sample() };
        let mut payload = encode(&m)[HEADER_LEN..].to_vec();
        mutate(&mut payload, &edits);
        let flags = if m.source.text().is_some() { FLAG_SOURCE } else { 0 };
        if let Ok(m) = decode(&wrap(&payload, flags)) {
            // Whatever decodes must verify or be refused, never panic; and
            // what loads must round-trip.
            if crate::verify::verify(&m).is_ok() {
                prop_assert_eq!(decode(&encode(&m)).unwrap(), m);
            }
        }
    }
}

#[test]
fn constants_round_trip_all_variants() {
    let mut m = tiny();
    m.constants.extend([Constant::Int(i64::MIN), Constant::Duration(u64::MAX), Constant::Bool(false)]);
    assert_eq!(load(&encode(&m)).unwrap(), m);
}

#[test]
fn modules_over_the_payload_limit_are_not_written() {
    let mut m = tiny();
    m.strings.push(&"x".repeat(MAX_PAYLOAD));
    let mut written = std::io::Cursor::new(Vec::new());
    let e = encode_to(&m, &mut written).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge);
    let inner = e.get_ref().and_then(|e| e.downcast_ref::<LoadError>());
    assert!(matches!(inner, Some(LoadError::TooLarge { size, limit }) if size > limit), "{e}");
    // What is past the limit is counted, not written.
    assert!(written.into_inner().len() <= HEADER_LEN + MAX_PAYLOAD);
    assert!(encode_to(&tiny(), std::io::Cursor::new(Vec::new())).is_ok());
    // Into a stream, refused before anything is written.
    let mut streamed = Vec::new();
    let e = encode_to_stream(&m, &mut streamed).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge);
    assert!(streamed.is_empty());
}

/// A stream (a pipe) gets the bytes a file gets.
#[test]
fn a_stream_gets_the_bytes_of_the_file() {
    let mut streamed = Vec::new();
    encode_to_stream(&tiny(), &mut streamed).unwrap();
    assert_eq!(streamed, encode(&tiny()));
}

/// A payload that is damaged but re-sealed (its checksum made right again)
/// is refused in words, never with bincode's own names.
#[test]
fn a_resealed_payload_is_refused_in_words() {
    let bytes = encode(&sample());
    let payload = &bytes[HEADER_LEN..];
    let reseal = |payload: &[u8]| {
        let mut out = bytes[..HEADER_LEN - seal::TRAILER_LEN].to_vec();
        out.extend_from_slice(&seal::trailer(payload));
        out.extend_from_slice(payload);
        out
    };
    let mut seen = 0;
    let cuts = (1..payload.len()).step_by(7).map(|len| payload[..len].to_vec());
    let flips = (0..payload.len()).step_by(3).map(|i| {
        let mut damaged = payload.to_vec();
        damaged[i] ^= 0xFF;
        damaged
    });
    for damaged in cuts.chain(flips) {
        let Err(e) = decode(&reseal(&damaged)) else { continue };
        let text = e.to_string();
        for raw in [
            "LimitExceeded",
            "UnexpectedEnd",
            "UnexpectedVariant",
            "InvalidIntegerType",
            "OtherString",
            "Utf8 {",
        ] {
            assert!(!text.contains(raw), "{text}");
        }
        seen += 1;
    }
    assert!(seen > 100, "only {seen} damaged payloads were refused");
    let cut = decode(&reseal(&payload[..payload.len() / 2])).unwrap_err().to_string();
    assert!(cut.contains("too early"), "{cut}");
}
