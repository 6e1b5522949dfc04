//! The moves a session shows, games opened again from their rows, and listings within their
//! time.

use damspel_notation::parse_fen;
use damspel_rules::Catalogue;

use super::*;

fn position(variant: &str, fen: &str) -> (Rules<u64>, Position<u64>) {
    let rules = Rules::<u64>::new(Catalogue::builtin().get(variant).unwrap()).unwrap();
    let setup = parse_fen(&rules.variant().geometry, fen).unwrap();
    let pos = Position::from_setup(&rules, &setup).unwrap();
    (rules, pos)
}

/// Two flying kings among 25 kings (crates/conformance/data/worst-captures.tsv, once the
/// slowest row): some 100,000 jumps to list, far more than a millisecond.
const SLOW: &str = "W:WKc7,Kd7:BKc1,Kf1,Kb2,Ke2,Kf2,Kb3,d3,h3,Ka4,Kc4,f4,Kh4,Kb5,Kd5,Ke5,\
                    Kf5,g5,Kh5,Kb6,Kf6,Kb7,Ke7,Kf7,Kg7,Kh7,Kb8,Ke8";

fn meta(variant: &str, fen: &str) -> Meta {
    Meta {
        id: "test".into(),
        variant: variant.into(),
        white: Seat::Human,
        black: Seat::Human,
        engine_time: 1.0,
        level: 8,
        start_fen: fen.into(),
        created: String::new(),
        updated: String::new(),
        version: 0,
        tags: Vec::new(),
        keys: SeatKeys::default(),
        play: Default::default(),
        invite: None,
    }
}

/// The moves shown are those of the position shown, whether it is the one whose moves were
/// last listed (after a move played) or not (after going back): checked against a fresh
/// listing and against the side that moves.
#[test]
fn the_moves_shown_follow_the_position_shown() {
    let variant = Catalogue::builtin().get("international").unwrap();
    let fen = "W:W31-50:B1-20";
    let mut game = open(variant, meta("international", fen), &[], &[], None).unwrap();
    let (rules, start) = position("international", fen);
    let fresh = |pos: &Position<u64>| -> Vec<String> {
        let g = &rules.variant().geometry;
        let legal = rules.legal_moves_detailed(pos, Duplicates::Merge);
        format_all(g, &legal)
    };
    let shown = |game: &dyn Session| -> Vec<String> {
        game.state()
            .legal
            .iter()
            .map(|m| m.notation.clone())
            .collect()
    };
    assert_eq!(shown(game.as_ref()), fresh(&start));
    game.play("32-28").unwrap();
    let after = shown(game.as_ref());
    let mv = damspel_notation::parse_move(&rules, &start, "32-28").unwrap();
    assert_eq!(after, fresh(&start.play(&mv)));
    // Black's moves start on its squares 16-20 (White's men stand on 31-50).
    assert!(after
        .iter()
        .all(|m| (16..=20).contains(&m[..2].parse::<u32>().unwrap())));
    game.undo().unwrap();
    assert_eq!(shown(game.as_ref()), fresh(&start));
    game.play("33-29").unwrap();
    game.goto(1).unwrap();
    assert_eq!(shown(game.as_ref()), after, "back on the first line");
}

/// A game whose every move was accepted opens again: each position within the bound its
/// request had. Here 47 variations from a position that lists in some 20 ms, under a bound
/// of 150 ms: the replay of them all, once bounded as one request (and listing that
/// position again before each), went past it and the game could not be opened.
#[test]
fn a_game_of_accepted_moves_opens_again() {
    LIMITS_IN_TESTS.with(|l| l.set((Duration::from_millis(150), MAX_GAME_LISTING)));
    let variant = Catalogue::builtin().get("universal").unwrap();
    let mut game = open(variant.clone(), meta("universal", SLOW), &[], &[], None).unwrap();
    let moves: Vec<String> = game.state().legal.iter().map(|m| m.full.clone()).collect();
    assert!(moves.len() > 40, "{}", moves.len());
    for mv in &moves {
        game.play_at(0, mv).unwrap();
    }
    let tree = game.tree_text();
    let again = open(variant, game.meta().clone(), &[], &[], Some(&tree));
    LIMITS_IN_TESTS.with(|l| l.set((MOVE_LIST_TIME, MAX_GAME_LISTING)));
    let again = again.unwrap();
    assert_eq!(again.tree_text(), tree);
}

/// A game whose positions took more than `MAX_GAME_LISTING` to list in all takes no new
/// move (it would take that long to open again); moves already there can be followed.
#[test]
fn a_game_slow_to_reopen_takes_no_new_move() {
    let variant = Catalogue::builtin().get("universal").unwrap();
    let mut game = open(variant, meta("universal", SLOW), &[], &[], None).unwrap();
    let moves: Vec<String> = game.state().legal.iter().map(|m| m.full.clone()).collect();
    game.play_at(0, &moves[0]).unwrap();
    // Listing the start alone took more than a microsecond.
    LIMITS_IN_TESTS.with(|l| l.set((MOVE_LIST_TIME, Duration::from_micros(1))));
    let refused = game.play_at(0, &moves[1]);
    let followed = game.play_at(0, &moves[0]);
    LIMITS_IN_TESTS.with(|l| l.set((MOVE_LIST_TIME, MAX_GAME_LISTING)));
    let refused = refused.unwrap_err();
    assert_eq!(refused.status, axum::http::StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        refused.message.contains("to list in all"),
        "{}",
        refused.message
    );
    followed.unwrap();
}

#[test]
fn a_listing_over_its_time_is_refused_with_a_reason() {
    let (rules, pos) = position("universal", SLOW);
    let soon = Instant::now() + Duration::from_millis(1);
    let refused = listed(&rules, &pos, soon).unwrap_err();
    assert_eq!(refused.status, axum::http::StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        refused.message.contains("went past the 5 s"),
        "{}",
        refused.message
    );
}

#[test]
fn a_listing_within_its_time_is_the_whole_list() {
    let (rules, pos) = position("universal", SLOW);
    let all = listed(&rules, &pos, listing_deadline()).unwrap();
    assert_eq!(all, rules.legal_moves_detailed(&pos, Duplicates::Merge));
    // A small listing never looks at the clock: a millisecond is plenty, however busy.
    let (rules, start) = position("international", "W:W31-50:B1-20");
    let soon = Instant::now() + Duration::from_millis(1);
    let quick = listed(&rules, &start, soon).unwrap();
    // ../shared/reference/perft.tsv, row `international W:W31-50:B1-20 1 9` (dctl).
    assert_eq!(quick.len(), 9);
}
