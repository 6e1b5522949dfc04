//! The search on positions whose answer follows from the rules.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use damspel_engine::{Engine, Info, Limits, Score, ScoreKind, Silent};
use damspel_notation::{format_move, parse_fen};
use damspel_rules::{Catalogue, Game, Position, Rules};

fn game(id: &str, fen: &str) -> Game<u64> {
    let rules = Arc::new(Rules::<u64>::new(Catalogue::builtin().get(id).unwrap()).unwrap());
    let setup = parse_fen(&rules.variant().geometry, fen).unwrap();
    let pos = Position::from_setup(&rules, &setup).unwrap();
    Game::from_position(rules, pos)
}

fn best(game: &Game<u64>, limits: &Limits) -> (String, Score) {
    let mut engine = Engine::new(game.rules_arc(), 8);
    let result = engine.search(game, limits, &mut Silent);
    let mv = result.best.expect("a move");
    (
        format_move(game.rules(), game.position(), &mv),
        result.score,
    )
}

#[test]
fn capturing_the_last_piece_is_a_win_in_one() {
    // §0 End of game: the side left without pieces cannot move and loses.
    let g = game("international", "W:W28,50:B23");
    let (mv, score) = best(&g, &Limits::depth(4));
    assert_eq!(mv, "28x19");
    assert_eq!(score.kind(), ScoreKind::WinIn(1));
}

#[test]
fn a_lost_position_is_a_loss_in_two() {
    // International (4.01). Black's last man, on 32 (d4), must step to 37 (c3) or 38 (e3); every
    // such square is next to a White man on 41/42/43 with an empty square behind, so White then
    // captures the last piece and Black, without pieces, loses (§0): a loss in 2 plies.
    let g = game("international", "B:W41,42,43,47,48,49:B32");
    let (_, score) = best(&g, &Limits::depth(6));
    assert_eq!(score.kind(), ScoreKind::LossIn(2), "{score:?}");
}

#[test]
fn a_waiting_move_wins_in_three() {
    // The same, with White to move and a king on 1 (b10) that neither attacks 32 nor can be
    // attacked: White has no capture, so the fastest win is a quiet king move (ply 1), Black's
    // forced step (ply 2) and the capture of the last piece (ply 3).
    let g = game("international", "W:WK1,41,42,43,47,48,49:B32");
    let (_, score) = best(&g, &Limits::depth(6));
    assert_eq!(score.kind(), ScoreKind::WinIn(3), "{score:?}");
}

#[test]
fn one_piece_each_is_a_draw_in_turkish() {
    // 1.01: White's man on d4 must capture d5 (its only move), which leaves one piece each: a
    // draw by 1.01 End, not a material gain.
    let g = game("turkish", "W:Wd4:Bd5,a8");
    let (mv, score) = best(&g, &Limits::depth(5));
    assert_eq!(mv, "d4xd6");
    assert_eq!(score, Score::DRAW);
}

#[test]
fn fixed_depth_search_repeats_exactly() {
    let g = game(
        "international",
        "W:W26,27,34,35,37-43,45-50:B1-5,7-13,15-18,23,30",
    );
    let run = || {
        let mut engine = Engine::new(g.rules_arc(), 8);
        let r = engine.search(&g, &Limits::depth(8), &mut Silent);
        (r.best, r.score, r.nodes, r.pv)
    };
    assert_eq!(run(), run());
}

#[test]
fn every_iteration_is_reported() {
    let g = Game::new(Arc::new(
        Rules::<u64>::new(Catalogue::builtin().get("dameo").unwrap()).unwrap(),
    ));
    let mut engine = Engine::new(g.rules_arc(), 8);
    let mut depths = Vec::new();
    let mut report = |info: &Info<u64>| {
        assert!(!info.pv.is_empty());
        depths.push(info.depth);
    };
    let result = engine.search(&g, &Limits::depth(5), &mut report);
    assert_eq!(depths, vec![1, 2, 3, 4, 5]);
    assert!(g.legal_moves().contains(&result.best.unwrap()));
}

#[test]
fn stop_ends_an_infinite_search_with_a_legal_move() {
    let g = Game::new(Arc::new(
        Rules::<u64>::new(Catalogue::builtin().get("turkish").unwrap()).unwrap(),
    ));
    let mut engine = Engine::new(g.rules_arc(), 8);
    engine.set_threads(2);
    let stop = engine.stop_flag();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        stop.store(true, Ordering::Relaxed);
    });
    let limits = Limits {
        infinite: true,
        ..Limits::default()
    };
    let result = engine.search(&g, &limits, &mut Silent);
    stopper.join().unwrap();
    assert!(g.legal_moves().contains(&result.best.unwrap()));
}

