//! Runs every rule scenario of `scenarios/` (one file per variant, written by hand from the rule
//! book). A failing case prints the variant, the rule, the FEN, and the missing and extra moves.

use damspel_conformance::scenario::{check_case, load_all};
use damspel_rules::Catalogue;

#[test]
fn every_scenario_passes() {
    let catalogue = Catalogue::builtin();
    let mut failures = Vec::new();
    let mut cases = 0;
    for (path, file) in load_all() {
        for case in &file.cases {
            cases += 1;
            let problems = check_case(&catalogue, &file.variant, case);
            if !problems.is_empty() {
                failures.push(format!(
                    "{} [{}]\n  rule: {}\n  fen:  {}\n  {}",
                    file.variant,
                    path.file_name().unwrap().to_string_lossy(),
                    case.rule,
                    case.fen,
                    problems.join("\n  ")
                ));
            }
        }
    }
    assert!(cases > 0, "no scenario cases found");
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn every_variant_has_its_scenarios() {
    let catalogue = Catalogue::builtin();
    let files = load_all();
    let missing: Vec<String> = catalogue
        .ids()
        .into_iter()
        .filter(|id| {
            !files
                .iter()
                .any(|(_, f)| &f.variant == id && !f.cases.is_empty())
        })
        .collect();
    assert!(
        missing.is_empty(),
        "variants without scenarios: {}",
        missing.join(", ")
    );
    for (path, file) in &files {
        assert_eq!(
            path.file_stem().unwrap().to_string_lossy(),
            file.variant,
            "a scenario file is named after its variant"
        );
    }
}
