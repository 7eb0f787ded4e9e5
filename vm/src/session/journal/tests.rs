use super::reader::{JournalReader, Next};
use super::signature::{Check, MAC_LEN};
use super::writer::JournalWriter;
use super::*;
use crate::session::snapshot_key::SnapshotKey;

/// The key the tests' journals are signed with (a real one is random).
fn key() -> SnapshotKey {
    SnapshotKey::from_bytes([7; 32])
}

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
    let mut w = JournalWriter::create(path, 16, &start("h"), Some(key())).unwrap();
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
    let e = JournalWriter::create(&path, 16, &start("h"), Some(key())).err().unwrap();
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
    // A frame of format 3 too short to hold its signature, checksummed right.
    let mut short = bytes[..second].to_vec();
    short.extend_from_slice(&4u32.to_le_bytes());
    short.extend_from_slice(&tisslang::codec::crc32::crc32(&[1, 2, 3, 4]).to_le_bytes());
    short.extend_from_slice(&[1, 2, 3, 4]);
    short.extend_from_slice(&bytes[second..]);
    std::fs::write(&path, &short).unwrap();
    let mut reader = JournalReader::open(&path).unwrap();
    reader.next_entry().unwrap();
    let e = reader.next_entry().unwrap_err();
    assert!(
        e.message.contains(&format!("corrupt at byte {second}: its frame is shorter than a signature")),
        "{e}"
    );
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
    let e = JournalWriter::append(&path, 16, "other", &start("other"), Some(key())).err().unwrap();
    assert!(e.message.contains("recorded another plan"), "{e}");
    let resumed = Entry::Start {
        tissvm: "test".into(),
        module_hash: "h".into(),
        bytecode: vec![1, 2, 3],
        resumed: true,
    };
    let mut w = JournalWriter::append(&path, 16, "h", &resumed, Some(key())).unwrap();
    w.record(&Entry::Clock { ms: 9 });
    let (got, torn) = entries(&path);
    assert_eq!(torn, None);
    let kinds: Vec<_> = got.iter().map(|(_, e)| e.kind()).collect();
    assert_eq!(kinds, ["start", "clock", "start", "clock"]);
}

/// Reads `path` through, checking each frame as `check` says: the entries
/// read, and the first frame not signed (or the error that ended reading).
fn checked(path: &std::path::Path, check: Check) -> (usize, Result<Option<(u64, String)>, String>) {
    let mut reader = JournalReader::open(path).unwrap().check(check);
    let mut read = 0;
    loop {
        match reader.next_entry() {
            Ok(Next::Entry(..)) => read += 1,
            Ok(Next::Torn(_) | Next::End) => {
                return (read, Ok(reader.not_yours().map(|n| (n.at, n.why.clone()))));
            }
            Err(e) => return (read, Err(e.message)),
        }
    }
}

fn frame_offsets(path: &std::path::Path) -> Vec<u64> {
    entries(path).0.iter().map(|(at, _)| *at).collect()
}

#[test]
fn a_journal_signed_with_the_key_is_yours_and_any_other_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j");
    three(&path);
    assert_eq!(checked(&path, Check::Require(Ok(key()))), (3, Ok(None)));
    assert_eq!(checked(&path, Check::Note(Ok(key()))), (3, Ok(None)));
    // Another user's key: not theirs from the first frame; a restart stops there.
    let other = SnapshotKey::from_bytes([8; 32]);
    let (read, noted) = checked(&path, Check::Note(Ok(other.clone())));
    let (at, why) = noted.unwrap().unwrap();
    assert_eq!((read, at), (3, HEADER_LEN as u64));
    assert!(why.contains("signed with another key"), "{why}");
    let (read, refused) = checked(&path, Check::Require(Ok(other)));
    let message = refused.unwrap_err();
    assert_eq!(read, 0);
    assert!(message.contains("not signed by your key (from byte 10)") && message.contains("--trust-journal"));
    // No key here: why is the reason.
    let (_, noted) = checked(&path, Check::Note(Err("you have no snapshot key yet".into())));
    assert_eq!(noted.unwrap().unwrap().1, "you have no snapshot key yet");
    // Written without a key: every MAC zero.
    let unsigned = dir.path().join("u");
    JournalWriter::create(&unsigned, 16, &start("h"), None).unwrap().record(&Entry::Clock { ms: 1 });
    let (_, noted) = checked(&unsigned, Check::Note(Ok(key())));
    assert!(noted.unwrap().unwrap().1.contains("carries no signature"));
    assert_eq!(checked(&unsigned, Check::Nothing), (2, Ok(None)));
}

