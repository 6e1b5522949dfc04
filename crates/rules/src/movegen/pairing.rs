//! The pairing test: where a capture under deferred removal can end, decided with each piece
//! taken by exactly one jump (the parity test's span lets a piece be taken three times, or by
//! two half jumps on different lines through it).
//!
//! Under deferred removal the board does not change during a capture, so each of its jumps is
//! one of a fixed set: over a piece, from a square on one side of it along a line to a square on
//! the other side. A capture from `start` to `end` reaches every square it passes through as
//! often as it leaves it, so the ends of its jumps (the squares it jumps from and lands on) pair
//! up on every square, once `start` and `end` are counted as ends too. If no choice of one jump
//! per piece lets them pair up, no capture taking exactly those pieces goes from `start` to
//! `end`. (With connectivity added the condition would be exact: the chosen jumps would make an
//! Euler trail.)
//!
//! Deciding it is a matching: each piece gives two tokens, one allowed on the squares on either
//! side of it, and two tokens can pair up when the squares they are allowed on meet; `start`
//! and `end` are tokens allowed on their square. The ends pair up exactly when the tokens have
//! a perfect matching. A piece with jumps along several lines cannot be said "one line" in a
//! matching: it gives a pair of tokens per line, and all but one token of each side are matched
//! to stand-ins, which lets its two tokens come from different lines. A matching that does so
//! is not a choice of jumps: the search then branches on that piece's line (branch and bound),
//! within a budget of matchings.

use petgraph::algo::maximum_matching;
use petgraph::graph::{NodeIndex, UnGraph};

use crate::bitboard::Bits;

/// The jumps of one capturing king by piece, and the test over them.
pub(crate) struct Pairing<B: Bits> {
    /// Per square of a piece: per line of its jumps, the squares on either side.
    lines: Vec<Vec<(B, B)>>,
}

/// What one search found.
enum Found<B> {
    /// The ends pair up, with the capture's end on any of these squares.
    EndsOn(B),
    /// They do not.
    Nowhere,
    /// The budget ran out.
    Unknown,
}

/// A token of the matching: the piece it belongs to (or none: the start and the end), its line
/// (or none: a stand-in), and the squares it may stand on.
#[derive(Clone, Copy)]
struct Token<B> {
    piece: usize,
    line: usize,
    squares: B,
}

const NONE: usize = usize::MAX;

impl<B: Bits> Pairing<B> {
    /// The jumps (victim, squares in front, squares behind) on a board of `size` squares.
    pub fn new(size: usize, jumps: &[(u8, B, B)]) -> Self {
        let mut lines: Vec<Vec<(B, B)>> = vec![Vec::new(); size];
        for &(victim, front, behind) in jumps {
            // A jump back over the same piece is the same line.
            let line = if front.to_u128() < behind.to_u128() {
                (front, behind)
            } else {
                (behind, front)
            };
            let of = &mut lines[victim as usize];
            if !of.contains(&line) {
                of.push(line);
            }
        }
        Pairing { lines }
    }

    /// The squares of `ends` where a capture from `start` that takes exactly `pieces` may end,
    /// as far as pairing tells. Each search is a matching taken from `budget`; when it runs out
    /// the squares not yet decided are kept.
    pub fn possible_ends(&self, pieces: B, start: u8, ends: B, budget: &mut u32) -> B {
        let pieces: Vec<u8> = pieces.squares().collect();
        let mut chosen = vec![NONE; pieces.len()];
        let mut possible = B::ZERO;
        let mut left = ends;
        while !left.is_empty() {
            match self.search(&pieces, &mut chosen, start, left, budget) {
                Found::EndsOn(squares) => {
                    possible |= squares;
                    left &= !squares;
                }
                Found::Nowhere => break,
                Found::Unknown => return possible | left,
            }
        }
        possible
    }

