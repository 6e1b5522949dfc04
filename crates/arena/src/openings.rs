//! Openings: short move sequences from the start position, each played twice with colours
//! swapped so that neither side profits from an unbalanced one. They are random, or read from
//! an openings file (`read_openings`).

use std::collections::HashSet;

use damspel_notation::pdn::read_game;
use damspel_notation::{parse_fen, parse_move};
use damspel_rules::{Bits, Game, Move, Position, Rules};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::sync::Arc;

/// `count` distinct openings of `plies` random legal moves (fewer if the variant has fewer),
/// avoiding positions where the game is already over.
pub fn random_openings<B: Bits>(
    rules: &Arc<Rules<B>>,
    count: usize,
    plies: usize,
    seed: u64,
) -> Vec<Vec<Move<B>>> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut seen: HashSet<u64> = HashSet::new();
    let mut openings = Vec::new();
    let mut attempts = 0;
    while openings.len() < count && attempts < count * 50 {
        attempts += 1;
        let mut game = Game::new(rules.clone());
        let mut line = Vec::new();
        for _ in 0..plies {
            let moves = game.legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            game.play_unchecked(&mv);
            line.push(mv);
        }
        if game.outcome().is_some() || !seen.insert(game.position().hash()) {
            continue;
        }
        openings.push(line);
    }
    if openings.is_empty() {
        openings.push(Vec::new());
    }
    openings
}

/// The position after an opening.
pub fn position_after<B: Bits>(rules: &Rules<B>, opening: &[Move<B>]) -> Position<B> {
    opening
        .iter()
        .fold(Position::start(rules), |pos, mv| pos.play(mv))
}

/// What is wrong with an openings file, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct OpeningsError {
    /// 1-based line where the opening starts.
    pub line: usize,
    pub reason: String,
}

/// Reads an openings file: either one opening per line, its moves from the start position in the
/// variant's notation (move numbers and `{comments}` allowed; blank lines and lines starting with
/// `#` skipped), or PDN games (each game's moves are one opening; a `FEN` tag must be the start
/// position). Every move is checked against the rules, and no opening may end the game.
pub fn read_openings<B: Bits>(
    rules: &Arc<Rules<B>>,
    text: &str,
) -> Result<Vec<Vec<Move<B>>>, OpeningsError> {
    let pdn = text.lines().any(|l| l.trim_start().starts_with('['));
    let chunks = if pdn {
        pdn_games(text)
    } else {
        text.lines()
            .enumerate()
            .filter(|(_, l)| {
                let l = l.trim();
                !l.is_empty() && !l.starts_with('#')
            })
            .map(|(i, l)| (i + 1, l.to_string()))
            .collect()
    };
    let mut openings = Vec::new();
    for (line, chunk) in chunks {
        let fail = |reason: String| OpeningsError { line, reason };
        let game = read_game(&chunk).map_err(|e| fail(e.to_string()))?;
        if let Some(fen) = game.tag("FEN") {
            let setup = parse_fen(&rules.variant().geometry, fen)
                .map_err(|e| fail(format!("FEN tag: {e}")))?;
            let start =
                Position::from_setup(rules, &setup).map_err(|e| fail(format!("FEN tag: {e}")))?;
            if start != Position::start(rules) {
                return Err(fail(
                    "an opening must start from the variant's start position (its FEN tag does not)"
                        .into(),
                ));
            }
        }
        let mut state = Game::new(rules.clone());
        let mut moves = Vec::new();
        for (n, text) in game.moves.iter().enumerate() {
            if state.outcome().is_some() {
                return Err(fail(format!("the game is over before move {}", n + 1)));
            }
            let mv = parse_move(rules, state.position(), text)
                .map_err(|e| fail(format!("move {} `{text}`: {e}", n + 1)))?;
            state.play_unchecked(&mv);
            moves.push(mv);
        }
        if let Some(outcome) = state.outcome() {
            return Err(fail(format!(
                "the game is over after this opening ({outcome})"
            )));
        }
        openings.push(moves);
    }
    if openings.is_empty() {
        return Err(OpeningsError {
            line: 1,
            reason: "no opening in the file".into(),
        });
    }
    Ok(openings)
}

/// Splits PDN text into games, each with the line it starts on: a game begins at a tag line
/// that follows move text.
fn pdn_games(text: &str) -> Vec<(usize, String)> {
    let mut games: Vec<(usize, String)> = Vec::new();
    let mut current: Option<(usize, String)> = None;
    let mut in_moves = false;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        let tag = trimmed.starts_with('[');
        if tag && in_moves {
            games.extend(current.take());
            in_moves = false;
        }
        if !trimmed.is_empty() && !tag {
            in_moves = true;
        }
        if trimmed.is_empty() && current.is_none() {
            continue;
        }
        let game = current.get_or_insert_with(|| (i + 1, String::new()));
        game.1.push_str(line);
        game.1.push('\n');
    }
    games.extend(current);
    games
}

#[cfg(test)]
mod tests {
    use super::*;
    use damspel_rules::Catalogue;

    fn rules(id: &str) -> Arc<Rules<u64>> {
        let variant = Arc::new(Catalogue::builtin().get(id).unwrap());
        Arc::new(Rules::<u64>::new(variant).unwrap())
    }

    #[test]
    fn reads_one_opening_per_line() {
        let rules = rules("international");
        let text = "# two openings\n32-28 19-23 28x19 14x23\n\n1. 33-29 {a comment} 18-23 2. 29x18 12x23\n";
        let openings = read_openings(&rules, text).unwrap();
        assert_eq!(openings.len(), 2);
        assert_eq!(openings[0].len(), 4);
        // 28x19 and 14x23 are captures (4.01: a man captures by jumping).
        assert!(openings[0][2].is_capture() && openings[0][3].is_capture());
        assert_eq!(openings[1].len(), 4);
    }

    #[test]
    fn reads_pdn_games() {
        let rules = rules("american");
        // American checkers: Black moves first from squares 1-12 (3.02).
        let text = "[Event \"a\"]\n[Result \"*\"]\n\n1. 11-15 23-19 *\n\n[Event \"b\"]\n\n1. 9-14 22-17 *\n";
        let openings = read_openings(&rules, text).unwrap();
        assert_eq!(openings.len(), 2);
        assert_eq!(openings[1].len(), 2);
    }

    #[test]
    fn bad_openings_say_where_and_why() {
        let rules = rules("international");
        let e = read_openings(&rules, "32-28 19-23\n32-23\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.reason.contains("move 1 `32-23`"), "{e}");
        let e = read_openings(&rules, "# nothing\n").unwrap_err();
        assert!(e.reason.contains("no opening"), "{e}");
        let e = read_openings(&rules, "[FEN \"W:W31:B1\"]\n\n31-27 *\n").unwrap_err();
        assert!(e.reason.contains("start position"), "{e}");
        let e = read_openings(&rules, "32-28 19-23 28x19 zz\n").unwrap_err();
        assert!(e.reason.contains("move 4"), "{e}");
    }
}
