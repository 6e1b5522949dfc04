//! End of game and draw rules (rule book §0 "End of game" and the D22 draw rules of each block).

use std::sync::Arc;

use damspel_notation::{parse_fen, parse_move};
use damspel_rules::{
    Catalogue, Color, DrawReason, Game, Move, Outcome, Position, Rules, WinReason,
};

fn game(catalogue: &Catalogue, id: &str, fen: &str) -> Game<u64> {
    let rules = Arc::new(Rules::<u64>::new(catalogue.get(id).unwrap()).unwrap());
    let setup = parse_fen(&rules.variant().geometry, fen).unwrap();
    let pos = Position::from_setup(&rules, &setup).unwrap();
    Game::from_position(rules, pos)
}

fn play(game: &mut Game<u64>, moves: &[&str]) {
    for text in moves {
        let mv = parse_move(game.rules(), game.position(), text).unwrap();
        assert!(game.play(&mv), "{text} was parsed as legal but refused");
    }
}

/// A catalogue with a test variant that switches off some draw rules, to isolate one rule.
fn catalogue_with(extra: &str) -> Catalogue {
    let mut catalogue = Catalogue::builtin();
    catalogue.add_source("test.toml", extra).unwrap();
    catalogue
}

#[test]
fn one_piece_each_is_a_draw_in_turkish() {
    // 1.01 End: "Exactly one piece each (of any kind) => draw".
    let catalogue = Catalogue::builtin();
    let g = game(&catalogue, "turkish", "W:WKa1:Bh7");
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::OnePieceEach)));
    // International has no such rule (4.01 lists the FMJD draws only).
    let g = game(&catalogue, "international", "W:WK46:B5");
    assert_eq!(g.outcome(), None);
}

#[test]
fn a_player_who_cannot_move_loses() {
    // §0 End of game: no legal move loses, blocked or without pieces.
    let catalogue = Catalogue::builtin();
    // The white man on a7 can step to a8 or b7 (occupied) and cannot jump a8 (edge) or b7 (c7 behind).
    let g = game(&catalogue, "turkish", "W:Wa7,h1:Ba8,b7,c7");
    assert!(g.outcome().is_none(), "h1 can still move");
    let g = game(&catalogue, "turkish", "W:Wa7:Ba8,b7,c7");
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            winner: Color::Black,
            reason: WinReason::Blocked
        })
    );
    let g = game(&catalogue, "international", "B:W28,33:B");
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::NoPieces
        })
    );
}

#[test]
fn a_player_without_pieces_has_lost_even_when_the_other_cannot_move() {
    // §0 End of game: capturing all the opponent's pieces wins. In a set-up position where the
    // player who moved last has no pieces, the game is already over, whatever the player to
    // move can do (here: nothing, every square holds a white king).
    let catalogue = Catalogue::builtin();
    for (id, fen) in [
        ("international", "W:WK1-50:B"),
        ("international", "W:W28:B"),
        ("turkish", "B:W:BKa1"),
    ] {
        let g = game(&catalogue, id, fen);
        let winner = if fen.starts_with('W') {
            Color::White
        } else {
            Color::Black
        };
        assert_eq!(
            g.outcome(),
            Some(Outcome::Win {
                winner,
                reason: WinReason::NoPieces
            }),
            "{id} {fen}"
        );
    }
}

#[test]
fn capturing_the_last_piece_ends_the_game() {
    let catalogue = Catalogue::builtin();
    let mut g = game(&catalogue, "international", "W:W28,33:B23");
    play(&mut g, &["28x19"]);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::NoPieces
        })
    );
    assert!(g.legal_moves().is_empty());
}

#[test]
fn threefold_repetition() {
    // §0: threefold repetition of the same position with the same side to move.
    let catalogue = Catalogue::builtin();
    let mut g = game(&catalogue, "turkish", "W:WKa1,Kb1:BKh8,Kg8");
    let cycle = ["a1-a2", "h8-h7", "a2-a1", "h7-h8"];
    play(&mut g, &cycle);
    assert_eq!(g.outcome(), None, "second occurrence");
    play(&mut g, &cycle[..3]);
    assert_eq!(g.outcome(), None);
    play(&mut g, &cycle[3..]);
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Repetition(3))));
    g.undo();
    assert_eq!(g.outcome(), None, "undo takes the draw back");
}

