//! The atlas runner end to end, cheaply (tiny node budgets, a few games): resuming, shards and
//! their merge, determinism, the stored records against an independent replay of the stored
//! PDN, and bad input.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use damspel_atlas::{
    diff, merge, played_under, Budget, MergeError, RunConfig, Shard, Store, StoreError,
};
use damspel_notation::pdn::{read_game, replay};
use damspel_rules::{Bits, Catalogue, Color, DrawReason, Outcome, Rules};
use rusqlite::Connection;

fn config(variants: &[&str], games: u64) -> RunConfig {
    let catalogue = Catalogue::builtin();
    RunConfig {
        variants: variants
            .iter()
            .map(|id| catalogue.get(id).unwrap())
            .collect(),
        games,
        budget: Budget::Nodes(300),
        opening_plies: 4,
        seed: 7,
        shard: Shard::WHOLE,
        threads: 2,
        limit: None,
    }
}

fn play(db: &Path, config: &RunConfig) -> damspel_atlas::Summary {
    let mut store = Store::open(db).unwrap();
    damspel_atlas::run(&mut store, config, &AtomicBool::new(false), &mut |_| {}).unwrap()
}

fn same(a: &Path, b: &Path) {
    let d = diff(a, b, 10).unwrap();
    assert!(d.is_empty(), "{d:#?}");
}

fn db(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

#[test]
fn an_interrupted_run_resumes_to_the_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, cut) = (db(&dir, "whole.db"), db(&dir, "cut.db"));
    let c = config(&["turkish", "american"], 4);
    let s = play(&whole, &c);
    assert_eq!((s.played, s.remaining), (8, 0));
    // Interrupted after 3 games, then the same command again.
    let s = play(
        &cut,
        &RunConfig {
            limit: Some(3),
            ..c.clone()
        },
    );
    assert_eq!((s.played, s.remaining), (3, 5));
    let s = play(&cut, &c);
    assert_eq!((s.played, s.stored_before, s.remaining), (5, 3, 0));
    same(&whole, &cut);
    // A third run has nothing left to do.
    assert_eq!(play(&cut, &c).played, 0);
    // Stopped from outside (as by a signal) once the first game is stored: whatever was in
    // progress is dropped, not stored half-played, and the next run completes the database.
    // (How many games finish before the stop depends on the threads' timing; that a game in
    // progress is dropped at the stop is checked deterministically below.)
    let stopped = db(&dir, "stopped.db");
    let stop = AtomicBool::new(false);
    let mut store = Store::open(&stopped).unwrap();
    let s = damspel_atlas::run(&mut store, &c, &stop, &mut |p| {
        if let damspel_atlas::Progress::Stored(_) = p {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    })
    .unwrap();
    assert!(s.played >= 1, "{s:?}");
    assert_eq!(s.played + s.remaining, 8);
    drop(store);
    play(&stopped, &c);
    same(&whole, &stopped);
    // A stop raised before the run: nothing is played or stored.
    let none = db(&dir, "none.db");
    let mut store = Store::open(&none).unwrap();
    let s = damspel_atlas::run(&mut store, &c, &AtomicBool::new(true), &mut |_| {}).unwrap();
    assert_eq!((s.played, s.remaining), (0, 8));
    assert_eq!(store.game_count().unwrap(), 0);
}

#[test]
fn a_stopped_game_ends_at_its_next_engine_move() {
    let catalogue = Catalogue::builtin();
    let rules = Arc::new(Rules::<u64>::new(catalogue.get("russian").unwrap()).unwrap());
    let e = damspel_atlas::play::play(&rules, &[], Budget::Nodes(300), 1, &AtomicBool::new(true))
        .unwrap_err();
    assert_eq!(e, damspel_atlas::play::PlayError::Stopped);
}