#[test]
fn node_and_time_limits_stop_the_search() {
    let g = Game::new(Arc::new(
        Rules::<u64>::new(Catalogue::builtin().get("international").unwrap()).unwrap(),
    ));
    let mut engine = Engine::new(g.rules_arc(), 8);
    let result = engine.search(
        &g,
        &Limits {
            nodes: Some(20_000),
            ..Limits::default()
        },
        &mut Silent,
    );
    // Checked every 1024 nodes.
    assert!(result.nodes <= 20_000 + 1024, "{}", result.nodes);
    assert!(g.legal_moves().contains(&result.best.unwrap()));
    let result = engine.search(
        &g,
        &Limits::move_time(Duration::from_millis(50)),
        &mut Silent,
    );
    assert!(g.legal_moves().contains(&result.best.unwrap()));
}

#[test]
fn a_finished_position_has_no_best_move() {
    let g = game("turkish", "W:Wa7:Ba8,b7,c7");
    let mut engine = Engine::new(g.rules_arc(), 8);
    let result = engine.search(&g, &Limits::depth(3), &mut Silent);
    assert!(result.best.is_none());
    assert_eq!(result.score.kind(), ScoreKind::LossIn(0));
}

#[test]
fn a_stop_raised_before_the_search_is_not_lost() {
    // A GUI may send `stop` right after `go`, before the search thread starts: the search must
    // still end (it would run forever with infinite limits otherwise) with a legal move.
    let g = Game::new(Arc::new(
        Rules::<u64>::new(Catalogue::builtin().get("turkish").unwrap()).unwrap(),
    ));
    let mut engine = Engine::new(g.rules_arc(), 8);
    engine.stop_flag().store(true, Ordering::Relaxed);
    let limits = Limits {
        infinite: true,
        ..Limits::default()
    };
    let result = engine.search(&g, &limits, &mut Silent);
    assert!(g.legal_moves().contains(&result.best.unwrap()));
    assert!(
        !engine.stop_flag().load(Ordering::Relaxed),
        "lowered after the search"
    );
}

/// Collects the lines of a MultiPV search's last iteration.
struct Lines(Vec<(u32, Vec<damspel_engine::PvLine<u64>>)>);

impl damspel_engine::Reporter<u64> for Lines {
    fn iteration(&mut self, _: &Info<u64>) {}
    fn lines(&mut self, depth: u32, lines: &[damspel_engine::PvLine<u64>]) {
        self.0.push((depth, lines.to_vec()));
    }
}

#[test]
fn multipv_finds_distinct_root_moves_best_first() {
    // The waiting-move position above: the king's quiet moves win in 3 (ply 1 a waiting move,
    // ply 2 Black's forced step, ply 3 the capture of the last piece).
    let g = game("international", "W:WK1,41,42,43,47,48,49:B32");
    let legal: Vec<_> = {
        let mut v = Vec::new();
        g.rules()
            .legal_moves(g.position(), &mut v, damspel_rules::Duplicates::Merge);
        v
    };
    let mut engine = Engine::new(g.rules_arc(), 8);
    engine.set_multipv(3);
    let mut seen = Lines(Vec::new());
    let result = engine.search(&g, &Limits::depth(6), &mut seen);
    // The search stops once the forced win is proven (depth 3 at least).
    let (depth, lines) = seen.0.last().expect("lines were reported");
    assert!(*depth >= 3, "{depth}");
    assert_eq!(lines.len(), 3);
    let firsts: Vec<_> = lines.iter().map(|l| l.pv[0]).collect();
    for (i, mv) in firsts.iter().enumerate() {
        assert!(legal.contains(mv), "line {i} starts with a legal move");
        assert!(!firsts[..i].contains(mv), "line {i} repeats a root move");
    }
    assert!(lines.windows(2).all(|w| w[0].score >= w[1].score));
    assert_eq!(lines[0].score.kind(), ScoreKind::WinIn(3));
    assert_eq!(result.best, Some(firsts[0]));

    // As many lines as legal moves: every legal move gets a line, once.
    engine.set_multipv(legal.len());
    let mut all = Lines(Vec::new());
    engine.search(&g, &Limits::depth(3), &mut all);
    let (_, lines) = all.0.last().unwrap();
    let mut got: Vec<_> = lines.iter().map(|l| l.pv[0]).collect();
    let mut want = legal.clone();
    got.sort_by_key(|m| format!("{m:?}"));
    want.sort_by_key(|m| format!("{m:?}"));
    assert_eq!(got, want);
}

