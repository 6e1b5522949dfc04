//! Bitboards: one bit per square of the board's layout (see `geometry`).
//!
//! The move generator is monomorphised over the bitboard type: `u64` holds every board of up to
//! 64 layout bits (8x8 all squares, 8x8 and 10x10 dark squares), `u128` the larger ones
//! (10x10 all squares and user boards up to 128 bits).

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Shl, Shr};

/// A set of squares, one bit per layout index.
pub trait Bits:
    Copy
    + Eq
    + Ord
    + Hash
    + Default
    + Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
    + crate::movegen::Generate
{
    /// Number of bits of the type.
    const BITS: u32;
    const ZERO: Self;

    /// The set holding only `index`.
    fn bit(index: u8) -> Self;
    fn count(self) -> u32;
    /// Lowest index in the set; undefined for the empty set.
    fn lowest(self) -> u8;
    /// Highest index in the set; undefined for the empty set.
    fn highest(self) -> u8;
    fn from_u128(value: u128) -> Self;
    fn to_u128(self) -> u128;

    #[inline(always)]
    fn is_empty(self) -> bool {
        self == Self::ZERO
    }

    #[inline(always)]
    fn has(self, index: u8) -> bool {
        !(self & Self::bit(index)).is_empty()
    }

    /// Shift by a signed layout delta: positive moves toward higher indices.
    #[inline(always)]
    fn shift(self, delta: i8) -> Self {
        if delta >= 0 {
            self << delta as u32
        } else {
            self >> (-delta) as u32
        }
    }

    /// The squares of the set, lowest first.
    #[inline(always)]
    fn squares(self) -> BitIter<Self> {
        BitIter(self)
    }
}

macro_rules! impl_bits {
    ($t:ty) => {
        impl Bits for $t {
            const BITS: u32 = <$t>::BITS;
            const ZERO: Self = 0;

            #[inline(always)]
            fn bit(index: u8) -> Self {
                1 << index
            }
            #[inline(always)]
            fn count(self) -> u32 {
                self.count_ones()
            }
            #[inline(always)]
            fn lowest(self) -> u8 {
                self.trailing_zeros() as u8
            }
            #[inline(always)]
            fn highest(self) -> u8 {
                (<$t>::BITS - 1 - self.leading_zeros()) as u8
            }
            #[inline(always)]
            fn from_u128(value: u128) -> Self {
                value as $t
            }
            #[inline(always)]
            fn to_u128(self) -> u128 {
                self as u128
            }
        }
    };
}

impl_bits!(u64);
impl_bits!(u128);

/// Iterates over the indices of a bitboard, lowest first.
#[derive(Clone, Copy, Debug)]
pub struct BitIter<B>(B);

impl<B: Bits> Iterator for BitIter<B> {
    type Item = u8;

    #[inline(always)]
    fn next(&mut self) -> Option<u8> {
        if self.0.is_empty() {
            None
        } else {
            let index = self.0.lowest();
            self.0 ^= B::bit(index);
            Some(index)
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count() as usize;
        (n, Some(n))
    }
}

impl<B: Bits> ExactSizeIterator for BitIter<B> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iteration_and_extremes() {
        let b: u128 = (1 << 3) | (1 << 70) | (1 << 127);
        assert_eq!(b.squares().collect::<Vec<_>>(), vec![3, 70, 127]);
        assert_eq!(b.lowest(), 3);
        assert_eq!(b.highest(), 127);
        assert_eq!(5u64.shift(2), 20);
        assert_eq!(20u64.shift(-2), 5);
    }
}
