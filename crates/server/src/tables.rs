//! The endgame tables' verdict on a position for the page (`GET /api/tablebase`): value,
//! distance, the variant's limit and every move's value, like the chess tablebase pages. The
//! tables are opened per request from the server's folder (`serve --tb-dir`): opening reads the
//! files through for their checksums (as it did through a memory map); the work runs on the
//! blocking pool.

use std::path::Path;

use damspel_notation::{format_move, parse_fen};
use damspel_rules::{with_rules, Bits, Color, Position, Rules, Variant};
use damspel_tablebase::{Probe, Tablebase, Value};
use serde_json::{json, Value as Json};

use crate::error::ApiError;

/// The verdict on `fen`: `{"in_tables": false}` outside the tables, else value, distance,
/// limit, cursed, a sentence, and every move's value from the mover's side, best first.
pub fn verdict(dir: &Path, v: &Variant, fen: &str) -> Result<Json, ApiError> {
    with_rules!(v.clone(), |rules| verdict_in(dir, &rules, fen))
}

fn verdict_in<B: Bits>(dir: &Path, rules: &Rules<B>, fen: &str) -> Result<Json, ApiError> {
    let setup = parse_fen(&rules.variant().geometry, fen)
        .map_err(|e| ApiError::unprocessable(e.to_string()))?;
    let pos =
        Position::from_setup(rules, &setup).map_err(|e| ApiError::unprocessable(e.to_string()))?;
    let tb = Tablebase::open(dir, rules)
        .map_err(|e| ApiError::unprocessable(format!("the endgame tables: {e}")))?;
    let Some(probe) = tb.probe(&pos) else {
        return Ok(json!({ "in_tables": false }));
    };
    let mut moves: Vec<(i64, Json)> = Vec::new();
    for mv in rules.moves(&pos) {
        let after = tb.probe(&pos.play(&mv));
        let text = format_move(rules, &pos, &mv);
        let Some(after) = after else {
            moves.push((i64::MIN, json!({ "move": text, "value": null })));
            continue;
        };
        // From the mover's side: a move to a position lost for the opponent wins.
        let Probe {
            value,
            distance,
            cursed,
            ..
        } = after.for_mover();
        // Fastest wins first, then draws, then the longest losses.
        let rank = match value {
            Value::Win => 1_000_000 - i64::from(distance),
            Value::Draw => 0,
            Value::Loss => -1_000_000 + i64::from(distance),
        };
        moves.push((
            rank,
            json!({
                "move": text,
                "value": value.name(),
                "distance": distance,
                "cursed": cursed,
            }),
        ));
    }
    moves.sort_by_key(|(r, _)| std::cmp::Reverse(*r));
    Ok(json!({
        "in_tables": true,
        "value": probe.value.name(),
        "distance": probe.distance,
        "limit": probe.limit,
        "cursed": probe.cursed,
        "text": sentence(&probe, pos.side_to_move()),
        "moves": moves.into_iter().map(|(_, m)| m).collect::<Vec<_>>(),
    }))
}

/// "White wins in 17 plies", "Draw", "Black wins in 41 plies (cursed: beyond the 32-ply
/// limit)".
pub fn sentence(p: &Probe, to_move: Color) -> String {
    let name = |c: Color| if c == Color::White { "White" } else { "Black" };
    let winner = match p.value {
        Value::Draw => return "Draw".into(),
        Value::Win => to_move,
        Value::Loss => !to_move,
    };
    let mut s = format!("{} wins in {} plies", name(winner), p.distance);
    if let (true, Some(l)) = (p.cursed, p.limit) {
        s.push_str(&format!(
            " (cursed: beyond the {l}-ply limit, a draw under the move-count rules)"
        ));
    }
    s
}
