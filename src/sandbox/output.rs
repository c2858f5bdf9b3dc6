//! Capturing a container's output with a cap enforced while it streams, and finding the
//! runner's end marker.
//!
//! The runner ends each stream with `\0<nonce>:<exit code>\0` and writes nothing after it, so
//! the marker is recognized at the end of what has arrived so far, even when Docker splits or
//! merges frames. A snippet that forges the marker can only cut its own output short: the
//! limits and the kill stay with the gateway.

/// Longest marker: NUL, 32 hex digits, colon, up to 3 digits, NUL.
const MAX_MARKER: usize = 1 + 32 + 1 + 3 + 1;

/// One captured stream.
pub struct Capture {
    kept: Vec<u8>,
    cap: usize,
    /// Bytes received in all, kept or not.
    total: u64,
    /// The last bytes received, where the marker is looked for.
    tail: Vec<u8>,
    /// Set once the marker has arrived: the exit code it carries.
    end: Option<i32>,
    marker_len: usize,
}

impl Capture {
    pub fn new(cap: u64) -> Capture {
        Capture {
            kept: Vec::new(),
            cap: usize::try_from(cap).unwrap_or(usize::MAX),
            total: 0,
            tail: Vec::with_capacity(2 * MAX_MARKER),
            end: None,
            marker_len: 0,
        }
    }

    /// Takes a chunk of the stream; returns true when the end marker has arrived.
    pub fn push(&mut self, chunk: &[u8], nonce: &str) -> bool {
        if self.end.is_some() {
            return true;
        }
        self.total += chunk.len() as u64;
        // Keep at most the cap plus one marker's length: the slack lets a marker that straddles
        // the cap be stripped, and `finish` cuts `kept` back to the cap. However the output is
        // chunked, memory stays bounded by the cap.
        let room = (self.cap.saturating_add(MAX_MARKER)).saturating_sub(self.kept.len());
        self.kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
        self.tail
            .extend_from_slice(&chunk[chunk.len().saturating_sub(MAX_MARKER)..]);
        if self.tail.len() > MAX_MARKER {
            self.tail.drain(..self.tail.len() - MAX_MARKER);
        }
        if let Some((code, len)) = marker_at_end(&self.tail, nonce) {
            self.end = Some(code);
            self.marker_len = len;
        }
        self.end.is_some()
    }

    /// The exit code from the marker, once it has arrived.
    pub fn exit_code(&self) -> Option<i32> {
        self.end
    }

    /// Bytes of program output received so far (marker excluded).
    pub fn output_len(&self) -> u64 {
        self.total - self.marker_len as u64
    }

    /// The output (lossily decoded: invalid UTF-8 becomes U+FFFD) and whether it was cut.
    pub fn finish(mut self) -> (String, bool) {
        let program_bytes = usize::try_from(self.output_len()).unwrap_or(usize::MAX);
        self.kept.truncate(program_bytes.min(self.cap));
        let truncated = program_bytes > self.cap;
        let text = match String::from_utf8(self.kept) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        (text, truncated)
    }
}

/// `\0<nonce>:<digits>\0` at the very end of `tail`: the exit code and the marker's length.
fn marker_at_end(tail: &[u8], nonce: &str) -> Option<(i32, usize)> {
    let body = tail.strip_suffix(b"\0")?;
    let digits_start = body.iter().rposition(|b| !b.is_ascii_digit())? + 1;
    let digits = &body[digits_start..];
    if digits.is_empty() || digits.len() > 3 {
        return None;
    }
    let prefix = &body[..digits_start];
    let expected_prefix = [b"\0".as_slice(), nonce.as_bytes(), b":"].concat();
    if !prefix.ends_with(&expected_prefix) {
        return None;
    }
    let code: i32 = std::str::from_utf8(digits).ok()?.parse().ok()?;
    Some((code, expected_prefix.len() + digits.len() + 1))
}

/// A fresh random nonce: 32 lowercase hex digits from the OS's random source.
pub fn new_nonce() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    let filled = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if filled.is_err() {
        // No /dev/urandom: fall back to the process's randomly keyed hasher, still unguessable
        // from inside a container that never sees the gateway's memory.
        use std::hash::{BuildHasher, RandomState};
        for (i, chunk) in bytes.chunks_mut(8).enumerate() {
            let value = RandomState::new().hash_one((i, std::time::SystemTime::now()));
            chunk.copy_from_slice(&value.to_le_bytes());
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONCE: &str = "0123456789abcdef0123456789abcdef";

    fn marker(code: i32) -> Vec<u8> {
        format!("\0{NONCE}:{code}\0").into_bytes()
    }

    #[test]
    fn marker_is_found_across_chunk_boundaries_and_stripped() {
        let mut stream = b"hello\n".to_vec();
        stream.extend(marker(3));
        for split in 0..stream.len() {
            let mut c = Capture::new(1024);
            assert!(!c.push(&stream[..split], NONCE) || split == stream.len());
            assert!(c.push(&stream[split..], NONCE), "split at {split}");
            assert_eq!(c.exit_code(), Some(3));
            assert_eq!(c.finish(), ("hello\n".to_owned(), false));
        }
    }

    #[test]
    fn output_beyond_the_cap_is_dropped_and_reported() {
        let mut c = Capture::new(4);
        c.push(b"abcdefgh", NONCE);
        c.push(&marker(0), NONCE);
        assert_eq!(c.finish(), ("abcd".to_owned(), true));
        let mut exact = Capture::new(4);
        exact.push(b"abcd", NONCE);
        exact.push(&marker(0), NONCE);
        assert_eq!(exact.finish(), ("abcd".to_owned(), false));
    }

    #[test]
    fn many_small_chunks_stay_within_the_cap() {
        let mut c = Capture::new(100);
        for _ in 0..100_000 {
            c.push(b"x", NONCE);
        }
        assert!(
            c.kept.len() <= 100 + MAX_MARKER,
            "kept {} bytes",
            c.kept.len()
        );
        c.push(&marker(0), NONCE);
        let (text, truncated) = c.finish();
        assert_eq!((text.len(), truncated), (100, true));
    }

    #[test]
    fn a_wrong_nonce_or_trailing_output_is_not_an_end() {
        let mut c = Capture::new(1024);
        assert!(!c.push(b"\0ffffffffffffffffffffffffffffffff:0\0", NONCE));
        let mut forged_then_more = marker(0);
        forged_then_more.extend(b"more");
        assert!(!Capture::new(1024).push(&forged_then_more, NONCE));
    }

    #[test]
    fn invalid_utf8_is_replaced_not_fatal() {
        let mut c = Capture::new(1024);
        c.push(b"ok \xff\xfe end", NONCE);
        let (text, _) = c.finish();
        assert_eq!(text, "ok \u{fffd}\u{fffd} end");
    }

    #[test]
    fn nonces_are_fresh_hex() {
        let (a, b) = (new_nonce(), new_nonce());
        assert_eq!(a.len(), 32);
        assert!(
            a.bytes()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert_ne!(a, b);
    }
}
