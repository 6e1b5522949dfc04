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
//! `end`. (With connectivity added, and each jump made a way the rules allow, the condition
//! would be exact: the chosen jumps would make an Euler trail.)
//!
//! Deciding it is a matching: each piece gives two tokens, one allowed on the squares on either
//! side of it, and two tokens can pair up when the squares they are allowed on meet; `start`
//! and `end` are tokens allowed on their square. The ends pair up exactly when the tokens have
//! a perfect matching. A piece with jumps along several lines cannot be said "one line" in a
//! matching: it gives a pair of tokens per line, and all but one token of each side are matched
//! to stand-ins, which lets its two tokens come from different lines. A matching that does so
//! is not a choice of jumps: the search then branches on that piece's line (branch and bound),
//! within a budget of matchings.
//!
//! A capture that ends where it started leaves the start and comes back to it: two ends of its
//! jumps stand there, so the start's and the end's tokens need not pair with each other. The
//! searches let them (a pairing that does finds captures more often), and the start, left
//! possible with no capture found to it, is asked once more with the two kept apart.
//!
//! A choice of jumps that pairs up is often a capture as it stands: when its jumps hang
//! together from `start`, an Euler trail through them (Hierholzer's walk) takes every piece
//! once and ends on `end`, each jump made a way the rules allow (`Witness`). The walk then
//! need not find that capture, which is where it spends its time when every square is
//! possible but some are found late.

use std::cell::RefCell;

use crate::bitboard::Bits;
use crate::movegen::matching::{Graph, Matcher};

/// The jumps of one capturing king by piece, and the test over them.
pub(crate) struct Pairing<B: Bits> {
    /// Per square of a piece: its lines of jumps.
    lines: Vec<Vec<Line<B>>>,
    /// The matching's work space.
    matcher: RefCell<Matcher>,
}

/// The jumps over one piece along one line: from either side to the other, where the rules
/// allow that way.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Line<B> {
    sides: [B; 2],
    /// Whether the king may jump from side 0 to side 1, and from side 1 to side 0.
    ways: [bool; 2],
}

/// A choice of one jump per piece whose ends pair up: per piece, its square, its line and the
/// pairs of tokens its two ends are in (side 0, side 1); per pair, the squares both tokens may
/// stand on.
struct Pairs<B> {
    jumps: Vec<(u8, Line<B>, [usize; 2])>,
    squares: Vec<B>,
    /// The pair of the start's token, and of the end's (none when the two pair up).
    start_pair: usize,
    end_pair: Option<usize>,
    /// The squares the end may be on.
    ends: B,
}

/// A capture found by pairing, its jumps hanging together: where it ends, and per jump the
/// piece taken and the square landed on.
pub(crate) struct Witness {
    pub end: u8,
    pub jumps: Vec<(u8, u8)>,
}

/// What the test found: the squares where a capture may end (those it could not decide
/// included), and captures to some of them.
pub(crate) struct Settled<B> {
    pub possible: B,
    pub witnesses: Vec<Witness>,
}

/// What one search found.
enum Found<B> {
    /// The ends pair up, with the capture's end on any of these squares.
    EndsOn(Pairs<B>),
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

/// Times a square whose pairing is no capture is searched again, the tokens in another order.
const RETRIES: usize = 3;

/// The turn of a search in which the start and the end do not pair with each other: a capture
/// that ends where it started leaves and comes back, so two ends of its jumps stand on the
/// start. Searches that look for captures let them pair (any choice of jumps that pairs up,
/// of which some may hang together from the start), and ask this one before they call the
/// start a square where a capture may end.
const STRICT: usize = RETRIES + 1;

impl<B: Bits> Pairing<B> {
    /// The jumps (victim, squares in front, squares behind) on a board of `size` squares.
    pub fn new(size: usize, jumps: &[(u8, B, B)]) -> Self {
        let mut lines: Vec<Vec<Line<B>>> = vec![Vec::new(); size];
        for &(victim, front, behind) in jumps {
            // A jump back over the same piece is the same line.
            let (sides, way) = if front.to_u128() < behind.to_u128() {
                ([front, behind], 0)
            } else {
                ([behind, front], 1)
            };
            let of = &mut lines[victim as usize];
            match of.iter_mut().find(|l| l.sides == sides) {
                Some(line) => line.ways[way] = true,
                None => {
                    let mut ways = [false; 2];
                    ways[way] = true;
                    of.push(Line { sides, ways });
                }
            }
        }
        Pairing {
            lines,
            matcher: RefCell::default(),
        }
    }

