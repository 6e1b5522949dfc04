//! What several command-line test files share.

use std::process::Command;

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
