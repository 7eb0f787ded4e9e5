use super::reader::{JournalReader, Next};
use super::writer::JournalWriter;
use super::*;

fn start(hash: &str) -> Entry {
    Entry::Start { tissvm: "test".into(), module_hash: hash.into(), bytecode: vec![1, 2, 3], resumed: false }
}

fn entries(path: &std::path::Path) -> (Vec<(u64, Entry)>, Option<u64>) {
    let mut reader = JournalReader::open(path).unwrap();
    let mut out = Vec::new();
    loop {
        match reader.next_entry().unwrap() {
            Next::Entry(at, e) => out.push((at, *e)),
            Next::Torn(at) => return (out, Some(at)),
            Next::End => return (out, None),
        }
    }
}

fn three(path: &std::path::Path) {
    let mut w = JournalWriter::create(path, 16, &start("h")).unwrap();
    w.record(&Entry::Clock { ms: 7 });
    w.record(&Entry::Read { path: "a".into(), result: Ok(Kept::of("é".repeat(20).as_str(), 16)) });
    assert!(w.error.is_none());
}

#[test]
fn entries_come_back_in_order_and_long_text_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j");
    three(&path);
    let (got, torn) = entries(&path);
    assert_eq!(torn, None);
    assert_eq!(got.len(), 3);
    assert_eq!(got[0], (HEADER_LEN as u64, start("h")));
    assert_eq!(got[1].1, Entry::Clock { ms: 7 });
    let Entry::Read { result: Ok(Kept::Cut { head, tail, bytes, .. }), .. } = &got[2].1 else {
        panic!("{got:?}")
    };
    assert_eq!((head.as_str(), tail.as_str(), *bytes), ("éééé", "éééé", 40));
    // A new journal never replaces a file.
    let e = JournalWriter::create(&path, 16, &start("h")).err().unwrap();
    assert!(e.message.contains("exists"), "{e}");
}

#[test]
fn a_torn_tail_is_dropped_and_corruption_before_the_end_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j");
    three(&path);
    let bytes = std::fs::read(&path).unwrap();
    let (all, _) = entries(&path);
    let last = all[2].0 as usize;
    // Cut in the middle of the last frame, and in its head.
    for cut in [bytes.len() - 3, last + 5] {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let (got, torn) = entries(&path);
        assert_eq!((got.len(), torn), (2, Some(last as u64)), "cut at {cut}");
    }
    // The last frame whole but its bytes wrong: torn too.
    let mut bad = bytes.clone();
    *bad.last_mut().unwrap() ^= 0xFF;
    std::fs::write(&path, &bad).unwrap();
    assert_eq!(entries(&path).1, Some(last as u64));
    // A bad frame with more after it: refused, with its offset.
    let mut bad = bytes.clone();
    let second = all[1].0 as usize;
    bad[second + FRAME_HEAD] ^= 0xFF;
    std::fs::write(&path, &bad).unwrap();
    let mut reader = JournalReader::open(&path).unwrap();
    reader.next_entry().unwrap();
    let e = reader.next_entry().unwrap_err();
    assert!(e.message.contains(&format!("corrupt at byte {second}")), "{e}");
    // Not a journal, another version.
    std::fs::write(&path, b"TISSSNAP\x01\x00").unwrap();
    assert!(JournalReader::open(&path).err().unwrap().message.contains("not a TissLang journal"));
    let mut other = bytes.clone();
    other[8] = 9;
    std::fs::write(&path, &other).unwrap();
    assert!(JournalReader::open(&path).err().unwrap().message.contains("format 9"));
}

#[test]
fn append_continues_the_same_run_after_cutting_a_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j");
    three(&path);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 2]).unwrap();
    let e = JournalWriter::append(&path, 16, "other", &start("other")).err().unwrap();
    assert!(e.message.contains("recorded another plan"), "{e}");
    let resumed = Entry::Start {
        tissvm: "test".into(),
        module_hash: "h".into(),
        bytecode: vec![1, 2, 3],
        resumed: true,
    };
    let mut w = JournalWriter::append(&path, 16, "h", &resumed).unwrap();
    w.record(&Entry::Clock { ms: 9 });
    let (got, torn) = entries(&path);
    assert_eq!(torn, None);
    let kinds: Vec<_> = got.iter().map(|(_, e)| e.kind()).collect();
    assert_eq!(kinds, ["start", "clock", "start", "clock"]);
}
