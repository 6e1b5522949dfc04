//! docs/perft.md (made by `damspel perft-table`) agrees with the engine at the low depths, and
//! lists every variant of the catalogue in both conventions.

use std::collections::HashMap;
use std::path::PathBuf;

use damspel_rules::{perft, with_rules, Catalogue, Duplicates, Position};

/// Depths recomputed here; the deeper columns are as the documented command printed them.
const CHECKED_DEPTH: usize = 4;

#[test]
fn perft_page_matches_the_engine() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/perft.md");
    let text = std::fs::read_to_string(&path).expect("docs/perft.md");
    let mut table: HashMap<(String, String), Vec<u64>> = HashMap::new();
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let id = cells[0].split('`').nth(1).expect("`id` name").to_string();
        let counts = cells[2..]
            .iter()
            .map(|c| c.parse().expect("a count"))
            .collect();
        table.insert((id, cells[1].to_string()), counts);
    }
    let catalogue = Catalogue::builtin();
    let mut failures = Vec::new();
    for id in catalogue.ids() {
        for (convention, dups) in [("dedup", Duplicates::Merge), ("paths", Duplicates::Keep)] {
            let Some(row) = table.get(&(id.clone(), convention.to_string())) else {
                failures.push(format!("{id} {convention}: missing from docs/perft.md"));
                continue;
            };
            if row.len() < 6 {
                failures.push(format!("{id} {convention}: only {} depths", row.len()));
            }
            let variant = catalogue.get(&id).unwrap();
            let counts: Vec<u64> = with_rules!(variant, |rules| {
                let start = Position::start(&rules);
                (1..=CHECKED_DEPTH as u32)
                    .map(|d| perft(&rules, &start, d, dups))
                    .collect()
            });
            if row[..CHECKED_DEPTH.min(row.len())] != counts[..CHECKED_DEPTH.min(row.len())] {
                failures.push(format!(
                    "{id} {convention}: page {row:?}, engine {counts:?}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