/// Russian and Dameo, `games` games each, played in one run on one thread (`whole.db`) and in
/// `n` shards (`s1.db` ...).
fn whole_and_shards(dir: &tempfile::TempDir, games: u64, n: usize) -> (PathBuf, Vec<PathBuf>) {
    let whole = db(dir, "whole.db");
    let c = config(&["russian", "dameo"], games);
    play(
        &whole,
        &RunConfig {
            threads: 1,
            ..c.clone()
        },
    );
    let shards: Vec<PathBuf> = (1..=n).map(|i| db(dir, &format!("s{i}.db"))).collect();
    for (i, path) in shards.iter().enumerate() {
        let shard = format!("{}/{n}", i + 1).parse().unwrap();
        play(path, &RunConfig { shard, ..c.clone() });
    }
    (whole, shards)
}

#[test]
fn shards_merged_equal_the_whole_run_and_thread_counts_do_not_matter() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, shards) = whole_and_shards(&dir, 6, 3);
    let merged = db(&dir, "merged.db");
    let inputs: Vec<&Path> = shards.iter().map(PathBuf::as_path).collect();
    let summary = merge(&merged, &inputs).unwrap();
    assert_eq!(summary.games_total, 12);
    same(&whole, &merged);
    // Merging again adds nothing and is no error (same keys, same rows).
    assert_eq!(merge(&merged, &inputs[..1]).unwrap().games_added, 0);
}

/// Merges into one output at once (shards finishing together, each merged by its own job)
/// take turns: the output holds every shard's games. A union built aside and renamed over the
/// output kept only the last merge's.
#[test]
fn merges_into_one_output_at_once_lose_no_games() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, shards) = whole_and_shards(&dir, 8, 4);
    let merged = db(&dir, "merged.db");
    for _ in 0..3 {
        let _ = std::fs::remove_file(&merged);
        std::thread::scope(|s| {
            for shard in &shards {
                let merged = &merged;
                s.spawn(move || merge(merged, &[shard.as_path()]).unwrap());
            }
        });
        same(&whole, &merged);
    }
}

#[test]
fn the_two_games_of_a_pair_differ() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(&dir, "pairs.db");
    play(&path, &config(&["international", "turkish"], 4));
    let conn = Connection::open(&path).unwrap();
    let pairs: Vec<(String, String, String)> = conn
        .prepare(
            "SELECT a.variant, a.pdn, b.pdn FROM games a JOIN games b
             ON a.variant = b.variant AND a.pair = b.pair AND a.game = 0 AND b.game = 1",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(pairs.len(), 4);
    for (variant, a, b) in pairs {
        let moves = |pdn: &str| read_game(pdn).unwrap().moves;
        assert_ne!(
            moves(&a),
            moves(&b),
            "{variant}: the games of a pair are copies"
        );
    }
}

/// What the `plies` table holds for one ply, minus the keys.
#[derive(Debug, PartialEq, Eq)]
struct PlyRow {
    mover: String,
    legal: i64,
    captured: i64,
    promotes: i64,
    has_eval: bool,
    material: [i64; 4],
}

