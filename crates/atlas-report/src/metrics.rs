//! The atlas database (docs/atlas.md, "the atlas database") read back as metrics per variant and
//! search budget, each with its 95% interval. Definitions and their sources: docs/atlas.md,
//! "Metrics". The plies are streamed game by game, so memory stays bounded by one game plus the
//! per-variant sums (and at most `MAX_FIT_SAMPLES` samples for the piece-value fit).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use serde::Serialize;

use crate::fit::{self, FitSample};
use crate::intervals::{self, mean_interval, pentanomial_index, wilson, Interval};

/// An evaluation within this many centi-men of 0 looks drawn (a quarter of a man).
pub const DRAWN_LOOKING: i32 = 25;
/// The winner's evaluation past which the game counts as decided (Ludii's decisiveness
/// threshold, here two men).
pub const DECIDED_EVAL: i32 = 200;
/// Plies per bucket of the courses over the game (branching factor, evaluations).
pub const BUCKET: u32 = 10;
/// Buckets kept: plies beyond `BUCKET * MAX_BUCKETS` fall into the last one.
pub const MAX_BUCKETS: usize = 30;
/// A course shows a bucket only with this many plies in it (about five games' worth): the
/// few long games alone would draw noise.
pub const MIN_BUCKET_PLIES: u64 = 5 * BUCKET as u64;
/// A piece-value sample is taken every this many plies of the engine's moves.
pub const FIT_EVERY: u32 = 4;
/// The piece-value fit keeps at most this many samples per variant (memory bound).
pub const MAX_FIT_SAMPLES: usize = 2_000_000;
/// Capture sizes counted one by one up to this; larger ones are counted here.
pub const MAX_CAPTURE: usize = 30;
/// Draw reasons that stop a game from outside (Ludii's drawishness leaves these out).
pub const UNNATURAL_DRAWS: [&str; 2] = ["ply-cap", "adjudicated"];
/// Deficits beyond ten men (mate scores) count as ten men in the drama's severity.
const SEVERITY_CAP: i32 = 1000;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot open the atlas database {}: {reason}", path.display())]
    Open { path: PathBuf, reason: String },
    #[error("{} is not an atlas database: {reason}", path.display())]
    NotAtlas { path: PathBuf, reason: String },
    #[error("cannot read the atlas database {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot draw {name}: {reason}")]
    Plot { name: String, reason: String },
}

/// One point of a course over the game: the mean of a quantity over the plies of a bucket.
#[derive(Clone, Debug, Serialize)]
pub struct CoursePoint {
    /// First ply of the bucket.
    pub ply: u32,
    /// Mean with a normal 95% interval (plies of one game are not independent: read it as a
    /// guide, not a test).
    pub mean: Interval,
}

/// How often games ended for one reason.
#[derive(Clone, Debug, Serialize)]
pub struct ReasonRow {
    /// "draw" or "decided".
    pub outcome: &'static str,
    pub reason: String,
    pub count: u64,
    /// Share of all games.
    pub share: Interval,
}

/// A king's worth in men, from a logistic fit of the result on the material difference.
#[derive(Clone, Debug, Serialize)]
pub struct PieceValues {
    /// Logistic coefficient of one man more (per man, first player's view).
    pub man: f64,
    /// Logistic coefficient of one king more.
    pub king: f64,
    /// King / man with its 95% interval (delta method, variance clustered by game).
    pub king_in_men: Option<Interval>,
    pub samples: u64,
}

