//! kish (crates.io, Turkish draughts, v1.1.7) as an oracle for Damspel's `turkish` variant.
//!
//! Random games are played from the start position and from random positions with kings. At
//! every position the legal moves of both engines are compared as multisets of
//! (from, to, captured set, promotes), in the paths convention: Damspel with `Duplicates::Keep`,
//! kish pushing one action per maximal capture sequence. The move Damspel plays is also played in
//! kish and the two resulting positions compared, so `Position::play` is checked as well.
//!
//! Layout: kish indexes a square `row * 8 + column` with a1 = 0 and h8 = 63 (kish's `square.rs`
//! and its crate docs); Damspel's all-squares layout is `y * W + x` (`geometry.rs`). Both are
//! checked at run time below (`layouts_agree`) rather than assumed.
//!
//! Only move generation is compared: kish's game-end rules (its `status()` draws with one piece
//! each, its perft counts a terminal node as 1) are not Damspel's concern here, and games simply
//! run until the side to move has no move or the ply limit is reached.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use crate::common;
use crate::common::kish_board::to_kish;

use damspel_notation::write_fen;
use damspel_rules::{Bits, Catalogue, Duplicates, Geometry, Move, Position, Rules, Square};
use kish::{Action, Board};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Games from the start position.
const START_GAMES: usize = 5_000;
/// Random positions with kings, each followed by a random game.
const RANDOM_POSITIONS: usize = 50_000;
/// Ply limit of a game (king endings can shuffle forever).
const MAX_PLIES: usize = 250;
/// Mismatches printed in full before the test gives up.
const MAX_REPORTED: usize = 10;

/// `from`/`to` of a capture that ends on its own starting square. kish stores a move as an XOR
/// delta, in which such a king's round trip leaves no trace of its square; both sides are keyed
/// with this marker instead (the captured set still identifies the move).
const ROUND_TRIP: u8 = u8::MAX;

/// A move as both engines can state it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Key {
    from: u8,
    to: u8,
    captured: u64,
    promotes: bool,
}

fn damspel_key(mv: &Move<u64>) -> Key {
    let (from, to) = if mv.from() == mv.to() {
        (ROUND_TRIP, ROUND_TRIP)
    } else {
        (mv.from().0, mv.to().0)
    };
    Key {
        from,
        to,
        captured: mv.captured(),
        promotes: mv.promotes(),
    }
}

/// The key of a kish action, read from its delta (kish's own `source()` / `destination()` are
/// undefined for a delta that moves no piece of the mover's, the round trip).
fn kish_key(board: &Board, action: &Action) -> Key {
    let us = board.turn as usize;
    let ours = board.state.pieces[us];
    let moved = action.delta.pieces[us];
    let captured = action.delta.pieces[1 - us];
    match moved.count_ones() {
        0 => Key {
            from: ROUND_TRIP,
            to: ROUND_TRIP,
            captured,
            promotes: false,
        },
        2 => {
            let from = moved & ours;
            let to = moved & !ours;
            assert!(
                from.count_ones() == 1 && to.count_ones() == 1,
                "kish action {action:?} moves no single piece"
            );
            let was_king = board.state.kings & from != 0;
            Key {
                from: from.trailing_zeros() as u8,
                to: to.trailing_zeros() as u8,
                captured,
                promotes: !was_king && action.delta.kings & to != 0,
            }
        }
        _ => panic!("kish action {action:?} moves more than one piece"),
    }
}

fn describe(geometry: &Geometry, key: &Key) -> String {
    let mut s = if key.from == ROUND_TRIP {
        "(round trip)".to_string()
    } else {
        format!(
            "{}{}{}",
            geometry.name(Square(key.from)),
            if key.captured == 0 { '-' } else { 'x' },
            geometry.name(Square(key.to))
        )
    };
    if key.captured != 0 {
        let names: Vec<String> = key
            .captured
            .squares()
            .map(|i| geometry.name(Square(i)))
            .collect();
        write!(s, " takes {}", names.join(",")).unwrap();
    }
    if key.promotes {
        s.push_str(" =K");
    }
    s
}

