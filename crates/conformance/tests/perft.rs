//! Every published perft series of data/perft.tsv (copied from shared/reference, source per row),
//! in its own convention. Rows up to FAST_NODES run by default; the deeper ones are ignored tests:
//! run them with `cargo test --release -p damspel-conformance --test conformance perft::
//! -- --ignored`.

use damspel_conformance::data::{perft_rows, PerftRow};
use damspel_rules::{perft, with_rules, Catalogue, Duplicates, Position};

/// Rows with at most this many nodes run in the default test run (a few seconds in all).
const FAST_NODES: u64 = 12_000_000;

fn check(rows: impl Iterator<Item = PerftRow>) -> usize {
    let catalogue = Catalogue::builtin();
    let mut checked = 0;
    let mut failures = Vec::new();
    for row in rows {
        let variant = catalogue.get(&row.variant).expect("a catalogue variant");
        let duplicates = if row.paths {
            Duplicates::Keep
        } else {
            Duplicates::Merge
        };
        let nodes = with_rules!(variant, |rules| {
            let setup = damspel_notation::parse_fen(&rules.variant().geometry, &row.fen)
                .unwrap_or_else(|e| panic!("{}: {e}", row.fen));
            let pos = Position::from_setup(&rules, &setup).expect("a legal position");
            perft(&rules, &pos, row.depth, duplicates)
        });
        if nodes != row.nodes {
            failures.push(format!(
                "{} {} perft({}) {}: expected {} ({}), got {nodes}",
                row.variant,
                row.fen,
                row.depth,
                if row.paths { "paths" } else { "dedup" },
                row.nodes,
                row.source
            ));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked
}

#[test]
fn published_perft_series() {
    let checked = check(perft_rows().into_iter().filter(|r| r.nodes <= FAST_NODES));
    // Guard against an empty or truncated data file.
    assert!(checked >= 100, "only {checked} rows checked");
}

#[test]
#[ignore = "deep rows take minutes; run with --ignored"]
fn published_perft_series_deep() {
    check(perft_rows().into_iter().filter(|r| r.nodes > FAST_NODES));
}
