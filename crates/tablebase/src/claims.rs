//! The seeds' endgame claims (issue 13, item 7), settled from the tables: for one material,
//! who wins how often with each side to move, how often outside immediate captures, the
//! longest win, and whether the wins fit the variant's move limits.
//!
//! "Non-trivial" (the claims' "in non-trivial positions", "normally"): a position where no
//! capture is available to either side, that is, neither the side to move nor (were it to
//! move) its opponent has a capture. Wins by an immediate capture are left out that way.

use damspel_rules::{Bits, Color, Position, Rules};

use crate::material::Material;
use crate::probe::Tablebase;
use crate::value::Value;

/// What a seed says about an ending. White is always the side the claim is about (the
/// stronger side, or the man's side in a man against a king).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claimed {
    /// "wins", "wins normally", "is sufficient for a win".
    Wins,
    /// "is seldom a win".
    Seldom,
    /// "is drawn, in non-trivial positions".
    Drawn,
    /// "is not generally drawn".
    NotDrawn,
}

/// One claim of the seeds, about one material of one variant.
#[derive(Clone, Copy, Debug)]
pub struct Claim {
    /// Seed file and line.
    pub source: &'static str,
    pub variant: &'static str,
    pub material: &'static str,
    pub text: &'static str,
    pub claimed: Claimed,
}

/// The claims the seeds make (seed files in shared/seeds; line numbers as there).
pub const CLAIMS: &[Claim] = &[
    Claim {
        source: "seed 000 line 19 (1.01)",
        variant: "turkish",
        material: "KKvK",
        text: "Two Kings against one wins normally.",
        claimed: Claimed::Wins,
    },
    Claim {
        source: "seed 000 line 95 (1.25)",
        variant: "turkthic-2",
        material: "KKKvK",
        text: "Three Kings against one wins normally.",
        claimed: Claimed::Wins,
    },
    Claim {
        source: "seed 000 line 95 (1.25)",
        variant: "turkthic-2",
        material: "KKvK",
        text: "Two against one is drawn, in non-trivial positions.",
        claimed: Claimed::Drawn,
    },
    Claim {
        source: "seed 000 line 103 (1.28)",
        variant: "harzdame",
        material: "MvK",
        text: "Single Man against single King is not generally drawn (White has the man).",
        claimed: Claimed::NotDrawn,
    },
    Claim {
        source: "seed 000 line 103 (1.28)",
        variant: "harzdame",
        material: "KvM",
        text: "Single Man against single King is not generally drawn (Black has the man).",
        claimed: Claimed::NotDrawn,
    },
    Claim {
        source: "seed 000 line 103 (1.01, for comparison)",
        variant: "turkish",
        material: "MvK",
        text: "In Turkish, single Man against single King is drawn (one piece each, by rule).",
        claimed: Claimed::Drawn,
    },
    Claim {
        source: "seed 001 line 5 (2.01)",
        variant: "siberian",
        material: "KKvK",
        text: "Two Kings against one is sufficient for a win.",
        claimed: Claimed::Wins,
    },
    Claim {
        source: "seed 001 line 11 (2.03)",
        variant: "hoogland",
        material: "KKvK",
        text: "It allows two Kings to win against one in the endgame.",
        claimed: Claimed::Wins,
    },
    Claim {
        source: "seed 001 line 11 (2.04)",
        variant: "hoogland-10",
        material: "KKvK",
        text: "It allows two Kings to win against one in the endgame.",
        claimed: Claimed::Wins,
    },
    Claim {
        source: "seed 004 line 19 (4.01)",
        variant: "international",
        material: "KKKvK",
        text: "Three Kings against one King is seldom a win.",
        claimed: Claimed::Seldom,
    },
    Claim {
        source: "seed 004 line 22 (4.03)",
        variant: "deferred-killer",
        material: "KKvK",
        text: "Two Kings will win against a lone King.",
        claimed: Claimed::Wins,
    },
    Claim {
        source: "seed 004 line 22 (R.1)",
        variant: "killer",
        material: "KKvK",
        text: "Two Kings will win against a lone King.",
        claimed: Claimed::Wins,
    },
    Claim {
        source: "seed 004 line 25 (4.04)",
        variant: "deferred-killer-light",
        material: "KKKvK",
        text: "Three Kings will win against a lone King.",
        claimed: Claimed::Wins,
    },
    Claim {
        source: "seed 004 line 28 (4.05)",
        variant: "deferred-halt",
        material: "KKKvK",
        text: "Three Kings will win against a lone King.",
        claimed: Claimed::Wins,
    },
    Claim {
        source: "seed 004 line 31 (4.06)",
        variant: "deferred-halt-2",
        material: "KKKvK",
        text: "Three Kings will win against a lone King.",
        claimed: Claimed::Wins,
    },
];