/// Everything measured for one variant at one search budget.
#[derive(Clone, Debug, Serialize)]
pub struct VariantMetrics {
    pub variant: String,
    pub budget: String,
    pub seed: Option<i64>,
    pub opening_plies: Option<i64>,
    pub games: u64,
    /// Pairs with both games present.
    pub pairs: u64,
    pub first_wins: u64,
    pub second_wins: u64,
    pub draws: u64,
    /// Pairs whose first-player points were 0, ½, 1, 1½, 2.
    pub pentanomial: [u64; 5],
    /// First player's score per game (pentanomial).
    pub first_score: Option<Interval>,
    /// Ludii's balance: 1 − |first's win rate − second's win rate| (pairs).
    pub balance: Option<Interval>,
    /// Share of decided games (pairs: decided games of a pair / 2).
    pub decisive_rate: Option<Interval>,
    /// Share of drawn games (pairs).
    pub draw_rate: Option<Interval>,
    /// Ludii's drawishness: draws other than by the ply cap or adjudication (Wilson, games).
    pub natural_draw_rate: Option<Interval>,
    pub reasons: Vec<ReasonRow>,
    /// Plies per game (t interval).
    pub length: Option<Interval>,
    pub length_median: Option<f64>,
    /// Every game's length, for the histogram.
    pub lengths: Vec<u32>,
    /// Legal moves per position: mean over games of each game's mean.
    pub branching: Option<Interval>,
    pub branching_course: Vec<CoursePoint>,
    /// Share of plies that capture: mean over games.
    pub capture_rate: Option<Interval>,
    /// The longest capture seen (pieces taken by one move).
    pub longest_capture: u32,
    /// Each game's longest capture, averaged.
    pub longest_capture_mean: Option<Interval>,
    /// Plies that captured k pieces, k = 0..=MAX_CAPTURE (the last counts larger ones too).
    pub capture_sizes: Vec<u64>,
    /// Promotions per game.
    pub promotions: Option<Interval>,
    /// Share of games with at least one promotion (Wilson).
    pub promotion_games: Option<Interval>,
    /// Ply of a game's first promotion (games with one).
    pub first_promotion_ply: Option<Interval>,
    /// Plies at which promotions happened, for the histogram.
    pub promotion_plies: Vec<u32>,
    /// Lead changes per 100 engine plies (Ludii's lead change, times 100).
    pub lead_changes: Option<Interval>,
    /// Decided games: share of engine plies at which the eventual winner was behind.
    pub drama: Option<Interval>,
    /// Decided games: mean deficit of the eventual winner, in men (Ludii's drama, average).
    pub drama_severity: Option<Interval>,
    /// Decided games whose evaluation looked drawn in the last quarter of the game (Wilson).
    pub late_drawn_looking: Option<Interval>,
    /// Decided games: the fraction of the game played before the winner's evaluation first
    /// passed DECIDED_EVAL (Ludii's decisiveness moves).
    pub decision_point: Option<Interval>,
    /// Mean evaluation (first player's view, centi-men) by ply.
    pub eval_course: Vec<CoursePoint>,
    /// Mean |evaluation| (centi-men) by ply.
    pub abs_eval_course: Vec<CoursePoint>,
    /// Distinct positions after the opening plies, as a share of the pairs (Wilson).
    pub opening_diversity: Option<Interval>,
    pub distinct_openings: u64,
    pub piece_values: Option<PieceValues>,
}

/// The atlas: every (variant, budget) of the database, in the database's order.
#[derive(Clone, Debug, Serialize)]
pub struct Atlas {
    pub variants: Vec<VariantMetrics>,
}

fn read_err(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |source| Error::Read {
        path: path.to_path_buf(),
        source,
    }
}

/// Opens an atlas database read-only and checks that it is one (tables and schema version).
pub fn open(path: &Path) -> Result<Connection, Error> {
    if !path.is_file() {
        return Err(Error::Open {
            path: path.to_path_buf(),
            reason: if path.is_dir() {
                "a folder, not a database file".into()
            } else {
                "no such file".into()
            },
        });
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| Error::Open {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let not_atlas = |reason: String| Error::NotAtlas {
        path: path.to_path_buf(),
        reason,
    };
    let tables: HashSet<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .and_then(|mut s| {
            s.query_map([], |r| r.get::<_, String>(0))?
                .collect::<Result<_, _>>()
        })
        .map_err(|e| not_atlas(e.to_string()))?;
    for t in ["meta", "runs", "games", "plies"] {
        if !tables.contains(t) {
            return Err(not_atlas(format!("it has no table `{t}`")));
        }
    }
    let schema: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| {
            r.get(0)
        })
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        })
        .map_err(|e| not_atlas(e.to_string()))?;
    match schema.as_deref() {
        Some("1") => Ok(conn),
        Some(v) => Err(not_atlas(format!(
            "its schema version is {v}; this report reads version 1"
        ))),
        None => Err(not_atlas("its meta table has no schema version".into())),
    }
}