#[test]
fn twenty_five_king_moves_each_is_a_draw_in_international() {
    // 4.01: "25 successive moves by each side with only king moves (no man move, no capture)".
    // Repetition and the endgame limits are switched off to isolate the rule.
    let catalogue = catalogue_with(
        r#"
        id = "international-no-repetition"
        name = "test"
        aliases = []
        block = "test"
        description = "International without repetition and endgame draws"
        extends = "international"
        [draw]
        repetition = 0
        fmjd_endgame = false
        "#,
    );
    let mut g = game(
        &catalogue,
        "international-no-repetition",
        "W:WK46,36:BK1,15",
    );
    let cycle = ["46-41", "1-6", "41-46", "6-1"];
    for _ in 0..12 {
        play(&mut g, &cycle);
    }
    play(&mut g, &cycle[..1]);
    assert_eq!(g.outcome(), None, "49 plies of king moves");
    play(&mut g, &cycle[1..2]);
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::NoProgress(25))));
}

#[test]
fn a_man_move_resets_the_king_move_count() {
    let catalogue = catalogue_with(
        r#"
        id = "international-no-repetition"
        name = "test"
        aliases = []
        block = "test"
        description = "International without repetition and endgame draws"
        extends = "international"
        [draw]
        repetition = 0
        fmjd_endgame = false
        "#,
    );
    let mut g = game(
        &catalogue,
        "international-no-repetition",
        "W:WK46,36:BK1,15",
    );
    let cycle = ["46-41", "1-6", "41-46", "6-1"];
    for _ in 0..12 {
        play(&mut g, &cycle);
    }
    play(&mut g, &["36-31", "15-20"]);
    assert_eq!(g.outcome(), None);
}

#[test]
fn fmjd_endgame_limits() {
    // 4.01: three kings against one king, 16 more moves each; one king against one king, 5.
    let catalogue = catalogue_with(
        r#"
        id = "international-endgame-only"
        name = "test"
        aliases = []
        block = "test"
        description = "International with only the endgame limits"
        extends = "international"
        [draw]
        repetition = 0
        no_progress_moves = 0
        "#,
    );
    let mut g = game(&catalogue, "international-endgame-only", "W:WK46:BK1");
    let cycle = ["46-41", "1-6", "41-46", "6-1"];
    play(&mut g, &cycle);
    play(&mut g, &cycle);
    play(&mut g, &cycle[..1]);
    assert_eq!(g.outcome(), None, "9 plies");
    play(&mut g, &cycle[1..2]);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::EndgameLimit(5)))
    );

    let mut g = game(
        &catalogue,
        "international-endgame-only",
        "W:WK46,K48,K49:BK1",
    );
    for _ in 0..7 {
        play(&mut g, &cycle);
    }
    play(&mut g, &cycle[..3]);
    assert_eq!(g.outcome(), None, "31 plies");
    play(&mut g, &cycle[3..]);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::EndgameLimit(16)))
    );

    // The count starts when the material is reached, here by a promotion after 12 quiet plies:
    // king and man against king, 5 moves each from the promotion on (4.01).
    let mut g = game(&catalogue, "international-endgame-only", "W:W48,11:BK4");
    play(
        &mut g,
        &[
            "48-43", "4-10", "43-39", "10-4", "39-34", "4-10", "34-30", "10-4", "30-25", "4-10",
            "11-6", "10-4", "6-1",
        ],
    );
    assert_eq!(g.outcome(), None, "the promotion starts the count");
    let cycle = ["4-10", "1-7", "10-4", "7-1"];
    play(&mut g, &cycle);
    play(&mut g, &cycle);
    play(&mut g, &cycle[..1]);
    assert_eq!(g.outcome(), None, "9 plies after the promotion");
    play(&mut g, &cycle[1..2]);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::EndgameLimit(5)))
    );
}

/// Plays `cycle` (four plies that come back to the start) until `plies` plies are played.
fn play_cycle(game: &mut Game<u64>, cycle: &[&str; 4], plies: usize) {
    for i in 0..plies {
        play(game, &[cycle[i % 4]]);
    }
}

/// `parent` with only its endgame limits (repetition and the no-progress rule switched off), as
/// the variant `endgame-only`.
fn endgame_only(parent: &str) -> Catalogue {
    catalogue_with(&format!(
        r#"
        id = "endgame-only"
        name = "test"
        block = "test"
        description = "only the endgame limits"
        extends = "{parent}"
        [draw]
        repetition = 0
        no_progress_moves = 0
        "#
    ))
}

