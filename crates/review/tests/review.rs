//! Game review on hand-made games: the expected marks come from the positions themselves (a move
//! that gives a man away for nothing, a move that is the only legal one), not from the engine.
//! Budgets are in nodes, so the results are the same on every machine.

use damspel_notation::pdn::{read_game, PdnRead};
use damspel_review::{
    annotate, move_accuracy, review_game, win_percent, Budget, Mark, Options, Review, Stopper,
};
use damspel_rules::Catalogue;

fn game(text: &str) -> PdnRead {
    read_game(text).expect("the test game reads")
}

fn options(nodes: u64) -> Options {
    Options {
        budget: Budget::Nodes(nodes),
        hash_mb: 8,
        threads: 1,
    }
}

fn run(text: &str) -> Review {
    let variant = Catalogue::builtin().get("international").unwrap();
    review_game(
        variant,
        &game(text),
        &options(30_000),
        &Stopper::new(),
        &mut |_| {},
    )
    .expect("the review runs")
}

/// White 36, 37 and the back rank against four men at home and one on 27. 37-32 puts a man
/// next to 27 with 38 empty behind it: 27x38 takes it for nothing (and the black man stands two
/// steps from crowning).
const BLUNDER: &str = r#"[Variant "international"]
[FEN "W:W36,37,46,47,48:B1,2,3,4,27"]

1. 37-32 27x38 *
"#;

/// White's only legal move is the capture 32x21 (31x22 is blocked by 22, and 21 cannot go on:
/// 12 blocks the jump over 17); it is answered by 17x37, two men for one. Forced: never marked.
const FORCED: &str = r#"[Variant "international"]
[FEN "W:W31,32,46,47,48,49:B1,2,12,17,22,27"]

1. 32x21 17x37 *
"#;

#[test]
fn a_move_that_gives_a_man_away_is_a_blunder() {
    let r = run(BLUNDER);
    assert_eq!(r.plies.len(), 2);
    let first = &r.plies[0];
    assert_eq!(first.played, "37-32");
    assert_eq!(first.side, "white");
    assert_eq!(first.mark, Some(Mark::Blunder), "{first:?}");
    assert!(!first.forced);
    assert_ne!(first.best.as_deref(), Some("37-32"));
    assert!(!first.line.is_empty());
    // The capture that follows is Black's only move.
    assert!(r.plies[1].forced);
    assert_eq!(r.plies[1].mark, None);
    assert_eq!(r.players.white.blunders, 1);
    assert_eq!(r.players.black.blunders, 0);
    assert!(r.players.white.accuracy.unwrap() < 50.0, "{:?}", r.players);
    // Evaluations are White's: the blunder turns them toward Black.
    assert!(r.evals[1].white_win < r.evals[0].white_win - 15.0);
    assert_eq!(r.evals.len(), 3);
}

#[test]
fn the_only_legal_move_is_never_marked() {
    let r = run(FORCED);
    let first = &r.plies[0];
    assert!(first.forced, "{first:?}");
    assert_eq!(first.mark, None);
    assert_eq!(first.accuracy, None);
    // Black's 17x37 is the only capture, so forced too: nobody has a judged move.
    assert!(r.plies[1].forced);
    assert_eq!(r.players.white.moves, 0);
    assert_eq!(r.players.white.accuracy, None);
}

/// Lichess's curve, computed independently: Win% = 50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1)
/// with a man = 300 cp (python: 50 + 50*(2/(1+math.exp(-0.00368208*300))-1) = 75.1126).
#[test]
fn winning_chances_follow_lichess_curve_in_men() {
    assert!((win_percent(0.0) - 50.0).abs() < 1e-9);
    assert!((win_percent(100.0) - 75.1126).abs() < 1e-3);
    assert!((win_percent(-100.0) - 24.8874).abs() < 1e-3);
    // Clamped at 1000 cp: 97.5 either way.
    assert!((win_percent(1e9) - 97.5447).abs() < 1e-3);
    // lichess: 103.1668 * exp(-0.04354 * 10) - 3.1669 = 63.5826
    assert!((move_accuracy(60.0, 50.0) - 63.5826).abs() < 1e-3);
    // No loss: 103.1668 - 3.1669.
    assert!((move_accuracy(50.0, 60.0) - 99.9999).abs() < 1e-6);
    assert_eq!(Mark::of_loss(4.9), None);
    assert_eq!(Mark::of_loss(5.0), Some(Mark::Inaccuracy));
    assert_eq!(Mark::of_loss(10.0), Some(Mark::Mistake));
    assert_eq!(Mark::of_loss(15.0), Some(Mark::Blunder));
}

