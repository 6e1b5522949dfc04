//! What several command-line test files share.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

/// Runs the binary with `args`: its standard output, its standard error, and whether it
/// succeeded.
pub fn damspel(args: &[&str]) -> (String, String, bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_damspel"))
        .args(args)
        .output()
        .expect("the binary runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    )
}

/// A folder of the test's own in the temporary folder (`damspel-NAME-...`), removed with what
/// it holds when dropped: tests leave nothing behind.
pub fn scratch(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("damspel-{name}-"))
        .tempdir()
        .expect("a temporary folder")
}

/// A path `NAME` in a scratch folder of its own, the folder removed when this is dropped. It
/// reads as the path (`Deref`), so a test uses it where it used a `PathBuf`.
pub struct ScratchPath {
    path: PathBuf,
    _folder: TempDir,
}

impl ScratchPath {
    /// The path, with nothing written there yet.
    pub fn new(folder: &str, name: &str) -> ScratchPath {
        let dir = scratch(folder);
        ScratchPath {
            path: dir.path().join(name),
            _folder: dir,
        }
    }

    /// The path, with `bytes` written there.
    pub fn written(folder: &str, name: &str, bytes: impl AsRef<[u8]>) -> ScratchPath {
        let file = ScratchPath::new(folder, name);
        std::fs::write(&file.path, bytes).expect("a scratch file written");
        file
    }
}

impl Deref for ScratchPath {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for ScratchPath {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<OsStr> for ScratchPath {
    fn as_ref(&self) -> &OsStr {
        self.path.as_os_str()
    }
}
