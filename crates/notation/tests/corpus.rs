//! Real PDN files (tests/data, sources in tests/data/SOURCES.md): every game is read, its variant
//! decided, and its main line replayed to its recorded end; where the final position is a win
//! (the side to move has no legal move), the recorded result says the same winner. The number
//! of games is counted from the files' `[White ` tag lines, not from the reader.

use std::sync::Arc;

use damspel_notation::pdn::{read_file, replay, How, PdnRead, Replay, VariantDecider};
use damspel_rules::{Bits, Catalogue, Color, Outcome, Rules};

struct Case {
    file: &'static str,
    bytes: &'static [u8],
    /// Counted with `grep -c '^\[White '`.
    games: usize,
    variant: &'static str,
    /// Passed as the caller's choice (None: the file's tags or the inference decide).
    choice: Option<&'static str>,
}

const CASES: [Case; 8] = [
    Case {
        file: "candidate95.pdn",
        bytes: include_bytes!("data/candidate95.pdn"),
        games: 8,
        variant: "international",
        choice: None,
    },
    Case {
        file: "090417ronde12.pdn",
        bytes: include_bytes!("data/090417ronde12.pdn"),
        games: 7,
        variant: "international",
        choice: None,
    },
    Case {
        file: "delfts.pdn",
        bytes: include_bytes!("data/delfts.pdn"),
        games: 2,
        variant: "international",
        choice: None,
    },
    Case {
        file: "kurnik.pdn",
        bytes: include_bytes!("data/kurnik.pdn"),
        games: 4,
        variant: "international",
        choice: None,
    },
    Case {
        file: "inferno.pdn",
        bytes: include_bytes!("data/inferno.pdn"),
        games: 68,
        variant: "american",
        choice: None,
    },
    Case {
        file: "ussr1947.pdn",
        bytes: include_bytes!("data/ussr1947.pdn"),
        games: 153,
        variant: "russian",
        choice: None,
    },
    Case {
        file: "schildpad.pdn",
        bytes: include_bytes!("data/schildpad.pdn"),
        games: 34,
        variant: "international",
        choice: None,
    },
    Case {
        file: "tricks-traps-and-shots.pdn",
        bytes: include_bytes!("data/tricks-traps-and-shots.pdn"),
        games: 91,
        variant: "american",
        choice: None,
    },
];

/// Who the recorded result says won: Some(Some(colour)), Some(None) for a draw, None when the
/// result is not one of the standard ones (`4-6`, `*`).
fn recorded(result: &str) -> Option<Option<Color>> {
    match result {
        "1-0" | "2-0" => Some(Some(Color::White)),
        "0-1" | "0-2" => Some(Some(Color::Black)),
        "1/2-1/2" | "1-1" | "½-½" => Some(None),
        _ => None,
    }
}

fn check<B: Bits>(case: &Case, game: &PdnRead, rules: &Arc<Rules<B>>) -> Replay<B> {
    let r = replay(game, rules);
    assert!(
        r.complete(),
        "{} game {} ({}): {:?}",
        case.file,
        game.number,
        game.label(),
        r.error
    );
    assert_eq!(r.plies.len(), game.moves.len());
    let result = game.result.as_deref().or(game.tag("Result")).unwrap_or("*");
    if let (Some(Outcome::Win { winner, .. }), Some(said)) = (r.end, recorded(result)) {
        // American results follow CheckerBoard's colour convention: only decisive is checked.
        if case.variant == "american" {
            assert!(
                said.is_some(),
                "{} game {}: {result}",
                case.file,
                game.number
            );
        } else {
            assert_eq!(said, Some(winner), "{} game {}", case.file, game.number);
        }
    }
    r
}

#[test]
fn every_game_replays_to_its_recorded_end() {
    let mut decider = VariantDecider::new(Catalogue::builtin());
    for case in &CASES {
        let tags = String::from_utf8_lossy(case.bytes)
            .lines()
            .filter(|l| l.starts_with("[White "))
            .count();
        assert_eq!(tags, case.games, "{}", case.file);
        let file = read_file(case.bytes).unwrap();
        assert!(file.errors.is_empty(), "{}: {:?}", case.file, file.errors);
        assert_eq!(file.games.len(), case.games, "{}", case.file);
        let v = Catalogue::builtin().get(case.variant).unwrap();
        let rules = Arc::new(Rules::<u64>::new(Arc::new(v)).unwrap());
        for game in &file.games {
            let decision = decider.decide(game, case.choice);
            assert_eq!(
                decision.variant.as_deref(),
                Some(case.variant),
                "{} game {}: {}",
                case.file,
                game.number,
                decision.message
            );
            check(case, game, &rules);
        }
    }
}

/// Without a choice, the Russian file's games (numbered squares, White first, no GameType) are
/// read as Russian, the most played game of the PDN standard's list that replays them, and the
/// decision names Brazilian (and any other variant that replays them) for the caller to choose.
#[test]
fn russian_without_a_tag_is_inferred_and_the_others_named() {
    let file = read_file(CASES[5].bytes).unwrap();
    let d = VariantDecider::new(Catalogue::builtin()).decide(&file.games[0], None);
    assert_eq!(
        (d.variant.as_deref(), &d.how),
        (Some("russian"), &How::Inferred),
        "{d:?}"
    );
    assert!(d.message.contains("GameType 25"), "{}", d.message);
    assert!(d.alternatives.contains(&"brazilian".into()), "{d:?}");
    assert!(d.message.contains("brazilian"), "{}", d.message);
}

/// The same Russian file in CP1251 (as Russian club archives are) reads the same games.
#[test]
fn the_russian_file_in_cp1251_reads_the_same() {
    let utf8 = read_file(CASES[5].bytes).unwrap();
    let text = std::str::from_utf8(CASES[5].bytes).unwrap();
    let (cp1251, _, lossy) = encoding_rs::WINDOWS_1251.encode(text);
    assert!(!lossy);
    let file = read_file(&cp1251).unwrap();
    assert_eq!(
        file.encoding,
        Some(damspel_notation::pdn::TextEncoding::Windows1251)
    );
    assert_eq!(file.games, utf8.games);
}
