//! The variant of a PDN game decided honestly, and games replayed as recorded.

use std::sync::Arc;

use damspel_notation::pdn::{read_game, replay, How, VariantDecider};
use damspel_rules::{Bits, Catalogue, Color, Rules};

fn decide(text: &str, choice: Option<&str>) -> (Option<String>, How, String) {
    let game = read_game(text).unwrap();
    let d = VariantDecider::new(Catalogue::builtin()).decide(&game, choice);
    (d.variant, d.how, d.message)
}

/// GameTypes Damspel lacks are refused with their name (issue 11: they were overridden by the
/// requested variant, and 17 of 25 antidraughts games got the opposite result), even when the
/// caller chooses a variant.
#[test]
fn game_types_damspel_lacks_are_refused_by_name() {
    for (tag, message) in [
        ("40", "GameType 40 (Frisian draughts) is not supported"),
        (
            "40,W,10,10,N2,0",
            "GameType 40 (Frisian draughts) is not supported",
        ),
        ("96", "GameType 96 (Breakthrough draughts) is not supported"),
        ("97", "GameType 97 (Frysk!) is not supported"),
        ("98", "GameType 98 (Antidraughts) is not supported"),
        (
            "22,W,8,8,N2,1",
            "GameType 22 (Italian draughts) is not supported",
        ),
    ] {
        let text = format!("[GameType \"{tag}\"]\n1. 32-28 19-23 *");
        for choice in [None, Some("international")] {
            let (variant, how, got) = decide(&text, choice);
            assert_eq!(
                (variant, how, got.as_str()),
                (None, How::Unsupported, message)
            );
        }
    }
    let (_, how, message) = decide("[Variant \"Frisian\"]\n1. 32-28 *", Some("international"));
    assert_eq!(how, How::Unsupported);
    assert_eq!(message, "Variant `Frisian` is not a variant Damspel has");
}

/// GameTypes and Variant tags Damspel has, in the bare and the full form.
#[test]
fn tags_decide() {
    for (tag, id) in [
        ("[GameType \"20\"]", "international"),
        ("[GameType \"20,W,10,10,N2,0\"]", "international"),
        ("[GameType \"21\"]", "american"),
        ("[GameType \"25,W,8,8,A0,0\"]", "russian"),
        ("[GameType \"26\"]", "brazilian"),
        ("[GameType \"30,W,8,8,A0,0\"]", "turkish"),
        ("[Variant \"russian\"]", "russian"),
        // As real files write them: lidraughts' capitalised names, PlayStrategy's pair of
        // names, a name in words (the catalogue's ids and aliases: russian; american, english,
        // english-draughts).
        ("[Variant \"Russian\"]", "russian"),
        ("[Variant \"American/English\"]", "american"),
        ("[Variant \"English draughts\"]", "american"),
    ] {
        let (variant, how, _) = decide(&format!("{tag}\n*"), Some("turkish"));
        assert_eq!(variant.as_deref(), Some(id), "{tag}");
        assert!(
            matches!(how, How::Tag { .. } | How::GameType { .. }),
            "{tag}"
        );
    }
    // What the full form says that Damspel does not follow is said (shared/reference §6: the
    // start colour, and the notation: N or A, then where square 1 or a1 is seen from the
    // starting player, 0 bottom left, 1 bottom right, 2 top left, 3 top right).
    for (tag, said) in [
        ("20,W,10,10,N1,0", "not as N1 says"),
        ("25,W,8,8,N0,0", "not as N0 says"),
        (
            "20,B,10,10,N2,0",
            "White moves first in international, not Black",
        ),
    ] {
        let (variant, _, message) = decide(&format!("[GameType \"{tag}\"]\n*"), None);
        assert!(
            variant.is_some() && message.contains(said),
            "{tag}: {message}"
        );
    }
    for tag in [
        "20,W,10,10,N2,0",
        "21,B,8,8,N1,0",
        "25,W,8,8,A0,0",
        "25,W,8,8,N2,0",
    ] {
        let (_, _, message) = decide(&format!("[GameType \"{tag}\"]\n*"), None);
        assert!(!message.contains("says"), "{tag}: {message}");
    }
    let (variant, how, message) = decide("[GameType \"20,W,8,8,N2,0\"]\n*", None);
    assert_eq!((variant, how), (None, How::Unsupported));
    assert!(message.contains("8x8"), "{message}");
}