    /// Whether the tokens of `pieces` (each on the line `chosen`, or any) pair up with an end on
    /// `ends`: branch and bound over the lines of pieces whose tokens the matching took from
    /// two lines.
    fn search(
        &self,
        pieces: &[u8],
        chosen: &mut [usize],
        start: u8,
        ends: B,
        budget: &mut u32,
    ) -> Found<B> {
        if *budget == 0 {
            return Found::Unknown;
        }
        *budget -= 1;
        let mut tokens: Vec<Token<B>> = Vec::new();
        let mut stand_ins: Vec<(usize, usize)> = Vec::new();
        for (i, &p) in pieces.iter().enumerate() {
            let lines = &self.lines[p as usize];
            if lines.is_empty() {
                // A piece no jump takes.
                return Found::Nowhere;
            }
            let range = if chosen[i] == NONE {
                0..lines.len()
            } else {
                chosen[i]..chosen[i] + 1
            };
            let first = tokens.len();
            for l in range.clone() {
                let (a, b) = lines[l];
                tokens.push(Token {
                    piece: i,
                    line: l,
                    squares: a,
                });
                tokens.push(Token {
                    piece: i,
                    line: l,
                    squares: b,
                });
            }
            // Stand-ins take all but one token of each side.
            for _ in 1..range.len() {
                for side in 0..2 {
                    stand_ins.push((tokens.len(), first + side));
                    tokens.push(Token {
                        piece: i,
                        line: NONE,
                        squares: B::ZERO,
                    });
                }
            }
        }
        tokens.push(Token {
            piece: NONE,
            line: NONE,
            squares: B::bit(start),
        });
        let end_token = tokens.len();
        tokens.push(Token {
            piece: NONE,
            line: NONE,
            squares: ends,
        });
        let mut graph: UnGraph<(), ()> = UnGraph::with_capacity(tokens.len(), tokens.len() * 8);
        for _ in 0..tokens.len() {
            graph.add_node(());
        }
        for i in 0..tokens.len() {
            for j in i + 1..tokens.len() {
                let (s, t) = (tokens[i], tokens[j]);
                if (s.piece != t.piece || s.piece == NONE) && !(s.squares & t.squares).is_empty() {
                    graph.add_edge(NodeIndex::new(i), NodeIndex::new(j), ());
                }
            }
        }
        // A stand-in of side `side` (0 or 1) stands for a token of that side of any line of
        // its piece: the tokens of one line are pushed side by side from `first`.
        for &(stand_in, first_of_side) in &stand_ins {
            let piece = tokens[stand_in].piece;
            let mut k = first_of_side;
            while k < tokens.len() && tokens[k].piece == piece && tokens[k].line != NONE {
                graph.add_edge(NodeIndex::new(stand_in), NodeIndex::new(k), ());
                k += 2;
            }
        }
        let matching = maximum_matching(&graph);
        if !matching.is_perfect() {
            return Found::Nowhere;
        }
        let mate = |k: usize| matching.mate(NodeIndex::new(k)).map_or(NONE, |n| n.index());
        // The first piece whose two tokens stand on different lines.
        let mut mixed = None;
        for (i, _) in pieces
            .iter()
            .enumerate()
            .filter(|&(i, _)| chosen[i] == NONE)
        {
            let outside: Vec<usize> = (0..tokens.len())
                .filter(|&k| {
                    // Stand-ins are the only tokens of its piece it can be matched to.
                    tokens[k].piece == i && tokens[k].line != NONE && tokens[mate(k)].piece != i
                })
                .map(|k| tokens[k].line)
                .collect();
            if outside.len() == 2 && outside[0] != outside[1] {
                mixed = Some((i, outside));
                break;
            }
        }
        let Some((i, tried)) = mixed else {
            let with = tokens[mate(end_token)].squares;
            return Found::EndsOn(with & ends);
        };
        // Branch on its line: first those the matching used.
        let count = self.lines[pieces[i] as usize].len();
        let order = tried
            .iter()
            .copied()
            .chain((0..count).filter(|l| !tried.contains(l)));
        let mut unknown = false;
        for l in order {
            chosen[i] = l;
            let found = self.search(pieces, chosen, start, ends, budget);
            chosen[i] = NONE;
            match found {
                Found::EndsOn(squares) => return Found::EndsOn(squares),
                Found::Nowhere => {}
                Found::Unknown => unknown = true,
            }
        }
        if unknown {
            Found::Unknown
        } else {
            Found::Nowhere
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::parity::JumpSpan;

    /// The squares of `ends` where a capture from `start` taking `pieces` may end, by parity
    /// and by pairing (with a budget that does not run out).
    fn by_both(jumps: &[(u8, u64, u64)], pieces: u64, start: u8, ends: u64) -> (u64, u64) {
        let mut span = JumpSpan::new(8, jumps);
        span.make(pieces);
        let mut budget = u32::MAX;
        let paired = Pairing::new(8, jumps).possible_ends(pieces, start, ends, &mut budget);
        (span.possible_ends(start, ends), paired)
    }

    /// A piece on square 7 jumped along three lines: 0 | 1, 2 | 3 and 1 | 2. From 0, taking it
    /// ends on 1. Parity adds the three jumps' vectors, as if the piece were taken three times:
    /// 0 + 1 + 2 + 3 + 1 + 2 (and the piece thrice) leaves 0 + 3, so it lets the capture end on
    /// 3 as well; one jump per piece does not.
    #[test]
    fn a_piece_is_taken_by_one_jump_not_three() {
        let mut jumps: Vec<(u8, u64, u64)> = Vec::new();
        for (a, b) in [(0, 1), (2, 3), (1, 2)] {
            jumps.push((7, 1 << a, 1 << b));
            jumps.push((7, 1 << b, 1 << a));
        }
        let (parity, paired) = by_both(&jumps, 1 << 7, 0, 0b0110_1110);
        assert_eq!(parity, (1 << 1) | (1 << 3));
        assert_eq!(paired, 1 << 1);
    }

    /// Two pieces, on 6 and 7, each jumped along two lines: 6 along 0 | 1 and 2 | 3, 7 along
    /// 1 | 4 and 3 | 5. From 0 the capture of both goes 0 -> 1 -> 4; a choice of 6 on 0 | 1 and
    /// 7 on 3 | 5 leaves the ends 1 and 3 without a partner.
    #[test]
    fn the_ends_of_every_jump_pair_up() {
        let mut jumps: Vec<(u8, u64, u64)> = Vec::new();
        for (victim, a, b) in [(6, 0, 1), (6, 2, 3), (7, 1, 4), (7, 3, 5)] {
            jumps.push((victim, 1 << a, 1 << b));
            jumps.push((victim, 1 << b, 1 << a));
        }
        let (_, paired) = by_both(&jumps, (1 << 6) | (1 << 7), 0, 0b0011_1110);
        assert_eq!(paired, 1 << 4);
        // Taking only the piece on 7 from 1 ends on 4; from 3, on 5.
        let (_, from_one) = by_both(&jumps, 1 << 7, 1, 0b0011_1110);
        assert_eq!(from_one, 1 << 4);
        let (_, from_three) = by_both(&jumps, 1 << 7, 3, 0b0011_1110);
        assert_eq!(from_three, 1 << 5);
    }

    /// A flying king lands on any square of a run: a jump's end may pair with any square of it,
    /// and a capture may end where it started.
    #[test]
    fn a_run_of_squares_pairs_on_any_of_them() {
        // The piece on 7 between the runs {0, 1} and {2, 3}; the one on 6 between {3} and {0}.
        let mut jumps = Vec::new();
        for (victim, a, b) in [(7u8, 0b0011u64, 0b1100u64), (6, 0b1000, 0b0001)] {
            jumps.push((victim, a, b));
            jumps.push((victim, b, a));
        }
        // From 0: over 7 to 3 and over 6 back to 0, or over 6 to 3 and over 7 to 0 or 1.
        let (_, paired) = by_both(&jumps, (1 << 6) | (1 << 7), 0, 0b1111);
        assert_eq!(paired, 0b0011);
        // From 1 only over 7 first: to 3, then over 6 to 0. The test keeps 1 as well: the
        // jumps 0 -> 3 -> 0 pair up apart from the king, and it does not ask that the jumps
        // hang together (a necessary condition, not a sufficient one).
        let (_, paired) = by_both(&jumps, (1 << 6) | (1 << 7), 1, 0b1111);
        assert_eq!(paired, 0b0011);
        // A piece no jump takes: nowhere.
        let (_, paired) = by_both(&jumps, 1 << 5, 0, 0b1111);
        assert_eq!(paired, 0);
    }

    /// A search that runs out of matchings keeps the squares it has not decided.
    #[test]
    fn the_squares_not_decided_are_kept() {
        let mut jumps: Vec<(u8, u64, u64)> = Vec::new();
        for (a, b) in [(0, 1), (2, 3), (1, 2)] {
            jumps.push((7, 1 << a, 1 << b));
            jumps.push((7, 1 << b, 1 << a));
        }
        let pairing = Pairing::new(8, &jumps);
        let mut budget = 0;
        assert_eq!(
            pairing.possible_ends(1 << 7, 0, 0b1110, &mut budget),
            0b1110
        );
        let mut budget = u32::MAX;
        assert_eq!(
            pairing.possible_ends(1 << 7, 0, 0b1110, &mut budget),
            0b0010
        );
    }
}
