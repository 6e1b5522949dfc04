//! The match runner's Hub client (`--engine hub:COMMAND`) playing real engines: `damspel hub`
//! itself (always), and `dame hub` from the PyPI package dame-rs when `DAME_BIN` names its
//! `dame` executable (skipped with a notice otherwise). Every game must end by the rules or
//! the move limit: no engine may forfeit, and every move was checked legal by the runner. An
//! engine that floods the runner forfeits at once.

mod common;

use common::{damspel, scratch};

/// Runs a match and checks its report and PDN: `games` games, none forfeited.
fn check_match(hub_command: &str, other: &str, games: usize, extra: &[&str]) -> String {
    let scratch = scratch("hub-match");
    let dir = scratch.path();
    let pdn = dir.join(format!("games-{}.pdn", other.replace([':', ',', '='], "_")));
    let pdn_arg = pdn.display().to_string();
    let spec = format!("hub:{hub_command}");
    let games_arg = games.to_string();
    let mut args = vec![
        "match",
        "international",
        "--engine",
        &spec,
        "--engine",
        other,
        "--games",
        &games_arg,
        "--concurrency",
        "1",
        "--pdn",
        &pdn_arg,
    ];
    args.extend_from_slice(extra);
    let (stdout, stderr, ok) = damspel(&args);
    assert!(ok, "match failed:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains(&format!("({games} games)")),
        "{stdout}\n{stderr}"
    );
    assert!(!stdout.contains("forfeits"), "a forfeit:\n{stdout}");
    let text = std::fs::read_to_string(&pdn).unwrap();
    let results: Vec<&str> = text.lines().filter(|l| l.starts_with("[Result ")).collect();
    assert_eq!(results.len(), games, "{text}");
    for r in &results {
        assert!(
            [
                "[Result \"1-0\"]",
                "[Result \"0-1\"]",
                "[Result \"1/2-1/2\"]",
                "[Result \"2-0\"]",
                "[Result \"0-2\"]",
                "[Result \"1-1\"]"
            ]
            .contains(r),
            "{r}"
        );
    }
    for t in text.lines().filter(|l| l.starts_with("[Termination ")) {
        assert!(!t.contains("forfeit"), "{t}");
    }
    stdout
}

#[test]
fn the_hub_client_plays_damspel_hub() {
    let command = format!("{} hub", env!("CARGO_BIN_EXE_damspel"));
    let stdout = check_match(&command, "random", 2, &["--depth", "2"]);
    // Damspel at depth 2 beats a random mover.
    assert!(stdout.contains(": 2 wins"), "{stdout}");
    check_match(
        &command,
        "damspel:depth=2",
        2,
        &["--depth", "2", "--openings", "6"],
    );
}

#[test]
fn the_hub_client_plays_dame() {
    let Some(dame) = std::env::var_os("DAME_BIN").filter(|p| !p.is_empty()) else {
        eprintln!("skipped: set DAME_BIN to dame-rs's `dame` executable to run this test");
        return;
    };
    let command = format!("\"{}\" hub", dame.to_string_lossy());
    // Depth limits keep the test free of timing: `--depth` bounds both engines.
    check_match(&command, "damspel:depth=3", 4, &["--depth", "3"]);
    check_match(
        &command,
        "damspel:depth=2",
        2,
        &["--depth", "2", "--openings", "8", "--seed", "7"],
    );
}

#[test]
fn hub_specs_are_checked() {
    let (_, stderr, ok) = damspel(&[
        "match",
        "international",
        "--engine",
        "hub:",
        "--engine",
        "random",
    ]);
    assert!(
        !ok && stderr.contains("needs the engine's command line"),
        "{stderr}"
    );
    let (_, stderr, ok) = damspel(&[
        "match",
        "international",
        "--engine",
        "hub:dame hub",
        "--engine",
        "random",
        "--time=0",
    ]);
    assert!(
        !ok && stderr.contains("not a number of seconds from 0.001 to 86400"),
        "{stderr}"
    );
    // An engine that cannot be started loses every game; the match still reports.
    let (stdout, stderr, ok) = damspel(&[
        "match",
        "international",
        "--engine",
        "hub:/nonexistent/engine hub",
        "--engine",
        "random",
        "--games",
        "2",
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains(": 0 wins, 0 draws, 2 losses"), "{stdout}");
    assert!(stdout.contains("cannot start"), "{stdout}");
}

/// An engine that writes an endless line forfeits at the line bound, at once (the match read
/// the line whole: 450 MB a second, until the handshake's minute was up).
#[cfg(unix)]
#[test]
fn an_endless_line_from_an_engine_is_a_forfeit() {
    let (out, err, ok) = damspel(&[
        "match",
        "international",
        "--engine",
        "hub:cat /dev/zero",
        "--engine",
        "random",
        "--games",
        "1",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("1 losses"), "{out}");
    assert!(out.contains("a line longer than 1048576 bytes"), "{out}");
}
