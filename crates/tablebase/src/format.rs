//! The file of one signature (`<dir>/<variant id>/<signature>.dtb`), little-endian:
//!
//! ```text
//! magic "DAMSPTB\0" | format version u32 | variant hash u64 | signature 4 x u8
//! | slots u64 | block slots u32 | blocks u32
//! | per side to move (white, black): wins, draws, losses, invalid u64,
//!   longest win (plies) u32, slot of an example u64
//! | block end offsets (blocks x u64, from the start of the body)
//! | body: blocks of `block slots` codes (u16, see value.rs), each compressed with zstd
//! | checksum u64: xxh3 of every byte before it
//! ```
//!
//! Blocks let a probe decompress 64 KiB, not the whole table. Nothing in a file depends on the
//! machine, the thread count or the time: the same variant and signature give the same bytes.

use std::path::Path;

use xxhash_rust::xxh3::xxh3_64;

use crate::material::Material;
use crate::value::{decode, Value};
use crate::Error;

pub const MAGIC: &[u8; 8] = b"DAMSPTB\0";
pub const VERSION: u32 = 1;
/// Slots per compressed block.
pub const BLOCK: usize = 1 << 15;
const ZSTD_LEVEL: i32 = 9;
const FIXED: usize = 8 + 4 + 8 + 4 + 8 + 4 + 4 + 2 * (4 * 8 + 4 + 8);

/// Counts of one side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideCounts {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub invalid: u64,
    /// Longest win, in plies (0 when there is no win).
    pub longest_win: u32,
    /// The slot of a position with that win.
    pub longest_win_slot: u64,
}

/// A file's header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub version: u32,
    pub variant_hash: u64,
    pub material: Material,
    pub slots: u64,
    pub block: u32,
    /// White to move, Black to move.
    pub counts: [SideCounts; 2],
    /// End of each block, from the start of the body.
    pub block_ends: Vec<u64>,
}

impl Header {
    pub fn len(&self) -> usize {
        FIXED + 8 * self.block_ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots == 0
    }
}

/// Counts of a table's codes.
pub fn count(codes: &[u16]) -> [SideCounts; 2] {
    let half = codes.len() / 2;
    let mut out = [SideCounts::default(); 2];
    for (side, part) in codes.chunks(half.max(1)).take(2).enumerate() {
        let c = &mut out[side];
        for (i, &code) in part.iter().enumerate() {
            match decode(code) {
                None => c.invalid += 1,
                Some((Value::Draw, _)) => c.draws += 1,
                Some((Value::Loss, _)) => c.losses += 1,
                Some((Value::Win, d)) => {
                    c.wins += 1;
                    if d > c.longest_win {
                        c.longest_win = d;
                        c.longest_win_slot = (side * half + i) as u64;
                    }
                }
            }
        }
    }
    out
}

/// The bytes of a table file.
pub fn encode(variant_hash: u64, material: Material, codes: &[u16]) -> Vec<u8> {
    let mut body = Vec::new();
    let mut ends = Vec::new();
    let mut raw = Vec::with_capacity(BLOCK * 2);
    for block in codes.chunks(BLOCK) {
        raw.clear();
        for &c in block {
            raw.extend_from_slice(&c.to_le_bytes());
        }
        let packed = zstd::bulk::compress(&raw, ZSTD_LEVEL).expect("zstd compresses into a Vec");
        body.extend_from_slice(&packed);
        ends.push(body.len() as u64);
    }
    let header = Header {
        version: VERSION,
        variant_hash,
        material,
        slots: codes.len() as u64,
        block: BLOCK as u32,
        counts: count(codes),
        block_ends: ends,
    };
    let mut out = Vec::with_capacity(header.len() + body.len() + 8);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&header.version.to_le_bytes());
    out.extend_from_slice(&header.variant_hash.to_le_bytes());
    out.extend_from_slice(&header.material.counts);
    out.extend_from_slice(&header.slots.to_le_bytes());
    out.extend_from_slice(&header.block.to_le_bytes());
    out.extend_from_slice(&(header.block_ends.len() as u32).to_le_bytes());
    for c in &header.counts {
        for v in [c.wins, c.draws, c.losses, c.invalid] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&c.longest_win.to_le_bytes());
        out.extend_from_slice(&c.longest_win_slot.to_le_bytes());
    }
    for e in &header.block_ends {
        out.extend_from_slice(&e.to_le_bytes());
    }
    out.extend_from_slice(&body);
    let sum = xxh3_64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let s = self.bytes.get(self.at..self.at + N)?;
        self.at += N;
        s.try_into().ok()
    }
    fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take().map(u64::from_le_bytes)
    }
}

/// The most blocks a table has (2^32 slots of `BLOCK`), so the most bytes its header takes.
pub const MAX_HEADER: usize = FIXED + 8 * ((1usize << 32) / BLOCK);

