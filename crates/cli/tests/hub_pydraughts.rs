//! pydraughts' Hub client (an independent implementation of the GUI side and of the rules)
//! plays complete games against `damspel hub` in every variant the two share: International
//! (pydraughts' `standard`), Russian, Brazilian, American (its `english`) and Turkish, two
//! games each: `scripts/hub_pydraughts.py`, run with the Python of `DAMSPEL_PYTHON` (which
//! must have `pydraughts` installed; `.ci/run` installs 0.6.7). Skipped, with a notice, when
//! the variable is unset. On 2 cores the ten games take about 25 s (20 ms or depth 4 a move).

use std::path::Path;
use std::process::Command;

fn pydraughts_plays(variants: &[&str], games: usize) {
    let Some(python) = std::env::var_os("DAMSPEL_PYTHON").filter(|p| !p.is_empty()) else {
        eprintln!("skipped: set DAMSPEL_PYTHON to a Python with pydraughts to run this test");
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/hub_pydraughts.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_damspel"))
        .arg(games.to_string())
        .args(variants)
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
    let total = games * variants.len();
    assert!(
        stdout.contains(&format!("{total} complete games")),
        "unexpected output:\n{stdout}\n{stderr}"
    );
}

#[test]
fn pydraughts_plays_complete_games_against_damspel_hub() {
    pydraughts_plays(&["standard"], 2);
}

#[test]
fn pydraughts_plays_complete_8x8_games_against_damspel_hub() {
    // pydraughts' own variant names, as its users pass them to `configure`.
    pydraughts_plays(&["russian", "brazilian", "english", "turkish"], 2);
}
