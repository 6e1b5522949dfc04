//! pydraughts' Hub client (an independent implementation of the GUI side and of the rules)
//! plays complete International games against `damspel hub`: `scripts/hub_pydraughts.py`,
//! run with the Python of `DAMSPEL_PYTHON` (which must have `pydraughts` installed). Skipped,
//! with a notice, when the variable is unset.

use std::path::Path;
use std::process::Command;

#[test]
fn pydraughts_plays_complete_games_against_damspel_hub() {
    let Some(python) = std::env::var_os("DAMSPEL_PYTHON").filter(|p| !p.is_empty()) else {
        eprintln!("skipped: set DAMSPEL_PYTHON to a Python with pydraughts to run this test");
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/hub_pydraughts.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_damspel"))
        .arg("2")
        .output()
        .expect("DAMSPEL_PYTHON runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "the pydraughts driver failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(
        stdout.contains("2 complete games"),
        "unexpected output:\n{stdout}\n{stderr}"
    );
}
