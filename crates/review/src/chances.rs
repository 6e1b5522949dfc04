//! Winning chances, move accuracy and marks: lichess's method (<https://lichess.org/page/accuracy>,
//! lila `WinPercent`, `AccuracyPercent` and `Advice`), adapted to draughts' unit, the man.
//!
//! - Win% = 50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1), lichess's logistic curve fitted on
//!   its players' games, with cp clamped to ±1000. A man is counted as 300 of chess's
//!   centipawns: a clean extra man wins most draughts games between good players (about three
//!   chances in four on this curve), as a minor piece does in chess, where a pawn (100 cp) is
//!   far from decisive. Forced wins and losses count as ±1000.
//! - A move's accuracy = 103.1668 * exp(-0.04354 * (win% before - win% after)) - 3.1669, in
//!   0..=100, both win% from the mover's side.
//! - Marks, as lichess's `Advice` (a loss of 0.1, 0.2, 0.3 in winning chances, which run from -1
//!   to 1): inaccuracy from 5 win% points lost, mistake from 10, blunder from 15.

use serde::Serialize;

/// Lichess's slope, per chess centipawn.
const SLOPE: f64 = 0.003_682_08;
/// Chess centipawns per centi-man (one man = three pawns).
const CP_PER_CENTIMAN: f64 = 3.0;
/// Lichess clamps evaluations to ±1000 centipawns.
const CLAMP_CP: f64 = 1000.0;

/// The chances (0..=100) of the side whose view `centi_men` is (100 = a man up).
pub fn win_percent(centi_men: f64) -> f64 {
    let cp = (centi_men * CP_PER_CENTIMAN).clamp(-CLAMP_CP, CLAMP_CP);
    50.0 + 50.0 * (2.0 / (1.0 + (-SLOPE * cp).exp()) - 1.0)
}

/// A move's accuracy (0..=100) from the mover's win% before and after it.
pub fn move_accuracy(before: f64, after: f64) -> f64 {
    let loss = (before - after).max(0.0);
    (103.1668 * (-0.04354 * loss).exp() - 3.1669).clamp(0.0, 100.0)
}

/// How bad a move was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Mark {
    /// The mark of a move that lost `loss` win% points (none below 5).
    pub fn of_loss(loss: f64) -> Option<Mark> {
        if loss >= 15.0 {
            Some(Mark::Blunder)
        } else if loss >= 10.0 {
            Some(Mark::Mistake)
        } else if loss >= 5.0 {
            Some(Mark::Inaccuracy)
        } else {
            None
        }
    }

    /// The PDN NAG: $6 (?!), $2 (?), $4 (??).
    pub fn nag(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "$6",
            Mark::Mistake => "$2",
            Mark::Blunder => "$4",
        }
    }

    /// The move strength symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "?!",
            Mark::Mistake => "?",
            Mark::Blunder => "??",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "inaccuracy",
            Mark::Mistake => "mistake",
            Mark::Blunder => "blunder",
        }
    }
}
