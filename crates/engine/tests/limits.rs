//! The search keeps its time whatever its nodes cost, with any number of threads, and sizes a
//! user asks for are errors when they cannot be had, never an abort.
//!
//! The times asserted are generous bounds (the point of these tests is that a bound exists):
//! the figures measured are in docs/reliability.md ("Engine and Hub").

use std::sync::Arc;
use std::time::{Duration, Instant};

use damspel_engine::{Engine, Limits, Silent};
use damspel_notation::parse_fen;
use damspel_rules::{Catalogue, Game, Position, Rules};

fn game(id: &str, fen: &str) -> Game<u64> {
    let rules = Arc::new(Rules::<u64>::new(Catalogue::builtin().get(id).unwrap()).unwrap());
    let setup = parse_fen(&rules.variant().geometry, fen).unwrap();
    let pos = Position::from_setup(&rules, &setup).unwrap();
    Game::from_position(rules, pos)
}

#[test]
fn a_node_limit_is_kept_to_the_node() {
    // The limits are checked at every node, not every 1024: a slow node (a long capture
    // generation) must not carry the search past its bound.
    let g = game(
        "russian",
        "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    );
    for limit in [1u64, 10, 100, 1000] {
        let mut engine = Engine::new(g.rules_arc(), 8);
        let limits = Limits {
            nodes: Some(limit),
            ..Limits::default()
        };
        let result = engine.search(&g, &limits, &mut Silent);
        assert!(result.best.is_some());
        assert!(
            result.nodes <= limit + 1,
            "{} nodes for a limit of {limit}",
            result.nodes
        );
    }
}

#[test]
fn many_threads_keep_the_time() {
    // 2000 threads asked for: the engine runs at most MAX_THREADS, and they all stop at the
    // deadline (before, 2000 threads on two cores took minutes for a tenth of a second).
    let g = game(
        "russian",
        "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    );
    let mut engine = Engine::new(g.rules_arc(), 8);
    engine.set_threads(2000);
    assert_eq!(engine.threads(), damspel_engine::MAX_THREADS);
    let move_time = Duration::from_millis(100);
    let start = Instant::now();
    let result = engine.search(&g, &Limits::move_time(move_time), &mut Silent);
    let elapsed = start.elapsed();
    eprintln!(
        "{} threads, {move_time:?}: {elapsed:?} (main thread {:?})",
        engine.threads(),
        result.elapsed
    );
    assert!(result.best.is_some());
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
}

#[test]
fn a_stop_from_another_thread_ends_the_search_at_once() {
    let g = game(
        "russian",
        "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    );
    let mut engine = Engine::new(g.rules_arc(), 8);
    engine.set_threads(4);
    let stop = engine.stop_flag();
    let limits = Limits {
        infinite: true,
        ..Limits::default()
    };
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        Instant::now()
    });
    let result = engine.search(&g, &limits, &mut Silent);
    let stopped = stopper.join().unwrap();
    assert!(result.best.is_some());
    assert!(
        stopped.elapsed() < Duration::from_secs(1),
        "{:?}",
        stopped.elapsed()
    );
}

#[test]
fn hash_sizes_that_cannot_be_had_are_errors() {
    let g = game("russian", "W:W21:B12");
    for mb in [0usize, 65_537, 1 << 20, usize::MAX] {
        let e = Engine::try_new(g.rules_arc(), mb).err().expect("refused");
        assert!(e.to_string().contains("MiB"), "{e}");
    }
    // The engine for a size the program chose never fails.
    let engine = Engine::new(g.rules_arc(), usize::MAX);
    assert_eq!(engine.hash_mb(), 0, "one bucket");
    let mut engine = Engine::try_new(g.rules_arc(), 2).unwrap();
    assert!(engine.set_hash(usize::MAX).is_err());
    assert_eq!(engine.hash_mb(), 2, "a failed resize keeps the table");
    engine.set_hash(4).unwrap();
    assert_eq!(engine.hash_mb(), 4);
}
