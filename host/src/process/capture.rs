//! The bounded capture of a RUN's output stream: its head and its tail.

/// A bounded capture of one stream: the first `cap / 2` bytes, the last
/// `cap - cap / 2` bytes, and a count of everything.
#[derive(Debug)]
pub struct Capture {
    head_cap: usize,
    tail_cap: usize,
    head: Vec<u8>,
    /// A ring once full: the oldest byte is at `tail_pos`.
    tail: Vec<u8>,
    tail_pos: usize,
    total: u64,
}

impl Capture {
    pub fn new(cap: usize) -> Capture {
        let head_cap = cap / 2;
        Capture {
            head_cap,
            tail_cap: cap - head_cap,
            head: Vec::new(),
            tail: Vec::new(),
            tail_pos: 0,
            total: 0,
        }
    }

    /// Bytes seen so far.
    pub fn total(&self) -> u64 {
        self.total
    }

    pub fn push(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        if self.head.len() < self.head_cap {
            let n = (self.head_cap - self.head.len()).min(data.len());
            self.head.extend_from_slice(&data[..n]);
            data = &data[n..];
        }
        let cap = self.tail_cap;
        if data.is_empty() || cap == 0 {
            return;
        }
        if data.len() >= cap {
            self.tail.clear();
            self.tail.extend_from_slice(&data[data.len() - cap..]);
            self.tail_pos = 0;
            return;
        }
        if self.tail.len() < cap {
            let n = (cap - self.tail.len()).min(data.len());
            self.tail.extend_from_slice(&data[..n]);
            data = &data[n..];
        }
        while !data.is_empty() {
            let n = (cap - self.tail_pos).min(data.len());
            self.tail[self.tail_pos..self.tail_pos + n].copy_from_slice(&data[..n]);
            self.tail_pos = (self.tail_pos + n) % cap;
            data = &data[n..];
        }
    }

    /// The text: everything if it fit, else head + a marker line + tail.
    /// Invalid UTF-8 is replaced (U+FFFD), never fatal.
    pub fn into_string(self) -> String {
        let mut tail = Vec::with_capacity(self.tail.len());
        tail.extend_from_slice(&self.tail[self.tail_pos..]);
        tail.extend_from_slice(&self.tail[..self.tail_pos]);
        let kept = (self.head.len() + tail.len()) as u64;
        if kept == self.total {
            let mut all = self.head;
            all.extend_from_slice(&tail);
            return String::from_utf8_lossy(&all).into_owned();
        }
        let omitted = self.total - kept;
        // Do not let the cut turn a character split in two into U+FFFD.
        let head = trim_partial_end(&self.head);
        let tail = trim_partial_start(&tail);
        let mut text = String::from_utf8_lossy(head).into_owned();
        text.push_str(&format!("\n… [{omitted} bytes omitted] …\n"));
        text.push_str(&String::from_utf8_lossy(tail));
        text
    }
}

/// Drops an incomplete UTF-8 sequence at the end.
fn trim_partial_end(bytes: &[u8]) -> &[u8] {
    match std::str::from_utf8(bytes) {
        Err(e) if e.error_len().is_none() => &bytes[..e.valid_up_to()],
        _ => bytes,
    }
}

/// Drops up to three continuation bytes at the start.
fn trim_partial_start(bytes: &[u8]) -> &[u8] {
    let skip = bytes.iter().take(3).take_while(|&&b| b & 0xC0 == 0x80).count();
    &bytes[skip..]
}
