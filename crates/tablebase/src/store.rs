//! Files on disk: where a variant's tables live, the variant's hash, writing a table
//! atomically, reading one whole (for building and verifying).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use damspel_rules::{Bits, Rules, Variant};

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

/// The hash of a variant's rules (`Variant::rules_hash`) a table is stamped with: any change to
/// the rules data (or to how the rules crate represents it) changes it, and a table with
/// another hash is refused.
pub fn variant_hash(variant: &Variant) -> u64 {
    variant.rules_hash()
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

/// Writes a table: to a temporary file of its own first (tempfile's: a random name beside the
/// table, created exclusively, so builders on several machines or containers sharing a folder
/// never write one file), synced to disk, then renamed, so a reader never sees half a file,
/// even after a crash. A write that fails (a full disk, a file size limit) removes its
/// temporary file: left behind, each retry's would hold more of the space that was missing.
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
    let prefix = format!("{material}.{EXTENSION}{TEMPORARY}");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix);
    // A table is as readable as any file this process makes (tempfile's own default is
    // 0600, which would hide the tables from the other users of a shared folder).
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut file = builder
        .tempfile_in(folder)
        .map_err(|e| Error::io(folder, e))?;
    file.write_all(&bytes)
        .and_then(|()| file.as_file().sync_all())
        .map_err(|e| Error::io(file.path(), e))?;
    // On failure the temporary file is removed as it is dropped.
    file.persist(&path).map_err(|e| Error::io(&path, e.error))?;
    Ok(path)
}

/// What a table's temporary file has after `.dtb` in its name (`KMvK.dtb.tmpXXXXXX`).
const TEMPORARY: &str = ".tmp";

/// How old a temporary table file must be to be taken for one a killed build left. A writer
/// makes its temporary file only once the table is solved and writes it in one go, so its
/// file changes or is renamed within seconds; an hour leaves room for the slowest shared disk.
pub const STALE_TEMPORARY_AGE: Duration = Duration::from_secs(3600);

/// Removes the temporary table files in a variant's folder that no writer has touched for
/// `age`: those a build killed while writing (`kill -9`, a node lost) left behind. A live
/// writer's file, on this machine or another sharing the folder, is younger and stays.
/// Returns the files removed; a folder that does not exist has none.
pub fn remove_stale_temporaries(
    dir: &Path,
    variant: &Variant,
    age: Duration,
) -> Result<Vec<PathBuf>, Error> {
    let folder = variant_dir(dir, variant);
    let entries = match fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(&folder, e)),
    };
    let marker = format!(".{EXTENSION}{TEMPORARY}");
    let now = SystemTime::now();
    let mut removed = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(&folder, e))?;
        if !entry.file_name().to_string_lossy().contains(&marker) {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = entry.metadata() else { continue };
        let idle = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .unwrap_or(Duration::ZERO);
        if meta.is_file() && idle >= age {
            match fs::remove_file(&path) {
                Ok(()) => removed.push(path),
                // Another builder removed it first.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(&path, e)),
            }
        }
    }
    removed.sort();
    Ok(removed)
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
