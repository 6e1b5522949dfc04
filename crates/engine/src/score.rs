//! Scores: centi-men from the side to move's point of view, with forced wins and losses encoded
//! near the ends of the range so they can be shown as "win in N plies".

use std::fmt;

/// A search score. `Score(100)` is one man up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Score(pub i32);

impl Score {
    pub const ZERO: Score = Score(0);
    pub const DRAW: Score = Score(0);
    /// A won position with the win on the board now (the opponent has no move).
    pub const WIN: Score = Score(30_000);
    pub const INFINITE: Score = Score(32_000);
    /// Scores beyond this are forced wins or losses.
    const DECISIVE: i32 = 29_000;

    /// A forced win `plies` plies from the root.
    pub fn win_in(plies: u32) -> Score {
        Score(Score::WIN.0 - plies as i32)
    }

    /// A forced loss `plies` plies from the root.
    pub fn loss_in(plies: u32) -> Score {
        Score(-Score::WIN.0 + plies as i32)
    }

    pub fn is_decisive(self) -> bool {
        self.0.abs() > Score::DECISIVE
    }

    /// Plies to the forced result, if the score is one.
    pub fn plies_to_result(self) -> Option<u32> {
        self.is_decisive()
            .then(|| (Score::WIN.0 - self.0.abs()) as u32)
    }

    /// What it is worth to the other side.
    pub fn flip(self) -> Score {
        Score(-self.0)
    }

    /// How a score is displayed and sent: centi-men, or a forced result.
    pub fn kind(self) -> ScoreKind {
        match self.plies_to_result() {
            Some(n) if self.0 > 0 => ScoreKind::WinIn(n),
            Some(n) => ScoreKind::LossIn(n),
            None => ScoreKind::Men(self.0 as f64 / 100.0),
        }
    }

    /// A score stored relative to the node (transposition table) back to relative to the root.
    pub fn from_tt(self, ply: u32) -> Score {
        if self.0 > Score::DECISIVE {
            Score(self.0 - ply as i32)
        } else if self.0 < -Score::DECISIVE {
            Score(self.0 + ply as i32)
        } else {
            self
        }
    }

    /// A root-relative score made relative to the node, for the transposition table.
    pub fn to_tt(self, ply: u32) -> Score {
        if self.0 > Score::DECISIVE {
            Score(self.0 + ply as i32)
        } else if self.0 < -Score::DECISIVE {
            Score(self.0 - ply as i32)
        } else {
            self
        }
    }
}

impl std::ops::Neg for Score {
    type Output = Score;

    fn neg(self) -> Score {
        Score(-self.0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScoreKind {
    /// Material-equivalent advantage in men.
    Men(f64),
    WinIn(u32),
    LossIn(u32),
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            ScoreKind::Men(m) => write!(f, "{m:+.2}"),
            ScoreKind::WinIn(n) => write!(f, "win in {n} plies"),
            ScoreKind::LossIn(n) => write!(f, "loss in {n} plies"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forced_results_round_trip_through_the_table() {
        let s = Score::win_in(7);
        assert_eq!(s.plies_to_result(), Some(7));
        assert_eq!(s.to_tt(3).from_tt(3), s);
        assert_eq!(Score::loss_in(4).kind(), ScoreKind::LossIn(4));
        assert_eq!(Score(150).to_string(), "+1.50");
        assert!(Score::win_in(1) > Score::win_in(5));
    }
}
