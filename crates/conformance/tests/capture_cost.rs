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