/// Reads the whole atlas.
pub fn load(path: &Path) -> Result<Atlas, Error> {
    let conn = open(path)?;
    let err = read_err(path);
    let mut keys: Vec<(String, String)> = conn
        .prepare(
            "SELECT variant, budget FROM runs UNION SELECT variant, budget FROM games \
             ORDER BY 1, 2",
        )
        .and_then(|mut s| {
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()
        })
        .map_err(&err)?;
    keys.dedup();
    let mut variants = Vec::with_capacity(keys.len());
    for (variant, budget) in keys {
        variants.push(variant_metrics(&conn, path, &variant, &budget)?);
    }
    Ok(Atlas { variants })
}

/// One game's row of the games table.
struct GameRow {
    pair: i64,
    game: i64,
    /// +1 first won, -1 second won, 0 draw.
    result: i8,
    reason: String,
    plies: u32,
    opening_fen: String,
}

/// One row of the plies table.
struct PlyRow {
    ply: u32,
    legal: u32,
    captured: u32,
    promotes: bool,
    eval: Option<i32>,
    men: i32,
    kings: i32,
}

/// Sums for a course over the game.
#[derive(Clone, Default)]
struct Course {
    n: Vec<u64>,
    sum: Vec<f64>,
    sq: Vec<f64>,
}

impl Course {
    fn add(&mut self, ply: u32, x: f64) {
        let b = ((ply / BUCKET) as usize).min(MAX_BUCKETS - 1);
        if self.n.len() <= b {
            self.n.resize(b + 1, 0);
            self.sum.resize(b + 1, 0.0);
            self.sq.resize(b + 1, 0.0);
        }
        self.n[b] += 1;
        self.sum[b] += x;
        self.sq[b] += x * x;
    }

    fn points(&self) -> Vec<CoursePoint> {
        (0..self.n.len())
            .filter(|&b| self.n[b] >= MIN_BUCKET_PLIES)
            .map(|b| {
                let n = self.n[b] as f64;
                let mean = self.sum[b] / n;
                let var = if n > 1.0 {
                    ((self.sq[b] - n * mean * mean) / (n - 1.0)).max(0.0)
                } else {
                    0.0
                };
                let half = intervals::Z95 * (var / n).sqrt();
                CoursePoint {
                    ply: b as u32 * BUCKET,
                    mean: Interval {
                        value: mean,
                        low: mean - half,
                        high: mean + half,
                        n: self.n[b],
                    },
                }
            })
            .collect()
    }
}

/// Per-game values gathered while streaming, turned into metrics at the end.
#[derive(Default)]
struct Gather {
    branching: Vec<f64>,
    branching_course: Course,
    capture_rate: Vec<f64>,
    longest: Vec<f64>,
    longest_capture: u32,
    capture_sizes: Vec<u64>,
    promotions: Vec<f64>,
    promoted_games: u64,
    first_promotion: Vec<f64>,
    promotion_plies: Vec<u32>,
    lead_changes: Vec<f64>,
    drama: Vec<f64>,
    severity: Vec<f64>,
    late_drawn: u64,
    decided_with_evals: u64,
    decision_point: Vec<f64>,
    eval_course: Course,
    abs_eval_course: Course,
    fit: Vec<FitSample>,
}

