//! The text encoding of a PDN file. PDN 3.0 requires UTF-8, but club archives come in the
//! Windows code page of their country: CP1251 (Russian, Ukrainian, Belarusian clubs) and
//! CP1252/Latin-1 (Dutch, French, Italian, ... databases, Turbo Dambase).
//!
//! The rule, in order: a byte order mark (UTF-8, UTF-16) decides; UTF-16 without one is told by
//! its zero bytes (every other byte of an ASCII text); text that is valid UTF-8 is
//! UTF-8; otherwise Cyrillic when at least half of the bytes above 0x7F stand next to another
//! such byte (Cyrillic words are runs of them), else CP1252 (accented Latin letters stand alone
//! between ASCII letters). CP1252 is the WHATWG reading of Latin-1, so Latin-1 files read the same.
//! Cyrillic is CP1251, or DOS's CP866 (older Soviet archives) when more of those bytes fall in
//! 0x80-0xAF (CP866's letters А to п, and а to п; in CP1251 rare signs) than in 0xC0-0xFF (every
//! CP1251 letter; in CP866 only р to я besides box drawing).

use std::borrow::Cow;

use serde::Serialize;

/// The encoding a file was read in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TextEncoding {
    Utf8,
    /// UTF-8 after a byte order mark.
    Utf8Bom,
    Utf16Le,
    Utf16Be,
    /// Windows-1251 (Cyrillic).
    Windows1251,
    /// IBM/DOS code page 866 (Cyrillic).
    Ibm866,
    /// Windows-1252, a superset of ISO 8859-1 (Latin-1).
    Windows1252,
}

impl TextEncoding {
    /// Its name as a user reads it.
    pub fn label(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "UTF-8",
            TextEncoding::Utf8Bom => "UTF-8 with BOM",
            TextEncoding::Utf16Le => "UTF-16LE",
            TextEncoding::Utf16Be => "UTF-16BE",
            TextEncoding::Windows1251 => "CP1251 (Cyrillic)",
            TextEncoding::Ibm866 => "CP866 (DOS Cyrillic)",
            TextEncoding::Windows1252 => "CP1252/Latin-1",
        }
    }
}

/// Decodes a file's bytes; never fails (bytes a code page lacks become U+FFFD).
pub fn decode(bytes: &[u8]) -> (Cow<'_, str>, TextEncoding) {
    if let Some((encoding, bom)) = encoding_rs::Encoding::for_bom(bytes) {
        let which = if encoding == encoding_rs::UTF_8 {
            TextEncoding::Utf8Bom
        } else if encoding == encoding_rs::UTF_16LE {
            TextEncoding::Utf16Le
        } else {
            TextEncoding::Utf16Be
        };
        let (text, _) = encoding.decode_without_bom_handling(&bytes[bom..]);
        return (text, which);
    }
    if let Some((encoding, which)) = utf16_without_bom(bytes) {
        let (text, _) = encoding.decode_without_bom_handling(bytes);
        return (text, which);
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return (Cow::Borrowed(text), TextEncoding::Utf8);
    }
    let (encoding, which) = if looks_cyrillic(bytes) {
        let count = |range: std::ops::RangeInclusive<u8>| {
            bytes.iter().filter(|b| range.contains(b)).count()
        };
        if count(0x80..=0xAF) > count(0xC0..=0xFF) {
            (encoding_rs::IBM866, TextEncoding::Ibm866)
        } else {
            (encoding_rs::WINDOWS_1251, TextEncoding::Windows1251)
        }
    } else {
        (encoding_rs::WINDOWS_1252, TextEncoding::Windows1252)
    };
    let (text, _) = encoding.decode_without_bom_handling(bytes);
    (text, which)
}

/// UTF-16 written without a byte order mark: a PDN text is mostly ASCII, so at least half of the
/// high bytes of its first kilobytes are zero (the second of each pair in little-endian) and
/// none of the low ones; no PDN text holds a zero byte of its own (valid UTF-8 as it is, it would read as text with
/// NULs between the letters).
fn utf16_without_bom(bytes: &[u8]) -> Option<(&'static encoding_rs::Encoding, TextEncoding)> {
    let head = &bytes[..bytes.len().min(4096) & !1];
    let pairs = head.len() / 2;
    if pairs < 2 {
        return None;
    }
    let zeros = |odd: usize| {
        head.iter()
            .skip(odd)
            .step_by(2)
            .filter(|&&b| b == 0)
            .count()
    };
    let (even, odd) = (zeros(0), zeros(1));
    if odd * 2 >= pairs && even == 0 {
        Some((encoding_rs::UTF_16LE, TextEncoding::Utf16Le))
    } else if even * 2 >= pairs && odd == 0 {
        Some((encoding_rs::UTF_16BE, TextEncoding::Utf16Be))
    } else {
        None
    }
}

/// Whether at least half of the bytes above 0x7F have such a neighbour.
fn looks_cyrillic(bytes: &[u8]) -> bool {
    let high = |i: usize| bytes.get(i).is_some_and(|&b| b >= 0x80);
    let (mut total, mut paired) = (0usize, 0usize);
    for i in 0..bytes.len() {
        if high(i) {
            total += 1;
            if (i > 0 && high(i - 1)) || high(i + 1) {
                paired += 1;
            }
        }
    }
    total > 0 && paired * 2 >= total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decides_by_bom_validity_and_runs() {
        assert_eq!(decode(b"[Event \"a\"]").1, TextEncoding::Utf8);
        assert_eq!(decode(b"\xEF\xBB\xBF[Event \"a\"]").0, "[Event \"a\"]");
        // "Москва" in CP1251.
        let (text, enc) = decode(b"[Site \"\xCC\xEE\xF1\xEA\xE2\xE0\"]");
        assert_eq!(
            (text.as_ref(), enc),
            ("[Site \"Москва\"]", TextEncoding::Windows1251)
        );
        // "Блиндер Б." in CP866 (a name of the 1947 USSR championship's file), and in CP1251.
        let (text, enc) = decode(b"[White \"\x81\xab\xa8\xad\xa4\xa5\xe0 \x81.\"]");
        assert_eq!(
            (text.as_ref(), enc),
            ("[White \"Блиндер Б.\"]", TextEncoding::Ibm866)
        );
        let (text, enc) = decode(b"[White \"\xc1\xeb\xe8\xed\xe4\xe5\xf0 \xc1.\"]");
        assert_eq!(
            (text.as_ref(), enc),
            ("[White \"Блиндер Б.\"]", TextEncoding::Windows1251)
        );
        // UTF-16 without a byte order mark, either way round.
        let text = "[Event \"Москва\"]\n1. 32-28 *";
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert_eq!(decode(&le), (Cow::Borrowed(text), TextEncoding::Utf16Le));
        assert_eq!(decode(&be), (Cow::Borrowed(text), TextEncoding::Utf16Be));
        // "Crème Müller" in Latin-1.
        let (text, enc) = decode(b"[White \"Cr\xE8me M\xFCller\"]");
        assert_eq!(
            (text.as_ref(), enc),
            ("[White \"Crème Müller\"]", TextEncoding::Windows1252)
        );
    }
}