/// Re-encodes the frame at `at` with its entry replaced by `entry` and its
/// CRC made right again, as anyone can; its MAC kept.
fn forge(bytes: &mut Vec<u8>, at: usize, entry: &Entry) {
    let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let end = at + FRAME_HEAD + len;
    let mut body = bytes[at + FRAME_HEAD..at + FRAME_HEAD + MAC_LEN].to_vec();
    body.extend_from_slice(&encode(entry));
    let mut frame = ((body.len()) as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(&tisslang::codec::crc32::crc32(&body).to_le_bytes());
    frame.extend_from_slice(&body);
    bytes.splice(at..end, frame);
}

#[test]
fn an_edited_removed_or_moved_frame_is_not_yours_from_there() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j");
    three(&path);
    let bytes = std::fs::read(&path).unwrap();
    let at = frame_offsets(&path);
    let [second, third] = [at[1] as usize, at[2] as usize];
    let not_yours_from = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        checked(&path, Check::Note(Ok(key()))).1.unwrap().map(|(at, _)| at)
    };
    // The clock reading changed, the CRC made right: the MAC no longer fits.
    let mut edited = bytes.clone();
    forge(&mut edited, second, &Entry::Clock { ms: 8 });
    assert_eq!(not_yours_from(&edited), Some(second as u64));
    // The second frame removed: the third no longer follows its MAC.
    let mut removed = bytes[..second].to_vec();
    removed.extend_from_slice(&bytes[third..]);
    assert_eq!(not_yours_from(&removed), Some(second as u64));
    // The last two swapped.
    let mut swapped = bytes[..second].to_vec();
    swapped.extend_from_slice(&bytes[third..]);
    swapped.extend_from_slice(&bytes[second..third]);
    assert_eq!(not_yours_from(&swapped), Some(second as u64));
    // Frames cut off the end, as a crash would: still the user's (what
    // signing cannot tell; a restart checks the files the run wrote).
    assert_eq!(not_yours_from(&bytes[..third]), None);
    // A frame of another journal of the same key spliced in.
    let other = dir.path().join("other");
    let mut w = JournalWriter::create(&other, 16, &start("h"), Some(key())).unwrap();
    w.record(&Entry::Clock { ms: 99 });
    let other_bytes = std::fs::read(&other).unwrap();
    let other_second = frame_offsets(&other)[1] as usize;
    let mut spliced = bytes[..third].to_vec();
    spliced.extend_from_slice(&other_bytes[other_second..]);
    assert_eq!(not_yours_from(&spliced), Some(third as u64));
    assert_eq!(not_yours_from(&bytes), None);
}

#[test]
fn a_resume_continues_the_signatures_and_another_key_is_told_from_its_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j");
    three(&path);
    let resumed = Entry::Start {
        tissvm: "test".into(),
        module_hash: "h".into(),
        bytecode: vec![1, 2, 3],
        resumed: true,
    };
    JournalWriter::append(&path, 16, "h", &resumed, Some(key())).unwrap().record(&Entry::Clock { ms: 9 });
    assert_eq!(checked(&path, Check::Require(Ok(key()))), (5, Ok(None)));
    // Resumed by another user (or without a key): theirs from its start.
    let appended_at = std::fs::metadata(&path).unwrap().len();
    JournalWriter::append(&path, 16, "h", &resumed, None).unwrap();
    let (read, noted) = checked(&path, Check::Note(Ok(key())));
    assert_eq!((read, noted.unwrap().map(|(at, _)| at)), (6, Some(appended_at)));
}

#[test]
fn a_journal_of_format_2_reads_unsigned_and_is_not_continued() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j");
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&2u16.to_le_bytes());
    for entry in [start("h"), Entry::Clock { ms: 3 }] {
        let payload = encode(&entry);
        bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&tisslang::codec::crc32::crc32(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
    }
    std::fs::write(&path, &bytes).unwrap();
    let (got, torn) = entries(&path);
    assert_eq!((got.len(), torn), (2, None));
    assert_eq!(got[1].1, Entry::Clock { ms: 3 });
    let (_, noted) = checked(&path, Check::Note(Ok(key())));
    assert_eq!(
        noted.unwrap(),
        Some((HEADER_LEN as u64, "it is of format 2, from before tissvm signed its journals".into()))
    );
    let resumed = Entry::Start {
        tissvm: "test".into(),
        module_hash: "h".into(),
        bytecode: vec![1, 2, 3],
        resumed: true,
    };
    let e = JournalWriter::append(&path, 16, "h", &resumed, Some(key())).err().unwrap();
    assert!(e.message.contains("is of format 2, and this tissvm writes format 3"), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "left as it was");
}