fn check_game<B: Bits>(rules: &Arc<Rules<B>>, conn: &Connection, key: (&str, i64, i64)) {
    let (variant, pair, game) = key;
    let (pdn, result, reason, plies, opening): (String, String, String, i64, String) = conn
        .query_row(
            "SELECT pdn, result, reason, plies, opening FROM games WHERE variant = ?1 AND pair = ?2 AND game = ?3",
            rusqlite::params![variant, pair, game],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .unwrap();
    let stored: Vec<PlyRow> = conn
        .prepare(
            "SELECT mover, legal, captured, promotes, eval IS NOT NULL, men_first, kings_first, men_second, kings_second
             FROM plies WHERE variant = ?1 AND pair = ?2 AND game = ?3 ORDER BY ply",
        )
        .unwrap()
        .query_map(rusqlite::params![variant, pair, game], |r| {
            Ok(PlyRow {
                mover: r.get(0)?,
                legal: r.get(1)?,
                captured: r.get(2)?,
                promotes: r.get(3)?,
                has_eval: r.get(4)?,
                material: [r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?],
            })
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let read = read_game(&pdn).unwrap();
    let played = replay(&read, rules);
    assert!(
        played.complete(),
        "{variant} {pair}.{game}: {:?}",
        played.error
    );
    assert_eq!(played.plies.len() as i64, plies);
    assert_eq!(stored.len() as i64, plies);
    let opening_len = read_game(&opening).unwrap().moves.len();
    let first = rules.variant().first_player;
    // Recomputed from the PDN with the rules core alone.
    let expected: Vec<PlyRow> = played
        .plies
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let count = |c: Color| {
                [
                    p.after.men(c).count() as i64,
                    p.after.kings(c).count() as i64,
                ]
            };
            let (f, s) = (count(first), count(!first));
            PlyRow {
                mover: if p.before.side_to_move() == first {
                    "first".into()
                } else {
                    "second".into()
                },
                legal: rules.moves(&p.before).len() as i64,
                captured: (p.before.pieces(!p.before.side_to_move()).count()
                    - p.after.pieces(!p.before.side_to_move()).count())
                    as i64,
                promotes: i64::from(
                    p.after.kings(p.before.side_to_move()).count()
                        > p.before.kings(p.before.side_to_move()).count(),
                ),
                has_eval: i >= opening_len,
                material: [f[0], f[1], s[0], s[1]],
            }
        })
        .collect();
    assert_eq!(stored, expected, "{variant} {pair}.{game}");
    // One comment per engine move, the `[%eval M]` command alone, M in men with two decimals
    // (as lichess writes `{ [%eval 0.17] }`).
    // The stored evaluations (centi-men) are the comments' in men.
    let comments: Vec<&str> = pdn
        .split('{')
        .skip(1)
        .filter_map(|c| c.split('}').next())
        .collect();
    let evals: Vec<i64> = conn
        .prepare(
            "SELECT eval FROM plies WHERE variant = ?1 AND pair = ?2 AND game = ?3 AND eval IS NOT NULL ORDER BY ply",
        )
        .unwrap()
        .query_map(rusqlite::params![variant, pair, game], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(comments.len(), plies as usize - opening_len, "{pdn}");
    assert_eq!(comments.len(), evals.len(), "{pdn}");
    for (c, eval) in comments.iter().zip(&evals) {
        let written = format!(
            "[%eval {}{}.{:02}]",
            if *eval < 0 { "-" } else { "" },
            eval.abs() / 100,
            eval.abs() % 100
        );
        assert_eq!(*c, written, "{pdn}");
    }
    // The stored result is the one the rules give at the end of the PDN.
    let last = played.plies.len();
    let claimed = |p: &str| {
        played
            .claims
            .iter()
            .any(|c| c.ply == last && c.reason.contains(p))
    };
    match (result.as_str(), reason.as_str()) {
        (winner, "no-moves") => {
            let w = if winner == "first" { first } else { !first };
            assert!(
                matches!(played.end, Some(Outcome::Win { winner, .. }) if winner == w),
                "{variant} {pair}.{game}: {:?}",
                played.end
            );
        }
        ("draw", "ply-cap") => {
            assert_eq!(plies, 400);
            assert_eq!(played.end, None);
        }
        ("draw", why) => {
            let ok = match played.end {
                Some(Outcome::Draw(DrawReason::OnePieceEach)) => why == "one-piece-each",
                Some(Outcome::Draw(DrawReason::Repetition(_))) => why == "repetition",
                Some(Outcome::Draw(DrawReason::NoProgress(_))) => why == "no-progress",
                Some(Outcome::Draw(DrawReason::EndgameLimit(_))) => why == "endgame-limit",
                None => claimed(""),
                _ => false,
            };
            assert!(
                ok,
                "{variant} {pair}.{game}: {why} but {:?} {:?}",
                played.end, played.claims
            );
        }
        other => panic!("unexpected result {other:?}"),
    }
}

#[test]
fn stored_plies_agree_with_a_replay_of_the_stored_pdn() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(&dir, "replay.db");
    // Diagonal 8x8 with flying kings, Dameo (orthogonal and diagonal steps, all squares),
    // Turkish (orthogonal captures), International (10x10), American (Black moves first).
    let ids = ["brazilian", "dameo", "turkish", "international", "american"];
    play(&path, &config(&ids, 2));
    let conn = Connection::open(&path).unwrap();
    let catalogue = Catalogue::builtin();
    for id in ids {
        let variant = catalogue.get(id).unwrap();
        for game in 0..2 {
            damspel_rules::with_rules!(variant.clone(), |rules| check_game(
                &Arc::new(rules),
                &conn,
                (id, 0, game)
            ));
        }
    }
}

#[test]
fn bad_input_is_a_clear_error() {
    for (text, says) in [
        ("3", "no `/`"),
        ("a/8", "whole numbers"),
        ("0/8", "from 1 to N"),
        ("9/8", "from 1 to N"),
        ("1/0", "N must be"),
    ] {
        let e = text.parse::<Shard>().unwrap_err().to_string();
        assert!(e.contains(says) && e.contains(text), "{text}: {e}");
    }
    let e = Catalogue::builtin().get("no-such-variant").unwrap_err();
    assert!(e.to_string().contains("no-such-variant"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let path = db(&dir, "bad.db");
    let mut store = Store::open(&path).unwrap();
    let stop = AtomicBool::new(false);
    let run = |store: &mut Store, c: &RunConfig| {
        damspel_atlas::run(store, c, &stop, &mut |_| {})
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    let c = config(&["turkish"], 2);
    let e = run(
        &mut store,
        &RunConfig {
            games: 0,
            ..c.clone()
        },
    );
    assert!(e.contains("--games"), "{e}");
    let e = run(
        &mut store,
        &RunConfig {
            budget: Budget::Nodes(5),
            ..c.clone()
        },
    );
    assert!(e.contains("nodes must be"), "{e}");
    let e = run(&mut store, &config(&["turkish", "turkish"], 2));
    assert!(e.contains("twice"), "{e}");
    // The same variant and budget with another seed would mix two runs under one key.
    let turkish = &c.variants[0];
    // Turkish's start (rule book: each side's men on its second and third ranks).
    let rules = played_under(
        turkish.rules_hash(),
        "W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7",
    );
    store
        .ensure_run("turkish", &rules, "nodes=300", 7, 4)
        .unwrap();
    let e = run(
        &mut store,
        &RunConfig {
            seed: 8,
            ..c.clone()
        },
    );
    assert!(e.contains("seed 7") && e.contains("seed 8"), "{e}");
    // Not an atlas database, a missing input, a database of another schema.
    let other = db(&dir, "other.db");
    Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        .unwrap();
    let out = db(&dir, "out.db");
    assert!(matches!(
        merge(&out, &[&other]),
        Err(MergeError::NotAtlas { .. })
    ));
    assert!(matches!(
        merge(&out, &[&db(&dir, "missing.db")]),
        Err(MergeError::Missing(_))
    ));
    assert!(matches!(merge(&out, &[&out]), Err(MergeError::IsOutput(_))) || !out.exists());
    // An input given twice is named as such; a bad input after a good one leaves no output
    // behind (it was created before the inputs were looked at, empty or half merged).
    let good = db(&dir, "good.db");
    Store::open(&good).unwrap();
    let fresh = db(&dir, "fresh.db");
    assert!(matches!(
        merge(&fresh, &[&good, &good]),
        Err(MergeError::Repeated(p)) if p.ends_with("good.db")
    ));
    assert!(matches!(
        merge(&fresh, &[&good, &other]),
        Err(MergeError::NotAtlas { .. })
    ));
    assert!(!fresh.exists());
    let future = db(&dir, "future.db");
    Store::open(&future).unwrap();
    Connection::open(&future)
        .unwrap()
        .execute("UPDATE meta SET value = '99' WHERE key = 'schema'", [])
        .unwrap();
    assert!(matches!(
        Store::open(&future),
        Err(StoreError::Schema { .. })
    ));
}

#[test]
fn merging_a_different_game_under_the_same_key_fails_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, out) = (db(&dir, "a.db"), db(&dir, "b.db"), db(&dir, "out.db"));
    let c = config(&["turkish"], 2);
    play(&a, &c);
    play(&b, &c);
    Connection::open(&b)
        .unwrap()
        .execute(
            "UPDATE plies SET legal = legal + 1 WHERE ply = 5 AND game = 1",
            [],
        )
        .unwrap();
    merge(&out, &[&a]).unwrap();
    let e = merge(&out, &[&b]).unwrap_err();
    assert!(
        matches!(e, MergeError::Conflict { what: "plies", .. }),
        "{e}"
    );
    assert!(e.to_string().contains("turkish nodes=300 0 1 5"), "{e}");
    same(&a, &out);
    assert!(!diff(&a, &b, 10).unwrap().is_empty());
}

/// A variant file may reuse a catalogue id: its games must not be added to those played under
/// the catalogue's rules (or a changed file's to the first file's). Before, they were: a run of
/// a Turkish file with another draw rule resumed the catalogue Turkish's database, and the
/// report mixed the two.
#[test]
fn games_played_under_other_rules_of_the_same_id_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, out) = (db(&dir, "a.db"), db(&dir, "b.db"), db(&dir, "out.db"));
    let c = config(&["turkish"], 2);
    play(&a, &c);
    let mut other_rules = c.clone();
    other_rules.variants[0].draw.repetition = 0;
    let mut other_start = c.clone();
    // The same rules, White's a-file man on a4 instead of a3 (the catalogue's Turkish sets up
    // the second and third ranks: rule book, Turkish).
    let layout = |name: &str| c.variants[0].geometry.parse_square(name).unwrap().0;
    other_start.variants[0].setup[0] &= !(1u128 << layout("a3"));
    other_start.variants[0].setup[0] |= 1u128 << layout("a4");
    for (changed, what) in [
        (&other_rules, "played under other rules than"),
        (&other_start, "played from another start position than"),
    ] {
        let mut store = Store::open(&a).unwrap();
        let e = damspel_atlas::run(&mut store, changed, &AtomicBool::new(false), &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains(what) && e.contains("use another --db"), "{e}");
    }
    // Nothing was added: the database is the first run's.
    let copy = db(&dir, "copy.db");
    play(&copy, &c);
    same(&a, &copy);
    // Shards played under two rule sets do not merge.
    play(&b, &other_rules);
    merge(&out, &[&a]).unwrap();
    let e = merge(&out, &[&b]).unwrap_err();
    assert!(
        matches!(e, MergeError::Conflict { what: "meta", .. }),
        "{e}"
    );
    assert!(e.to_string().contains("rules:turkish"), "{e}");
    same(&a, &out);
}