/// Counts for one side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub positions: u64,
    pub white_wins: u64,
    pub black_wins: u64,
    /// White's wins no longer than the variant's limit (not cursed).
    pub white_wins_in_limit: u64,
    /// Non-trivial positions (no capture for either side) and White's wins among them.
    pub quiet: u64,
    pub quiet_white_wins: u64,
    pub quiet_black_wins: u64,
    pub quiet_white_wins_in_limit: u64,
}

/// A material settled.
#[derive(Clone, Debug)]
pub struct Settled<B: Bits> {
    pub material: Material,
    /// White to move, Black to move.
    pub sides: [Counts; 2],
    /// White's longest win in plies and a position of it (either side to move).
    pub longest: Option<(u32, Position<B>)>,
    /// The variant's limit for this material in plies with White to move, if any.
    pub limit: Option<u32>,
}

/// Share of `part` in `whole` (0 for an empty whole).
pub fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// Counts every position of `material` (None when its table is not in `tb`).
pub fn settle<B: Bits>(tb: &Tablebase<B>, material: Material) -> Option<Settled<B>> {
    let slots = tb.header(material)?.slots;
    let rules: &Rules<B> = tb.rules();
    let mut sides = [Counts::default(); 2];
    let mut longest: Option<(u32, Position<B>)> = None;
    let mut limit = None;
    for slot in 0..slots {
        let Some(pos) = tb.position(material, slot) else {
            continue;
        };
        let Some(p) = tb.probe(&pos) else { continue };
        let side = pos.side_to_move();
        if side == Color::White && limit.is_none() {
            limit = p.limit;
        }
        let c = &mut sides[side.index()];
        let quiet = !rules.has_capture(&pos) && !rules.has_capture(&pos.with_side_to_move(!side));
        let winner = match p.value {
            Value::Draw => None,
            Value::Win => Some(side),
            Value::Loss => Some(!side),
        };
        c.positions += 1;
        c.quiet += u64::from(quiet);
        match winner {
            Some(Color::White) => {
                c.white_wins += 1;
                c.white_wins_in_limit += u64::from(!p.cursed);
                if quiet {
                    c.quiet_white_wins += 1;
                    c.quiet_white_wins_in_limit += u64::from(!p.cursed);
                }
                if longest.as_ref().is_none_or(|(d, _)| p.distance > *d) {
                    longest = Some((p.distance, pos));
                }
            }
            Some(Color::Black) => {
                c.black_wins += 1;
                c.quiet_black_wins += u64::from(quiet);
            }
            None => {}
        }
    }
    Some(Settled {
        material,
        sides,
        longest,
        limit,
    })
}

/// More than half: what "normally", "generally" and "will win" are read as.
const MOST: f64 = 0.5;

