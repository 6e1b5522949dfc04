//! pydraughts' clients against the real binary. pydraughts (PyPI) is an independent
//! implementation of the GUI side of the Hub protocol, of a DXP client and of the rules; draughts
//! bots and tournament scripts use it. Its scripts run with the Python of `DAMSPEL_PYTHON`
//! (which must have `pydraughts` installed; `.ci/run` installs 0.6.7); skipped, with a notice,
//! when the variable is unset.
//!
//! * Hub: pydraughts' Hub client plays complete games against `damspel hub` in every variant
//!   the two share: International (pydraughts' `standard`), Russian, Brazilian, American (its
//!   `english`) and Turkish, two games each (`scripts/hub_pydraughts.py`; on 2 cores the ten
//!   games take about 25 s, 20 ms or depth 4 a move).
//! * DXP: pydraughts' DXP client plays three International games against one
//!   `damspel dxp --listen --keep-listening`, a connection per game as bots make them, Damspel
//!   White, Black, then White from a position of random play, the first game taken back once
//!   to move 3 (pydraughts' `takeback`) and played on (`scripts/dxp_pydraughts.py`;
//!   some 25 s); then three such games at the same time against `--peers 3`, as a bot playing
//!   several games makes them (`--at-once`; some 10 s).

use std::path::Path;
use std::process::Command;

/// Runs `scripts/SCRIPT` with the binary and `args`; its standard output when it succeeds, or
/// None when DAMSPEL_PYTHON is unset.
fn run_script(script: &str, args: &[String]) -> Option<String> {
    let Some(python) = std::env::var_os("DAMSPEL_PYTHON").filter(|p| !p.is_empty()) else {
        eprintln!("skipped: set DAMSPEL_PYTHON to a Python with pydraughts to run this test");
        return None;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts")
        .join(script);
    let out = Command::new(&python)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_damspel"))
        .args(args)
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
    Some(stdout.into_owned())
}

fn pydraughts_plays(variants: &[&str], games: usize) {
    let mut args = vec![games.to_string()];
    args.extend(variants.iter().map(|v| v.to_string()));
    let Some(stdout) = run_script("hub_pydraughts.py", &args) else {
        return;
    };
    let total = games * variants.len();
    assert!(
        stdout.contains(&format!("{total} complete games")),
        "unexpected output:\n{stdout}"
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

#[test]
fn pydraughts_dxp_client_plays_games_against_one_listening_damspel() {
    let Some(stdout) = run_script("dxp_pydraughts.py", &["3".to_string()]) else {
        return;
    };
    assert!(
        stdout.contains("3 complete games"),
        "unexpected output:\n{stdout}"
    );
}

#[test]
fn pydraughts_dxp_clients_play_games_at_once_against_one_listening_damspel() {
    let args = ["3".to_string(), "--at-once".to_string()];
    let Some(stdout) = run_script("dxp_pydraughts.py", &args) else {
        return;
    };
    assert!(
        stdout.contains("3 complete games"),
        "unexpected output:\n{stdout}"
    );
}