/// The names of a database's tables, sorted.
fn tables(path: &Path) -> Vec<String> {
    let conn = Connection::open(path).unwrap();
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap();
    let names = stmt.query_map([], |r| r.get(0)).unwrap();
    names.collect::<Result<_, _>>().unwrap()
}

#[test]
fn a_database_that_is_not_an_atlas_is_refused_before_anything_is_written() {
    // `atlas run --db damspel.db` (the server's games) and `atlas merge people.db ...` created the
    // atlas tables in the file, then failed on a raw SQL error or, for an unrelated file, merged
    // the games into it with exit 0.
    let dir = tempfile::tempdir().unwrap();
    let people = db(&dir, "people.db");
    Connection::open(&people)
        .unwrap()
        .execute_batch("CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('Ann');")
        .unwrap();
    let server = db(&dir, "damspel.db");
    Connection::open(&server)
        .unwrap()
        .execute_batch("CREATE TABLE games (id INTEGER PRIMARY KEY, pdn TEXT NOT NULL);")
        .unwrap();
    let shard = db(&dir, "shard.db");
    play(&shard, &config(&["turkish"], 2));
    for path in [&people, &server] {
        let before = (tables(path), std::fs::read(path).unwrap());
        let e = Store::open(path).err().map(|e| e.to_string());
        assert!(
            e.as_deref()
                .is_some_and(|e| e.contains("not an atlas database")),
            "{}: {e:?}",
            path.display()
        );
        let e = merge(path, &[&shard])
            .map(|_| ())
            .map_err(|e| e.to_string());
        assert!(
            e.as_ref()
                .is_err_and(|e| e.contains("not an atlas database")),
            "{e:?}"
        );
        assert_eq!((tables(path), std::fs::read(path).unwrap()), before);
    }
    // A new file, or an empty one (a file made by `touch`), becomes an atlas database.
    let empty = db(&dir, "empty.db");
    std::fs::write(&empty, b"").unwrap();
    merge(&empty, &[&shard]).unwrap();
    same(&shard, &empty);
    assert_eq!(tables(&empty), ["games", "meta", "plies", "runs"]);
}