fn multiset(keys: impl Iterator<Item = Key>) -> HashMap<Key, usize> {
    let mut m = HashMap::new();
    for k in keys {
        *m.entry(k).or_insert(0) += 1;
    }
    m
}

#[derive(Default)]
struct Stats {
    positions: u64,
    moves: u64,
    capture_positions: u64,
    capture_moves: u64,
    multi_captures: u64,
    king_captures: u64,
    promotions: u64,
    round_trips: u64,
    /// Moves with more than one route (counted once per extra route).
    duplicate_routes: u64,
    longest_capture: u32,
    no_move_positions: u64,
    plays_checked: u64,
    mismatches: u64,
    /// Mismatches in which some move is missing or extra outright, not just its route count.
    set_mismatches: u64,
}

struct Oracle {
    rules: Rules<u64>,
    stats: Stats,
    list: Vec<Move<u64>>,
}

impl Oracle {
    fn geometry(&self) -> &Geometry {
        &self.rules.variant().geometry
    }

    /// Compares the move lists at `pos`; returns Damspel's moves with the kish actions of the
    /// same key, or `None` after reporting a mismatch.
    fn compare(&mut self, pos: &Position<u64>) -> Option<Vec<(Move<u64>, Action)>> {
        let board = to_kish(pos);
        let actions = board.actions();
        self.rules
            .legal_moves(pos, &mut self.list, Duplicates::Keep);

        let ours = multiset(self.list.iter().map(damspel_key));
        let theirs = multiset(actions.iter().map(|a| kish_key(&board, a)));
        self.stats.positions += 1;

        if ours != theirs {
            self.stats.mismatches += 1;
            if ours.len() != theirs.len() || ours.keys().any(|k| !theirs.contains_key(k)) {
                self.stats.set_mismatches += 1;
            }
            if self.stats.mismatches as usize <= MAX_REPORTED {
                let g = self.geometry();
                let mut report = format!(
                    "MISMATCH at {}\n  damspel {} moves, kish {} actions\n",
                    write_fen(g, pos),
                    self.list.len(),
                    actions.len()
                );
                let mut keys: Vec<&Key> = ours.keys().chain(theirs.keys()).collect();
                keys.sort();
                keys.dedup();
                for k in keys {
                    let (a, b) = (
                        ours.get(k).copied().unwrap_or(0),
                        theirs.get(k).copied().unwrap_or(0),
                    );
                    let what = if a < b { "missing" } else { "extra  " };
                    if a != b {
                        writeln!(
                            report,
                            "  {what} {}x {} (damspel {a}, kish {b})",
                            a.abs_diff(b),
                            describe(g, k)
                        )
                        .unwrap();
                    }
                }
                eprint!("{report}");
            }
            return None;
        }

        let s = &mut self.stats;
        s.moves += self.list.len() as u64;
        if self.list.is_empty() {
            s.no_move_positions += 1;
        }
        if self.list.first().is_some_and(|m| m.is_capture()) {
            s.capture_positions += 1;
            s.capture_moves += self.list.len() as u64;
        }
        for mv in &self.list {
            let n = mv.capture_count();
            s.longest_capture = s.longest_capture.max(n);
            s.multi_captures += u64::from(n > 1);
            s.promotions += u64::from(mv.promotes());
            s.round_trips += u64::from(n > 0 && mv.from() == mv.to());
            let king = pos.piece_at(mv.from()).is_some_and(|p| p.king);
            s.king_captures += u64::from(n > 0 && king);
        }
        s.duplicate_routes += ours.values().map(|&n| n as u64 - 1).sum::<u64>();

        let pairs = self
            .list
            .iter()
            .map(|mv| {
                let key = damspel_key(mv);
                let action = actions
                    .iter()
                    .find(|a| kish_key(&board, a) == key)
                    .expect("the multisets are equal");
                (*mv, *action)
            })
            .collect();
        Some(pairs)
    }