impl Gather {
    fn game(&mut self, index: u32, g: &GameRow, rows: &[PlyRow]) {
        if rows.is_empty() {
            return;
        }
        let n = rows.len() as f64;
        self.branching
            .push(rows.iter().map(|r| f64::from(r.legal)).sum::<f64>() / n);
        let mut captures = 0u32;
        let mut longest = 0u32;
        let mut promotions = 0u32;
        let mut first_promotion = None;
        for r in rows {
            self.branching_course.add(r.ply, f64::from(r.legal));
            if self.capture_sizes.is_empty() {
                self.capture_sizes = vec![0; MAX_CAPTURE + 1];
            }
            self.capture_sizes[(r.captured as usize).min(MAX_CAPTURE)] += 1;
            if r.captured > 0 {
                captures += 1;
            }
            longest = longest.max(r.captured);
            if r.promotes {
                promotions += 1;
                first_promotion.get_or_insert(r.ply);
                self.promotion_plies.push(r.ply);
            }
            if let Some(e) = r.eval {
                self.eval_course.add(r.ply, f64::from(e));
                self.abs_eval_course.add(r.ply, f64::from(e.abs()));
                if r.ply % FIT_EVERY == 0 && self.fit.len() < MAX_FIT_SAMPLES {
                    self.fit.push(FitSample {
                        game: index,
                        men: r.men,
                        kings: r.kings,
                        score: (f64::from(g.result) + 1.0) / 2.0,
                    });
                }
            }
        }
        self.capture_rate.push(f64::from(captures) / n);
        self.longest.push(f64::from(longest));
        self.longest_capture = self.longest_capture.max(longest);
        self.promotions.push(f64::from(promotions));
        if let Some(p) = first_promotion {
            self.promoted_games += 1;
            self.first_promotion.push(f64::from(p));
        }

        let evals: Vec<(u32, i32)> = rows
            .iter()
            .filter_map(|r| r.eval.map(|e| (r.ply, e)))
            .collect();
        if evals.len() >= 2 {
            self.lead_changes
                .push(100.0 * lead_changes(&evals) as f64 / evals.len() as f64);
        }
        if g.result != 0 && !evals.is_empty() {
            let sign = i32::from(g.result);
            let winner: Vec<i32> = evals.iter().map(|&(_, e)| e * sign).collect();
            let m = winner.len() as f64;
            self.drama
                .push(winner.iter().filter(|&&w| w < -DRAWN_LOOKING).count() as f64 / m);
            self.severity.push(
                winner
                    .iter()
                    .map(|&w| f64::from((-w).clamp(0, SEVERITY_CAP)) / 100.0)
                    .sum::<f64>()
                    / m,
            );
            self.decided_with_evals += 1;
            let late = g.plies.max(1) * 3 / 4;
            if evals
                .iter()
                .any(|&(p, e)| p >= late && e.abs() <= DRAWN_LOOKING)
            {
                self.late_drawn += 1;
            }
            let decided_at = evals
                .iter()
                .find(|&&(_, e)| e * sign > DECIDED_EVAL)
                .map_or(g.plies, |&(p, _)| p);
            self.decision_point
                .push(f64::from(decided_at) / f64::from(g.plies.max(1)));
        }
    }
}

/// Lead changes along a game's evaluations: the side ahead by more than DRAWN_LOOKING differs
/// from the side that was last ahead (a stretch of level evaluations in between is no change).
pub fn lead_changes(evals: &[(u32, i32)]) -> u32 {
    let mut last = 0i32;
    let mut changes = 0;
    for &(_, e) in evals {
        let leader = if e > DRAWN_LOOKING {
            1
        } else if e < -DRAWN_LOOKING {
            -1
        } else {
            0
        };
        if leader != 0 {
            if last != 0 && leader != last {
                changes += 1;
            }
            last = leader;
        }
    }
    changes
}

fn result_code(text: &str) -> Option<i8> {
    match text {
        "first" => Some(1),
        "second" => Some(-1),
        "draw" => Some(0),
        _ => None,
    }
}

