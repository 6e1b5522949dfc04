//! Layer 1 framing: over the TCP stream each message is 1 to 127 ASCII characters (codes 1 to
//! 127) followed by one NUL byte. [`Deframer`] takes the bytes as they arrive, in pieces of any
//! size, and hands out whole messages.

use std::fmt;

use super::message::MAX_MESSAGE_LEN;

/// The terminator of every message.
pub const TERMINATOR: u8 = 0;

/// A framing error: the bytes are not a DXP message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameError {
    /// A NUL with nothing before it.
    Empty,
    /// More than 127 characters before the NUL (counted up to the NUL, or up to where the
    /// reader gave up waiting for it).
    TooLong { len: usize },
    /// A byte outside ASCII 1-127, at a 1-based column of the message.
    BadByte { byte: u8, column: usize },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Empty => f.write_str("empty message (a NUL terminator with no text)"),
            FrameError::TooLong { len } => write!(
                f,
                "message too long: {len} characters without a NUL terminator; DXP allows at most {MAX_MESSAGE_LEN}"
            ),
            FrameError::BadByte { byte, column } => write!(
                f,
                "byte 0x{byte:02X} at column {column} is not ASCII 1-127"
            ),
        }
    }
}

impl std::error::Error for FrameError {}

/// The bytes to send for one message: the text and its NUL terminator.
pub fn frame(text: &str) -> Result<Vec<u8>, FrameError> {
    check(text.as_bytes())?;
    let mut bytes = Vec::with_capacity(text.len() + 1);
    bytes.extend_from_slice(text.as_bytes());
    bytes.push(TERMINATOR);
    Ok(bytes)
}

fn check(bytes: &[u8]) -> Result<(), FrameError> {
    if bytes.is_empty() {
        return Err(FrameError::Empty);
    }
    if bytes.len() > MAX_MESSAGE_LEN {
        return Err(FrameError::TooLong { len: bytes.len() });
    }
    if let Some(i) = bytes.iter().position(|&b| b == 0 || b > 127) {
        return Err(FrameError::BadByte {
            byte: bytes[i],
            column: i + 1,
        });
    }
    Ok(())
}

/// Splits a byte stream into messages.
///
/// After an error the bytes of the bad message are dropped up to its terminator, so the next
/// message can still be read (the sessions end the game on the first error anyway). Reading is
/// linear in the bytes pushed, however they are cut, and at most one message's bytes are kept
/// once [`Deframer::next`] has returned `None`.
#[derive(Clone, Debug, Default)]
pub struct Deframer {
    buf: Vec<u8>,
    /// Where the unread bytes of `buf` begin (bytes before it are handed out and dropped at the
    /// next push, so that many messages in one push cost one move of the buffer, not one each).
    start: usize,
    /// Dropping the rest of a message that was too long, up to its NUL.
    skipping: bool,
}

impl Deframer {
    pub fn new() -> Deframer {
        Deframer::default()
    }

    /// Adds received bytes.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.drain(..self.start);
        self.start = 0;
        self.buf.extend_from_slice(bytes);
    }

    /// Bytes received of a message whose terminator has not arrived yet.
    pub fn pending(&self) -> usize {
        self.buf.len() - self.start
    }

    /// The next whole message, if one has arrived.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<Result<String, FrameError>> {
        loop {
            let unread = &self.buf[self.start..];
            let end = unread.iter().position(|&b| b == TERMINATOR);
            if self.skipping {
                match end {
                    Some(i) => {
                        self.start += i + 1;
                        self.skipping = false;
                        continue;
                    }
                    None => {
                        self.buf.clear();
                        self.start = 0;
                        return None;
                    }
                }
            }
            return match end {
                Some(i) => {
                    let bytes = &unread[..i];
                    let message = check(bytes).map(|()| {
                        // Checked: ASCII only.
                        String::from_utf8_lossy(bytes).into_owned()
                    });
                    self.start += i + 1;
                    Some(message)
                }
                None if unread.len() > MAX_MESSAGE_LEN => {
                    let len = unread.len();
                    self.buf.clear();
                    self.start = 0;
                    self.skipping = true;
                    Some(Err(FrameError::TooLong { len }))
                }
                None => None,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(d: &mut Deframer) -> Vec<Result<String, FrameError>> {
        std::iter::from_fn(|| d.next()).collect()
    }

    #[test]
    fn frames_end_with_one_nul() {
        assert_eq!(frame("E00").unwrap(), b"E00\0");
        assert_eq!(frame(""), Err(FrameError::Empty));
        assert_eq!(
            frame(&"C".repeat(128)),
            Err(FrameError::TooLong { len: 128 })
        );
        assert!(frame(&"C".repeat(127)).is_ok());
        assert_eq!(
            frame("Cé"),
            Err(FrameError::BadByte {
                byte: 0xC3,
                column: 2
            })
        );
        assert_eq!(
            frame("C\0x"),
            Err(FrameError::BadByte { byte: 0, column: 2 })
        );
    }

    #[test]
    fn messages_arrive_in_pieces() {
        let stream = b"R01Tornado voor Windows 4.0        W060065A\0M0012061100\0E00\0";
        // Every split into byte-sized pieces and into two parts gives the same messages.
        for split in 0..=stream.len() {
            let mut d = Deframer::new();
            d.push(&stream[..split]);
            let mut got = drain(&mut d);
            d.push(&stream[split..]);
            got.extend(drain(&mut d));
            let got: Vec<String> = got.into_iter().map(Result::unwrap).collect();
            assert_eq!(
                got,
                [
                    "R01Tornado voor Windows 4.0        W060065A",
                    "M0012061100",
                    "E00"
                ]
            );
            assert_eq!(d.pending(), 0);
        }
        let mut d = Deframer::new();
        for b in stream {
            d.push(&[*b]);
        }
        assert_eq!(drain(&mut d).len(), 3);
        d.push(b"M00");
        assert_eq!(d.next(), None);
        assert_eq!(d.pending(), 3);
    }

    #[test]
    fn bad_messages_are_reported_and_skipped() {
        let mut d = Deframer::new();
        d.push(b"\0E0\x80\0K0\0");
        assert_eq!(d.next(), Some(Err(FrameError::Empty)));
        assert_eq!(
            d.next(),
            Some(Err(FrameError::BadByte {
                byte: 0x80,
                column: 3
            }))
        );
        assert_eq!(d.next(), Some(Ok("K0".to_string())));
        assert_eq!(d.next(), None);

        // Too long: reported as soon as 128 bytes are in without a terminator, and the rest of
        // that message is dropped up to its NUL.
        let mut d = Deframer::new();
        d.push(&[b'C'; 100]);
        assert_eq!(d.next(), None);
        d.push(&[b'C'; 40]);
        assert_eq!(d.next(), Some(Err(FrameError::TooLong { len: 140 })));
        d.push(&[b'C'; 300]);
        assert_eq!(d.next(), None);
        d.push(b"CC\0E00\0");
        assert_eq!(d.next(), Some(Ok("E00".to_string())));
        assert_eq!(d.next(), None);
    }
}