    /// Plays a random game from `pos`, comparing at every position.
    fn game(&mut self, mut pos: Position<u64>, rng: &mut StdRng) {
        for _ in 0..MAX_PLIES {
            let Some(pairs) = self.compare(&pos) else {
                return;
            };
            if pairs.is_empty() {
                return;
            }
            let (mv, action) = pairs[rng.random_range(0..pairs.len())];
            let board = to_kish(&pos);
            let next = pos.play(&mv);
            let mut kish_next = board.apply(&action);
            kish_next.swap_turn_();
            self.stats.plays_checked += 1;
            if to_kish(&next) != kish_next {
                self.stats.mismatches += 1;
                let g = self.geometry();
                eprintln!(
                    "PLAY MISMATCH at {} playing {}\n  damspel gives {:?}\n  kish gives    {:?}",
                    write_fen(g, &pos),
                    describe(g, &damspel_key(&mv)),
                    to_kish(&next),
                    kish_next
                );
                return;
            }
            pos = next;
        }
    }
}

fn turkish() -> Rules<u64> {
    let variant = Arc::new(Catalogue::builtin().get("turkish").expect("turkish"));
    Rules::<u64>::new(variant).expect("8x8 fits u64")
}

/// Both engines index a1 = 0, b1 = 1, ..., h8 = 63, and agree on the start position.
#[test]
fn layouts_agree() {
    let rules = turkish();
    let g = &rules.variant().geometry;
    for i in 0..64u8 {
        let name = g.name(Square(i));
        let theirs: kish::Square = name.parse().expect("kish parses a1..h8");
        assert_eq!(theirs.to_u8(), i, "{name}: kish {theirs:?}");
        assert_eq!(g.coords(Square(i)), (i % 8, i / 8), "{name}");
    }
    assert_eq!(g.name(Square(0)), "a1");
    assert_eq!(g.name(Square(63)), "h8");
    assert_eq!(to_kish(&Position::start(&rules)), Board::new_default());
}

#[test]
fn kish_oracle_random_games() {
    let started = std::time::Instant::now();
    let mut oracle = Oracle {
        rules: turkish(),
        stats: Stats::default(),
        list: Vec::new(),
    };
    // One round in CI; `DAMSPEL_KISH_ROUNDS=10` for a long run over other seeds.
    let rounds = common::rounds("DAMSPEL_KISH_ROUNDS");
    let start = Position::start(&oracle.rules);
    let mut from_start = 0;
    for round in 0..rounds {
        let mut rng = StdRng::seed_from_u64(0x0074_7572_6b69_7368 ^ round.wrapping_mul(0x9e37));
        let before = oracle.stats.positions;
        for _ in 0..START_GAMES {
            oracle.game(start, &mut rng);
        }
        from_start += oracle.stats.positions - before;
        for _ in 0..RANDOM_POSITIONS {
            // Half dense middlegames, half sparse endings.
            let men = if rng.random_bool(0.5) { 4..=14 } else { 0..=6 };
            let pos = common::random_position(&oracle.rules, &mut rng, men);
            oracle.game(pos, &mut rng);
        }
    }

    let s = &oracle.stats;
    eprintln!(
        "kish oracle, {rounds} round(s): {} positions ({} in {START_GAMES} games a round from \
         the start, {} in games from {RANDOM_POSITIONS} random positions a round with kings), {} \
         moves, {} positions with captures ({} capture moves: {} multi-captures, {} by kings, \
         longest {}, {} round trips), {} promotions, {} extra routes of duplicate moves, {} \
         positions without moves, {} plays checked, {} mismatches ({} with a move missing or \
         extra, the rest in route counts only), {:.1?}",
        s.positions,
        from_start,
        s.positions - from_start,
        s.moves,
        s.capture_positions,
        s.capture_moves,
        s.multi_captures,
        s.king_captures,
        s.longest_capture,
        s.round_trips,
        s.promotions,
        s.duplicate_routes,
        s.no_move_positions,
        s.plays_checked,
        s.mismatches,
        s.set_mismatches,
        started.elapsed()
    );
    assert_eq!(s.mismatches, 0, "Damspel and kish disagree (see above)");
    assert!(s.capture_positions > 10_000, "too few captures compared");
    assert!(s.duplicate_routes > 0, "no duplicate routes compared");
}