// Endgame tables (issue 13, item 5). The expected values are the tables' own, built here by
// the tablebase crate (checked there against a naive retrograde oracle), never the engine's.

mod tables {
    use std::path::Path;
    use std::sync::Arc;

    use damspel_engine::{Engine, Info, Limits, Reporter, Score, Silent};
    use damspel_rules::game::Outcome;
    use damspel_rules::{Catalogue, Color, Game, Move, Piece, Position, Rules, Setup, Square};
    use damspel_tablebase::{build, Material, Tablebase, Value};

    /// Keeps the root's moves the search tells.
    struct RootList(Vec<Move<u64>>);

    impl Reporter<u64> for RootList {
        fn iteration(&mut self, _: &Info<u64>) {}

        fn root_moves(&mut self, moves: &[Move<u64>]) {
            self.0 = moves.to_vec();
        }
    }

    fn tables(id: &str, dir: &Path) -> (Arc<Rules<u64>>, Arc<Tablebase<u64>>) {
        let rules = Arc::new(Rules::<u64>::new(Catalogue::builtin().get(id).unwrap()).unwrap());
        build(&rules, 3, dir, 2, &|_| true).unwrap();
        let tb = Arc::new(Tablebase::open(dir, &rules).unwrap());
        (rules, tb)
    }

    /// A seeded generator (xorshift), so the sample is the same on every run.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// `count` won 3-piece positions whose win fits the variant's limits, drawn from the tables.
    fn won_sample(tb: &Tablebase<u64>, count: usize, rng: &mut Rng) -> Vec<Position<u64>> {
        let materials: Vec<Material> = tb
            .materials()
            .into_iter()
            .filter(|m| m.total() == 3)
            .collect();
        let mut out = Vec::new();
        while out.len() < count {
            let m = materials[rng.below(materials.len() as u64) as usize];
            let slots = tb.header(m).unwrap().slots;
            let Some(pos) = tb.position(m, rng.below(slots)) else {
                continue;
            };
            let p = tb.probe(&pos).unwrap();
            if p.value == Value::Win && !p.cursed && p.distance > 1 {
                out.push(pos);
            }
        }
        out
    }

    /// Engine against engine, both with the tables, from won positions: the side to move wins
    /// in exactly the table's distance (both play perfectly: the fastest win against the
    /// longest resistance), and each of the winner's moves leads to a loss for the opponent one
    /// ply shorter.
    fn plays_table_endings_perfectly(id: &str, seed: u64) {
        let dir = tempfile::tempdir().unwrap();
        let (rules, tb) = tables(id, dir.path());
        let mut rng = Rng(seed);
        for start in won_sample(&tb, 15, &mut rng) {
            let distance = tb.probe(&start).unwrap().distance;
            let winner = start.side_to_move();
            let mut game = Game::from_position(rules.clone(), start);
            let mut engine = Engine::new(rules.clone(), 1);
            engine.set_tablebase(Some(tb.clone()));
            let mut plies = 0;
            while game.outcome().is_none() && plies <= distance {
                let before = tb.probe(game.position()).unwrap();
                let mv = engine
                    .search(&game, &Limits::depth(3), &mut Silent)
                    .best
                    .unwrap();
                let after = tb.probe(&game.position().play(&mv)).unwrap();
                if game.position().side_to_move() == winner {
                    assert_eq!(after.value, Value::Loss, "{id}: {start:?} ply {plies}");
                    assert_eq!(after.distance, before.distance - 1, "{id}: {start:?}");
                } else {
                    assert_eq!(after.distance, before.distance - 1, "{id}: {start:?}");
                }
                assert!(game.play(&mv));
                plies += 1;
            }
            assert!(
                matches!(game.outcome(), Some(Outcome::Win { winner: w, .. }) if w == winner),
                "{id}: {start:?}: {:?} after {plies} plies",
                game.outcome()
            );
            assert_eq!(plies, distance, "{id}: {start:?}");
        }
    }

    #[test]
    fn the_engine_plays_turkish_table_endings_perfectly() {
        plays_table_endings_perfectly("turkish", 0x9E37_79B9_7F4A_7C15);
    }

