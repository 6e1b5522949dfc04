//! Piece values from the games: a logistic regression of the first player's score (1, ½, 0) on
//! the material difference in men and in kings at sampled plies,
//!
//!   P(score) = σ(a + m·Δmen + k·Δkings),
//!
//! fitted by Newton's method (quasi-likelihood: a draw counts as half a win, as in Texel's
//! tuning). A king's worth in men is k/m; its interval comes from the delta method with the
//! covariance clustered by game (a game's samples share its result, so they are not
//! independent: the sandwich estimator sums each game's score contributions first).

use std::collections::HashMap;

use crate::intervals::{Interval, Z95};
use crate::metrics::PieceValues;

/// One sampled position: the game it comes from, material differences (first − second) and
/// the first player's final score.
#[derive(Clone, Copy, Debug)]
pub struct FitSample {
    pub game: u32,
    pub men: i32,
    pub kings: i32,
    pub score: f64,
}

type M3 = [[f64; 3]; 3];

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn inverse(m: &M3) -> Option<M3> {
    let c = |r: usize, s: usize| {
        let (r1, r2) = ((r + 1) % 3, (r + 2) % 3);
        let (s1, s2) = ((s + 1) % 3, (s + 2) % 3);
        m[r1][s1] * m[r2][s2] - m[r1][s2] * m[r2][s1]
    };
    let det = m[0][0] * c(0, 0) + m[0][1] * c(0, 1) + m[0][2] * c(0, 2);
    let scale = m.iter().flatten().fold(0.0f64, |a, x| a.max(x.abs()));
    if !det.is_finite() || det.abs() <= 1e-12 * scale.powi(3) {
        return None;
    }
    let mut out = [[0.0; 3]; 3];
    for (r, row) in out.iter_mut().enumerate() {
        for (s, v) in row.iter_mut().enumerate() {
            // The inverse is the transposed cofactor matrix over the determinant.
            *v = c(s, r) / det;
        }
    }
    Some(out)
}

fn mul(a: &M3, b: &M3) -> M3 {
    let mut out = [[0.0; 3]; 3];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    out
}

/// The fitted coefficients (a, m, k), or None when the data cannot identify them (no material
/// differences in men or in kings, or perfect separation).
pub fn fit(samples: &[FitSample]) -> Option<[f64; 3]> {
    let mut beta = [0.0f64; 3];
    for _ in 0..100 {
        let mut grad = [0.0; 3];
        let mut info: M3 = [[0.0; 3]; 3];
        for s in samples {
            let x = [1.0, f64::from(s.men), f64::from(s.kings)];
            let p = sigmoid(beta[0] + beta[1] * x[1] + beta[2] * x[2]);
            let w = p * (1.0 - p);
            for i in 0..3 {
                grad[i] += x[i] * (s.score - p);
                for j in 0..3 {
                    info[i][j] += w * x[i] * x[j];
                }
            }
        }
        let inv = inverse(&info)?;
        let step: Vec<f64> = (0..3)
            .map(|i| (0..3).map(|j| inv[i][j] * grad[j]).sum())
            .collect();
        for i in 0..3 {
            beta[i] += step[i];
        }
        if beta.iter().any(|b| !b.is_finite() || b.abs() > 50.0) {
            return None; // separation: the coefficients run off to infinity
        }
        if step.iter().all(|s| s.abs() < 1e-10) {
            return Some(beta);
        }
    }
    Some(beta)
}

/// The piece values with a king's worth in men and its 95% interval.
pub fn piece_values(samples: &[FitSample]) -> Option<PieceValues> {
    let beta = fit(samples)?;
    let mut info: M3 = [[0.0; 3]; 3];
    let mut per_game: HashMap<u32, [f64; 3]> = HashMap::new();
    for s in samples {
        let x = [1.0, f64::from(s.men), f64::from(s.kings)];
        let p = sigmoid(beta[0] + beta[1] * x[1] + beta[2] * x[2]);
        let u = per_game.entry(s.game).or_default();
        for i in 0..3 {
            u[i] += x[i] * (s.score - p);
            for j in 0..3 {
                info[i][j] += p * (1.0 - p) * x[i] * x[j];
            }
        }
    }
    let mut meat: M3 = [[0.0; 3]; 3];
    for u in per_game.values() {
        for i in 0..3 {
            for j in 0..3 {
                meat[i][j] += u[i] * u[j];
            }
        }
    }
    let bread = inverse(&info)?;
    let cov = mul(&mul(&bread, &meat), &bread);
    let (m, k) = (beta[1], beta[2]);
    // A ratio's interval is bounded only when its denominator is clearly away from 0 (Fieller):
    // without a man's worth measured, a king's worth in men is not either.
    let king_in_men = (m > Z95 * cov[1][1].max(0.0).sqrt()).then(|| {
        let ratio = k / m;
        // Gradient of k/m with respect to (a, m, k).
        let g = [0.0, -k / (m * m), 1.0 / m];
        let var: f64 = (0..3)
            .map(|i| (0..3).map(|j| g[i] * cov[i][j] * g[j]).sum::<f64>())
            .sum();
        let half = Z95 * var.max(0.0).sqrt();
        Interval {
            value: ratio,
            low: ratio - half,
            high: ratio + half,
            n: samples.len() as u64,
        }
    });
    Some(PieceValues {
        man: m,
        king: k,
        king_in_men,
        samples: samples.len() as u64,
    })
}