fn variant_metrics(
    conn: &Connection,
    path: &Path,
    variant: &str,
    budget: &str,
) -> Result<VariantMetrics, Error> {
    let err = read_err(path);
    let run: Option<(i64, i64)> = conn
        .query_row(
            "SELECT seed, opening_plies FROM runs WHERE variant = ?1 AND budget = ?2",
            [variant, budget],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        })
        .map_err(&err)?;

    let mut stmt = conn
        .prepare(
            "SELECT pair, game, result, reason, plies, opening_fen FROM games \
             WHERE variant = ?1 AND budget = ?2 ORDER BY pair, game",
        )
        .map_err(&err)?;
    let raw: Vec<(i64, i64, String, String, i64, String)> = stmt
        .query_map([variant, budget], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })
        .and_then(|rows| rows.collect())
        .map_err(&err)?;
    let mut games = Vec::with_capacity(raw.len());
    for (pair, game, result, reason, plies, opening_fen) in raw {
        let result = result_code(&result).ok_or_else(|| Error::NotAtlas {
            path: path.to_path_buf(),
            reason: format!(
                "game {pair}/{game} of {variant} ({budget}) has result `{result}` \
                 (expected first, second or draw)"
            ),
        })?;
        games.push(GameRow {
            pair,
            game,
            result,
            reason,
            plies: u32::try_from(plies.max(0)).unwrap_or(u32::MAX),
            opening_fen,
        });
    }
    let index: HashMap<(i64, i64), usize> = games
        .iter()
        .enumerate()
        .map(|(i, g)| ((g.pair, g.game), i))
        .collect();

    // The plies, streamed in key order and handed over one game at a time.
    let mut gather = Gather::default();
    let mut stmt = conn
        .prepare(
            "SELECT pair, game, ply, legal, captured, promotes, eval, men_first, kings_first, \
             men_second, kings_second FROM plies WHERE variant = ?1 AND budget = ?2 \
             ORDER BY pair, game, ply",
        )
        .map_err(&err)?;
    let mut rows = stmt.query([variant, budget]).map_err(&err)?;
    let mut current: Option<(i64, i64)> = None;
    let mut buffer: Vec<PlyRow> = Vec::new();
    let flush = |key: Option<(i64, i64)>, buffer: &mut Vec<PlyRow>, gather: &mut Gather| {
        if let Some(i) = key.and_then(|k| index.get(&k)) {
            gather.game(*i as u32, &games[*i], buffer);
        }
        buffer.clear();
    };
    while let Some(r) = rows.next().map_err(&err)? {
        let key = (r.get::<_, i64>(0).map_err(&err)?, r.get(1).map_err(&err)?);
        if current != Some(key) {
            flush(current, &mut buffer, &mut gather);
            current = Some(key);
        }
        let count = |i: usize| -> Result<u32, Error> {
            Ok(u32::try_from(r.get::<_, i64>(i).map_err(&err)?.max(0)).unwrap_or(u32::MAX))
        };
        let int = |i: usize| -> Result<i32, Error> {
            Ok(r.get::<_, i64>(i)
                .map_err(&err)?
                .clamp(-1_000_000, 1_000_000) as i32)
        };
        buffer.push(PlyRow {
            ply: count(2)?,
            legal: count(3)?,
            captured: count(4)?,
            promotes: r.get::<_, i64>(5).map_err(&err)? != 0,
            eval: r
                .get::<_, Option<i64>>(6)
                .map_err(&err)?
                .map(|e| e.clamp(-10_000, 10_000) as i32),
            men: int(7)? - int(9)?,
            kings: int(8)? - int(10)?,
        });
    }
    flush(current, &mut buffer, &mut gather);
    drop(rows);

    Ok(summarise(variant, budget, run, &games, gather))
}

