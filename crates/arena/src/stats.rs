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
        let n = self.games() as f64;
        if n == 0.0 {
            return (Some(0.0), None);
        }
        let p = self.score();
        // Per-game variance of the score (trinomial).
        let var = (self.wins as f64 * (1.0 - p).powi(2)
            + self.draws as f64 * (0.5 - p).powi(2)
            + self.losses as f64 * p.powi(2))
            / n;
        let se = (var / n).sqrt();
        let lo = elo_of(p - 1.96 * se);
        let hi = elo_of(p + 1.96 * se);
        let error = match (lo, hi) {
            (Some(lo), Some(hi)) => Some((hi - lo) / 2.0),
            _ => None,
        };
        (elo_of(p), error)
    }
}

impl Tally {
    /// The 95% interval of the Elo difference; an end is infinite when the score's interval
    /// reaches 0 or 1 (e.g. no game lost).
    pub fn elo_interval(&self) -> (f64, f64) {
        let n = self.games() as f64;
        if n == 0.0 {
            return (f64::NEG_INFINITY, f64::INFINITY);
        }
        let p = self.score();
        let var = (self.wins as f64 * (1.0 - p).powi(2)
            + self.draws as f64 * (0.5 - p).powi(2)
            + self.losses as f64 * p.powi(2))
            / n;
        let se = (var / n).sqrt();
        (
            elo_of(p - 1.96 * se).unwrap_or(if p - 1.96 * se <= 0.0 {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }),
            elo_of(p + 1.96 * se).unwrap_or(if p + 1.96 * se >= 1.0 {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            }),
        )
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
}