/// A one-sentence verdict on a claim: holds, holds only with the move, or false, with the
/// figures (non-trivial positions) that decide it and the rule that makes it false.
pub fn verdict<B: Bits>(claim: &Claim, s: &Settled<B>) -> String {
    let [w, b] = s.sides;
    let qw = share(w.quiet_white_wins, w.quiet);
    let qb = share(b.quiet_white_wins, b.quiet);
    // Wins that also fit the move limit.
    let fw = share(w.quiet_white_wins_in_limit, w.quiet);
    let fb = share(b.quiet_white_wins_in_limit, b.quiet);
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    let limit_rule = match s.limit {
        Some(l) => {
            format!("the move limit ({l} plies for this material, rule book 4.01 / §10 A1, A3)")
        }
        None => "no move limit for this material".into(),
    };
    match claim.claimed {
        Claimed::Wins => {
            if fw > MOST && fb > MOST {
                format!("Holds: the stronger side wins {} (to move) and {} (not to move) of non-trivial positions within the limits.", pct(fw), pct(fb))
            } else if fw > MOST {
                format!("Holds only with the move: {} of non-trivial positions with the stronger side to move are won within the limits, {} with the lone side to move.", pct(fw), pct(fb))
            } else if qw > MOST || qb > MOST {
                format!("False under {limit_rule}: the wins exist ({} / {} of non-trivial positions) but most take longer than the limit.", pct(qw), pct(qb))
            } else {
                format!("False: the stronger side wins only {} (to move) and {} (not to move) of non-trivial positions; its wins are mostly immediate captures. It follows from the variant's rules of movement and capture alone, not from a move limit.", pct(qw), pct(qb))
            }
        }
        Claimed::Seldom => {
            if fw <= MOST && fb <= MOST {
                format!("Holds: within the limits the stronger side wins {} (to move) and {} (not to move) of non-trivial positions ({} and {} ignoring the limit).", pct(fw), pct(fb), pct(qw), pct(qb))
            } else {
                format!("False as counted over all positions: the stronger side wins {} (to move) and {} (not to move) of non-trivial positions within the limits; the claim is about the positions that arise in play (a lone king on the long diagonal), which this count does not weigh.", pct(fw), pct(fb))
            }
        }
        Claimed::Drawn => {
            let dw = 1.0 - qw - share(w.quiet_black_wins, w.quiet);
            let db = 1.0 - qb - share(b.quiet_black_wins, b.quiet);
            if dw > MOST && db > MOST {
                format!("Holds: {} (White to move) and {} (Black to move) of non-trivial positions are drawn.", pct(dw), pct(db))
            } else {
                format!("False: only {} (White to move) and {} (Black to move) of non-trivial positions are drawn.", pct(dw), pct(db))
            }
        }
        Claimed::NotDrawn => {
            let dec = |c: Counts| share(c.quiet_white_wins + c.quiet_black_wins, c.quiet);
            let (dw, db) = (dec(w), dec(b));
            if dw > MOST || db > MOST {
                let white = if claim.material.starts_with('M') {
                    "the man"
                } else {
                    "the king"
                };
                format!("Holds: {} (White to move) and {} (Black to move) of non-trivial positions are decisive (White, with {white}, wins {} and {}).", pct(dw), pct(db), pct(qw), pct(qb))
            } else if dw > 0.0 || db > 0.0 {
                format!("Holds only in part: {} (White to move) and {} (Black to move) of non-trivial positions are decisive; most are drawn.", pct(dw), pct(db))
            } else {
                "False: every non-trivial position is drawn.".into()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damspel_rules::Catalogue;

    /// Turkish 3-piece tables: the published 3-piece Turkish table's finding (two kings cannot
    /// force a win against one; only immediate tactics win) and the rule book's 1.01 (one piece
    /// each is a draw).
    #[test]
    fn turkish_claims_are_settled_as_published_and_by_the_rule_book() {
        let dir = tempfile::tempdir().unwrap();
        let rules = Rules::<u64>::new(Catalogue::builtin().get("turkish").unwrap()).unwrap();
        crate::build(&rules, 3, dir.path(), 2, &|_| true).unwrap();
        let tb = Tablebase::open(dir.path(), &rules).unwrap();
        let kk = &CLAIMS[0];
        assert_eq!((kk.variant, kk.material), ("turkish", "KKvK"));
        let s = settle(&tb, kk.material.parse().unwrap()).unwrap();
        assert!(s.sides[0].white_wins > 0, "immediate tactics win");
        assert!(share(s.sides[0].quiet_white_wins, s.sides[0].quiet) < 0.05);
        assert!(verdict(kk, &s).starts_with("False"), "{}", verdict(kk, &s));
        let mk = CLAIMS
            .iter()
            .find(|c| c.variant == "turkish" && c.material == "MvK");
        let s = settle(&tb, mk.unwrap().material.parse().unwrap()).unwrap();
        for c in s.sides {
            assert_eq!((c.white_wins, c.black_wins), (0, 0));
            assert!(c.positions > 0);
        }
        assert!(verdict(mk.unwrap(), &s).starts_with("Holds"));
    }
}
