//! The evaluation: a linear function of features that every variant's rules define (material,
//! advancement toward that variant's promotion squares, mobility, centre and edges, back-rank
//! guard, balance, king dominance), with separate opening and endgame weights blended by the
//! material left. No feature knows a variant: the tables come from the rules.

mod weights;

pub use weights::{Weights, WeightsError, FEATURES, FEATURE_COUNT};

use damspel_rules::direction::Dir;
use damspel_rules::{Bits, Color, Position, Rules, Square};

use crate::score::Score;

/// Features of one position, White's value minus Black's.
pub type Features = [i32; FEATURE_COUNT];

/// Phase runs from `PHASE_MAX` (all pieces on the board) down to 0.
pub const PHASE_MAX: i32 = 256;

/// Evaluation tables for one variant and one bitboard type.
#[derive(Clone, Debug)]
pub struct Evaluator<B: Bits> {
    weights: Weights,
    /// Progress of a man toward promotion: how many of its steps it has already made.
    advance: [Vec<i32>; 2],
    /// The squares of the central region, counted twice in the middle.
    centre: B,
    centre_core: B,
    /// The edge squares (first and last file, and first and last rank for orthogonal games).
    edge: B,
    /// Each side's own back rank: the opponent's promotion squares.
    back_rank: [B; 2],
    /// The two halves of the board, by file.
    left: B,
    right: B,
    start_pieces: i32,
    /// FMJD-type endgame limits: small endings against a lone king are drawish.
    drawish_endings: bool,
}

impl<B: Bits> Evaluator<B> {
    pub fn new(rules: &Rules<B>, weights: Weights) -> Evaluator<B> {
        let v = rules.variant();
        let g = &v.geometry;
        let bits = g.bits() as usize;
        let (w, h) = (g.width() as i32, g.height() as i32);
        let mut advance = [vec![0; bits], vec![0; bits]];
        for color in Color::BOTH {
            // Breadth-first distance (in man steps) from every square to a promotion square.
            let dirs: Vec<Dir> = v.men.step.iter().map(|d| d.absolute(color)).collect();
            let target = rules.promotion_squares(color);
            let mut dist = vec![i32::MAX; bits];
            let mut frontier: Vec<Square> = Vec::new();
            for &sq in g.all_squares() {
                if target.has(sq.0) {
                    dist[sq.0 as usize] = 0;
                    frontier.push(sq);
                }
            }
            let mut d = 0;
            while !frontier.is_empty() {
                d += 1;
                let mut next = Vec::new();
                for &sq in &frontier {
                    for &dir in &dirs {
                        // A man on `from` reaches `sq` by stepping `dir`.
                        if let Some(from) = g.step(sq, dir.opposite()) {
                            if dist[from.0 as usize] == i32::MAX {
                                dist[from.0 as usize] = d;
                                next.push(from);
                            }
                        }
                    }
                }
                frontier = next;
            }
            let far = g
                .all_squares()
                .iter()
                .map(|s| dist[s.0 as usize])
                .filter(|&d| d != i32::MAX)
                .max()
                .unwrap_or(0);
            for &sq in g.all_squares() {
                let d = dist[sq.0 as usize];
                advance[color.index()][sq.0 as usize] = if d == i32::MAX { 0 } else { far - d };
            }
        }
        let mut centre = B::ZERO;
        let mut centre_core = B::ZERO;
        let mut edge = B::ZERO;
        let mut left = B::ZERO;
        let mut right = B::ZERO;
        let orthogonal_game = !v
            .men
            .step
            .union(v.men.capture)
            .minus(damspel_rules::direction::DirSet::DIAG)
            .is_empty();
        for &sq in g.all_squares() {
            let (x, y) = g.coords(sq);
            let (x, y) = (x as i32, y as i32);
            let bit = B::bit(sq.0);
            // Distance from the centre in cells, doubled to stay integral.
            let dx = (2 * x - (w - 1)).abs();
            let dy = (2 * y - (h - 1)).abs();
            if dx <= w / 2 && dy <= h / 2 {
                centre |= bit;
            }
            if dx <= w / 4 + 1 && dy <= h / 4 + 1 {
                centre_core |= bit;
            }
            if x == 0 || x == w - 1 || (orthogonal_game && (y == 0 || y == h - 1)) {
                edge |= bit;
            }
            if 2 * x < w {
                left |= bit;
            } else {
                right |= bit;
            }
        }
        Evaluator {
            weights,
            advance,
            centre,
            centre_core,
            edge,
            back_rank: [
                rules.promotion_squares(Color::Black),
                rules.promotion_squares(Color::White),
            ],
            left,
            right,
            start_pieces: (v.setup[0].count_ones() + v.setup[1].count_ones()) as i32,
            // Not where the limits were lengthened so that such endings win (§10 A1).
            drawish_endings: v.draw.fmjd_endgame && v.draw.fmjd_two_pieces_moves <= 5,
        }
    }

    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    /// The game phase: `PHASE_MAX` with every piece on the board, 0 with none.
    pub fn phase(&self, pos: &Position<B>) -> i32 {
        let pieces = pos.occupied().count() as i32;
        (pieces * PHASE_MAX / self.start_pieces.max(1)).min(PHASE_MAX)
    }

