//! Positions for the generator's unit tests.

use crate::bitboard::Bits;
use crate::color::Color;
use crate::position::Position;
use crate::rules::Rules;
use crate::Catalogue;

/// Every variant of the catalogue, on bitboards of `B` (every board fits 64 bits; 128 are how
/// a variant file's larger board would be held).
pub(crate) fn all_variants<B: Bits>() -> Vec<Rules<B>> {
    let catalogue = Catalogue::builtin();
    catalogue
        .ids()
        .into_iter()
        .map(|id| Rules::<B>::new(catalogue.get(&id).unwrap()).unwrap())
        .collect()
}

/// The next number of a xorshift generator: cheap, fixed random input for tests.
pub(crate) fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// A king or two of White among `enemies` black pieces, some of them kings, on random squares.
pub(crate) fn crowded(rules: &Rules<u128>, seed: u64, enemies: usize) -> Position<u128> {
    let mut state = seed | 1;
    let mut next = || xorshift(&mut state);
    let mut free: Vec<u8> = rules.squares.squares().collect();
    let mut take = |next: &mut dyn FnMut() -> u64| {
        let i = (next() % free.len() as u64) as usize;
        free.swap_remove(i)
    };
    let mut pos = Position {
        pieces: [0, 0],
        kings: 0,
        side: Color::White,
        hash: 0,
    };
    for _ in 0..1 + next() % 2 {
        let s = take(&mut next);
        pos.pieces[0] |= 1 << s;
        pos.kings |= 1 << s;
    }
    for _ in 0..enemies {
        let s = take(&mut next);
        pos.pieces[1] |= 1 << s;
        if next() % 3 == 0 {
            pos.kings |= 1 << s;
        }
    }
    pos
}
