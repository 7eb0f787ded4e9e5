//! Signed frames (format 3 on): each frame's body starts with an
//! HMAC-SHA256, under this user's key (the one that signs snapshots), of
//! the journal's magic and format, the MAC of the frame before it (zeros
//! for the first) and the frame's payload. So a frame is this user's only
//! where it follows the frame it followed when written: a forged, edited,
//! reordered or spliced frame is not, and neither is a frame of a journal
//! written without a usable key (its MAC all zeros). What can still be
//! done without the key is what a crash does: cut frames off the end.
//!
//! The CRC of a frame covers its MAC too, so damage is told as damage; the
//! MAC tells who wrote it. A journal of format 1 or 2 has no MACs.

use hmac::Mac;

use super::MAGIC;
use crate::session::snapshot_key::{SnapshotKey, user_key};

/// The MAC at the start of a frame's body.
pub const MAC_LEN: usize = 32;

/// The first format whose frames are signed.
pub const SIGNED_FROM: u16 = 3;

/// The MAC of a frame written without a key.
pub const UNSIGNED: [u8; MAC_LEN] = [0; MAC_LEN];

/// The MAC of the frame holding `payload`, after the frame whose MAC is
/// `before`, in a journal of format `version`.
pub fn frame_mac(key: &SnapshotKey, version: u16, before: &[u8; MAC_LEN], payload: &[u8]) -> [u8; MAC_LEN] {
    signer(key, version, before, payload).finalize().into_bytes().into()
}

/// The HMAC of a frame, not yet finished: [`frame_mac`] finishes it, a
/// check compares it in constant time, as a snapshot's signature is.
fn signer(
    key: &SnapshotKey,
    version: u16,
    before: &[u8; MAC_LEN],
    payload: &[u8],
) -> hmac::Hmac<sha2::Sha256> {
    let mut mac = key.hmac();
    mac.update(&MAGIC);
    mac.update(&version.to_le_bytes());
    mac.update(before);
    mac.update(payload);
    mac
}

/// Which frames a reader checks, against which key (this user's, or why
/// there is none), and what a frame not signed with it does.
#[derive(Debug, Clone, Default)]
pub enum Check {
    /// None checked (a resume continuing the journal, `--trust-journal`).
    #[default]
    Nothing,
    /// Each checked; the first not signed is kept ([`NotYours`]) and
    /// reading goes on (replay, inspect).
    Note(Result<SnapshotKey, String>),
    /// Each checked; the first not signed ends reading with an error
    /// (a restart, which takes what the journal says as what happened).
    Require(Result<SnapshotKey, String>),
}

/// The first frame this user's key did not sign, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotYours {
    /// The frame's offset.
    pub at: u64,
    pub why: String,
}

impl NotYours {
    /// What a replay of the journal `name` says of it (stderr, a debugger's console).
    pub fn replay_note(&self, name: &str) -> String {
        format!(
            "the journal `{name}` is not signed by your key from byte {} ({}): the replay shows what it says, not \
             known to be what ran",
            self.at, self.why
        )
    }
}

impl Check {
    /// Each frame checked against this user's key, the first not signed
    /// kept (replay, inspect).
    pub fn note() -> Check {
        Check::Note(user_key())
    }

    /// Each frame checked against this user's key, the first not signed
    /// an error (a restart).
    pub fn require() -> Check {
        Check::Require(user_key())
    }

    /// Whether the frame at `at` (of a journal of `version`, holding `mac`
    /// and `payload`, after the frame whose MAC is `before`) is this
    /// user's; `None` if it is or nothing is checked.
    pub(super) fn frame(
        &self,
        version: u16,
        at: u64,
        before: &[u8; MAC_LEN],
        mac: &[u8],
        payload: &[u8],
    ) -> Option<NotYours> {
        let key = match self {
            Check::Nothing => return None,
            Check::Note(key) | Check::Require(key) => key,
        };
        let why = if version < SIGNED_FROM {
            format!("it is of format {version}, from before tissvm signed its journals")
        } else {
            match key {
                Err(why) => why.clone(),
                Ok(key) if signer(key, version, before, payload).verify_slice(mac).is_ok() => return None,
                Ok(_) if mac == UNSIGNED => {
                    "it carries no signature: the tissvm that wrote it had no usable key".to_string()
                }
                Ok(_) => {
                    "it is signed with another key: by another user, on another machine, or it was changed \
                          since"
                        .to_string()
                }
            }
        };
        Some(NotYours { at, why })
    }

    pub(super) fn requires(&self) -> bool {
        matches!(self, Check::Require(_))
    }
}
