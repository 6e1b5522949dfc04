//! The positions of data/legal-moves.tsv (copied from shared/reference, source per row): FMJD
//! rulebook cases for International and kish's Turkish cases, with their expected moves.

use damspel_conformance::data::legal_moves_rows;
use damspel_rules::{with_rules, Catalogue, Duplicates, Position};

#[test]
fn rulebook_positions() {
    let catalogue = Catalogue::builtin();
    let rows = legal_moves_rows();
    assert!(rows.len() >= 30, "only {} rows", rows.len());
    let mut failures = Vec::new();
    for row in rows {
        let variant = catalogue.get(&row.variant).expect("a catalogue variant");
        // kish's rows count every capture sequence; dctl's rows are de-duplicated.
        let duplicates = if row.source.contains("kish") {
            Duplicates::Keep
        } else {
            Duplicates::Merge
        };
        with_rules!(variant, |rules| {
            let g = &rules.variant().geometry;
            let setup = damspel_notation::parse_fen(g, &row.fen).expect("a valid FEN");
            let pos = Position::from_setup(&rules, &setup).expect("a legal position");
            let mut moves = Vec::new();
            rules.legal_moves(&pos, &mut moves, duplicates);
            if moves.len() != row.count {
                failures.push(format!(
                    "{} {}: expected {} moves ({}), got {}",
                    row.variant,
                    row.fen,
                    row.count,
                    row.source,
                    moves.len()
                ));
            }
            // Expected moves are written from-to / fromxto with two-digit squares.
            let mut expected: Vec<(String, String)> = row
                .moves
                .iter()
                .map(|m| {
                    let (a, b) = m.split_once(['-', 'x']).expect("from-to or fromxto");
                    (
                        a.trim_start_matches('0').to_string(),
                        b.trim_start_matches('0').to_string(),
                    )
                })
                .collect();
            if !expected.is_empty() {
                let mut got: Vec<(String, String)> = moves
                    .iter()
                    .map(|m| (g.name(m.from()), g.name(m.to())))
                    .collect();
                expected.sort();
                got.sort();
                if got != expected {
                    failures.push(format!(
                        "{} {}: expected {:?} ({}), got {:?}",
                        row.variant, row.fen, expected, row.source, got
                    ));
                }
            }
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
