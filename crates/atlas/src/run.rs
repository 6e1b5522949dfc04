//! `atlas run`: plays the games of a shard that the database does not hold yet, on several
//! threads (one search thread per game), writing each game as it finishes.
//!
//! Games are numbered per variant 0..N: game g is game g % 2 of pair g / 2. The tasks run in
//! the order (pair, variant, game), so a run cut short has played the same early pairs of every
//! variant.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

use damspel_notation::pdn::GameResult;
use damspel_notation::write_fen;
use damspel_rules::rules::BoardTooLarge;
use damspel_rules::{on_rules, AnyRules, Bits, Position, Rules, Variant};

use crate::budget::Budget;
use crate::openings;
use crate::pdn::{self, Header};
use crate::play::{self, PlayError};
use crate::seed::{self, mix};
use crate::shard::Shard;
use crate::store::{self, GameRow, Store, StoreError, Written};

/// Most games per variant (the games left to play are listed in memory, 24 bytes each).
pub const MAX_GAMES: u64 = 10_000_000;
/// Most random plies of an opening.
pub const MAX_OPENING_PLIES: usize = 40;
/// Most worker threads.
pub const MAX_THREADS: usize = 256;

/// What to play.
#[derive(Clone, Debug)]
pub struct RunConfig {
    pub variants: Vec<Variant>,
    /// Games per variant (pairs = games / 2, rounded up).
    pub games: u64,
    pub budget: Budget,
    pub opening_plies: usize,
    /// Master seed of the openings and games.
    pub seed: u64,
    pub shard: Shard,
    /// Games played at once.
    pub threads: usize,
    /// Play at most this many games, then stop (an interruption on purpose).
    pub limit: Option<u64>,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Config(String),
    #[error(transparent)]
    Board(#[from] BoardTooLarge),
    #[error("{variant} pair {pair} game {game}: {source}")]
    Play {
        variant: String,
        pair: u64,
        game: u8,
        source: PlayError,
    },
}

/// Progress of a run, for a progress bar.
#[derive(Clone, Debug)]
pub enum Progress<'a> {
    /// Before the first game: games to play in this shard, and those already stored.
    Planned { to_play: u64, stored: u64 },
    /// A game was stored.
    Stored(&'a GameRow),
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub played: u64,
    /// Games of this shard that were already stored (skipped).
    pub stored_before: u64,
    /// Games of this shard left to play (stopped early).
    pub remaining: u64,
    /// Games this run played that another run writing the database had stored meanwhile (the
    /// same game: left as it was).
    pub stored_meanwhile: u64,
}

/// What the games of a variant are played under, as the database keeps it (meta
/// `rules:<id>`): the hash of its rules and its start position.
fn played_under<B: Bits>(rules: &Rules<B>) -> String {
    let v = rules.variant();
    store::played_under(
        v.rules_hash(),
        &write_fen(&v.geometry, &Position::start(rules)),
    )
}

struct Task {
    variant: usize,
    pair: u64,
    game: u8,
}

impl RunConfig {
    pub fn check(&self) -> Result<(), RunError> {
        let fail = |s: String| Err(RunError::Config(s));
        if self.variants.is_empty() {
            return fail("no variant given".into());
        }
        if !(1..=MAX_GAMES).contains(&self.games) {
            return fail(format!("--games must be from 1 to {MAX_GAMES}"));
        }
        if self.opening_plies > MAX_OPENING_PLIES {
            return fail(format!(
                "--openings must be from 0 to {MAX_OPENING_PLIES} plies"
            ));
        }
        if !(1..=MAX_THREADS).contains(&self.threads) {
            return fail(format!("--threads must be from 1 to {MAX_THREADS}"));
        }
        self.budget
            .check()
            .map_err(|e| RunError::Config(e.to_string()))?;
        let mut ids: Vec<&str> = self.variants.iter().map(|v| v.id.as_str()).collect();
        ids.sort_unstable();
        if ids.windows(2).any(|w| w[0] == w[1]) {
            return fail("a variant is given twice".into());
        }
        Ok(())
    }
}

/// Plays the missing games of the shard into `store`. `stop` ends the run within one engine
/// move of each game in progress; those games are dropped (a later run plays them).
pub fn run(
    store: &mut Store,
    config: &RunConfig,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Summary, RunError> {
    config.check()?;
    let budget = config.budget.to_string();
    let rules = config
        .variants
        .iter()
        .map(|v| AnyRules::new(v.clone()))
        .collect::<Result<Vec<_>, _>>()?;
    let mut tasks = Vec::new();
    let mut stored_before = 0;
    for (vi, v) in config.variants.iter().enumerate() {
        store.ensure_run(
            &v.id,
            &on_rules!(&rules[vi], |r| played_under(r)),
            &budget,
            config.seed,
            config.opening_plies,
        )?;
        let present = store.present(&v.id, &budget)?;
        for g in 0..config.games {
            let (pair, game) = (g / 2, (g % 2) as u8);
            if !config.shard.contains(pair) {
                continue;
            }
            if present.contains(&(pair, game)) {
                stored_before += 1;
            } else {
                tasks.push(Task {
                    variant: vi,
                    pair,
                    game,
                });
            }
        }
    }
    tasks.sort_by_key(|t| (t.pair, t.variant, t.game));
    let quota = config
        .limit
        .map_or(tasks.len(), |l| (l as usize).min(tasks.len()));
    progress(Progress::Planned {
        to_play: quota as u64,
        stored: stored_before,
    });
    let next = AtomicUsize::new(0);
    let mut played = 0;
    let mut stored_meanwhile = 0;
    let mut failure: Option<RunError> = None;
    let halt = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<Result<GameRow, RunError>>();
        for _ in 0..config.threads.min(quota.max(1)) {
            let tx = tx.clone();
            let (tasks, rules, next, halt, budget) = (&tasks, &rules, &next, &halt, &budget);
            scope.spawn(move || loop {
                if stop.load(Ordering::Relaxed) || halt.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= quota {
                    break;
                }
                let t = &tasks[i];
                let row = play_task(config, &rules[t.variant], budget, t, stop);
                if let Err(RunError::Play {
                    source: PlayError::Stopped,
                    ..
                }) = row
                {
                    break;
                }
                if tx.send(row).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        // This thread owns the database: it writes each game as it arrives.
        for row in rx {
            if failure.is_some() {
                // Drain what the workers still send, write nothing more.
                continue;
            }
            let written = row.and_then(|g| Ok((store.write_game(&g)?, g)));
            match written {
                Ok((Written::New, g)) => {
                    played += 1;
                    progress(Progress::Stored(&g));
                }
                Ok((Written::AlreadyStored, g)) => {
                    stored_meanwhile += 1;
                    progress(Progress::Stored(&g));
                }
                Err(e) => {
                    halt.store(true, Ordering::Relaxed);
                    failure.get_or_insert(e);
                }
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(Summary {
        played,
        stored_before,
        remaining: tasks.len() as u64 - played - stored_meanwhile,
        stored_meanwhile,
    })
}

fn play_task(
    config: &RunConfig,
    rules: &AnyRules,
    budget: &str,
    task: &Task,
    stop: &AtomicBool,
) -> Result<GameRow, RunError> {
    on_rules!(rules, |r| play_game(r, config, budget, task, stop))
}

/// Salt of the games' seeds (the openings' seeds use the pair number alone).
const GAME_SALT: u64 = 0x6761_6d65;

/// One game of the atlas, from its key alone.
fn play_game<B: Bits>(
    rules: &Arc<Rules<B>>,
    config: &RunConfig,
    budget: &str,
    task: &Task,
    stop: &AtomicBool,
) -> Result<GameRow, RunError> {
    let v = rules.variant();
    let variant_seed = seed::variant(config.seed, &v.id);
    let opening = openings::balanced(rules, variant_seed, task.pair, config.opening_plies);
    let game_seed = mix(
        mix(variant_seed ^ GAME_SALT, task.pair),
        u64::from(task.game),
    );
    let played =
        play::play(rules, &opening.moves, config.budget, game_seed, stop).map_err(|source| {
            RunError::Play {
                variant: v.id.clone(),
                pair: task.pair,
                game: task.game,
                source,
            }
        })?;
    let start = Position::start(rules);
    let after = opening.moves.iter().fold(start, |pos, mv| pos.play(mv));
    let evals: Vec<Option<i32>> = played.records.iter().map(|r| r.eval).collect();
    let player = format!("Damspel {budget}");
    let header = Header {
        round: format!("{}.{}", task.pair, task.game),
        white: player.clone(),
        black: player,
        result: played.winner.map_or(GameResult::Draw, GameResult::Win),
        extra: vec![
            ("Budget", budget.to_string()),
            ("AtlasPair", task.pair.to_string()),
            ("AtlasGame", task.game.to_string()),
            ("OpeningPlies", opening.moves.len().to_string()),
            ("OpeningScore", opening.score.to_string()),
            ("Termination", played.reason.to_string()),
        ],
    };
    Ok(GameRow {
        variant: v.id.clone(),
        budget: budget.to_string(),
        pair: task.pair,
        game: task.game,
        opening: pdn::movetext(rules, &start, &opening.moves, &[], ""),
        opening_fen: write_fen(&v.geometry, &after),
        result: played.result.to_string(),
        reason: played.reason.to_string(),
        pdn: pdn::game(rules, &header, &played.moves, &evals),
        plies: played.records,
    })
}
