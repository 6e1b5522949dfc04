//! Files on disk: where a variant's tables live, the variant's hash, writing a table
//! atomically, reading one whole (for building and verifying).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use damspel_rules::{Bits, Rules, Variant};
use xxhash_rust::xxh3::xxh3_64;

use crate::format::{decode_header, encode, read_all, Header};
use crate::material::Material;
use crate::Error;

/// File name extension of a table.
pub const EXTENSION: &str = "dtb";

/// The default folder: `$XDG_CACHE_HOME/damspel/tablebases`, else
/// `~/.cache/damspel/tablebases`, else `./damspel-tablebases`.
pub fn default_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        });
    match base {
        Some(b) => b.join("damspel").join("tablebases"),
        None => PathBuf::from("damspel-tablebases"),
    }
}

/// A stable hash of everything in a variant that decides a table's values and limits: the
/// board, the men's and kings' rules, captures, promotion, the Bahrain rule and the draw rules.
/// Names, descriptions, the file's path and the start position are left out. Any change to
/// the rules data (or to how the rules crate represents it) changes the hash, and a table
/// with another hash is refused.
pub fn variant_hash(variant: &Variant) -> u64 {
    let text = format!(
        "{:?}|{:?}|{:?}|{:?}|{:?}|{}|{}|{:?}",
        variant.geometry,
        variant.men,
        variant.kings,
        variant.capture,
        variant.promotion,
        variant.promotion_far_rank,
        variant.bahrain,
        variant.draw
    );
    xxh3_64(text.as_bytes())
}

/// The folder of a variant's tables inside `dir`.
pub fn variant_dir(dir: &Path, variant: &Variant) -> PathBuf {
    let id: String = variant
        .id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(id)
}

pub fn table_path(dir: &Path, variant: &Variant, material: Material) -> PathBuf {
    variant_dir(dir, variant).join(format!("{material}.{EXTENSION}"))
}

/// Writes a table: to a temporary file of its own first, on disk (synced), then renamed, so a
/// reader never sees half a file, even after a crash. A write that fails (a full disk, a file
/// size limit) removes its temporary file: left behind, each retry's would hold more of the
/// space that was missing.
pub fn write_table<B: Bits>(
    dir: &Path,
    rules: &Rules<B>,
    material: Material,
    codes: &[u16],
) -> Result<PathBuf, Error> {
    let path = table_path(dir, rules.variant(), material);
    let folder = path.parent().expect("a table path has a folder");
    fs::create_dir_all(folder).map_err(|e| Error::io(folder, e))?;
    let bytes = encode(variant_hash(rules.variant()), material, codes);
    let (tmp, mut file) = create_temporary(&path)?;
    let written = file
        .write_all(&bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| Error::io(&tmp, e))
        .and_then(|()| fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e)));
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written.map(|()| path)
}

/// A new file beside `path` that no other writer has: the process id alone is not enough
/// where several machines (a cluster's shared folder) or containers (each its own process 1)
/// build into one folder, and two writers of one temporary file could rename a half-written
/// table into place.
fn create_temporary(path: &Path) -> Result<(PathBuf, fs::File), Error> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = path.with_extension(format!("{EXTENSION}.tmp{}-{nanos}-{n}", std::process::id()));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(&tmp, e)),
        }
    }
}

/// Reads and checks a table file whole: its header and every code.
pub fn read_table<B: Bits>(
    dir: &Path,
    rules: &Rules<B>,
    material: Material,
) -> Result<(Header, Vec<u16>), Error> {
    let path = table_path(dir, rules.variant(), material);
    let bytes = fs::read(&path).map_err(|e| Error::io(&path, e))?;
    let header = decode_header(&path, &bytes, variant_hash(rules.variant()), Some(material))?;
    let codes = read_all(&header, &bytes).map_err(|reason| Error::Corrupt {
        path: path.clone(),
        reason,
    })?;
    Ok((header, codes))
}
