//! Fitting the evaluation weights to game results (Texel's method): the evaluation of a quiet
//! position, passed through a sigmoid, predicts the result of the game it came from; the weights
//! that minimise the mean squared error of that prediction are the tuned ones.
//!
//! The evaluation is linear in its twenty weights (ten features, opening and endgame, blended
//! by the phase), so each position is stored as twenty numbers `x` with `eval = w · x`. The fit
//! first chooses the sigmoid's scale `K` with the starting weights (a one-dimensional search),
//! then moves the weights by Levenberg-Marquardt steps (damped Gauss-Newton) with `K` fixed and
//! the man's value fixed at 100 in both tables (the unit every other weight is measured in),
//! and finally rounds them to integers and polishes them one unit at a time (coordinate
//! descent), since the engine adds integer weights. An optional ridge term pulls the weights
//! toward the starting ones. Pure computation: progress goes to a callback.

use crate::eval::{Features, Weights, FEATURE_COUNT, PHASE_MAX};

/// Opening and endgame weights side by side.
pub const PARAMS: usize = 2 * FEATURE_COUNT;

/// The parameters never moved: the man's value in both tables (the scale).
pub const FIXED: [usize; 2] = [0, FEATURE_COUNT];

/// One labelled position: `eval = w · x` from White's side, `result` White's score (1, ½, 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub x: [f32; PARAMS],
    pub result: f32,
}

impl Sample {
    /// A position given by its features (White minus Black), its phase (0..=`PHASE_MAX`), the
    /// divisor the evaluation applies to it (1, or more in drawish endings) and the game's
    /// result for White.
    pub fn new(features: &Features, phase: i32, divisor: i32, result: f64) -> Sample {
        let mut x = [0f32; PARAMS];
        let opening = phase as f64 / PHASE_MAX as f64 / divisor.max(1) as f64;
        let endgame = (PHASE_MAX - phase) as f64 / PHASE_MAX as f64 / divisor.max(1) as f64;
        for (i, &f) in features.iter().enumerate() {
            x[i] = (f as f64 * opening) as f32;
            x[FEATURE_COUNT + i] = (f as f64 * endgame) as f32;
        }
        Sample {
            x,
            result: result as f32,
        }
    }

    /// The evaluation (centi-men, White's side) under the parameters `w`.
    pub fn eval(&self, w: &[f64; PARAMS]) -> f64 {
        self.x
            .iter()
            .zip(w)
            .map(|(&x, &w)| x as f64 * w)
            .sum::<f64>()
    }
}

/// The predicted score of an evaluation: `1 / (1 + e^(-K eval / 100))`.
pub fn sigmoid(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + (-k * eval / 100.0).exp())
}

/// The weights as one parameter vector (opening then endgame).
pub fn params(weights: &Weights) -> [f64; PARAMS] {
    let mut w = [0.0; PARAMS];
    for i in 0..FEATURE_COUNT {
        w[i] = weights.opening[i] as f64;
        w[FEATURE_COUNT + i] = weights.endgame[i] as f64;
    }
    w
}

/// Integer parameters back into weights.
pub fn weights_of(w: &[i32; PARAMS], source: &str) -> Weights {
    let mut opening = [0; FEATURE_COUNT];
    let mut endgame = [0; FEATURE_COUNT];
    opening.copy_from_slice(&w[..FEATURE_COUNT]);
    endgame.copy_from_slice(&w[FEATURE_COUNT..]);
    Weights {
        opening,
        endgame,
        source: source.to_string(),
        made_by: None,
    }
}

/// Mean squared error of the predictions (0 for no samples).
pub fn error(samples: &[Sample], w: &[f64; PARAMS], k: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples
        .iter()
        .map(|s| {
            let d = sigmoid(k, s.eval(w)) - s.result as f64;
            d * d
        })
        .sum();
    sum / samples.len() as f64
}

/// The `K` that minimises the error of the given weights (golden-section search on
/// `log K` over [0.01, 10]).
pub fn best_k(samples: &[Sample], w: &[f64; PARAMS]) -> f64 {
    let evals: Vec<(f64, f64)> = samples
        .iter()
        .map(|s| (s.eval(w), s.result as f64))
        .collect();
    let err = |log_k: f64| {
        let k = log_k.exp();
        evals
            .iter()
            .map(|&(e, r)| (sigmoid(k, e) - r).powi(2))
            .sum::<f64>()
    };
    let (mut a, mut b) = (0.01f64.ln(), 10f64.ln());
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let mut c = b - g * (b - a);
    let mut d = a + g * (b - a);
    let (mut fc, mut fd) = (err(c), err(d));
    for _ in 0..60 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = err(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = err(d);
        }
    }
    ((a + b) / 2.0).exp()
}