    /// The features of a position (White minus Black).
    pub fn features(&self, rules: &Rules<B>, pos: &Position<B>) -> Features {
        let mut f = [0i32; FEATURE_COUNT];
        let mobility = |side: Color| {
            let p = if pos.side_to_move() == side {
                *pos
            } else {
                pos.with_side_to_move(side)
            };
            rules.quiet_move_count(&p) as i32
        };
        let kings_any = [
            !pos.kings(Color::White).is_empty(),
            !pos.kings(Color::Black).is_empty(),
        ];
        for color in Color::BOTH {
            let sign = if color == Color::White { 1 } else { -1 };
            let men = pos.men(color);
            let kings = pos.kings(color);
            let pieces = pos.pieces(color);
            let table = &self.advance[color.index()];
            let (mut advance, mut advance2) = (0, 0);
            for sq in men.squares() {
                let a = table[sq as usize];
                advance += a;
                advance2 += a * a;
            }
            f[0] += sign * men.count() as i32;
            f[1] += sign * kings.count() as i32;
            f[2] += sign * advance;
            f[3] += sign * advance2 / 4;
            f[4] += sign * mobility(color);
            f[5] += sign
                * ((pieces & self.centre).count() + (pieces & self.centre_core).count()) as i32;
            f[6] += sign * (men & self.edge).count() as i32;
            f[7] += sign * (men & self.back_rank[color.index()]).count() as i32;
            f[8] += sign * i32::from(kings_any[color.index()] && !kings_any[(!color).index()]);
            let l = (men & self.left).count() as i32;
            let r = (men & self.right).count() as i32;
            f[9] -= sign * (l - r).abs();
        }
        f
    }

    /// The score for the side to move.
    pub fn evaluate(&self, rules: &Rules<B>, pos: &Position<B>) -> Score {
        let f = self.features(rules, pos);
        let phase = self.phase(pos);
        let mut opening = 0;
        let mut endgame = 0;
        for (i, &value) in f.iter().enumerate() {
            opening += self.weights.opening[i] * value;
            endgame += self.weights.endgame[i] * value;
        }
        let mut white = (opening * phase + endgame * (PHASE_MAX - phase)) / PHASE_MAX;
        white /= self.drawish_divisor(pos);
        Score(if pos.side_to_move() == Color::White {
            white
        } else {
            -white
        })
    }

    /// Endgame knowledge the rules imply: where the FMJD limits make a few pieces against a
    /// lone king a draw, such material is worth little (the score is divided by 8); kings alone
    /// against as many kings cannot be caught (divided by 4). 1 elsewhere.
    pub fn drawish_divisor(&self, pos: &Position<B>) -> i32 {
        let count = |c: Color| pos.pieces(c).count();
        let lone_king = |c: Color| count(c) == 1 && pos.kings(c).count() == 1;
        let only_kings = |c: Color| pos.men(c).is_empty();
        if self.drawish_endings {
            for c in Color::BOTH {
                if lone_king(!c) && count(c) <= 3 && pos.men(c).count() <= 1 {
                    return 8;
                }
            }
        }
        if only_kings(Color::White)
            && only_kings(Color::Black)
            && count(Color::White) == count(Color::Black)
        {
            return 4;
        }
        1
    }
}