/// A copy of `from` at `to` whose tables have lost their constraints (NOT NULL, the primary
/// keys), as an edited or hand-made database may: SQLite then keeps any value in any column.
fn without_constraints(from: &Path, to: &Path) {
    std::fs::copy(from, to).unwrap();
    let conn = Connection::open(to).unwrap();
    for t in ["runs", "games", "plies"] {
        conn.execute_batch(&format!(
            "ALTER TABLE {t} RENAME TO old; CREATE TABLE {t} AS SELECT * FROM old; DROP TABLE old;"
        ))
        .unwrap();
    }
}

#[test]
fn merge_refuses_rows_the_reader_refuses_and_drops_none() {
    // A NULL pdn (the game dropped by INSERT OR IGNORE, its plies kept), a key on two rows (one
    // dropped), values `atlas report` refuses (plies 'abc' or 1e300, result 'banana', seed 'x'),
    // plies without their game: merged with exit 0 before.
    let dir = tempfile::tempdir().unwrap();
    let shard = db(&dir, "shard.db");
    play(&shard, &config(&["turkish"], 4));
    let games: i64 = Connection::open(&shard)
        .unwrap()
        .query_row("SELECT count(*) FROM games", [], |r| r.get(0))
        .unwrap();
    assert_eq!(games, 4);
    // The same rows without the constraints merge whole.
    let loose = db(&dir, "loose.db");
    without_constraints(&shard, &loose);
    let whole = db(&dir, "whole.db");
    let summary = merge(&whole, &[&loose]).unwrap();
    assert_eq!((summary.games_added, summary.games_total), (4, 4));
    same(&shard, &whole);
    for (edit, count, says) in [
        (
            "UPDATE games SET pdn = NULL WHERE pair = 0 AND game = 0",
            1,
            "pdn is not text",
        ),
        (
            "INSERT INTO games SELECT * FROM games",
            4,
            "more than one row",
        ),
        (
            "INSERT INTO plies SELECT * FROM plies WHERE pair = 1 AND game = 0 AND ply = 3",
            1,
            "more than one row",
        ),
        (
            "UPDATE games SET plies = 'abc' WHERE pair = 1",
            2,
            "plies is not an integer",
        ),
        (
            "UPDATE games SET plies = 1e300 WHERE pair = 0 AND game = 1",
            1,
            "plies is not an integer",
        ),
        (
            "UPDATE games SET result = 'banana'",
            4,
            "result is not one of first, second, draw",
        ),
        ("UPDATE runs SET seed = 'x'", 1, "seed is not an integer"),
        (
            "UPDATE plies SET eval = 'high' WHERE ply = 9",
            4,
            "eval is neither",
        ),
        (
            "DELETE FROM games WHERE pair = 1 AND game = 1",
            0,
            "a ply of a game",
        ),
    ] {
        let bad = db(&dir, "bad.db");
        without_constraints(&shard, &bad);
        Connection::open(&bad).unwrap().execute_batch(edit).unwrap();
        let out = db(&dir, "out.db");
        let e = merge(&out, &[&bad]).map(|_| ()).map_err(|e| e.to_string());
        let e = e.expect_err(edit);
        assert!(e.contains(says), "{edit}: {e}");
        if count > 0 {
            assert!(e.contains(&format!(": {count} row(s)")), "{edit}: {e}");
        }
        assert!(!out.exists(), "{edit}: the output was created");
        // Into an existing output: it is left as it was.
        let before = std::fs::read(&whole).unwrap();
        assert!(merge(&whole, &[&shard, &bad]).is_err(), "{edit}");
        assert_eq!(std::fs::read(&whole).unwrap(), before, "{edit}");
        std::fs::remove_file(&bad).unwrap();
    }
}