    #[test]
    fn the_engine_plays_russian_table_endings_perfectly() {
        plays_table_endings_perfectly("russian", 0xD1B5_4A32_D192_ED03);
    }

    /// Positions of 4 pieces (beyond the 3-piece tables) where the side to move must capture
    /// into the tables and wins: the search sees the exact win at depth 1 with the tables, as
    /// the tables give it (the best of the captures' table values), and not without them.
    #[test]
    fn a_capture_into_the_tables_scores_the_tables_win() {
        let dir = tempfile::tempdir().unwrap();
        let (rules, tb) = tables("russian", dir.path());
        let squares: Vec<Square> = rules.variant().geometry.all_squares().to_vec();
        let pieces = [
            Piece::king(Color::White),
            Piece::king(Color::White),
            Piece::king(Color::Black),
            Piece::man(Color::Black),
        ];
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let mut found = 0;
        let mut tries = 0;
        while found < 5 {
            tries += 1;
            assert!(tries < 200_000, "too few positions found");
            let mut placed: Vec<(Square, Piece)> = Vec::new();
            for &piece in &pieces {
                let sq = squares[rng.below(squares.len() as u64) as usize];
                if placed.iter().any(|&(s, _)| s == sq) {
                    break;
                }
                placed.push((sq, piece));
            }
            let setup = Setup {
                side_to_move: Some(Color::White),
                pieces: placed,
            };
            if setup.pieces.len() < 4 {
                continue;
            }
            let Ok(pos) = Position::from_setup(&rules, &setup) else {
                continue;
            };
            let moves = rules.moves(&pos);
            if moves.is_empty() || !moves.iter().all(|m| m.is_capture()) {
                continue;
            }
            // The tables' value: the best capture, each child probed for the opponent.
            let best = moves
                .iter()
                .map(|mv| {
                    let p = tb.probe(&pos.play(mv)).unwrap();
                    match p.value {
                        Value::Loss => Score::win_in(1 + p.distance),
                        Value::Win => Score::loss_in(1 + p.distance),
                        Value::Draw => Score::DRAW,
                    }
                })
                .max()
                .unwrap();
            // Long wins only: a short one the plain search sees through its extensions.
            if best <= Score::DRAW || best.plies_to_result().is_none_or(|n| n < 9) {
                continue;
            }
            found += 1;
            let game = Game::from_position(rules.clone(), pos);
            let mut engine = Engine::new(rules.clone(), 1);
            engine.set_tablebase(Some(tb.clone()));
            let with = engine.search(&game, &Limits::depth(1), &mut Silent).score;
            assert_eq!(with, best, "{pos:?}");
            let mut plain = Engine::new(rules.clone(), 1);
            let without = plain.search(&game, &Limits::depth(1), &mut Silent).score;
            assert_ne!(without, best, "{pos:?}");
        }
    }

    /// In a drawn table position where some move loses, the engine plays a drawing move and
    /// scores it exactly a draw (the tables' value, where a plain search sees a man up); with
    /// an empty table folder it searches exactly as without tables (same move, same score).
    #[test]
    fn a_drawn_table_position_keeps_the_draw() {
        let dir = tempfile::tempdir().unwrap();
        let (rules, tb) = tables("international", dir.path());
        let empty = tempfile::tempdir().unwrap();
        let none = Arc::new(Tablebase::open(empty.path(), &rules).unwrap());
        let mut rng = Rng(0xA076_1D64_78BD_642F);
        let (mut checked, mut plain_not_draw) = (0, 0);
        let m = "KMvK".parse::<Material>().unwrap();
        let slots = tb.header(m).unwrap().slots;
        while checked < 10 {
            let Some(pos) = tb.position(m, rng.below(slots)) else {
                continue;
            };
            if tb.probe(&pos).unwrap().value != Value::Draw {
                continue;
            }
            // Only positions where some move loses the draw.
            let moves = rules.moves(&pos);
            if moves
                .iter()
                .all(|mv| tb.probe(&pos.play(mv)).unwrap().value == Value::Draw)
            {
                continue;
            }
            checked += 1;
            let game = Game::from_position(rules.clone(), pos);
            let mut engine = Engine::new(rules.clone(), 1);
            engine.set_tablebase(Some(tb.clone()));
            let mut root = RootList(Vec::new());
            let with = engine.search(&game, &Limits::depth(2), &mut root);
            // The root's list tells every legal move (a caller names and counts moves among
            // them), the drawing ones first (a caller that must answer at once plays the first).
            let mut told = root.0.clone();
            let mut legal = moves.clone();
            told.sort_by_key(|m| format!("{m:?}"));
            legal.sort_by_key(|m| format!("{m:?}"));
            assert_eq!(told, legal, "{pos:?}");
            let draws = |mv: &Move<u64>| tb.probe(&pos.play(mv)).unwrap().value == Value::Draw;
            let drawing = root.0.iter().take_while(|mv| draws(mv)).count();
            assert!(drawing > 0, "{pos:?}");
            assert!(root.0[drawing..].iter().all(|mv| !draws(mv)), "{pos:?}");
            let mv = with.best.unwrap();
            assert_eq!(
                tb.probe(&pos.play(&mv)).unwrap().value,
                Value::Draw,
                "{pos:?}"
            );
            assert_eq!(with.score, Score::DRAW, "{pos:?}");

            let mut plain = Engine::new(rules.clone(), 1);
            let without = plain.search(&game, &Limits::depth(2), &mut Silent);
            let mut empty_folder = Engine::new(rules.clone(), 1);
            empty_folder.set_tablebase(Some(none.clone()));
            let r = empty_folder.search(&game, &Limits::depth(2), &mut Silent);
            assert_eq!(
                (r.best, r.score, r.depth),
                (without.best, without.score, 2),
                "{pos:?}"
            );
            if without.score != Score::DRAW {
                plain_not_draw += 1;
            }
        }
        // The draw score is the tables' doing: a plain search scores these as a side ahead.
        assert!(plain_not_draw >= 5, "{plain_not_draw} of 10");
    }

