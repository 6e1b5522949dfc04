//! PDN files brought to the server: every game of a file listed with its tags, its variant (and
//! how it was decided) and whether it replays, and one game of a file made ready to play. The
//! reading, the variant decision and the replay are the notation library's; this module turns
//! them into what the API answers. Blocking work: callers run it on the work pool.

use std::sync::Arc;

use base64::Engine as _;
use damspel_notation::pdn::{
    read_file_with, replay_until, tag_value, Claim, How, Item, PdnFile, PdnRead, ReadLimits,
    VariantDecider,
};
use damspel_notation::{full_path, write_fen};
use damspel_rules::{with_rules, Catalogue, Duplicates, Until, Variant};
use serde::Serialize;

use crate::error::ApiError;

/// The text of a PDN file as a request gives it: as text, or as the file's bytes in base64 (so
/// that a file in CP1251 or Latin-1 arrives as written and its encoding can be detected).
pub fn file_bytes(text: Option<&str>, base64: Option<&str>) -> Result<Option<Vec<u8>>, ApiError> {
    match (text, base64) {
        (Some(_), Some(_)) => Err(ApiError::unprocessable(
            "give the PDN as `pdn` or as `pdn_base64`, not both",
        )),
        (Some(t), None) => Ok(Some(t.as_bytes().to_vec())),
        (None, Some(b)) => base64::engine::general_purpose::STANDARD
            .decode(b.trim())
            .map(Some)
            .map_err(|e| ApiError::unprocessable(format!("`pdn_base64` is not base64: {e}"))),
        (None, None) => Ok(None),
    }
}

/// Reads a whole file; a file with no game at all is an error.
pub fn read(bytes: &[u8]) -> Result<PdnFile, ApiError> {
    let limits = ReadLimits {
        max_games: MAX_GAMES_READ,
        ..ReadLimits::default()
    };
    let file =
        read_file_with(bytes, &limits).map_err(|e| ApiError::unprocessable(e.to_string()))?;
    if file.games.is_empty() && file.errors.is_empty() {
        return Err(ApiError::unprocessable("the PDN has no game"));
    }
    Ok(file)
}

/// The most games of a file the server reads (the rest is listed as not read: `stopped`). A
/// file of 100,000 empty games (`*` each, 512 KiB) was listed in 7.5 s as 47 MB of JSON;
/// `damspel pdn` reads up to 100,000.
pub const MAX_GAMES_READ: usize = 2_000;

/// One game of a file as the list shows it.
#[derive(Serialize)]
pub struct Listed {
    /// 1-based, in the file's order (bad games included).
    pub number: usize,
    pub label: String,
    pub white: Option<String>,
    pub black: Option<String>,
    pub event: Option<String>,
    pub date: Option<String>,
    pub result: Option<String>,
    pub tags: Vec<(String, String)>,
    pub plies: usize,
    pub variant: Option<String>,
    /// How the variant was decided: tag, gametype, chosen, inferred, ambiguous, unsupported,
    /// unknown.
    pub how: &'static str,
    /// Variants that fit when the file does not say which: the user chooses among them, or may
    /// choose another than the one inferred (listed first).
    pub candidates: Vec<String>,
    /// What was decided, in a sentence.
    pub decision: String,
    /// Why the game cannot be played as recorded (a bad move, an unsupported variant, ...).
    pub error: Option<String>,
    /// Where a draw could have been claimed; the game went on, as recorded.
    pub claims: Vec<Claim>,
}

/// The list of a file's games, bad ones included at their place.
#[derive(Serialize)]
pub struct Listing {
    pub encoding: Option<String>,
    pub games: Vec<Listed>,
    /// Why reading stopped before the end of the file, if it did (a cap).
    pub stopped: Option<String>,
}

fn how_name(how: &How) -> &'static str {
    match how {
        How::Tag { .. } => "tag",
        How::GameType { .. } => "gametype",
        How::Chosen => "chosen",
        How::Inferred => "inferred",
        How::Ambiguous { .. } => "ambiguous",
        How::Unsupported => "unsupported",
        How::Unknown => "unknown",
    }
}

