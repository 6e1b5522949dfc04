//! The capture walk's work grows with the distinct states of a capture, not with its sequences
//! (issue 10, finding 1): on the audit's position, a flying king among 22 kings with 8.2 million
//! capture sequences, listing the moves used to walk every sequence (minutes); the walk's work is
//! measured in jumps, so the test does not depend on the machine.

use damspel_notation::parse_fen;
use damspel_rules::{Catalogue, Duplicates, Position, Rules};

fn position(id: &str, fen: &str) -> (Rules<u64>, Position<u64>) {
    let rules = Rules::<u64>::new(Catalogue::builtin().get(id).unwrap()).unwrap();
    let setup = parse_fen(&rules.variant().geometry, fen).unwrap();
    let pos = Position::from_setup(&rules, &setup).unwrap();
    (rules, pos)
}

#[test]
fn listing_the_audits_capture_does_not_walk_its_sequences() {
    let audit = "W:WKb7:BKa3,Ka6,Kb6,Kb8,Kc1,Kc2,Kc5,Kc6,Kd2,Kd7,Ke1,Ke2,Ke3,Ke4,Ke6,Kf2,Kf5,Kg2,Kg3,Kg5,Kg7,Kh5";
    let (rules, pos) = position("universal", audit);
    let sequences = rules.count_moves(&pos, Duplicates::Keep);
    let work = rules.capture_work(&pos);
    eprintln!("audit: {sequences} sequences, {work} jumps walked to list its moves");
    // Walking the sequences one by one makes at least one jump per sequence (22 each here).
    assert!(sequences > 8_000_000, "{sequences} sequences");
    assert!(
        work * 10 < sequences,
        "{work} jumps for {sequences} sequences"
    );
}

/// The audit's position with a black king on h2 too: every legal capture takes all 23 kings,
/// so the moves differ only in where they end, and showing that a square cannot be an end used
/// to take an exhaustive walk (33.6 million jumps, 10 s). Which squares can be is decided by a
/// parity argument over the jumps (crates/rules/src/movegen/parity.rs): a king that must cross
/// into a pocket of the board an odd number of times ends inside it.
const AUDIT_AND_H2: &str = "W:WKb7:BKa3,Ka6,Kb6,Kb8,Kc1,Kc2,Kc5,Kc6,Kd2,Kd7,Ke1,Ke2,Ke3,Ke4,Ke6,\
                            Kf2,Kf5,Kg2,Kg3,Kg5,Kg7,Kh5,Kh2";

#[test]
fn a_capture_of_every_piece_ends_where_parity_allows_without_a_long_walk() {
    let (rules, pos) = position("universal", AUDIT_AND_H2);
    let work = rules.capture_work(&pos);
    eprintln!("audit + h2: {work} jumps walked to list its moves");
    assert!(work < 1_000_000, "{work} jumps");
    let moves = rules.moves(&pos);
    assert!(!moves.is_empty());
    for mv in &moves {
        // The majority rule: 23 kings can be taken (the walk ends when one capture takes them).
        assert_eq!(mv.capture_count(), 23, "{mv:?}");
    }
}

/// The same listing against the enumerating walk (every one of its 6 million sequences; deep:
/// `cargo test --release -p damspel-conformance --test conformance capture_cost:: -- --ignored`).
#[test]
#[ignore]
fn a_capture_of_every_piece_lists_the_ends_the_enumerating_walk_finds() {
    let (rules, pos) = position("universal", AUDIT_AND_H2);
    let mut every = Vec::new();
    rules.legal_moves(&pos, &mut every, Duplicates::Keep);
    let distinct: std::collections::HashSet<_> = every.iter().copied().collect();
    let listed: std::collections::HashSet<_> = rules.moves(&pos).into_iter().collect();
    assert_eq!(listed, distinct);
}

