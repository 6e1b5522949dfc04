//! The user's files, read up to a bound: a device or a pipe given as a file (`/dev/zero`,
//! `/dev/stdin`) is refused at its bound instead of read until memory runs out (the size a
//! file system gives is checked before, but a device has none). Files a command writes after
//! long work are opened before it (`Output`).

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

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

/// Text from a file or a peer (a PDN's tags and comments, a DXP peer's names and chat) as the
/// terminal is given it: a control character is shown as `?`, since a terminal obeys escape
/// sequences (retitle it, clear the screen, colour what follows), a carriage return writes over
/// what came before and a tab shifts a table's columns. Files written keep the text: it is data.
pub fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// `value` as pretty JSON, with DEL and the C1 control characters (U+0080 to U+009F, which some
/// terminals obey as escape sequences: U+009B starts one) written as `\u` escapes too, as JSON
/// already writes the C0 ones. The same data to a JSON reader; inert to a terminal.
pub fn json_text<T: serde::Serialize + ?Sized>(value: &T) -> Result<String> {
    let text = serde_json::to_string_pretty(value)?;
    // Outside strings pretty JSON has no control but its line breaks, and serde_json has
    // escaped every C0 one in strings, so every other control left is in a string.
    Ok(text
        .chars()
        .fold(String::with_capacity(text.len()), |mut out, c| {
            if c.is_control() && c != '\n' {
                out.push_str(&format!("\\u{:04x}", c as u32));
            } else {
                out.push(c);
            }
            out
        }))
}

/// Whether `a` and `b` are the same file on disk, however named (`x.pdn`, `./x.pdn`, a
/// symbolic or a hard link: the same device and inode). Only regular files: a terminal or a
/// pipe (`/dev/stdin`, `/dev/stdout`) may be both read and written.
pub fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    if !(ma.is_file() && mb.is_file()) {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        ma.dev() == mb.dev() && ma.ino() == mb.ino()
    }
    #[cfg(not(unix))]
    {
        std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
    }
}

/// A file a command writes after long work (a review, a tuning, a match's games), opened before
/// the work starts: a path that cannot be written (a folder, a missing folder, no permission)
/// is said at once instead of after minutes or hours of searching, which were then lost. What
/// the file held stays until it is replaced (a match replaces it at once, then adds each game).
/// A file it created and wrote nothing to is removed when the command gives up (it is dropped
/// so): a failed `claims --out NEW.md` left an empty NEW.md behind.
pub struct Output {
    file: File,
    path: PathBuf,
    /// Whether this opening created the file, and nothing has been written to it since.
    created_unwritten: bool,
}

impl Output {
    /// Opens `path`, refused when it is one of the command's `inputs` (replacing it would lose
    /// what is read: a review's file of games, a match's openings) before anything is written.
    pub fn open(path: &Path, inputs: &[&Path]) -> Result<Output> {
        if let Some(input) = inputs.iter().find(|input| same_file(path, input)) {
            bail!(
                "cannot write {}: it is the input {}, which would be replaced; name another file",
                path.display(),
                input.display()
            );
        }
        // Created here only when it did not exist (`create_new`), so that one made by another
        // meanwhile is never taken for ours and removed.
        let open = |new: bool| {
            let mut options = std::fs::OpenOptions::new();
            options.write(true);
            if new {
                options.create_new(true);
            } else {
                options.create(true).truncate(false);
            }
            options.open(path)
        };
        let (file, created) = match open(true) {
            Ok(file) => Ok((file, true)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                open(false).map(|file| (file, false))
            }
            Err(e) => Err(e),
        }
        .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(Output {
            file,
            path: path.to_path_buf(),
            created_unwritten: created,
        })
    }

    /// Replaces what the file held with `bytes` (a device or a pipe, such as `/dev/stdout`,
    /// holds nothing to replace: it is written to): the command's result, kept even if empty.
    pub fn replace(&mut self, bytes: &[u8]) -> Result<()> {
        self.clear()?;
        self.created_unwritten = false;
        self.append(bytes)
    }

    /// Empties the file before results are added to it (`append`); a file this created stays
    /// removable until something is added.
    pub fn clear(&mut self) -> Result<()> {
        if self.file.metadata().is_ok_and(|m| m.is_file()) {
            self.file
                .set_len(0)
                .and_then(|()| self.file.rewind())
                .with_context(|| format!("cannot write {}", self.path.display()))?;
        }
        Ok(())
    }

    /// Adds `bytes` at the end, on disk at once (a match's games as each ends: an interrupted
    /// match keeps the games it played).
    pub fn append(&mut self, bytes: &[u8]) -> Result<()> {
        if !bytes.is_empty() {
            self.created_unwritten = false;
        }
        self.file
            .write_all(bytes)
            .and_then(|()| self.file.flush())
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if self.created_unwritten {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
