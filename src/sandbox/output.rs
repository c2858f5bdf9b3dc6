//! The runner's output protocol, gateway side: the frames the runner's supervisor writes on the
//! container's stdout, and the capture of the program's output under its cap.
//!
//! Only the supervisor (the container's PID 1) can write there: the program's own stdout and
//! stderr are pipes it reads and frames (see the protocol at the top of the runners). A frame is
//! one kind byte, a payload length (4 bytes, big-endian) and the payload:
//!
//! | kind | payload |
//! |---|---|
//! | `R` | ready: JSON describing the runner, sent once before any code is read |
//! | `O` | bytes the program wrote to its stdout |
//! | `E` | bytes the program wrote to its stderr |
//! | `F` | a figure or file coming back: JSON `{"kind", "path", "size"[, "skipped"]}` |
//! | `D` | a piece of the current `F`'s bytes |
//! | `X` | the end: JSON `{"nonce", "status", "signal", "oom_killed"}`; nothing follows |
//!
//! Kinds the gateway does not know are an error, so a new kind needs both sides to change
//! (several runs per container would be one).

/// Largest payload of a frame the gateway accepts (runners send at most 64 KiB of output per
/// frame); a larger length means the stream is not the protocol.
const MAX_DATA_FRAME: u32 = 1 << 20;
/// Largest `R` or `X` payload.
const MAX_CONTROL_FRAME: u32 = 4096;
/// Largest `F` payload: a path of up to 4096 bytes, JSON-escaped, and the rest.
const MAX_FILE_FRAME: u32 = 32 << 10;
const HEADER_LEN: usize = 5;

