//! The variant's move limit beside a table's distance. Move-count rules are not part of a
//! table's value (they depend on the game's history); a probe reports the limit that applies
//! from the probed position on, counted from now, so a win longer than it shows as cursed.

use damspel_rules::game::{endgame_limit, Counted};
use damspel_rules::{Bits, Color, Position, Rules};

/// The plies the variant allows from `pos` on before a move-count rule draws: the endgame
/// limit for this material (the rules crate decides which, §10 A1 and A3), or else the
/// no-progress rule when only kings are left (a man move resets that count, so with men it does
/// not bind a win).
pub fn limit_plies<B: Bits>(rules: &Rules<B>, pos: &Position<B>) -> Option<u32> {
    let draw = &rules.variant().draw;
    if let Some(limit) = endgame_limit(draw, pos) {
        return Some(match limit.counted {
            Counted::Each => 2 * limit.moves,
            // Only the stronger side's moves count: its last allowed move is ply 2n-1 when it
            // moves first, 2n when the weaker side does.
            Counted::Stronger(c) if c == pos.side_to_move() => 2 * limit.moves - 1,
            Counted::Stronger(_) => 2 * limit.moves,
        });
    }
    let only_kings = pos.men(Color::White).is_empty() && pos.men(Color::Black).is_empty();
    if draw.no_progress_moves > 0 && only_kings {
        return Some(2 * draw.no_progress_moves);
    }
    None
}