/// Lists every game of `file`, each replayed under its variant (`choice` where the file does not
/// decide).
pub fn list(catalogue: &Catalogue, file: &PdnFile, choice: Option<&str>) -> Listing {
    // One bound on listing moves for the whole file: it can hold many games built to be slow.
    let until = crate::session::listing_until();
    let mut decider = VariantDecider::new(catalogue.clone()).until(until);
    let mut games: Vec<Listed> = file
        .games
        .iter()
        .map(|game| {
            let decision = decider.decide(game, choice);
            let candidates = match (&decision.how, &decision.variant) {
                (How::Ambiguous { candidates }, _) => candidates.clone(),
                (How::Inferred, Some(id)) if !decision.alternatives.is_empty() => {
                    std::iter::once(id.clone())
                        .chain(decision.alternatives.iter().cloned())
                        .collect()
                }
                _ => Vec::new(),
            };
            let mut listed = Listed {
                number: game.number,
                label: game.label(),
                white: game.tag("White").map(str::to_string),
                black: game.tag("Black").map(str::to_string),
                event: game.tag("Event").map(str::to_string),
                date: game.tag("Date").map(str::to_string),
                result: game
                    .result
                    .clone()
                    .or_else(|| game.tag("Result").map(str::to_string)),
                tags: game.tags.clone(),
                plies: game.moves.len(),
                variant: decision.variant.clone(),
                how: how_name(&decision.how),
                candidates,
                decision: decision.message.clone(),
                error: None,
                claims: Vec::new(),
            };
            match &decision.variant {
                None => listed.error = Some(decision.message.clone()),
                Some(id) => match catalogue.get(id) {
                    Err(e) => listed.error = Some(e.to_string()),
                    // The list needs the replay's verdict, not the moves' full paths.
                    Ok(variant) => match replay_recorded(variant, game, false, until) {
                        Ok(ready) => listed.claims = ready.claims,
                        Err(e) => listed.error = Some(e.message),
                    },
                },
            }
            listed
        })
        .collect();
    games.extend(file.errors.iter().map(|e| Listed {
        number: e.number,
        label: e.label(),
        white: tag(&e.tags, "White"),
        black: tag(&e.tags, "Black"),
        event: tag(&e.tags, "Event"),
        date: tag(&e.tags, "Date"),
        result: tag(&e.tags, "Result"),
        tags: e.tags.clone(),
        plies: 0,
        variant: None,
        how: "unknown",
        candidates: Vec::new(),
        decision: String::new(),
        error: Some(e.to_string()),
        claims: Vec::new(),
    }));
    games.sort_by_key(|g| g.number);
    Listing {
        encoding: file.encoding.map(|e| format!("{e:?}")),
        games,
        stopped: file.stopped.clone(),
    }
}

fn tag(tags: &[(String, String)], name: &str) -> Option<String> {
    tag_value(tags, name).map(str::to_string)
}

/// Picks game `number` (1-based) of a file; a file of one game needs no number. A bad game
/// chosen is refused with its own error.
pub fn choose(file: &PdnFile, number: Option<usize>) -> Result<&PdnRead, ApiError> {
    let total = file.games.len() + file.errors.len();
    let number = match number {
        Some(n) => n,
        None if total == 1 => file
            .games
            .first()
            .map(|g| g.number)
            .or(file.errors.first().map(|e| e.number))
            .unwrap_or(1),
        None => {
            return Err(ApiError::unprocessable(format!(
                "the PDN has {total} games: choose one with `game` (1 to {total}); \
                 POST /api/pdn lists them"
            )))
        }
    };
    if let Some(e) = file.errors.iter().find(|e| e.number == number) {
        return Err(ApiError::unprocessable(e.to_string()));
    }
    file.games
        .iter()
        .find(|g| g.number == number)
        .ok_or_else(|| {
            ApiError::unprocessable(format!("the PDN has no game {number} (it has {total})"))
        })
}

/// A game ready to become a session: its start, its moves as full paths, its claims.
pub struct Ready {
    pub start_fen: String,
    pub moves: Vec<String>,
    pub claims: Vec<Claim>,
}

/// Replays `game` under `variant` as recorded; the first move that cannot be played is an error
/// naming it, as is listing moves past `until`.
pub fn prepare(variant: Variant, game: &PdnRead, until: Until<'static>) -> Result<Ready, ApiError> {
    replay_recorded(variant, game, true, until)
}