    /// The squares of `ends` where a capture from `start` that takes exactly `pieces` may end,
    /// as far as pairing tells. Each search is a matching taken from `budget`; when it runs out
    /// the squares not yet decided are kept.
    #[cfg(test)]
    pub fn possible_ends(&self, pieces: B, start: u8, ends: B, budget: &mut u32) -> B {
        self.settle(pieces, start, ends, budget, false).possible
    }

    /// `possible_ends`, and with `witnesses`, a capture to each square where the jumps of a
    /// pairing found hang together from `start` (an Euler trail through them, each jump made
    /// a way the rules allow): such a square needs no walk.
    pub fn settle(
        &self,
        pieces: B,
        start: u8,
        ends: B,
        budget: &mut u32,
        witnesses: bool,
    ) -> Settled<B> {
        self.settle_until(pieces, start, ends, budget, witnesses, false)
    }

    /// A capture from `start` that takes exactly `pieces` and ends on a square of `ends`, if a
    /// pairing found within `budget` matchings is one: `settle` that stops at the first.
    pub fn capture(&self, pieces: B, start: u8, ends: B, budget: &mut u32) -> Option<Witness> {
        self.settle_until(pieces, start, ends, budget, true, true)
            .witnesses
            .pop()
    }

    /// `settle`, which with `first` returns as soon as it has a capture (and then does not
    /// ask about the start).
    fn settle_until(
        &self,
        pieces: B,
        start: u8,
        ends: B,
        budget: &mut u32,
        witnesses: bool,
        first: bool,
    ) -> Settled<B> {
        let pieces: Vec<u8> = pieces.squares().collect();
        let mut chosen = vec![NONE; pieces.len()];
        let mut settled = Settled {
            possible: B::ZERO,
            witnesses: Vec::new(),
        };
        let mut left = ends;
        while !left.is_empty() {
            match self.search(&pieces, &mut chosen, start, left, budget, 0) {
                Found::EndsOn(pairs) => {
                    settled.possible |= pairs.ends;
                    left &= !pairs.ends;
                    if !witnesses {
                        continue;
                    }
                    // Squares whose pairing is no capture are searched again a few times
                    // with the tokens in another order, which the matching may pair
                    // otherwise.
                    let mut bare = B::ZERO;
                    for end in pairs.ends.squares() {
                        match pairs.trail(start, end) {
                            Some(witness) => settled.witnesses.push(witness),
                            None => bare |= B::bit(end),
                        }
                        if first && !settled.witnesses.is_empty() {
                            return settled;
                        }
                    }
                    for turn in 1..=RETRIES {
                        if bare.is_empty() {
                            break;
                        }
                        let Found::EndsOn(pairs) =
                            self.search(&pieces, &mut chosen, start, bare, budget, turn)
                        else {
                            break;
                        };
                        for end in pairs.ends.squares() {
                            if let Some(witness) = pairs.trail(start, end) {
                                settled.witnesses.push(witness);
                                bare &= !B::bit(end);
                                if first {
                                    return settled;
                                }
                            }
                        }
                    }
                }
                Found::Nowhere => break,
                Found::Unknown => {
                    settled.possible |= left;
                    break;
                }
            }
        }
        if first {
            return settled;
        }
        let back = B::bit(start);
        let witnessed = settled.witnesses.iter().any(|w| w.end == start);
        if settled.possible.has(start) && !witnessed {
            let strict = self.search(&pieces, &mut chosen, start, back, budget, STRICT);
            if matches!(strict, Found::Nowhere) {
                settled.possible &= !back;
            }
        }
        settled
    }

