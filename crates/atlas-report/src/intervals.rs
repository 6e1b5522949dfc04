//! 95% intervals: Wilson's score interval for proportions, and a Student t interval for means
//! (used for the pair scores of the pentanomial model: the mean and variance of the pair sums).

use serde::Serialize;

/// The normal quantile of 0.975.
pub const Z95: f64 = 1.959_963_985;

/// An estimate with its 95% interval and the number of units it rests on.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    pub value: f64,
    pub low: f64,
    pub high: f64,
    /// Games, pairs or samples behind the estimate.
    pub n: u64,
}

impl Interval {
    /// `value [low, high]` with `digits` decimals.
    pub fn show(&self, digits: usize) -> String {
        format!(
            "{:.d$} [{:.d$}, {:.d$}]",
            self.value,
            self.low,
            self.high,
            d = digits
        )
    }

    /// The same interval scaled (e.g. a share shown in percent).
    pub fn scaled(&self, k: f64) -> Interval {
        Interval {
            value: self.value * k,
            low: self.low * k,
            high: self.high * k,
            n: self.n,
        }
    }

    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }
}

/// Wilson's score interval for `k` successes in `n` trials (None for no trials). Unlike the
/// plain normal interval it stays inside [0, 1] and is sound for shares near 0 or 1.
pub fn wilson(k: u64, n: u64) -> Option<Interval> {
    if n == 0 {
        return None;
    }
    let (kf, nf) = (k.min(n) as f64, n as f64);
    let p = kf / nf;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * nf)) / (1.0 + z2 / nf);
    let half = Z95 / (1.0 + z2 / nf) * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt();
    Some(Interval {
        value: p,
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
        n,
    })
}

/// Student's t quantile of 0.975 for `df` degrees of freedom: a table to 30, then the
/// Cornish-Fisher expansion (error below 1e-4 there).
pub fn t975(df: u64) -> f64 {
    const TABLE: [f64; 30] = [
        12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010,
        2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739,
        2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df as usize - 1],
        _ => {
            let (z, v) = (Z95, df as f64);
            z + (z.powi(3) + z) / (4.0 * v)
                + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * v * v)
        }
    }
}

/// Mean and unbiased variance of `xs` (variance 0 for fewer than two values).
pub fn mean_var(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (f64::NAN, 0.0);
    }
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

/// The t interval of a mean: mean ± t(n-1) · s/√n. None for no samples; a single sample gives
/// an unbounded interval (there is no spread to measure).
pub fn mean_interval(xs: &[f64]) -> Option<Interval> {
    if xs.is_empty() {
        return None;
    }
    let (mean, var) = mean_var(xs);
    let n = xs.len() as u64;
    let half = t975(n - 1) * (var / n as f64).sqrt();
    let half = if half.is_nan() { f64::INFINITY } else { half };
    Some(Interval {
        value: mean,
        low: mean - half,
        high: mean + half,
        n,
    })
}

/// A pair's outcome for the first player, as in the pentanomial model: the points of the two
/// games together, 0, ½, 1, 1½ or 2 (index 0..=4 counts them in halves).
pub fn pentanomial_index(points_of_pair: f64) -> usize {
    (points_of_pair * 2.0).round().clamp(0.0, 4.0) as usize
}

/// The score per game from pentanomial counts (pairs scoring 0, ½, 1, 1½, 2 points): the mean
/// pair sum halved, with the t interval from the variance of the pair sums. Counting pairs, not
/// games, keeps the correlation of a pair's two games (one opening) inside the variance.
pub fn pentanomial_score(counts: [u64; 5]) -> Option<Interval> {
    let pairs: Vec<f64> = counts
        .iter()
        .enumerate()
        .flat_map(|(i, &c)| std::iter::repeat_n(i as f64 / 4.0, c as usize))
        .collect();
    mean_interval(&pairs).map(|i| Interval {
        low: i.low.max(0.0),
        high: i.high.min(1.0),
        ..i
    })
}
