//! The search budget of every engine move, and its canonical text (the `budget` column).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use damspel_engine::Level;

/// Most nodes per move (a game at this budget already takes hours).
pub const MAX_NODES: u64 = 1_000_000_000;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// Nodes per move, within ±1/8 per move (see `play`): reproducible on any machine.
    Nodes(u64),
    /// Seconds per move: not reproducible (a loaded machine searches less).
    Time(f64),
    /// A playing level 1-5 (node budgets with a seeded draw among near-best moves).
    Level(Level),
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad budget `{text}`: {reason}")]
pub struct BudgetError {
    pub text: String,
    pub reason: String,
}

impl Budget {
    /// Checks the values: nodes from 100 to 10^9, time from 0.001 to 3600 s, level 1 to 5.
    pub fn check(self) -> Result<Budget, BudgetError> {
        let fail = |reason: &str| BudgetError {
            text: self.to_string(),
            reason: reason.to_string(),
        };
        match self {
            Budget::Nodes(n) if !(100..=MAX_NODES).contains(&n) => {
                Err(fail("nodes must be from 100 to 1000000000"))
            }
            Budget::Time(t) if !(t.is_finite() && (0.001..=3600.0).contains(&t)) => {
                Err(fail("time must be from 0.001 to 3600 seconds"))
            }
            // Levels 6-8 search one line with a fixed budget: the two games of a pair would be
            // copies of each other.
            Budget::Level(l) if l.number() > 5 => {
                let nodes = |n| {
                    Level::new(n)
                        .ok()
                        .and_then(Level::budget)
                        .map_or(0, |b| b.nodes)
                };
                Err(fail(&format!(
                    "levels 6 to 8 are not drawn among near-best moves; use --nodes (level 6 is \
                     --nodes {}, level 7 --nodes {})",
                    nodes(6),
                    nodes(7)
                )))
            }
            b => Ok(b),
        }
    }

    /// Whether the same game comes out on any machine.
    pub fn reproducible(self) -> bool {
        !matches!(self, Budget::Time(_))
    }

    pub fn move_time(self) -> Option<Duration> {
        match self {
            Budget::Time(t) => Some(Duration::from_secs_f64(t)),
            _ => None,
        }
    }
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Budget::Nodes(n) => write!(f, "nodes={n}"),
            Budget::Time(t) => write!(f, "time={t}"),
            Budget::Level(l) => write!(f, "level={l}"),
        }
    }
}

impl FromStr for Budget {
    type Err = BudgetError;

    /// Reads the canonical text: `nodes=20000`, `time=0.1`, `level=5`.
    fn from_str(text: &str) -> Result<Budget, BudgetError> {
        let fail = |reason: &str| BudgetError {
            text: text.to_string(),
            reason: reason.to_string(),
        };
        let (kind, value) = text
            .split_once('=')
            .ok_or_else(|| fail("expected nodes=N, time=S or level=L"))?;
        let budget = match kind {
            "nodes" => Budget::Nodes(value.parse().map_err(|_| fail("not a whole number"))?),
            "time" => Budget::Time(value.parse().map_err(|_| fail("not a number"))?),
            "level" => Budget::Level(
                value
                    .parse()
                    .map_err(|e: damspel_engine::LevelError| fail(&e.to_string()))?,
            ),
            _ => return Err(fail("expected nodes=N, time=S or level=L")),
        };
        budget.check()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_text_round_trips() {
        for text in ["nodes=20000", "time=0.1", "level=3"] {
            assert_eq!(text.parse::<Budget>().unwrap().to_string(), text);
        }
        assert!("nodes=5".parse::<Budget>().is_err());
        assert!("level=7".parse::<Budget>().is_err());
        assert!("depth=3".parse::<Budget>().is_err());
    }
}
