//! What Damspel writes for other programs (issue 11, "Exports"): the notation each variant's
//! players use, the result convention of each ecosystem, no FEN tag for the standard start, and
//! the roster kept. Expected texts come from shared/reference/pdn-gametype.tsv (GameType and
//! notation field), the PDN standard's result types, CheckerBoard's source (results in American
//! checkers) and the rule book's boards (a1 dark; FMJD numbers from the top left), never from
//! Damspel's own output.

use damspel_notation::parse_move;
use damspel_notation::pdn::{read_result, write_result, GameResult, PdnGame};
use damspel_rules::{with_rules, Bits, Catalogue, Color, Move, Position, Rules, Variant};

fn variant(id: &str) -> Variant {
    Catalogue::builtin()
        .get(id)
        .expect("built-in variant")
        .clone()
}

/// The game `moves` (in any notation Damspel reads) from the start, written as PDN.
fn written<B: Bits>(rules: &Rules<B>, moves: &[&str], result: GameResult) -> String {
    let start = Position::start(rules);
    let mut pos = start;
    let mut played: Vec<Move<B>> = Vec::new();
    for text in moves {
        let mv = parse_move(rules, &pos, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        played.push(mv);
        pos = pos.play(&mv);
    }
    PdnGame {
        rules,
        event: "Club championship".into(),
        site: "Moscow".into(),
        date: "2024.05.01".into(),
        round: "3".into(),
        white: "Ivanov, I.".into(),
        black: "Petrov, P.".into(),
        result,
        start,
        moves: played,
        extra: vec![],
    }
    .to_pdn()
}

fn game(id: &str, moves: &[&str], result: GameResult) -> String {
    with_rules!(variant(id), |rules| written(&rules, moves, result))
}

#[test]
fn russian_and_brazilian_are_written_algebraically_with_game_type_a0() {
    // GameType 25 and 26 are `W,8,8,A0,0` in the PDN GameType table; c3-d4 is the square
    // numbered 22-18 in FMJD order, which Damspel used to write.
    for (id, game_type) in [("russian", "25,W,8,8,A0,0"), ("brazilian", "26,W,8,8,A0,0")] {
        let text = game(
            id,
            &["c3-d4", "f6-e5", "d4xf6", "g7xe5"],
            GameResult::Unfinished,
        );
        assert!(
            text.contains(&format!("[GameType \"{game_type}\"]")),
            "{text}"
        );
        assert!(text.contains("1. c3-d4 f6-e5 2. d4xf6 g7xe5 *"), "{text}");
    }
}

#[test]
fn old_numbered_russian_and_brazilian_moves_still_read() {
    // Old Damspel exports numbered these boards in FMJD order (GameType N2): 22-18 is c3-d4.
    for id in ["russian", "brazilian"] {
        with_rules!(variant(id), |rules| {
            let start = Position::start(&rules);
            assert_eq!(
                parse_move(&rules, &start, "22-18"),
                parse_move(&rules, &start, "c3-d4"),
                "{id}"
            );
            assert!(parse_move(&rules, &start, "22-18").is_ok());
        });
    }
}

#[test]
fn other_variants_keep_their_notation() {
    let international = game("international", &["32-28", "19-23"], GameResult::Unfinished);
    assert!(
        international.contains("1. 32-28 19-23 *"),
        "{international}"
    );
    assert!(international.contains("[GameType \"20,W,10,10,N2,0\"]"));
    // American: Black moves first, 11-15 in the standard numbering.
    let american = game("american", &["11-15", "23-19"], GameResult::Unfinished);
    assert!(american.contains("1. 11-15 23-19 *"), "{american}");
    assert!(american.contains("[GameType \"21,B,8,8,N1,0\"]"));
    let turkish = game("turkish", &["d3-d4"], GameResult::Unfinished);
    assert!(turkish.contains("1. d3-d4 *"), "{turkish}");
    assert!(turkish.contains("[GameType \"30,W,8,8,A0,0\"]"));
}

#[test]
fn results_follow_each_ecosystem() {
    use GameResult::{Draw, Unfinished, Win};
    let (white, black) = (Win(Color::White), Win(Color::Black));
    // PDN "International" result type for 10x10 and Brazilian; CheckerBoard's 1-0 for the first
    // player (Black) in American checkers; 1-0 / 0-1 / 1/2-1/2 elsewhere.
    let expected = [
        ("international", white, "2-0"),
        ("international", black, "0-2"),
        ("international", Draw, "1-1"),
        ("brazilian", white, "2-0"),
        ("brazilian", black, "0-2"),
        ("brazilian", Draw, "1-1"),
        ("russian", white, "1-0"),
        ("russian", black, "0-1"),
        ("russian", Draw, "1/2-1/2"),
        ("american", black, "1-0"),
        ("american", white, "0-1"),
        ("american", Draw, "1/2-1/2"),
        ("turkish", white, "1-0"),
        ("turkish", Draw, "1/2-1/2"),
        ("international", Unfinished, "*"),
    ];
    for (id, result, text) in expected {
        let v = variant(id);
        assert_eq!(write_result(&v, result), text, "{id} {result:?}");
        assert_eq!(read_result(&v, text), Some(result), "{id} {text}");
        let pdn = game(id, &[], result);
        assert!(pdn.contains(&format!("[Result \"{text}\"]")), "{pdn}");
        assert!(pdn.trim_end().ends_with(text), "{pdn}");
    }
    // One-point results in a two-point ecosystem still read (old Damspel exports wrote them).
    let international = variant("international");
    assert_eq!(read_result(&international, "1-0"), Some(white));
    assert_eq!(read_result(&international, "1/2-1/2"), Some(Draw));
    assert_eq!(read_result(&international, "4-6"), None);
}

#[test]
fn no_fen_tag_for_the_standard_start_and_the_roster_kept() {
    for id in [
        "international",
        "russian",
        "brazilian",
        "american",
        "turkish",
    ] {
        let text = game(id, &[], GameResult::Unfinished);
        assert!(!text.contains("[FEN "), "{text}");
        assert!(!text.contains("[SetUp "), "{text}");
        for tag in [
            "[Event \"Club championship\"]",
            "[Site \"Moscow\"]",
            "[Date \"2024.05.01\"]",
            "[Round \"3\"]",
            "[White \"Ivanov, I.\"]",
            "[Black \"Petrov, P.\"]",
        ] {
            assert!(text.contains(tag), "{tag} missing: {text}");
        }
    }
}

#[test]
fn a_fen_tag_for_another_start() {
    with_rules!(variant("russian"), |rules| {
        let start = Position::start(&rules);
        let mv = parse_move(&rules, &start, "c3-d4").unwrap();
        let game = PdnGame {
            rules: &rules,
            event: String::new(),
            site: String::new(),
            date: String::new(),
            round: String::new(),
            white: String::new(),
            black: String::new(),
            result: GameResult::Unfinished,
            start: start.play(&mv),
            moves: vec![],
            extra: vec![],
        };
        let text = game.to_pdn();
        assert!(text.contains("[SetUp \"1\"]"), "{text}");
        // In the game's notation (A0): Black to move, White's man now on d4, not c3.
        assert!(text.contains("[FEN \"B:W"), "{text}");
        assert!(text.contains("d4"), "{text}");
        assert!(!text.contains(",c3"), "{text}");
    });
}
