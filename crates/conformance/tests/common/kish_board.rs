//! A Damspel Turkish position as a kish board: shared by the kish oracle (tests/kish_oracle.rs)
//! and the captures benchmark (benches/captures.rs, which includes this file by path).

use damspel_rules::{Color, Position, Square};
use kish::{Board, State, Team};

/// The same position as a kish board: kish numbers a square `row * 8 + column` from a1, as
/// Damspel's all-squares layout does (checked by tests/kish_oracle.rs, `layouts_agree`).
pub fn to_kish(pos: &Position<u64>) -> Board {
    let team = |color: Color| match color {
        Color::White => Team::White,
        Color::Black => Team::Black,
    };
    let mut pieces = [0u64; 2];
    let mut kings = 0u64;
    for sq in 0..64u8 {
        if let Some(p) = pos.piece_at(Square(sq)) {
            pieces[team(p.color) as usize] |= 1 << sq;
            if p.king {
                kings |= 1 << sq;
            }
        }
    }
    Board::new(team(pos.side_to_move()), State::new(pieces, kings))
}
