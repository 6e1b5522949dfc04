//! The user's files, read up to a bound: a device or a pipe given as a file (`/dev/zero`,
//! `/dev/stdin`) is refused at its bound instead of read until memory runs out (the size a
//! file system gives is checked before, but a device has none).

use std::io::Read;
use std::path::Path;

use anyhow::{bail, Context, Result};

/// The bytes of `path` (`what` names it in errors), refused past `limit` bytes.
pub fn read(path: &Path, limit: usize, what: &str) -> Result<Vec<u8>> {
    let file = std::fs::File::open(path)
        .with_context(|| format!("cannot read {what} {}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {what} {}", path.display()))?;
    if bytes.len() > limit {
        bail!(
            "{what} {} has more than {limit} bytes, the most that are read",
            path.display()
        );
    }
    Ok(bytes)
}

/// `read` as UTF-8 text.
pub fn read_text(path: &Path, limit: usize, what: &str) -> Result<String> {
    String::from_utf8(read(path, limit, what)?)
        .with_context(|| format!("{what} {} is not UTF-8 text", path.display()))
}

/// `read` as text in any encoding a PDN file may have (a byte order mark, UTF-16, CP1251, CP866,
/// CP1252/Latin-1: `damspel_notation::pdn::decode`), for files that may be PDN games: players'
/// collections are often not UTF-8.
pub fn read_pdn_text(path: &Path, limit: usize, what: &str) -> Result<String> {
    let bytes = read(path, limit, what)?;
    Ok(damspel_notation::pdn::decode(&bytes).0.into_owned())
}