#[test]
fn conflicting_inputs_are_found_before_the_output_is_written() {
    // `atlas merge m1.db s1.db s2c.db` (s2c run with another seed) exited 1 but left m1.db
    // created, holding s1's rows.
    let dir = tempfile::tempdir().unwrap();
    let (s1, s2c) = (db(&dir, "s1.db"), db(&dir, "s2c.db"));
    play(&s1, &config(&["turkish"], 2));
    play(
        &s2c,
        &RunConfig {
            seed: 8,
            ..config(&["turkish"], 2)
        },
    );
    let m1 = db(&dir, "m1.db");
    let e = merge(&m1, &[&s1, &s2c])
        .map(|_| ())
        .map_err(|e| e.to_string());
    assert!(
        e.as_ref()
            .is_err_and(|e| e.contains("a row of runs (turkish")),
        "{e:?}"
    );
    assert!(!m1.exists());
    // An output that exists keeps what it held.
    let other = db(&dir, "other.db");
    play(&other, &config(&["russian"], 2));
    let m2 = db(&dir, "m2.db");
    merge(&m2, &[&other]).unwrap();
    let before = std::fs::read(&m2).unwrap();
    assert!(merge(&m2, &[&s1, &s2c]).is_err());
    assert_eq!(std::fs::read(&m2).unwrap(), before);
    same(&other, &m2);
    // No scratch file is left beside it.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Two runs of one command writing one database at once (a shard submitted twice, a run started
/// again before the first ended): the games the other stored meanwhile are the same games, left
/// as they are and counted, and the database equals one run's. Before, the later writer failed
/// on its first such game with SQLite's "UNIQUE constraint failed: games.variant, ...", its
/// played games lost.
#[test]
fn two_runs_writing_one_database_at_once_both_end_well() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, both) = (db(&dir, "whole.db"), db(&dir, "both.db"));
    let c = config(&["russian"], 4);
    play(&whole, &c);
    // The other run plays the whole shard between this run's look at the database and its
    // first write: deterministic, where two processes would race.
    let mut store = Store::open(&both).unwrap();
    let s = damspel_atlas::run(&mut store, &c, &AtomicBool::new(false), &mut |p| {
        if let damspel_atlas::Progress::Planned { .. } = p {
            play(&both, &c);
        }
    })
    .unwrap();
    assert_eq!(
        (s.played, s.stored_before, s.stored_meanwhile, s.remaining),
        (0, 0, 4, 0)
    );
    drop(store);
    same(&whole, &both);
}