/// How to fit.
#[derive(Clone, Debug)]
pub struct FitOptions {
    /// The sigmoid's scale; `None`: chosen by `best_k` with the starting weights.
    pub k: Option<f64>,
    /// Most Levenberg-Marquardt steps.
    pub iterations: usize,
    /// Ridge strength: `ridge · Σ ((w − w₀) / 100)²` is added to the error.
    pub ridge: f64,
    /// Most passes of the integer polish.
    pub polish_passes: usize,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            k: None,
            iterations: 60,
            ridge: 0.0,
            polish_passes: 4,
        }
    }
}

/// Where the fit is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Progress {
    /// `K` has been chosen.
    K(f64),
    /// A Levenberg-Marquardt step: its number, of at most `of`, and the training error.
    Step { step: usize, of: usize, error: f64 },
    /// A pass of the integer polish, and the training error after it.
    Polish { pass: usize, of: usize, error: f64 },
}

/// The outcome of a fit.
#[derive(Clone, Debug)]
pub struct Fit {
    pub k: f64,
    /// The fitted integer parameters (opening then endgame).
    pub params: [i32; PARAMS],
    pub train_before: f64,
    pub train_after: f64,
    pub validation_before: f64,
    pub validation_after: f64,
    /// Levenberg-Marquardt steps taken.
    pub steps: usize,
}

impl Fit {
    pub fn weights(&self, source: &str) -> Weights {
        weights_of(&self.params, source)
    }
}

fn free() -> Vec<usize> {
    (0..PARAMS).filter(|j| !FIXED.contains(j)).collect()
}

fn ridge_term(w: &[f64; PARAMS], w0: &[f64; PARAMS], ridge: f64) -> f64 {
    ridge
        * w.iter()
            .zip(w0)
            .map(|(a, b)| ((a - b) / 100.0).powi(2))
            .sum::<f64>()
}

/// Fits the weights to `train`, starting from `start`; `validation` is only measured.
pub fn fit(
    train: &[Sample],
    validation: &[Sample],
    start: &Weights,
    options: &FitOptions,
    progress: &mut dyn FnMut(Progress),
) -> Fit {
    let w0 = params(start);
    let k = options.k.unwrap_or_else(|| best_k(train, &w0));
    progress(Progress::K(k));
    let objective = |w: &[f64; PARAMS]| error(train, w, k) + ridge_term(w, &w0, options.ridge);
    let free = free();
    let m = free.len();
    let n = train.len().max(1) as f64;
    // The ridge in the units of the parameters.
    let ridge = options.ridge / 1e4;

    let mut w = w0;
    let mut current = objective(&w);
    let mut lambda = 1e-3;
    let mut steps = 0;
    for step in 1..=options.iterations {
        // Normal equations of the linearised residuals: A = JᵀJ / n, g = Jᵀr / n.
        let mut a = vec![0.0f64; m * m];
        let mut g = vec![0.0f64; m];
        let mut row = vec![0.0f64; m];
        for s in train {
            let p = sigmoid(k, s.eval(&w));
            let r = p - s.result as f64;
            let slope = p * (1.0 - p) * k / 100.0;
            for (jj, &j) in free.iter().enumerate() {
                row[jj] = slope * s.x[j] as f64;
            }
            for jj in 0..m {
                let rj = row[jj];
                if rj == 0.0 {
                    continue;
                }
                g[jj] += rj * r;
                for (ii, &ri) in row.iter().enumerate().skip(jj) {
                    a[jj * m + ii] += rj * ri;
                }
            }
        }
        for jj in 0..m {
            for ii in jj..m {
                a[jj * m + ii] /= n;
                a[ii * m + jj] = a[jj * m + ii];
            }
            g[jj] = g[jj] / n + ridge * (w[free[jj]] - w0[free[jj]]);
            a[jj * m + jj] += ridge;
        }
        // Damped steps: raise the damping until the error falls.
        let mut improved = false;
        for _ in 0..20 {
            let mut damped = a.clone();
            for jj in 0..m {
                damped[jj * m + jj] += lambda * a[jj * m + jj].max(1e-12);
            }
            let neg_g: Vec<f64> = g.iter().map(|v| -v).collect();
            let Some(delta) = solve(&damped, &neg_g, m) else {
                lambda *= 10.0;
                continue;
            };
            let mut trial = w;
            for (jj, &j) in free.iter().enumerate() {
                trial[j] += delta[jj];
            }
            let e = objective(&trial);
            if e < current {
                let gain = current - e;
                w = trial;
                current = e;
                lambda = (lambda / 3.0).max(1e-9);
                improved = gain > 1e-10 * current.max(1e-12);
                break;
            }
            lambda *= 4.0;
        }
        steps = step;
        progress(Progress::Step {
            step,
            of: options.iterations,
            error: current,
        });
        if !improved {
            break;
        }
    }

    // Round, then polish the integers one unit at a time.
    let mut wi = [0i32; PARAMS];
    for j in 0..PARAMS {
        wi[j] = if FIXED.contains(&j) {
            w0[j] as i32
        } else {
            w[j].round() as i32
        };
    }
    let mut evals: Vec<f64> = train.iter().map(|s| s.eval(&to_f64(&wi))).collect();
    let total = |evals: &[f64], wi: &[i32; PARAMS]| {
        let sum: f64 = evals
            .iter()
            .zip(train)
            .map(|(&e, s)| (sigmoid(k, e) - s.result as f64).powi(2))
            .sum();
        sum / n + ridge_term(&to_f64(wi), &w0, options.ridge)
    };
    let mut best = total(&evals, &wi);
    for pass in 1..=options.polish_passes {
        let mut changed = false;
        for &j in &free {
            for delta in [1, -1] {
                loop {
                    let trial_evals: Vec<f64> = evals
                        .iter()
                        .zip(train)
                        .map(|(&e, s)| e + delta as f64 * s.x[j] as f64)
                        .collect();
                    let mut trial = wi;
                    trial[j] += delta;
                    let e = total(&trial_evals, &trial);
                    if e < best {
                        best = e;
                        wi = trial;
                        evals = trial_evals;
                        changed = true;
                    } else {
                        break;
                    }
                }
            }
        }
        progress(Progress::Polish {
            pass,
            of: options.polish_passes,
            error: best,
        });
        if !changed {
            break;
        }
    }

    let fitted = to_f64(&wi);
    Fit {
        k,
        params: wi,
        train_before: error(train, &w0, k),
        train_after: error(train, &fitted, k),
        validation_before: error(validation, &w0, k),
        validation_after: error(validation, &fitted, k),
        steps,
    }
}