#[test]
fn a_stopped_review_ends_at_once() {
    let variant = Catalogue::builtin().get("international").unwrap();
    let stopper = Stopper::new();
    let mut calls = 0;
    let mut progress = |_: &damspel_review::Progress| {
        calls += 1;
        stopper.stop();
    };
    let r = review_game(
        variant,
        &game(BLUNDER),
        &options(30_000),
        &stopper.clone(),
        &mut progress,
    );
    assert!(matches!(r, Err(damspel_review::ReviewError::Stopped)));
    assert_eq!(calls, 1);
}

#[test]
fn a_stop_from_another_thread_ends_a_search_under_way() {
    // An unbounded budget per position: only the stop can end it.
    let variant = Catalogue::builtin().get("international").unwrap();
    let stopper = Stopper::new();
    let remote = stopper.clone();
    let stopping = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        remote.stop();
    });
    let r = review_game(
        variant,
        &game(BLUNDER),
        &Options {
            budget: Budget::Time(std::time::Duration::from_secs(3600)),
            ..options(0)
        },
        &stopper,
        &mut |_| {},
    );
    stopping.join().unwrap();
    assert!(matches!(r, Err(damspel_review::ReviewError::Stopped)));
}

#[test]
fn a_game_that_does_not_replay_is_an_error() {
    let variant = Catalogue::builtin().get("international").unwrap();
    let bad = game("[Variant \"international\"]\n\n1. 32-27 19-23 50-45 *\n");
    let r = review_game(variant, &bad, &options(1000), &Stopper::new(), &mut |_| {});
    let e = r.unwrap_err();
    assert!(e.to_string().contains("ply 3"), "{e}");
}

#[test]
fn the_annotated_game_reads_back_with_marks_comments_and_the_better_line() {
    let text = BLUNDER.replace("[Variant", "[White \"Ann\"]\n[Variant");
    let original = game(&text);
    let r = run(&text);
    let annotated = annotate(&original, &r, "Damspel");
    let pdn = annotated.to_pdn();
    let back = read_game(&pdn).expect("the annotated game reads back");
    assert_eq!(back.tag("White"), Some("Ann"));
    assert_eq!(back.tag("FEN"), original.tag("FEN"));
    assert_eq!(back.tag("Annotator"), Some("Damspel"));
    assert_eq!(back.moves, original.moves);
    let first = back.tree.moves().next().unwrap();
    assert_eq!(first.nags, vec!["$4".to_string()], "{pdn}");
    assert_eq!(first.variations.len(), 1, "{pdn}");
    let better = first.variations[0].moves().next().unwrap();
    assert_eq!(Some(better.text.as_str()), r.plies[0].best.as_deref());
    assert!(pdn.contains("Blunder"), "{pdn}");
}

/// A side to move without a legal move has lost (rule book: the game ends when the side to move
/// cannot move); a forced result counts as lichess's 1000 cp.
#[test]
fn a_finished_game_is_a_win_for_the_side_that_moved_last() {
    use damspel_engine::Score;
    use damspel_review::Eval;
    use damspel_rules::Color;
    let e = Eval::from_score(Score::loss_in(0), Color::Black);
    assert_eq!((e.mate, e.winner, e.men), (Some(0), Some("white"), None));
    assert_eq!(e.text(), "White has won");
    assert!((e.white_win - 97.5447).abs() < 1e-3);
    let e = Eval::from_score(Score::loss_in(0), Color::White);
    assert_eq!(e.winner, Some("black"));
    assert_eq!(e.text(), "Black has won");
    let e = Eval::from_score(Score::win_in(7), Color::Black);
    assert_eq!(e.text(), "Black wins in 7");
    assert_eq!(Eval::from_score(Score(-150), Color::Black).text(), "+1.50");
}