/// Without a tag: inferred from the board and the moves, or the candidates are listed.
#[test]
fn inferred_or_ambiguous() {
    let (variant, how, message) = decide("1. 32-28 19-23 2. 28x19 14x23 3. 37-32 *", None);
    assert_eq!(
        (variant.as_deref(), &how),
        (Some("international"), &How::Inferred)
    );
    assert!(message.contains("GameType 20"), "{message}");
    // Checkers: Black moves first, from squares 9-12.
    let (variant, how, message) = decide("1. 11-15 23-19 2. 8-11 22-17 3. 4-8 17-13 *", None);
    assert_eq!(
        (variant.as_deref(), how),
        (Some("american"), How::Inferred),
        "{message}"
    );
    // Algebraic 8x8: Russian and Brazilian (and others) cannot be told apart by these moves; the
    // most played game of the PDN standard's list is taken and the others are named.
    let (variant, how, message) = decide("1. c3-d4 f6-g5 2. b2-c3 g7-f6 *", None);
    assert_eq!((variant.as_deref(), how), (Some("russian"), How::Inferred));
    assert!(message.contains("also replay under brazilian"), "{message}");
    // The same game numbered (Russian archives are written so too): Hoogland, which numbers its
    // squares, replays it as well, but Russian is a game of the PDN standard's list.
    let (variant, how, message) = decide("1. 22-18 10-15 2. 25-22 7-10 3. 23-19 9-13 *", None);
    assert_eq!(
        (variant.as_deref(), how),
        (Some("russian"), How::Inferred),
        "{message}"
    );
    assert!(message.contains("hoogland"), "{message}");
    let (variant, how, _) = decide("1. c3-d4 f6-g5 2. b2-c3 g7-f6 *", Some("russian"));
    assert_eq!((variant.as_deref(), how), (Some("russian"), How::Chosen));
    // Light squares and orthogonal moves: a board of all squares (Turkish and its family).
    let (variant, how, message) = decide("1. d3-d4 e6-e5 *", None);
    assert_eq!(
        (variant.as_deref(), how),
        (Some("turkish"), How::Inferred),
        "{message}"
    );
    // Checkers' problem files: numbered squares, a FEN, no moves: American (GameType 21) before
    // Russian (25), with the others named.
    let (variant, how, message) = decide("[FEN \"W:W31,29,K15:B14,13,12,9\"]\n*", None);
    assert_eq!(
        (variant.as_deref(), how),
        (Some("american"), How::Inferred),
        "{message}"
    );
    assert!(message.contains("russian"), "{message}");
    // A diagonal man step on a board of all squares: none of the variants that replay it is a
    // game of the PDN standard's list, so the caller chooses.
    let (variant, how, message) = decide("1. d3-e4 *", None);
    assert_eq!(variant, None, "{message}");
    let How::Ambiguous { candidates } = how else {
        panic!("{how:?}: {message}")
    };
    assert!(candidates.len() > 1, "{candidates:?}");
    assert!(!candidates.contains(&"turkish".into()), "{candidates:?}");
    assert!(message.contains("choose"), "{message}");
}

/// A FEN may leave the side to move unknown (`?`, PDN 3.0's FEN grammar): the side is the one
/// whose move follows, White when none does.
#[test]
fn an_unknown_side_to_move_is_the_side_of_the_next_move() {
    let v = Catalogue::builtin().get("american").unwrap();
    let rules = Arc::new(Rules::<u64>::new(Arc::new(v)).unwrap());
    // American numbering: Black's men move towards 32, White's towards 1.
    for (pdn, side) in [
        ("[FEN \"?:W29,13,11:B22,4,2\"]\n1. 4-8 *", Color::Black),
        ("[FEN \"?:W29,13,11:B22,4,2\"]\n1. 29-25 *", Color::White),
        ("[FEN \"?:W29,13,11:B22,4,2\"]\n*", Color::White),
        ("/FEN \"?:W29,13,11:B22,4,2\"/ 1. 4-8 *", Color::Black),
    ] {
        let r = replay(&read_game(pdn).unwrap(), &rules);
        assert!(r.complete(), "{pdn}: {:?}", r.error);
        let first = r.plies.first().map_or(&r.start, |p| &p.before);
        assert_eq!(first.side_to_move(), side, "{pdn}");
    }
    // Neither side can play the move: the replay names it.
    let r = replay(
        &read_game("[FEN \"?:W29,13,11:B22,4,2\"]\n1. 13-17 *").unwrap(),
        &rules,
    );
    assert_eq!(r.error.map(|e| e.text), Some("13-17".to_string()));
}

