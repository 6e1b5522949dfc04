//! Reading moves in a position whose legal moves take long to list (two flying kings among 25
//! kings, a row of crates/conformance/data/worst-captures.tsv, once the slowest: some 100,000
//! jumps now, 5 million when it was found):
//! given a deadline, `parse_move_until` and `replay_until` give up with an error that says so,
//! as the server's imports need, instead of running on.

use std::sync::Arc;
use std::time::{Duration, Instant};

use damspel_notation::pdn::{read_game, replay_until};
use damspel_notation::{parse_fen, parse_move_until, MoveTextError};
use damspel_rules::{Catalogue, Position, Rules, Until};

const SLOW: &str = "W:WKc7,Kd7:BKc1,Kf1,Kb2,Ke2,Kf2,Kb3,d3,h3,Ka4,Kc4,f4,Kh4,Kb5,Kd5,Ke5,Kf5,\
                    g5,Kh5,Kb6,Kf6,Kb7,Ke7,Kf7,Kg7,Kh7,Kb8,Ke8";

fn universal() -> Arc<Rules<u64>> {
    Arc::new(Rules::new(Catalogue::builtin().get("universal").unwrap()).unwrap())
}

#[test]
fn a_move_read_past_its_deadline_is_given_up() {
    let rules = universal();
    let setup = parse_fen(&rules.variant().geometry, SLOW).unwrap();
    let pos = Position::from_setup(&rules, &setup).unwrap();
    let passed = Until::deadline(Instant::now());
    let e = parse_move_until(&rules, &pos, "c7xe5", passed).unwrap_err();
    assert!(matches!(e, MoveTextError::Stopped { .. }), "{e:?}");
    assert!(e.to_string().contains("given up"), "{e}");
    // Without a deadline the same text is read to its end: legal or not, never given up.
    let read = parse_move_until(&rules, &pos, "c7xe5", Until::NEVER);
    assert!(
        !matches!(read, Err(MoveTextError::Stopped { .. })),
        "{read:?}"
    );
}

#[test]
fn a_replay_past_its_deadline_stops_at_the_move_being_read() {
    let rules = universal();
    let text = format!("[GameType \"universal\"]\n[FEN \"{SLOW}\"]\n1. c7xe5 *\n");
    let game = read_game(&text).unwrap();
    let soon = Until::deadline(Instant::now() + Duration::from_millis(1));
    let replayed = replay_until(&game, &rules, soon);
    let error = replayed.error.expect("the replay gives up");
    assert_eq!(error.ply, 1);
    assert!(error.reason.contains("given up"), "{}", error.reason);
}