/// Reads and checks a header: magic, version, checksum, the expected variant and signature.
/// `bytes` is the whole file.
pub fn decode_header(
    path: &Path,
    bytes: &[u8],
    variant_hash: u64,
    material: Option<Material>,
) -> Result<Header, Error> {
    let sum = (bytes.len() >= 8).then(|| {
        let (data, sum) = bytes.split_at(bytes.len() - 8);
        (
            xxh3_64(data),
            u64::from_le_bytes(sum.try_into().expect("8 bytes")),
        )
    });
    parse_header(path, bytes, bytes.len() as u64, sum, variant_hash, material)
}

/// Checks a header from the first bytes of a file (`head`, at least the header's, or the whole
/// file) and the file's length; `sum` is the checksum of every byte but the last eight, and
/// the one those hold (none when the file is shorter than that).
pub fn parse_header(
    path: &Path,
    head: &[u8],
    file_len: u64,
    sum: Option<(u64, u64)>,
    variant_hash: u64,
    material: Option<Material>,
) -> Result<Header, Error> {
    let corrupt = |why: &str| Error::Corrupt {
        path: path.to_path_buf(),
        reason: why.to_string(),
    };
    if file_len < (FIXED + 8) as u64 || head.len() < FIXED || &head[..8] != MAGIC {
        return Err(corrupt("not a Damspel table (bad magic or too short)"));
    }
    let mut r = Reader { bytes: head, at: 8 };
    let short = || corrupt("truncated header");
    let version = r.u32().ok_or_else(short)?;
    if version != VERSION {
        return Err(Error::Version {
            path: path.to_path_buf(),
            found: version,
        });
    }
    if sum.is_none_or(|(found, kept)| found != kept) {
        return Err(corrupt("checksum mismatch"));
    }
    let hash = r.u64().ok_or_else(short)?;
    if hash != variant_hash {
        return Err(Error::VariantChanged {
            path: path.to_path_buf(),
        });
    }
    let counts: [u8; 4] = r.take().ok_or_else(short)?;
    let found = Material { counts };
    if material.is_some_and(|m| m != found) {
        return Err(corrupt(&format!(
            "holds {found}, not the signature its name says"
        )));
    }
    let slots = r.u64().ok_or_else(short)?;
    let block = r.u32().ok_or_else(short)?;
    let blocks = r.u32().ok_or_else(short)? as usize;
    let mut side_counts = [SideCounts::default(); 2];
    for c in &mut side_counts {
        c.wins = r.u64().ok_or_else(short)?;
        c.draws = r.u64().ok_or_else(short)?;
        c.losses = r.u64().ok_or_else(short)?;
        c.invalid = r.u64().ok_or_else(short)?;
        c.longest_win = r.u32().ok_or_else(short)?;
        c.longest_win_slot = r.u64().ok_or_else(short)?;
    }
    if block == 0 || (slots as u128).div_ceil(block as u128) != blocks as u128 {
        return Err(corrupt("block count does not match the slots"));
    }
    let mut block_ends = Vec::with_capacity(blocks.min(1 << 24));
    for _ in 0..blocks {
        block_ends.push(r.u64().ok_or_else(short)?);
    }
    let header = Header {
        version,
        variant_hash: hash,
        material: found,
        slots,
        block,
        counts: side_counts,
        block_ends,
    };
    let body = (file_len - 8).checked_sub(header.len() as u64);
    if body.is_none()
        || header.block_ends.last().copied().unwrap_or(0) != body.unwrap_or(0)
        || header.block_ends.windows(2).any(|w| w[0] > w[1])
    {
        return Err(corrupt("block offsets do not match the body"));
    }
    Ok(header)
}

/// Where block `b` of a checked file lies: its first byte and the byte after its last.
pub fn block_range(header: &Header, b: usize) -> (u64, u64) {
    let start = header.len() as u64 + if b == 0 { 0 } else { header.block_ends[b - 1] };
    (start, header.len() as u64 + header.block_ends[b])
}

/// Decompresses block `b` of a checked file into codes.
pub fn read_block(header: &Header, bytes: &[u8], b: usize) -> Result<Vec<u16>, String> {
    let (start, end) = block_range(header, b);
    decode_block(header, b, &bytes[start as usize..end as usize])
}

/// Decompresses block `b`, its compressed bytes given, into codes.
pub fn decode_block(header: &Header, b: usize, packed: &[u8]) -> Result<Vec<u16>, String> {
    let first = b as u64 * header.block as u64;
    let n = (header.slots - first).min(header.block as u64) as usize;
    let raw = zstd::bulk::decompress(packed, n * 2).map_err(|e| format!("block {b}: {e}"))?;
    if raw.len() != n * 2 {
        return Err(format!(
            "block {b} holds {} bytes, not {}",
            raw.len(),
            n * 2
        ));
    }
    Ok(raw
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect())
}

/// Every code of a checked file.
pub fn read_all(header: &Header, bytes: &[u8]) -> Result<Vec<u16>, String> {
    let mut out = Vec::with_capacity(header.slots as usize);
    for b in 0..header.block_ends.len() {
        out.extend(read_block(header, bytes, b)?);
    }
    if out.len() != header.slots as usize {
        return Err("slot count mismatch".into());
    }
    Ok(out)
}