/// A king that may stop anywhere (Greek VII: no majority rule) among many pieces has tens of
/// thousands of distinct captures. Every way of listing them agrees with the enumerating walk
/// (every sequence, duplicates then removed by a plain set here, an independent count): the
/// distinct listing, the detailed listing, the per-move counts and the counts.
#[test]
fn many_distinct_captures_are_listed_once_each() {
    let fen =
        "B:WKc1,Ke1,Kg1,Ka2,c2,Kd2,Ke2,Kf2,g2,Kh2,Kb3,e3,Kg3,Ka4,d4,e4,f4,h4,Kb5,Ke5,Kg5,Kb6,e6,\
               Kg6,a7,Kc7,Kd7,Kf7,g7,h7,Kb8,Ke8,Kg8:BKa1,Kb2,b4,Kb7,Ke7";
    let (rules, pos) = position("greek-7", fen);
    let mut every = Vec::new();
    rules.legal_moves(&pos, &mut every, Duplicates::Keep);
    let sequences = every.len() as u64;
    let distinct: std::collections::HashSet<_> = every.iter().copied().collect();
    assert!(distinct.len() > 10_000, "{} distinct moves", distinct.len());

    let listed = rules.moves(&pos);
    assert_eq!(listed.len(), distinct.len());
    assert_eq!(
        listed
            .iter()
            .copied()
            .collect::<std::collections::HashSet<_>>(),
        distinct
    );
    let detailed = rules.legal_moves_detailed(&pos, Duplicates::Merge);
    assert_eq!(detailed.len(), distinct.len());
    assert_eq!(
        rules.count_moves(&pos, Duplicates::Merge),
        distinct.len() as u64
    );
    assert_eq!(rules.count_moves(&pos, Duplicates::Keep), sequences);

    let mut counted = Vec::new();
    rules.legal_moves_counted(&pos, &mut counted);
    assert_eq!(counted.len(), distinct.len());
    let mut per_move = std::collections::HashMap::new();
    for mv in &every {
        *per_move.entry(*mv).or_insert(0u64) += 1;
    }
    for (mv, n) in &counted {
        assert_eq!(per_move.get(mv), Some(n), "{mv:?}");
    }
}

/// Under the majority rule the list with routes (`damspel moves`, the server, PDN import) is
/// the layered walk's, each route found backwards through its layers: on rows of
/// data/worst-captures.tsv whose captures are listed that way (a flying king among 25 to 30
/// pieces, under immediate removal), every route listed is one of the
/// routes the enumerating walk walks (every sequence, with its route), and the moves are its
/// distinct moves.
#[test]
fn routes_of_big_captures_are_routes_the_enumerating_walk_walks() {
    let rows = [
        // search seed 1 (scatter), 27,736 sequences.
        (
            "ossetian-keny-2",
            "W:Wa2,Kd8,Kh8:BKd1,c2,Ke2,Kg2,Ka3,Kd3,e3,Kf3,h3,Ka4,b4,Kd4,Kg4,Kc5,Kg5,h5,Ka6,Ke6,Kf6,g6,Kb7,d7,Kg7,Kc8,e8",
        ),
        // search seed 7 (scatter), 26,454 sequences.
        (
            "bosnian",
            "B:WKb1,Ke1,Kg1,Kb2,c2,Ke2,Kf2,Kg2,Kb3,Kd3,Kg3,Ka4,Kc4,Kd4,Kf4,h4,d5,Kb6,d6,Kg6,Ka7,Kc7,Ke7,Kf7,g7,h7,Kd8,Kg8:BKa1,Kc1",
        ),
        // search seed 7 (men), 31,101 sequences.
        (
            "bahrain",
            "B:Wc1,Ke1,c2,f2,a3,b3,Kc3,Ke3,Kh3,Kc4,d4,Kf4,Kc5,e5,Kg5,Kb6,Kd6,f6,h6,Ka7,b7,Kc7,e7,g7,Kb8,Ke8:BKa1,Kg1,Kg4,Kh8",
        ),
    ];
    let table = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/worst-captures.tsv"),
    )
    .unwrap();
    for (id, fen) in rows {
        assert!(
            table
                .lines()
                .any(|l| l.starts_with(&format!("{id}\t{fen}\t"))),
            "{id} {fen} is a row of the table"
        );
        let (rules, pos) = position(id, fen);
        let every: std::collections::HashSet<_> = rules
            .legal_moves_detailed(&pos, Duplicates::Keep)
            .into_iter()
            .collect();
        let listed = rules.legal_moves_detailed(&pos, Duplicates::Merge);
        for detail in &listed {
            assert!(
                every.contains(detail),
                "{id}: {detail:?} is no route walked"
            );
        }
        let moves: std::collections::HashSet<_> = listed.iter().map(|d| d.mv).collect();
        let distinct: std::collections::HashSet<_> = every.iter().map(|d| d.mv).collect();
        assert_eq!(moves.len(), listed.len(), "{id}: a move listed twice");
        assert_eq!(moves, distinct, "{id}");
        assert!(listed.len() >= 50, "{id}: {} moves", listed.len());
    }
}