/// A recorded game plays on past a threefold repetition: the claim is marked where it became
/// possible (the start position for the third time, after ply 8) and the game replays to its end.
#[test]
fn a_game_replays_past_a_claimable_draw() {
    let game = read_game(
        "[FEN \"W:WK46,45,50:BK6,1,2\"]\n\
         1. 46-41 6-11 2. 41-46 11-6 3. 46-41 6-11 4. 41-46 11-6 \
         5. 46-41 6-11 6. 45-40 11-6 1-1",
    )
    .unwrap();
    let v = Catalogue::builtin().get("international").unwrap();
    let rules = Arc::new(Rules::<u64>::new(Arc::new(v)).unwrap());
    let r = replay(&game, &rules);
    assert!(r.complete(), "{:?}", r.error);
    assert_eq!(r.plies.len(), 12);
    assert_eq!(r.claims.len(), 1, "{:?}", r.claims);
    assert_eq!(r.claims[0].ply, 8);
    assert_eq!(r.claims[0].reason, "draw: the same position 3 times");
    assert_eq!(r.positions().count(), 13);
}

/// The first error of a replay names its ply and move; a setup command sets the position.
#[test]
fn replay_errors_and_setups() {
    let v = Catalogue::builtin().get("international").unwrap();
    let rules = Arc::new(Rules::<u64>::new(Arc::new(v)).unwrap());
    let game = read_game("1. 32-28 19-23 2. 28-22 *").unwrap();
    let r = replay(&game, &rules);
    let e = r.error.unwrap();
    assert_eq!((e.ply, e.text.as_str()), (3, "28-22"));
    assert_eq!(r.plies.len(), 2);
    // White forgot a capture (PDN 3.0's example): the setup puts the board right.
    let game =
        read_game("1. 31-26 17-21 /FEN \"W:W26,28,33-50:B1-16,18-21\"/ 2. 26x17 12x21 *").unwrap();
    let r = replay(&game, &rules);
    assert!(r.complete(), "{:?}", r.error);
    assert_eq!(r.plies.len(), 4);
}

/// A capture written by its ends only when two routes share them (some files do, e.g.
/// schildpad.pdn of wiegerw/pdn): the king on 31 takes 27, 24 and 43 by 13 and 30, or 27, 28 and
/// 43 by 22 and 39, both ending on 48 (§4.01: a flying king, the majority rule). Black's 28-32
/// can follow only the first. When the moves after it do not tell, it stays an error.
#[test]
fn an_ambiguous_capture_is_told_apart_by_the_moves_after_it() {
    let v = Catalogue::builtin().get("international").unwrap();
    let rules = Arc::new(Rules::<u64>::new(Arc::new(v)).unwrap());
    let fen = "[FEN \"W:WK31:B24,27,28,43,5\"]\n";
    let game = read_game(&format!("{fen}1. 31x48 28-32 *")).unwrap();
    let r = replay(&game, &rules);
    assert!(r.complete(), "{:?}", r.error);
    let g = &rules.variant().geometry;
    let mut taken: Vec<u32> = (0..64u8)
        .filter(|&i| r.plies[0].mv.captured().has(i))
        .map(|i| g.name(damspel_rules::Square(i)).parse().unwrap())
        .collect();
    taken.sort();
    assert_eq!(taken, vec![24, 27, 43]);
    // Nothing after it: still ambiguous.
    let game = read_game(&format!("{fen}1. 31x48 *")).unwrap();
    let e = replay(&game, &rules).error.unwrap();
    assert!(e.reason.contains("ambiguous"), "{e}");
}
