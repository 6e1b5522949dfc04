//! A match: every opening played twice with colours swapped, games spread over threads.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use damspel_rules::{Bits, Color, Move, Rules};

use crate::game::{play_game, GameRecord};
use crate::player::Player;
use crate::stats::Tally;

/// Makes a fresh player (each thread owns its own).
pub type PlayerFactory<B> = Arc<dyn Fn(usize) -> Box<dyn Player<B>> + Send + Sync>;

pub struct MatchConfig<B: Bits> {
    pub rules: Arc<Rules<B>>,
    /// The first and second player; scores are the first player's.
    pub players: [PlayerFactory<B>; 2],
    pub openings: Vec<Vec<Move<B>>>,
    /// Total games (each opening twice, colours swapped, cycling through the openings).
    pub games: usize,
    pub concurrency: usize,
    pub max_plies: usize,
}

/// Results of a match, from the first player's point of view.
pub struct MatchResult<B: Bits> {
    pub tally: Tally,
    /// As White and as Black.
    pub by_color: [Tally; 2],
    /// Games in the order they were scheduled.
    pub games: Vec<GameRecord<B>>,
}

/// A game as it ends, with the match so far.
pub struct Finished<'a, B: Bits> {
    /// Games ended, this one included.
    pub done: usize,
    /// The first player's tally so far.
    pub tally: &'a Tally,
    /// Where the game was scheduled (0-based: game `index` plays opening `index / 2`).
    pub index: usize,
    pub game: &'a GameRecord<B>,
}

/// Plays the match; `progress` is called after each game, one call at a time, in the order the
/// games end (so that a caller can save each at once).
pub fn run_match<B: Bits>(
    config: &MatchConfig<B>,
    progress: &(dyn Fn(Finished<'_, B>) + Sync),
) -> MatchResult<B> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, GameRecord<B>)>> = Mutex::new(Vec::new());
    let tally = Mutex::new(Tally::default());
    std::thread::scope(|scope| {
        for thread in 0..config.concurrency.max(1) {
            let next = &next;
            let results = &results;
            let tally = &tally;
            scope.spawn(move || {
                let mut first = (config.players[0])(thread);
                let mut second = (config.players[1])(thread);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= config.games {
                        break;
                    }
                    let opening = &config.openings[(i / 2) % config.openings.len()];
                    let first_is_white = i.is_multiple_of(2);
                    let record = if first_is_white {
                        play_game(
                            &config.rules,
                            first.as_mut(),
                            second.as_mut(),
                            opening,
                            config.max_plies,
                        )
                    } else {
                        play_game(
                            &config.rules,
                            second.as_mut(),
                            first.as_mut(),
                            opening,
                            config.max_plies,
                        )
                    };
                    let white_score = record.ending.white_score();
                    let first_score = if first_is_white {
                        white_score
                    } else {
                        1.0 - white_score
                    };
                    let mut t = tally.lock().expect("tally");
                    t.add(first_score);
                    let mut r = results.lock().expect("results");
                    progress(Finished {
                        done: r.len() + 1,
                        tally: &t,
                        index: i,
                        game: &record,
                    });
                    r.push((i, record));
                }
            });
        }
    });
    let mut games = results.into_inner().expect("results");
    games.sort_by_key(|(i, _)| *i);
    let mut by_color = [Tally::default(); 2];
    let mut total = Tally::default();
    for (i, record) in &games {
        let first_color = if i.is_multiple_of(2) {
            Color::White
        } else {
            Color::Black
        };
        let white_score = record.ending.white_score();
        let score = if first_color == Color::White {
            white_score
        } else {
            1.0 - white_score
        };
        by_color[first_color.index()].add(score);
        total.add(score);
    }
    MatchResult {
        tally: total,
        by_color,
        games: games.into_iter().map(|(_, g)| g).collect(),
    }
}