/// `prepare`, with the moves' full paths only when `paths` (one move generation per ply).
fn replay_recorded(
    variant: Variant,
    game: &PdnRead,
    paths: bool,
    until: Until<'static>,
) -> Result<Ready, ApiError> {
    // A setup command after the first move changes the board in the middle of a game: a study
    // diagram, not a game to go on with.
    let mut moved = false;
    let mut start_setup = None;
    for item in &game.tree.items {
        match item {
            Item::Move(_) => moved = true,
            Item::Setup { fen } if moved => {
                return Err(ApiError::unprocessable(format!(
                    "the game sets up a new position (/FEN \"{fen}\"/) after its first move; \
                     `damspel pdn convert` reads it"
                )))
            }
            Item::Setup { fen } => start_setup = Some(fen.clone()),
            _ => {}
        }
    }
    with_rules!(variant, |rules| {
        let rules = Arc::new(rules);
        let replayed = replay_until(game, &rules, until);
        if let Some(e) = &replayed.error {
            return Err(ApiError::unprocessable(format!(
                "move {} (`{}`): {}",
                e.ply,
                damspel_rules::quoted(&e.text),
                e.reason
            )));
        }
        let g = &rules.variant().geometry;
        let start = match &start_setup {
            // The setup's position as the replay read it (a side to move left `?` is the side
            // of the first move).
            Some(fen) => match replayed.plies.first() {
                Some(first) => first.before,
                None => damspel_notation::pdn::position_for(&rules, fen, None)
                    .map_err(ApiError::unprocessable)?,
            },
            None => replayed.start,
        };
        let mut moves = Vec::with_capacity(replayed.plies.len());
        for ply in replayed.plies.iter().filter(|_| paths) {
            let legal = rules
                .legal_moves_detailed_until(&ply.before, Duplicates::Merge, until)
                .map_err(|_| {
                    ApiError::unprocessable(format!(
                        "move `{}`: listing the legal moves took too long and was given up",
                        ply.text
                    ))
                })?;
            let detail = legal.iter().find(|d| d.mv == ply.mv).ok_or_else(|| {
                ApiError::internal(format!("`{}` replayed to a move not in the list", ply.text))
            })?;
            moves.push(full_path(g, detail));
        }
        Ok(Ready {
            start_fen: write_fen(g, &start),
            moves,
            claims: replayed.claims.clone(),
        })
    })
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use damspel_notation::movetext::parse_move;
    use damspel_notation::parse_fen;
    use damspel_notation::pdn::read_game;
    use damspel_rules::{Position, Rules};

    use super::*;

    /// A game set up on a slow position (two flying kings among 25 kings, a row of
    /// crates/conformance/data/worst-captures.tsv, 47 captures): past its bound the import is
    /// refused at its first move, saying why; without one the same move is read.
    #[test]
    fn an_import_past_its_bound_is_refused_at_the_move_being_read() {
        let fen = "W:WKc7,Kd7:BKc1,Kf1,Kb2,Ke2,Kf2,Kb3,d3,h3,Ka4,Kc4,f4,Kh4,Kb5,Kd5,Ke5,Kf5,g5,\
                   Kh5,Kb6,Kf6,Kb7,Ke7,Kf7,Kg7,Kh7,Kb8,Ke8";
        // A full path (of the capture the server's state lists first), legal as written.
        let path = "c7xc3xe3xe6xg8xg6xg3xe1xe4xg4xe6xh6xh8xd8xa8xc6xh1xe1xa1xc3xa3xa5xc5xf8";
        let game = read_game(&format!("[FEN \"{fen}\"]\n1. {path} *\n")).unwrap();
        let universal = Catalogue::builtin().get("universal").unwrap();
        let passed = Until::deadline(Instant::now());
        let Err(refused) = prepare(universal.clone(), &game, passed) else {
            panic!("an import past its bound was accepted");
        };
        assert!(refused.message.contains("move 1"), "{}", refused.message);
        assert!(refused.message.contains("given up"), "{}", refused.message);
        let read = prepare(universal.clone(), &game, Until::NEVER)
            .unwrap()
            .moves;
        // The route written back is the listing's own for that move, which may differ.
        let rules = Rules::<u64>::new(universal.clone()).unwrap();
        let setup = parse_fen(&universal.geometry, fen).unwrap();
        let pos = Position::from_setup(&rules, &setup).unwrap();
        let named = |text: &str| parse_move(&rules, &pos, text).unwrap();
        assert_eq!(read.len(), 1);
        assert_eq!(named(&read[0]), named(path));
    }
}