    /// Whether the tokens of `pieces` (each on the line `chosen`, or any) pair up with an end on
    /// `ends`: branch and bound over the lines of pieces whose tokens the matching took from
    /// two lines. `turn` puts the tokens in another order (another matching), and at `STRICT`
    /// keeps the start and the end from pairing with each other.
    fn search(
        &self,
        pieces: &[u8],
        chosen: &mut [usize],
        start: u8,
        ends: B,
        budget: &mut u32,
        turn: usize,
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
                for side in lines[l].sides {
                    tokens.push(Token {
                        piece: i,
                        line: l,
                        squares: side,
                    });
                }
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
        let start_token = tokens.len();
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
        // Token `k` is vertex `node(k)`: another turn, another order.
        let count = tokens.len();
        let shift = (turn % STRICT) * (count / (RETRIES + 1) + 1);
        let node = |k: usize| (k + shift) % count;
        let mut graph = Graph::new(count);
        let words = graph.words();
        // Per square, the tokens that may stand on it; per piece, its tokens (who never pair
        // with each other).
        let mut on_square = vec![0u64; self.lines.len() * words];
        let mut of_piece = vec![0u64; pieces.len() * words];
        for (k, t) in tokens.iter().enumerate() {
            let v = node(k);
            for sq in t.squares.squares() {
                on_square[sq as usize * words + v / 64] |= 1 << (v % 64);
            }
            if t.piece != NONE {
                of_piece[t.piece * words + v / 64] |= 1 << (v % 64);
            }
        }
        for (k, t) in tokens.iter().enumerate() {
            let v = node(k);
            for sq in t.squares.squares() {
                graph.add_row(v, &on_square[sq as usize * words..][..words]);
            }
            if t.piece != NONE {
                graph.remove_row(v, &of_piece[t.piece * words..][..words]);
            }
        }
        graph.remove_edge(node(start_token), node(start_token));
        graph.remove_edge(node(end_token), node(end_token));
        // The start and the end pair with each other, but not at `STRICT`.
        if turn == STRICT {
            graph.remove_edge(node(start_token), node(end_token));
        }
        // A stand-in of side `side` (0 or 1) stands for a token of that side of any line of
        // its piece: the tokens of one line are pushed side by side from `first`.
        for &(stand_in, first_of_side) in &stand_ins {
            let piece = tokens[stand_in].piece;
            let mut k = first_of_side;
            while k < tokens.len() && tokens[k].piece == piece && tokens[k].line != NONE {
                graph.add_edge(node(stand_in), node(k));
                k += 2;
            }
        }
        if !self.matcher.borrow_mut().perfect(&graph) {
            return Found::Nowhere;
        }
        // Per token, the token it is matched to (taken out: the branches below match again).
        let mates: Vec<usize> = {
            let matcher = self.matcher.borrow();
            (0..count)
                .map(|k| (matcher.mate(node(k)) + count - shift % count) % count)
                .collect()
        };
        let mate = |k: usize| mates[k];
        // The first piece whose two tokens stand on different lines. A piece's tokens are
        // pushed side by side, and stand-ins are the only tokens of its piece a token can be
        // matched to.
        let mut mixed = None;
        let mut k = 0;
        while k < count && tokens[k].piece != NONE {
            let i = tokens[k].piece;
            let first = k;
            while k < count && tokens[k].piece == i {
                k += 1;
            }
            if chosen[i] != NONE {
                continue;
            }
            let mut outside = (first..k)
                .filter(|&t| tokens[t].line != NONE && tokens[mate(t)].piece != i)
                .map(|t| tokens[t].line);
            let (a, b) = (outside.next(), outside.next());
            if let (Some(a), Some(b), None) = (a, b, outside.next()) {
                if a != b {
                    mixed = Some((i, vec![a, b]));
                    break;
                }
            }
        }
        let Some((i, tried)) = mixed else {
            let mut pairs = Pairs {
                jumps: Vec::with_capacity(pieces.len()),
                squares: Vec::with_capacity(pieces.len() + 1),
                start_pair: 0,
                end_pair: None,
                ends: tokens[mate(end_token)].squares & ends,
            };
            // Per token, its pair.
            let mut pair_of = vec![NONE; tokens.len()];
            let mut pair = |k: usize, pairs: &mut Pairs<B>| {
                if pair_of[k] == NONE {
                    let m = mate(k);
                    pair_of[k] = pairs.squares.len();
                    pair_of[m] = pair_of[k];
                    pairs.squares.push(tokens[k].squares & tokens[m].squares);
                }
                pair_of[k]
            };
            pairs.start_pair = pair(start_token, &mut pairs);
            if mate(end_token) != start_token {
                let p = pair(end_token, &mut pairs);
                pairs.squares[p] = pairs.ends;
                pairs.end_pair = Some(p);
            }
            let mut k = 0;
            while k < tokens.len() {
                let token = tokens[k];
                if token.piece == NONE || token.line == NONE {
                    k += 1;
                    continue;
                }
                // The pair of tokens of one line, side 0 then side 1: the line taken when
                // neither is matched to a stand-in.
                if tokens[mate(k)].piece != token.piece && tokens[mate(k + 1)].piece != token.piece
                {
                    let ends = [pair(k, &mut pairs), pair(k + 1, &mut pairs)];
                    let line = self.lines[pieces[token.piece] as usize][token.line];
                    pairs.jumps.push((pieces[token.piece], line, ends));
                }
                k += 2;
            }
            return Found::EndsOn(pairs);
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
            let found = self.search(pieces, chosen, start, ends, budget, turn);
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

impl<B: Bits> Pairs<B> {
    /// The capture from `start` to `end` through these jumps, if they hang together and each
    /// can be made the way the trail goes.
    fn trail(&self, start: u8, end: u8) -> Option<Witness> {
        let mut squares = self.squares.clone();
        match self.end_pair {
            Some(p) => squares[p] = B::bit(end),
            None if end != start => return None,
            None => {}
        }
        // Where each pair stands. The jumps join their pairs into groups, whatever the squares;
        // two groups join where pairs of both stand on one square. So pairs that may stand on
        // one square only go first, and each of the others goes where a pair of another group
        // stands, if it can.
        let mut group: Vec<usize> = (0..squares.len()).collect();
        fn find(group: &mut [usize], mut p: usize) -> usize {
            while group[p] != p {
                group[p] = group[group[p]];
                p = group[p];
            }
            p
        }
        for &(_, _, [a, b]) in &self.jumps {
            let (a, b) = (find(&mut group, a), find(&mut group, b));
            group[a] = b;
        }
        let mut order: Vec<usize> = (0..squares.len()).collect();
        order.sort_by_key(|&p| (p != self.start_pair, squares[p].count()));
        let mut holder = [NONE; 128];
        let mut at = vec![0u8; squares.len()];
        for p in order {
            let choices = squares[p];
            let other = choices.squares().find(|&q| {
                let h = holder[q as usize];
                h != NONE && find(&mut group, h) != find(&mut group, p)
            });
            let q = other
                .or_else(|| choices.squares().find(|&q| holder[q as usize] != NONE))
                .unwrap_or_else(|| choices.lowest());
            at[p] = q;
            match holder[q as usize] {
                NONE => holder[q as usize] = p,
                h => {
                    let (h, p) = (find(&mut group, h), find(&mut group, p));
                    group[h] = p;
                }
            }
        }
        let jumps: Vec<(u8, Line<B>, [u8; 2])> = self
            .jumps
            .iter()
            .map(|&(victim, line, [a, b])| (victim, line, [at[a], at[b]]))
            .collect();
        // Hierholzer's walk: from `start`, along unused jumps until stuck, then back. Each jump
        // is made the way it is taken first (where the rules allow one way only, that way).
        let mut ends_at: Vec<(u8, usize)> = Vec::with_capacity(2 * jumps.len());
        for (j, &(_, _, squares)) in jumps.iter().enumerate() {
            ends_at.push((squares[0], j));
            ends_at.push((squares[1], j));
        }
        let mut used = vec![false; jumps.len()];
        // (square, the jump that came to it), and the trail backwards.
        let mut stack: Vec<(u8, usize)> = vec![(start, NONE)];
        let mut back: Vec<(u8, usize)> = Vec::with_capacity(jumps.len() + 1);
        while let Some(&(sq, came)) = stack.last() {
            // An unused jump the rules let the king make from `sq`.
            let next = ends_at
                .iter()
                .find(|&&(s, j)| {
                    let (_, line, squares) = jumps[j];
                    s == sq && !used[j] && line.ways[usize::from(squares[0] != sq)]
                })
                .map(|&(_, j)| j);
            match next {
                Some(j) => {
                    used[j] = true;
                    let squares = jumps[j].2;
                    let other = if squares[0] == sq {
                        squares[1]
                    } else {
                        squares[0]
                    };
                    stack.push((other, j));
                }
                None => {
                    back.push((sq, came));
                    stack.pop();
                }
            }
        }
        if used.iter().any(|&u| !u) {
            // Not one trail: some jumps pair up apart from the start.
            return None;
        }
        let mut trail = Vec::with_capacity(jumps.len());
        let mut from = start;
        for &(sq, j) in back.iter().rev().skip(1) {
            let (victim, line, squares) = jumps[j];
            // From side 0 to side 1 or back, where the rules allow it.
            let way = usize::from(squares[0] != from);
            if !line.ways[way] || squares[way] != from || squares[1 - way] != sq {
                return None;
            }
            trail.push((victim, sq));
            from = sq;
        }
        (from == end).then_some(Witness { end, jumps: trail })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::parity::JumpSpan;

    /// The jumps over pieces (piece, squares on one side, squares on the other), each made
    /// both ways.
    fn both_ways(lines: &[(u8, u64, u64)]) -> Vec<(u8, u64, u64)> {
        lines
            .iter()
            .flat_map(|&(victim, a, b)| [(victim, a, b), (victim, b, a)])
            .collect()
    }

    /// A piece on square 7 jumped along three lines: 0 | 1, 2 | 3 and 1 | 2.
    fn three_lines() -> Vec<(u8, u64, u64)> {
        both_ways(&[
            (7, 1 << 0, 1 << 1),
            (7, 1 << 2, 1 << 3),
            (7, 1 << 1, 1 << 2),
        ])
    }

    /// The squares of `ends` where a capture from `start` taking `pieces` may end, by parity
    /// and by pairing (with a budget that does not run out).
    fn by_both(jumps: &[(u8, u64, u64)], pieces: u64, start: u8, ends: u64) -> (u64, u64) {
        let mut span = JumpSpan::new(8, jumps);
        span.make(pieces);
        let mut budget = u32::MAX;
        let paired = Pairing::new(8, jumps).possible_ends(pieces, start, ends, &mut budget);
        (span.possible_ends(start, ends), paired)
    }

    /// The piece of `three_lines`: from 0, taking it ends on 1. Parity adds the three jumps' vectors, as if the piece were taken three times:
    /// 0 + 1 + 2 + 3 + 1 + 2 (and the piece thrice) leaves 0 + 3, so it lets the capture end on
    /// 3 as well; one jump per piece does not.
    #[test]
    fn a_piece_is_taken_by_one_jump_not_three() {
        let (parity, paired) = by_both(&three_lines(), 1 << 7, 0, 0b0110_1110);
        assert_eq!(parity, (1 << 1) | (1 << 3));
        assert_eq!(paired, 1 << 1);
    }

    /// Two pieces, on 6 and 7, each jumped along two lines: 6 along 0 | 1 and 2 | 3, 7 along
    /// 1 | 4 and 3 | 5. From 0 the capture of both goes 0 -> 1 -> 4; a choice of 6 on 0 | 1 and
    /// 7 on 3 | 5 leaves the ends 1 and 3 without a partner.
    #[test]
    fn the_ends_of_every_jump_pair_up() {
        let jumps = both_ways(&[
            (6, 1 << 0, 1 << 1),
            (6, 1 << 2, 1 << 3),
            (7, 1 << 1, 1 << 4),
            (7, 1 << 3, 1 << 5),
        ]);
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
        let jumps = both_ways(&[(7, 0b0011, 0b1100), (6, 0b1000, 0b0001)]);
        // From 0: over 7 to 3 and over 6 back to 0, or over 6 to 3 and over 7 to 0 or 1.
        let (_, paired) = by_both(&jumps, (1 << 6) | (1 << 7), 0, 0b1111);
        assert_eq!(paired, 0b0011);
        // From 1 only over 7 first: to 3, then over 6 to 0. The jumps 0 -> 3 -> 0 pair up
        // apart from the king, but a capture that ends where it started leaves it and comes
        // back: two ends of its jumps stand there, and only one may.
        let (_, paired) = by_both(&jumps, (1 << 6) | (1 << 7), 1, 0b1111);
        assert_eq!(paired, 0b0001);
        // A piece no jump takes: nowhere.
        let (_, paired) = by_both(&jumps, 1 << 5, 0, 0b1111);
        assert_eq!(paired, 0);
    }

    /// The captures found by pairing are trails of the jumps given: each piece taken once, each
    /// jump one of the list, made the way it is listed, from the start to the end found.
    #[test]
    fn the_jumps_of_a_pairing_make_captures() {
        // As in `a_run_of_squares_pairs_on_any_of_them`, with 6 jumped from 3 to 0 only.
        let jumps: Vec<(u8, u64, u64)> = vec![
            (7, 0b0011, 0b1100),
            (7, 0b1100, 0b0011),
            (6, 0b1000, 0b0001),
        ];
        let pairing = Pairing::new(8, &jumps);
        for start in 0..2 {
            let mut budget = u32::MAX;
            let settled = pairing.settle(0b1100_0000, start, 0b1111, &mut budget, true);
            assert!(!settled.witnesses.is_empty(), "from {start}");
            for w in &settled.witnesses {
                let mut at = start;
                let mut taken = 0u64;
                for &(victim, landing) in &w.jumps {
                    assert!(
                        taken & (1 << victim) == 0,
                        "from {start}: {victim} taken twice"
                    );
                    taken |= 1 << victim;
                    assert!(
                        jumps.iter().any(|&(v, front, behind)| v == victim
                            && front & (1 << at) != 0
                            && behind & (1 << landing) != 0),
                        "from {start}: no jump over {victim} from {at} to {landing}"
                    );
                    at = landing;
                }
                assert_eq!((taken, at), (0b1100_0000, w.end), "from {start}");
            }
        }
        // A pairing whose jumps do not hang together is no capture: from 1 over 5 to 2, and
        // 6 and 7 between 3 and 4, apart (the test does not ask that the jumps hang together:
        // a necessary condition, not a sufficient one).
        let apart: Vec<(u8, u64, u64)> = vec![
            (5, 1 << 1, 1 << 2),
            (6, 1 << 3, 1 << 4),
            (7, 1 << 4, 1 << 3),
        ];
        let mut budget = u32::MAX;
        let settled = Pairing::new(8, &apart).settle(0b1110_0000, 1, 1 << 2, &mut budget, true);
        assert_eq!(settled.possible, 1 << 2);
        assert!(settled.witnesses.is_empty());
    }

    /// A search that runs out of matchings keeps the squares it has not decided.
    #[test]
    fn the_squares_not_decided_are_kept() {
        let pairing = Pairing::new(8, &three_lines());
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