/// What the frames carry, as it arrives. Output may come in pieces of a frame.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    Ready(&'a [u8]),
    Stdout(&'a [u8]),
    Stderr(&'a [u8]),
    Exit(&'a [u8]),
    /// The header of a figure or file coming back, whole.
    File(&'a [u8]),
    /// Bytes of the current figure or file.
    FileData(&'a [u8]),
}

/// A stream that is not the protocol: a runner from another version, or a bug.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ProtocolError(pub String);

/// Splits the container's stdout into frames, however the engine chunks it.
#[derive(Default)]
pub struct Frames {
    header: Vec<u8>,
    /// Kind and bytes left of the frame being read.
    current: Option<(u8, u32)>,
    /// A control frame's payload, collected whole.
    control: Vec<u8>,
    ended: bool,
}

impl Frames {
    pub fn new() -> Frames {
        Frames::default()
    }

    /// Feeds a chunk of the stream; `piece` sees each piece as it completes.
    pub fn push(
        &mut self,
        mut chunk: &[u8],
        mut piece: impl FnMut(Piece<'_>),
    ) -> Result<(), ProtocolError> {
        while !chunk.is_empty() {
            if self.ended {
                return Err(ProtocolError(format!(
                    "{} bytes after the end frame",
                    chunk.len()
                )));
            }
            let Some((kind, remaining)) = self.current else {
                let take = (HEADER_LEN - self.header.len()).min(chunk.len());
                self.header.extend_from_slice(&chunk[..take]);
                chunk = &chunk[take..];
                if self.header.len() == HEADER_LEN {
                    self.start_frame()?;
                    self.finish_if_complete(&mut piece);
                }
                continue;
            };
            let take = (remaining as usize).min(chunk.len());
            let (bytes, rest) = chunk.split_at(take);
            chunk = rest;
            match kind {
                b'O' => piece(Piece::Stdout(bytes)),
                b'E' => piece(Piece::Stderr(bytes)),
                b'D' => piece(Piece::FileData(bytes)),
                _ => self.control.extend_from_slice(bytes),
            }
            self.current = Some((kind, remaining - take as u32));
            self.finish_if_complete(&mut piece);
        }
        Ok(())
    }

    /// True between frames (nothing of a next frame has arrived).
    pub fn at_boundary(&self) -> bool {
        self.current.is_none() && self.header.is_empty()
    }

    fn start_frame(&mut self) -> Result<(), ProtocolError> {
        let kind = self.header[0];
        let len = u32::from_be_bytes(self.header[1..].try_into().expect("4 bytes"));
        self.header.clear();
        let limit = match kind {
            b'O' | b'E' | b'D' => MAX_DATA_FRAME,
            b'R' | b'X' => MAX_CONTROL_FRAME,
            b'F' => MAX_FILE_FRAME,
            other => {
                return Err(ProtocolError(format!(
                    "unknown frame kind {:?}",
                    char::from(other)
                )));
            }
        };
        if len > limit {
            return Err(ProtocolError(format!(
                "a {:?} frame of {len} bytes (at most {limit})",
                char::from(kind)
            )));
        }
        self.current = Some((kind, len));
        Ok(())
    }

    fn finish_if_complete(&mut self, piece: &mut impl FnMut(Piece<'_>)) {
        let Some((kind, 0)) = self.current else {
            return;
        };
        self.current = None;
        match kind {
            b'R' => piece(Piece::Ready(&self.control)),
            b'F' => piece(Piece::File(&self.control)),
            b'X' => {
                self.ended = true;
                piece(Piece::Exit(&self.control));
            }
            _ => {}
        }
        self.control.clear();
    }
}

/// One captured stream: at most `cap` bytes kept, everything counted.
pub struct Capture {
    kept: Vec<u8>,
    cap: usize,
    /// Bytes received in all, kept or not.
    total: u64,
}

impl Capture {
    pub fn new(cap: u64) -> Capture {
        Capture {
            kept: Vec::new(),
            cap: usize::try_from(cap).unwrap_or(usize::MAX),
            total: 0,
        }
    }

    pub fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = self.cap.saturating_sub(self.kept.len());
        self.kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// Bytes received so far, kept or not.
    pub fn len(&self) -> u64 {
        self.total
    }

    /// The output (lossily decoded: invalid UTF-8 becomes U+FFFD) and whether it was cut.
    pub fn finish(self) -> (String, bool) {
        let truncated = self.total > self.kept.len() as u64;
        let text = match String::from_utf8(self.kept) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        (text, truncated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(kind: u8, payload: &[u8]) -> Vec<u8> {
        let mut bytes = vec![kind];
        bytes.extend((payload.len() as u32).to_be_bytes());
        bytes.extend(payload);
        bytes
    }

    /// Everything the frames carried: stdout and stderr joined, control frames in order.
    type Decoded = (Vec<u8>, Vec<u8>, Vec<String>);

    fn decode(chunks: &[&[u8]]) -> Result<Decoded, ProtocolError> {
        let (mut out, mut err, mut control) = (Vec::new(), Vec::new(), Vec::new());
        let mut frames = Frames::new();
        for chunk in chunks {
            frames.push(chunk, |piece| match piece {
                Piece::Stdout(b) => out.extend(b),
                Piece::Stderr(b) => err.extend(b),
                Piece::Ready(b) => control.push(format!("R{}", String::from_utf8_lossy(b))),
                Piece::Exit(b) => control.push(format!("X{}", String::from_utf8_lossy(b))),
                Piece::File(b) => control.push(format!("F{}", String::from_utf8_lossy(b))),
                Piece::FileData(b) => control.push(format!("D{}", String::from_utf8_lossy(b))),
            })?;
        }
        Ok((out, err, control))
    }

    #[test]
    fn frames_are_found_however_the_stream_is_split() {
        let mut stream = frame(b'R', b"{}");
        stream.extend(frame(b'O', b"hello\n"));
        stream.extend(frame(b'E', b"oops\n"));
        stream.extend(frame(b'O', b""));
        stream.extend(frame(b'X', br#"{"status":3}"#));
        for split in 0..=stream.len() {
            let (a, b) = stream.split_at(split);
            let (out, err, control) = decode(&[a, b]).unwrap();
            assert_eq!(
                (out.as_slice(), err.as_slice()),
                (&b"hello\n"[..], &b"oops\n"[..])
            );
            assert_eq!(control, ["R{}", r#"X{"status":3}"#], "split at {split}");
        }
        let bytewise: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(decode(&bytewise).unwrap().0, b"hello\n");
    }

    #[test]
    fn output_that_looks_like_a_frame_is_only_output() {
        let forged = frame(b'X', br#"{"status":0}"#);
        let mut stream = frame(b'O', &forged);
        stream.extend(frame(b'O', b"after"));
        let (out, _, control) = decode(&[&stream]).unwrap();
        assert!(control.is_empty());
        assert_eq!(out, [forged.as_slice(), b"after"].concat());
    }

    #[test]
    fn anything_else_is_refused() {
        let unknown = frame(b'Z', b"x");
        assert!(
            decode(&[&unknown])
                .unwrap_err()
                .0
                .contains("unknown frame kind")
        );
        let huge = [b'O', 0xff, 0xff, 0xff, 0xff];
        assert!(decode(&[&huge]).unwrap_err().0.contains("at most"));
        let mut after_end = frame(b'X', b"{}");
        after_end.extend(frame(b'O', b"late"));
        assert!(
            decode(&[&after_end])
                .unwrap_err()
                .0
                .contains("after the end")
        );
    }

    #[test]
    fn output_beyond_the_cap_is_dropped_and_reported() {
        let mut c = Capture::new(4);
        c.push(b"abcdefgh");
        assert_eq!(c.len(), 8);
        assert_eq!(c.finish(), ("abcd".to_owned(), true));
        let mut exact = Capture::new(4);
        exact.push(b"ab");
        exact.push(b"cd");
        assert_eq!(exact.finish(), ("abcd".to_owned(), false));
        let mut many = Capture::new(100);
        for _ in 0..100_000 {
            many.push(b"x");
        }
        assert!(many.kept.len() <= 100);
        assert_eq!(many.finish().0.len(), 100);
    }

    #[test]
    fn invalid_utf8_is_replaced_not_fatal() {
        let mut c = Capture::new(1024);
        c.push(b"ok \xff\xfe end");
        assert_eq!(c.finish().0, "ok \u{fffd}\u{fffd} end");
    }
}