    /// docs/strength.md, "Endgame tables": won 4-piece endings (three kings against one) that
    /// the engine converts with and without the tables, at the same nodes per move, against a
    /// defender with the tables (the longest resistance). Slow (a minute in release); run with
    /// `cargo test --release -p damspel-engine --test engine -- --ignored --nocapture conversions`.
    #[test]
    #[ignore]
    fn conversions_with_and_without_tables() {
        use damspel_tablebase::build_slice;
        for id in ["turkthic-2", "international"] {
            let dir = tempfile::tempdir().unwrap();
            let (rules, _) = tables(id, dir.path());
            let m: Material = "KKKvK".parse().unwrap();
            build_slice(&rules, m, dir.path(), 2, &|_| true).unwrap();
            let tb = Arc::new(Tablebase::open(dir.path(), &rules).unwrap());
            let mut rng = Rng(0x5851_F42D_4C95_7F2D);
            let slots = tb.header(m).unwrap().slots;
            let mut starts = Vec::new();
            while starts.len() < 20 {
                let Some(pos) = tb.position(m, rng.below(slots)) else {
                    continue;
                };
                let p = tb.probe(&pos).unwrap();
                // Won for White with White to move, not by an immediate capture, within limits.
                if pos.side_to_move() == Color::White
                    && p.value == Value::Win
                    && !p.cursed
                    && p.distance >= 9
                    && !rules.has_capture(&pos)
                {
                    starts.push((pos, p.distance));
                }
            }
            for with_tables in [true, false] {
                let (mut won, mut plies_sum) = (0, 0);
                for (start, _) in &starts {
                    let mut game = Game::from_position(rules.clone(), *start);
                    let mut attacker = Engine::new(rules.clone(), 16);
                    if with_tables {
                        attacker.set_tablebase(Some(tb.clone()));
                    }
                    let mut defender = Engine::new(rules.clone(), 16);
                    defender.set_tablebase(Some(tb.clone()));
                    let limits = Limits {
                        nodes: Some(20_000),
                        ..Limits::default()
                    };
                    let mut plies = 0;
                    while game.outcome().is_none() && plies < 300 {
                        let engine = if game.position().side_to_move() == Color::White {
                            &mut attacker
                        } else {
                            &mut defender
                        };
                        let mv = engine.search(&game, &limits, &mut Silent).best.unwrap();
                        game.play(&mv);
                        plies += 1;
                    }
                    if matches!(
                        game.outcome(),
                        Some(Outcome::Win {
                            winner: Color::White,
                            ..
                        })
                    ) {
                        won += 1;
                        plies_sum += plies;
                    }
                }
                let total: u32 = starts.iter().map(|(_, d)| d).sum();
                eprintln!(
                    "{id} KKKvK: {} tables: won {won}/{} (plies {plies_sum}; table distances {total})",
                    if with_tables { "with" } else { "without" },
                    starts.len()
                );
            }
        }
    }
}
