//! Hub lines read from a stream (an engine's output, a GUI's input), each at most
//! [`MAX_LINE_LEN`] bytes: a longer line is never held whole (an endless one, `cat /dev/zero`,
//! would fill memory).

use std::io::{BufRead, Read};

use super::parse::MAX_LINE_LEN;

/// What [`read_line`] read.
#[derive(Debug, PartialEq, Eq)]
pub enum Got {
    /// A line, without its line break (invalid UTF-8 replaced).
    Line(String),
    /// A line longer than `MAX_LINE_LEN`: its first bytes were read, the rest is still in the
    /// stream ([`skip_line`] drops it).
    TooLong,
    /// The end of the stream, or an error reading it.
    End,
}

/// Reads the next line, at most `MAX_LINE_LEN` bytes of it (`buf` is a buffer to reuse).
pub fn read_line(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> Got {
    buf.clear();
    match reader.take(MAX_LINE_LEN as u64).read_until(b'\n', buf) {
        Ok(0) | Err(_) => Got::End,
        Ok(_) if buf.last() != Some(&b'\n') && buf.len() >= MAX_LINE_LEN => Got::TooLong,
        Ok(_) => {
            let text = buf.strip_suffix(b"\n").unwrap_or(buf);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            Got::Line(String::from_utf8_lossy(text).into_owned())
        }
    }
}

/// Drops the rest of a line [`read_line`] found too long, without keeping it (an endless line
/// is read to the stream's end).
pub fn skip_line(reader: &mut impl BufRead, buf: &mut Vec<u8>) {
    loop {
        buf.clear();
        match reader.take(MAX_LINE_LEN as u64).read_until(b'\n', buf) {
            Ok(0) | Err(_) => return,
            Ok(_) if buf.last() == Some(&b'\n') => return,
            Ok(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_up_to_the_bound_and_a_longer_one_is_skipped() {
        let long = "x".repeat(MAX_LINE_LEN + 10);
        let text = format!("ping\r\n{long}\nquit\nlast");
        let mut reader = text.as_bytes();
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut reader, &mut buf), Got::Line("ping".into()));
        assert_eq!(read_line(&mut reader, &mut buf), Got::TooLong);
        assert!(buf.len() <= MAX_LINE_LEN);
        skip_line(&mut reader, &mut buf);
        assert_eq!(read_line(&mut reader, &mut buf), Got::Line("quit".into()));
        assert_eq!(read_line(&mut reader, &mut buf), Got::Line("last".into()));
        assert_eq!(read_line(&mut reader, &mut buf), Got::End);
    }
}
