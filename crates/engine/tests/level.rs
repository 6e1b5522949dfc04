//! Levels for people: the low levels stray from the best move, never into an absurd blunder.

use std::sync::Arc;

use damspel_engine::{Engine, Level, Limits, Silent};
use damspel_notation::{format_move, parse_fen};
use damspel_rules::{Catalogue, Game, Position, Rules};

fn game(id: &str, fen: &str) -> Game<u64> {
    let rules = Arc::new(Rules::<u64>::new(Catalogue::builtin().get(id).unwrap()).unwrap());
    let setup = parse_fen(&rules.variant().geometry, fen).unwrap();
    let pos = Position::from_setup(&rules, &setup).unwrap();
    Game::from_position(rules, pos)
}

/// The moves level `n` plays here with seeds 0..seeds, as text.
fn choices(g: &Game<u64>, n: u32, seeds: u64) -> Vec<String> {
    let mut engine = Engine::new(g.rules_arc(), 4);
    let level = Level::new(n).unwrap();
    (0..seeds)
        .map(|seed| {
            let r = level.choose(&mut engine, g, &Limits::default(), seed, &mut Silent);
            format_move(g.rules(), g.position(), &r.best.expect("a move"))
        })
        .collect()
}

/// The moves of the opponent after `text` that capture.
fn replies_capturing(g: &Game<u64>, text: &str) -> usize {
    let mv = damspel_notation::parse_move(g.rules(), g.position(), text).unwrap();
    let after = g.position().play(&mv);
    g.rules()
        .moves(&after)
        .iter()
        .filter(|m| m.is_capture())
        .count()
}

#[test]
fn no_level_walks_into_a_capture_it_could_avoid() {
    // International, White to move: men on 31 (b4) and 32 (d4), Black's man on 22 (d6), the
    // rest far away. 32-28 (e5) and 31-27 (c5) put a man between d6 and an empty square behind
    // it (f4, b4): Black takes it at once and nothing takes back. Every other move leaves Black
    // no capture (checked by the move generator below).
    let g = game("international", "W:W31,32,45,49,50:B22,1,2,3");
    assert!(replies_capturing(&g, "32-28") > 0 && replies_capturing(&g, "31-27") > 0);
    assert_eq!(
        replies_capturing(&g, "32-27") + replies_capturing(&g, "45-40"),
        0
    );
    for n in 1..=7 {
        let played = choices(&g, n, if n <= 3 { 60 } else { 4 });
        for mv in &played {
            assert!(
                replies_capturing(&g, mv) == 0,
                "level {n} played {mv}, losing a man for nothing ({played:?})"
            );
        }
    }
}

#[test]
fn no_level_takes_one_man_when_it_could_take_two() {
    // Russian (free choice among captures, §Russian: no majority rule): White's man on c3 can
    // take b4 (c3xa5) or d4 and f6 (c3xe5xg7).
    let g = game("russian", "W:Wc3,g1:Bb4,d4,f6,b8");
    let counts: Vec<(String, u32)> = g
        .legal_moves()
        .iter()
        .map(|m| (format_move(g.rules(), g.position(), m), m.capture_count()))
        .collect();
    assert!(counts.contains(&("c3xg7".into(), 2)) && counts.contains(&("c3xa5".into(), 1)));
    for n in 1..=3 {
        let played = choices(&g, n, 60);
        assert!(
            played.iter().all(|m| m == "c3xg7"),
            "level {n} took one man instead of two: {played:?}"
        );
    }
}

#[test]
fn the_low_levels_vary_their_moves_and_repeat_with_a_seed() {
    // From the start position level 1 has several near-equal moves: different seeds give
    // different games, the same seed the same move.
    let g = game("international", "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20");
    let a = choices(&g, 1, 12);
    let distinct: std::collections::BTreeSet<&String> = a.iter().collect();
    assert!(distinct.len() >= 3, "{a:?}");
    assert_eq!(a, choices(&g, 1, 12));
}

#[test]
fn no_time_left_still_keeps_out_blunders() {
    // The position above with only the four men's moves: the generator lists 31-27 first, a
    // blunder; with no time for the level's own searches the sanity check must still decide.
    let g = game("international", "W:W31,32:B22,1,2,3");
    assert!(replies_capturing(&g, "31-27") > 0 && replies_capturing(&g, "32-28") > 0);
    let limits = Limits::move_time(std::time::Duration::from_nanos(1));
    let mut engine = Engine::new(g.rules_arc(), 4);
    for n in 1..=7 {
        for seed in 0..8 {
            let r = Level::new(n)
                .unwrap()
                .choose(&mut engine, &g, &limits, seed, &mut Silent);
            let mv = format_move(g.rules(), g.position(), &r.best.unwrap());
            assert_eq!(replies_capturing(&g, &mv), 0, "level {n} played {mv}");
        }
    }
}
