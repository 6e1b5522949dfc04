//! A small synthetic atlas database for the browser test and for trying the report without a
//! real run: two variants, a few pairs each, made-up but well-formed games. Deterministic.

use std::path::Path;

use rusqlite::{params, Connection};

/// Writes the fixture to `path` (replacing the tables' rows if the file exists).
pub fn write(path: &Path) -> rusqlite::Result<()> {
    let mut conn = Connection::open(path)?;
    conn.execute_batch(crate::SCHEMA)?;
    let tx = conn.transaction()?;
    tx.execute_batch("DELETE FROM runs; DELETE FROM games; DELETE FROM plies;")?;
    // A small linear congruential generator: the fixture must be the same on every machine.
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    for (variant, men, bias) in [("international", 20, 60i64), ("turkish", 16, -40)] {
        let budget = "nodes=2000";
        tx.execute(
            "INSERT INTO runs (variant, budget, seed, opening_plies) VALUES (?1, ?2, 1, 4)",
            params![variant, budget],
        )?;
        for pair in 0..8i64 {
            let fen = format!("W:W{}:B{}", 31 + pair, 1 + next(3));
            for game in 0..2i64 {
                let plies = 40 + next(60) as i64;
                let result = ["first", "second", "draw", "draw"][next(4) as usize];
                let reason = if result == "draw" {
                    ["repetition", "no-progress", "ply-cap"][next(3) as usize]
                } else {
                    "no-moves"
                };
                let sign = match result {
                    "first" => 1,
                    "second" => -1,
                    _ => 0,
                };
                tx.execute(
                    "INSERT INTO games VALUES (?1, ?2, ?3, ?4, '1. 32-28 19-23', ?5, ?6, ?7, ?8, '')",
                    params![variant, budget, pair, game, fen, result, reason, plies],
                )?;
                let (mut mf, mut ms, mut kf, mut ks) = (men, men, 0i64, 0i64);
                for ply in 0..plies {
                    let first = ply % 2 == 0;
                    let captured = i64::from(next(5) == 0) * (1 + next(3) as i64);
                    if first {
                        ms = (ms - captured).max(1)
                    } else {
                        mf = (mf - captured).max(1)
                    }
                    let promotes = ply > 20 && next(12) == 0;
                    if promotes {
                        if first {
                            mf -= 1;
                            kf += 1
                        } else {
                            ms -= 1;
                            ks += 1
                        }
                    }
                    let eval = (ply >= 4).then(|| sign * ply * 3 + bias / 4 + next(60) as i64 - 30);
                    tx.execute(
                        "INSERT INTO plies VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                        params![variant, budget, pair, game, ply, if first { "first" } else { "second" },
                            5 + next(10) as i64, captured, promotes as i64, eval, mf, kf, ms, ks],
                    )?;
                }
            }
        }
    }
    tx.commit()
}