#[test]
fn two_pieces_against_a_lone_king_have_sixteen_moves_in_killer_and_hoogland() {
    // §10 A1: in killer, deferred-killer, hoogland and hoogland-10, two kings, or a king and a
    // man, against a lone king fall under the 16-move limit instead of the 5-move one; a king
    // against a king keeps the 5 moves (4.01). Repetition and the 25-move rule switched off.
    for (parent, fen, cycle) in [
        ("killer", "W:WK46,K48:BK1", ["46-41", "1-6", "41-46", "6-1"]),
        (
            "deferred-killer",
            "W:WK46,K48:BK1",
            ["46-41", "1-6", "41-46", "6-1"],
        ),
        (
            "hoogland-10",
            "W:WK46,K48:BK1",
            ["46-41", "1-6", "41-46", "6-1"],
        ),
        (
            "hoogland",
            "W:WK29,K30:BK1",
            ["29-25", "1-5", "25-29", "5-1"],
        ),
    ] {
        let catalogue = endgame_only(parent);
        let mut g = game(&catalogue, "endgame-only", fen);
        play_cycle(&mut g, &cycle, 31);
        assert_eq!(
            g.outcome(),
            None,
            "{parent}: 31 plies of two kings against one"
        );
        play(&mut g, &[cycle[31 % 4]]);
        assert_eq!(
            g.outcome(),
            Some(Outcome::Draw(DrawReason::EndgameLimit(16))),
            "{parent}: 16 moves each"
        );
        // A king against a king: 5 moves each, as in 4.01.
        // The first white king alone: "W:WK46,K48:BK1" -> "W:WK46:BK1".
        let (white, rest) = fen.split_once(',').unwrap();
        let lone = format!("{white}:{}", rest.split_once(':').unwrap().1);
        let mut g = game(&catalogue, "endgame-only", &lone);
        play_cycle(&mut g, &cycle, 10);
        assert_eq!(
            g.outcome(),
            Some(Outcome::Draw(DrawReason::EndgameLimit(5))),
            "{parent}: {lone}, 5 moves each"
        );
    }
    // The other FMJD variants keep the 5 moves (4.01; A1 names only the four above).
    for parent in [
        "international",
        "deferred-killer-light",
        "deferred-halt",
        "deferred-halt-2",
    ] {
        let catalogue = endgame_only(parent);
        let mut g = game(&catalogue, "endgame-only", "W:WK46,K48:BK1");
        play_cycle(&mut g, &["46-41", "1-6", "41-46", "6-1"], 10);
        assert_eq!(
            g.outcome(),
            Some(Outcome::Draw(DrawReason::EndgameLimit(5))),
            "{parent}: 5 moves each"
        );
    }
}

#[test]
fn three_kings_against_a_lone_king_have_fifteen_moves_of_the_stronger_side_in_russian() {
    // §10 A3: "three or more kings against a lone king: drawn if the lone king is not captured
    // within 15 moves of the stronger side, counted from when the material is reached".
    // Repetition and the 15-move king rule switched off to isolate it.
    let catalogue = catalogue_with(
        r#"
        id = "russian-endgame-only"
        name = "test"
        block = "test"
        description = "Russian with only the kings-against-a-king limit"
        extends = "russian"
        [draw]
        repetition = 0
        no_progress_moves = 0
        "#,
    );
    let cycle = ["g1-h2", "h8-g7", "h2-g1", "g7-h8"];
    // The stronger side moves first: its 15th move is the 29th ply.
    let mut g = game(&catalogue, "russian-endgame-only", "W:WKc1,Ke1,Kg1:BKh8");
    play_cycle(&mut g, &cycle, 28);
    assert_eq!(g.outcome(), None, "14 moves of the stronger side");
    play(&mut g, &[cycle[28 % 4]]);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::EndgameLimit(15))),
        "the stronger side's 15th move"
    );
    // The lone king moves first: the stronger side's 15th move is the 30th ply.
    let mut g = game(&catalogue, "russian-endgame-only", "B:WKc1,Ke1,Kg1:BKh8");
    let cycle = ["h8-g7", "g1-h2", "g7-h8", "h2-g1"];
    play_cycle(&mut g, &cycle, 29);
    assert_eq!(g.outcome(), None, "29 plies, 14 moves of the stronger side");
    play(&mut g, &[cycle[29 % 4]]);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::EndgameLimit(15)))
    );
    // Two kings against one: no such limit in Russian (A3 names three or more).
    let mut g = game(&catalogue, "russian-endgame-only", "W:WKe1,Kg1:BKh8");
    play_cycle(&mut g, &["g1-h2", "h8-g7", "h2-g1", "g7-h8"], 40);
    assert_eq!(g.outcome(), None);
}

#[test]
fn illegal_moves_are_refused() {
    // Capture is compulsory (§0): the quiet move 32-27 is refused while 28x19 is possible.
    let catalogue = Catalogue::builtin();
    let mut g = game(&catalogue, "international", "W:W28,32:B23");
    let before = *g.position();
    assert!(parse_move(g.rules(), g.position(), "32-27").is_err());
    let geometry = &g.rules().variant().geometry;
    let quiet = Move::new(
        geometry.parse_square("32").unwrap(),
        geometry.parse_square("27").unwrap(),
        0u64,
        false,
    );
    assert!(!g.play(&quiet));
    assert_eq!(*g.position(), before);
    assert!(g.moves().is_empty());
}