fn to_f64(w: &[i32; PARAMS]) -> [f64; PARAMS] {
    let mut out = [0.0; PARAMS];
    for (o, &v) in out.iter_mut().zip(w) {
        *o = v as f64;
    }
    out
}

/// Solves `a x = b` (`a` is `m`×`m`, row-major) by Gaussian elimination with partial pivoting;
/// `None` when singular.
fn solve(a: &[f64], b: &[f64], m: usize) -> Option<Vec<f64>> {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    for col in 0..m {
        let pivot =
            (col..m).max_by(|&r, &s| a[r * m + col].abs().total_cmp(&a[s * m + col].abs()))?;
        if a[pivot * m + col].abs() < 1e-300 {
            return None;
        }
        if pivot != col {
            for c in 0..m {
                a.swap(pivot * m + c, col * m + c);
            }
            b.swap(pivot, col);
        }
        for r in col + 1..m {
            let f = a[r * m + col] / a[col * m + col];
            if f == 0.0 {
                continue;
            }
            for c in col..m {
                a[r * m + c] -= f * a[col * m + c];
            }
            b[r] -= f * b[col];
        }
    }
    let mut x = vec![0.0; m];
    for r in (0..m).rev() {
        let mut s = b[r];
        for c in r + 1..m {
            s -= a[r * m + c] * x[c];
        }
        x[r] = s / a[r * m + r];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (SplitMix64) so that the test needs no dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: i32) -> i32 {
            (self.next() % n as u64) as i32
        }
        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    fn truth() -> Weights {
        Weights {
            opening: [100, 180, 6, 2, 4, 3, -5, 8, 0, 3],
            endgame: [100, 260, 9, 1, 2, 0, 3, 0, 40, 0],
            source: "truth".into(),
            made_by: None,
        }
    }

    fn start() -> Weights {
        Weights {
            opening: [100, 150, 3, 1, 2, 3, -2, 4, 0, 2],
            endgame: [100, 150, 5, 2, 2, 1, 0, 0, 30, 0],
            source: "start".into(),
            made_by: None,
        }
    }

    /// Positions with random features, each labelled by a game result drawn with the
    /// probability the true weights give (`soft`: the probability itself).
    fn samples(count: usize, k: f64, soft: bool, rng: &mut Rng) -> Vec<Sample> {
        let w = params(&truth());
        (0..count)
            .map(|_| {
                let f: Features = [
                    rng.below(5) - 2,
                    rng.below(3) - 1,
                    rng.below(21) - 10,
                    rng.below(41) - 20,
                    rng.below(21) - 10,
                    rng.below(11) - 5,
                    rng.below(7) - 3,
                    rng.below(5) - 2,
                    rng.below(3) - 1,
                    rng.below(7) - 3,
                ];
                let phase = rng.below(PHASE_MAX + 1);
                let mut s = Sample::new(&f, phase, 1, 0.0);
                let p = sigmoid(k, s.eval(&w));
                s.result = if soft {
                    p as f32
                } else if rng.unit() < p {
                    1.0
                } else {
                    0.0
                };
                s
            })
            .collect()
    }

    #[test]
    fn sample_reproduces_the_engine_blend() {
        let w = params(&truth());
        let f: Features = [1, -1, 4, 8, -3, 2, 0, 1, 0, -2];
        for phase in [0, 100, 256] {
            let s = Sample::new(&f, phase, 1, 0.5);
            let t = truth();
            let o: i32 = t.opening.iter().zip(&f).map(|(w, f)| w * f).sum();
            let e: i32 = t.endgame.iter().zip(&f).map(|(w, f)| w * f).sum();
            let engine = (o * phase + e * (PHASE_MAX - phase)) as f64 / PHASE_MAX as f64;
            assert!((s.eval(&w) - engine).abs() < 1e-3, "phase {phase}");
            let halved = Sample::new(&f, phase, 4, 0.5);
            assert!((halved.eval(&w) - engine / 4.0).abs() < 1e-3);
        }
    }

    #[test]
    fn best_k_finds_the_scale_of_the_data() {
        let mut rng = Rng(7);
        let data = samples(20_000, 0.8, false, &mut rng);
        let k = best_k(&data, &params(&truth()));
        assert!((k - 0.8).abs() < 0.1, "K = {k}");
    }

    #[test]
    fn fit_recovers_known_weights_from_soft_labels() {
        let mut rng = Rng(1);
        let train = samples(20_000, 1.0, true, &mut rng);
        let validation = samples(2_000, 1.0, true, &mut rng);
        let options = FitOptions {
            k: Some(1.0),
            ..FitOptions::default()
        };
        let fit = fit(&train, &validation, &start(), &options, &mut |_| {});
        let expected = params(&truth());
        for (j, (&got, &want)) in fit.params.iter().zip(&expected).enumerate() {
            assert!(
                (got as f64 - want).abs() <= 1.0,
                "parameter {j}: {got} instead of {want}"
            );
        }
        assert!(fit.train_after < fit.train_before);
        assert!(fit.validation_after < fit.validation_before);
        assert!(fit.train_after < 1e-5, "error {}", fit.train_after);
    }

    #[test]
    fn levenberg_marquardt_alone_recovers_known_weights() {
        let mut rng = Rng(2);
        let train = samples(20_000, 1.0, true, &mut rng);
        let options = FitOptions {
            k: Some(1.0),
            polish_passes: 0,
            ..FitOptions::default()
        };
        let fit = fit(&train, &[], &start(), &options, &mut |_| {});
        let expected = params(&truth());
        for (j, (&got, &want)) in fit.params.iter().zip(&expected).enumerate() {
            assert!(
                (got as f64 - want).abs() <= 1.0,
                "parameter {j}: {got} instead of {want}"
            );
        }
        assert!(fit.steps < options.iterations, "no convergence");
    }

    #[test]
    fn fit_with_game_results_moves_toward_the_truth() {
        let mut rng = Rng(3);
        let train = samples(60_000, 1.0, false, &mut rng);
        let validation = samples(10_000, 1.0, false, &mut rng);
        let fit = fit(
            &train,
            &validation,
            &start(),
            &FitOptions::default(),
            &mut |_| {},
        );
        assert!(fit.validation_after < fit.validation_before);
        // The king weights, far from the start, are found within a few centi-men.
        assert!((fit.params[1] - 180).abs() <= 15, "{:?}", fit.params);
        assert!(
            (fit.params[FEATURE_COUNT + 1] - 260).abs() <= 20,
            "{:?}",
            fit.params
        );
        assert_eq!(fit.params[0], 100);
        assert_eq!(fit.params[FEATURE_COUNT], 100);
    }

    #[test]
    fn ridge_keeps_the_weights_near_the_start() {
        let mut rng = Rng(5);
        let train = samples(5_000, 1.0, true, &mut rng);
        let options = FitOptions {
            k: Some(1.0),
            ridge: 1e3,
            ..FitOptions::default()
        };
        let fit = fit(&train, &[], &start(), &options, &mut |_| {});
        let s = params(&start());
        for (&got, &want) in fit.params.iter().zip(&s) {
            assert!((got as f64 - want).abs() <= 2.0, "{:?}", fit.params);
        }
    }
}
