//! Match statistics: score and Elo difference with its 95% error.

/// Wins, draws and losses of the first player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Tally {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points scored, a win counting 1 and a draw ½.
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// Score fraction in [0, 1].
    pub fn score(&self) -> f64 {
        if self.games() == 0 {
            0.5
        } else {
            self.points() / self.games() as f64
        }
    }

    pub fn add(&mut self, first_player_score: f64) {
        if first_player_score > 0.75 {
            self.wins += 1;
        } else if first_player_score < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Elo difference and the half-width of its 95% interval (None when infinite: all wins or
    /// all losses).
    pub fn elo(&self) -> (Option<f64>, Option<f64>) {
        if self.games() == 0 {
            return (Some(0.0), None);
        }
        let (lo, hi) = self.elo_interval();
        let error = (lo.is_finite() && hi.is_finite()).then(|| (hi - lo) / 2.0);
        (elo_of(self.score()), error)
    }
}

impl Tally {
    /// The 95% interval of the Elo difference; an end is infinite when the score's interval
    /// reaches 0 or 1 (e.g. no game lost). The score's interval is ±1.96 standard errors of the
    /// per-game score (trinomial variance); when every game had the same result that variance
    /// is 0 and says nothing, so the Wilson interval of a proportion is used instead (all wins
    /// in n games: the score is at least n / (n + 1.96²)).
    pub fn elo_interval(&self) -> (f64, f64) {
        const Z: f64 = 1.96;
        let n = self.games() as f64;
        if n == 0.0 {
            return (f64::NEG_INFINITY, f64::INFINITY);
        }
        let p = self.score();
        let var = (self.wins as f64 * (1.0 - p).powi(2)
            + self.draws as f64 * (0.5 - p).powi(2)
            + self.losses as f64 * p.powi(2))
            / n;
        let (lo, hi) = if var > 0.0 {
            let se = (var / n).sqrt();
            (p - Z * se, p + Z * se)
        } else {
            let denom = 1.0 + Z * Z / n;
            let centre = (p + Z * Z / (2.0 * n)) / denom;
            let half = Z * (p * (1.0 - p) / n + Z * Z / (4.0 * n * n)).sqrt() / denom;
            // At a score of 0 or 1 that end is exactly 0 or 1 (rounding would make it finite).
            (
                if p <= 0.0 { 0.0 } else { centre - half },
                if p >= 1.0 { 1.0 } else { centre + half },
            )
        };
        let elo = |x: f64| {
            elo_of(x).unwrap_or(if x <= 0.0 {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            })
        };
        (elo(lo), elo(hi))
    }
}

/// The Elo difference for a score fraction.
pub fn elo_of(p: f64) -> Option<f64> {
    (p > 0.0 && p < 1.0).then(|| -400.0 * (1.0 / p - 1.0).log10())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_of_known_scores() {
        // A 75% score is 190.8 Elo (-400 log10(1/3)).
        assert!((elo_of(0.75).unwrap() - 190.85).abs() < 0.01);
        assert_eq!(elo_of(0.5), Some(0.0));
        assert_eq!(elo_of(1.0), None);
        let t = Tally {
            wins: 30,
            draws: 40,
            losses: 30,
        };
        let (elo, err) = t.elo();
        assert_eq!(elo, Some(0.0));
        // var = (30*.25 + 0 + 30*.25)/100 = .15; se = .0387; p ± .0759 -> ±53 Elo.
        assert!((err.unwrap() - 53.0).abs() < 1.5, "{err:?}");
        // 99 wins and 1 loss: p = .99, se = sqrt(.0099/100) = .00995, interval .9705 to 1.
        let t = Tally {
            wins: 99,
            draws: 0,
            losses: 1,
        };
        let (lo, hi) = t.elo_interval();
        assert!((lo - elo_of(0.9705).unwrap()).abs() < 2.0, "{lo}");
        assert!(hi.is_infinite() && hi > 0.0);
    }

    #[test]
    fn one_sided_matches_still_have_a_finite_bound() {
        // 20 wins out of 20: Wilson's lower bound is 20 / (20 + 1.96²) = 0.8389, +285 Elo.
        let all_wins = Tally {
            wins: 20,
            draws: 0,
            losses: 0,
        };
        let (lo, hi) = all_wins.elo_interval();
        assert!(
            (lo - elo_of(20.0 / (20.0 + 1.96 * 1.96)).unwrap()).abs() < 0.5,
            "{lo}"
        );
        assert!((lo - 285.0).abs() < 2.0, "{lo}");
        assert!(hi.is_infinite() && hi > 0.0);
        let all_losses = Tally {
            wins: 0,
            draws: 0,
            losses: 20,
        };
        let (lo, hi) = all_losses.elo_interval();
        assert!(lo.is_infinite() && lo < 0.0);
        assert!((hi + 285.0).abs() < 2.0, "{hi}");
        // All draws: centred on 0 and finite on both sides.
        let all_draws = Tally {
            wins: 0,
            draws: 20,
            losses: 0,
        };
        let (lo, hi) = all_draws.elo_interval();
        assert!(
            lo.is_finite() && hi.is_finite() && (lo + hi).abs() < 1e-6,
            "{lo} {hi}"
        );
    }
}