fn summarise(
    variant: &str,
    budget: &str,
    run: Option<(i64, i64)>,
    games: &[GameRow],
    g: Gather,
) -> VariantMetrics {
    let n = games.len() as u64;
    let count = |r: i8| games.iter().filter(|x| x.result == r).count() as u64;

    // Pairs: both games present (games are sorted by pair, then game).
    let mut pentanomial = [0u64; 5];
    let mut pair_decided = Vec::new();
    let mut pair_balance = Vec::new();
    let mut pair_fens: BTreeMap<i64, &str> = BTreeMap::new();
    for w in games.windows(2) {
        if w[0].pair == w[1].pair && w[0].game == 0 && w[1].game == 1 {
            let points: f64 = w.iter().map(|x| (f64::from(x.result) + 1.0) / 2.0).sum();
            pentanomial[pentanomial_index(points)] += 1;
            pair_decided.push(w.iter().filter(|x| x.result != 0).count() as f64 / 2.0);
            pair_balance.push(w.iter().map(|x| f64::from(x.result)).sum::<f64>() / 2.0);
        }
    }
    for x in games {
        pair_fens.entry(x.pair).or_insert(&x.opening_fen);
    }
    let decisive_rate = mean_interval(&pair_decided).map(clamp01);
    let draw_rate = decisive_rate.map(|d| Interval {
        value: 1.0 - d.value,
        low: 1.0 - d.high,
        high: 1.0 - d.low,
        n: d.n,
    });
    // Balance = 1 - |mean of (first wins - second wins) / 2 per pair|.
    let balance = mean_interval(&pair_balance).map(|d| {
        let (lo, hi) = (d.low.max(-1.0), d.high.min(1.0));
        let high = if lo <= 0.0 && hi >= 0.0 {
            1.0
        } else {
            1.0 - lo.abs().min(hi.abs())
        };
        Interval {
            value: 1.0 - d.value.abs(),
            low: (1.0 - lo.abs().max(hi.abs())).max(0.0),
            high,
            n: d.n,
        }
    });

    let mut reasons: BTreeMap<(&'static str, &str), u64> = BTreeMap::new();
    for x in games {
        let outcome = if x.result == 0 { "draw" } else { "decided" };
        *reasons.entry((outcome, x.reason.as_str())).or_default() += 1;
    }
    let reasons = reasons
        .into_iter()
        .filter_map(|((outcome, reason), count)| {
            Some(ReasonRow {
                outcome,
                reason: reason.to_string(),
                count,
                share: wilson(count, n)?,
            })
        })
        .collect();
    let natural = games
        .iter()
        .filter(|x| x.result == 0 && !UNNATURAL_DRAWS.contains(&x.reason.as_str()))
        .count() as u64;

    let lengths: Vec<u32> = games.iter().map(|x| x.plies).collect();
    let length_f: Vec<f64> = lengths.iter().map(|&l| f64::from(l)).collect();
    let length_median = median(&lengths);

    let distinct: HashSet<&str> = pair_fens.values().copied().collect();
    let pairs_seen = pair_fens.len() as u64;

    VariantMetrics {
        variant: variant.to_string(),
        budget: budget.to_string(),
        seed: run.map(|r| r.0),
        opening_plies: run.map(|r| r.1),
        games: n,
        pairs: pentanomial.iter().sum(),
        first_wins: count(1),
        second_wins: count(-1),
        draws: count(0),
        pentanomial,
        first_score: intervals::pentanomial_score(pentanomial),
        balance,
        decisive_rate,
        draw_rate,
        natural_draw_rate: wilson(natural, n),
        reasons,
        length: mean_interval(&length_f),
        length_median,
        lengths,
        branching: mean_interval(&g.branching),
        branching_course: g.branching_course.points(),
        capture_rate: mean_interval(&g.capture_rate).map(clamp01),
        longest_capture: g.longest_capture,
        longest_capture_mean: mean_interval(&g.longest),
        capture_sizes: g.capture_sizes,
        promotions: mean_interval(&g.promotions),
        promotion_games: wilson(g.promoted_games, g.promotions.len() as u64),
        first_promotion_ply: mean_interval(&g.first_promotion),
        promotion_plies: g.promotion_plies,
        lead_changes: mean_interval(&g.lead_changes),
        drama: mean_interval(&g.drama).map(clamp01),
        drama_severity: mean_interval(&g.severity),
        late_drawn_looking: wilson(g.late_drawn, g.decided_with_evals),
        decision_point: mean_interval(&g.decision_point).map(clamp01),
        eval_course: g.eval_course.points(),
        abs_eval_course: g.abs_eval_course.points(),
        opening_diversity: wilson(distinct.len() as u64, pairs_seen),
        distinct_openings: distinct.len() as u64,
        piece_values: fit::piece_values(&g.fit),
    }
}

fn clamp01(i: Interval) -> Interval {
    Interval {
        low: i.low.max(0.0),
        high: i.high.min(1.0),
        ..i
    }
}

fn median(xs: &[u32]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_unstable();
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        f64::from(v[m])
    } else {
        (f64::from(v[m - 1]) + f64::from(v[m])) / 2.0
    })
}
