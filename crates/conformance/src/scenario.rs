//! Rule scenarios: hand-written positions with their exact expected legal moves (or outcome),
//! one TOML file per variant in `scenarios/`, each case citing the rule-book line it checks.

use std::path::PathBuf;
use std::sync::Arc;

use damspel_notation::{full_path, parse_fen, parse_move, parse_move_text};
use damspel_rules::{Bits, Catalogue, Duplicates, Game, Outcome, Position, Rules};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub variant: String,
    #[serde(rename = "case")]
    pub cases: Vec<Case>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// The rule-book line the case checks, e.g. "1.01 MS: TurkMan [S]".
    pub rule: String,
    pub fen: String,
    /// The exact list of legal moves (FMJD convention: equal sequences merged).
    pub moves: Option<Vec<ExpectedMove>>,
    /// The number of capture sequences (the perft "paths" convention), if the case checks it.
    pub paths: Option<usize>,
    /// "ongoing", "draw", "white" or "black" (the winner).
    pub outcome: Option<String>,
    /// Free text: why the expected list is what it is.
    pub note: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum ExpectedMove {
    Text(String),
    Detailed {
        #[serde(rename = "move")]
        text: String,
        captures: Option<Vec<String>>,
        promotes: Option<bool>,
    },
}

impl ExpectedMove {
    fn text(&self) -> &str {
        match self {
            ExpectedMove::Text(t) | ExpectedMove::Detailed { text: t, .. } => t,
        }
    }
}

pub fn scenario_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

/// Every scenario file, with its path.
pub fn load_all() -> Vec<(PathBuf, ScenarioFile)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(scenario_dir())
        .expect("the scenarios/ folder")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let file: ScenarioFile =
                toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path, file)
        })
        .collect()
}

/// Runs one case; returns a description of every mismatch.
pub fn check_case(catalogue: &Catalogue, variant: &str, case: &Case) -> Vec<String> {
    let v = match catalogue.get(variant) {
        Ok(v) => v,
        Err(e) => return vec![e.to_string()],
    };
    damspel_rules::with_rules!(v, |rules| check_with(Arc::new(rules), case))
}

fn check_with<B: Bits>(rules: Arc<Rules<B>>, case: &Case) -> Vec<String> {
    let g = &rules.variant().geometry;
    let mut problems = Vec::new();
    let setup = match parse_fen(g, &case.fen) {
        Ok(s) => s,
        Err(e) => return vec![format!("FEN: {e}")],
    };
    let pos = match Position::from_setup(&rules, &setup) {
        Ok(p) => p,
        Err(e) => return vec![format!("FEN: {e}")],
    };
    let legal = rules.legal_moves_detailed(&pos, Duplicates::Merge);
    if let Some(expected) = &case.moves {
        let mut matched = vec![false; legal.len()];
        let mut missing = Vec::new();
        for exp in expected {
            let text = exp.text();
            let wrote_capture = parse_move_text(g, text).map(|t| t.capture).unwrap_or(false);
            let found = parse_move(&rules, &pos, text)
                .ok()
                .filter(|mv| mv.is_capture() == wrote_capture)
                .and_then(|mv| legal.iter().position(|d| d.mv == mv));
            match found {
                None => missing.push(text.to_string()),
                Some(i) => {
                    if matched[i] {
                        problems.push(format!("`{text}` names a move already listed"));
                    }
                    matched[i] = true;
                    if let ExpectedMove::Detailed {
                        captures, promotes, ..
                    } = exp
                    {
                        let d = &legal[i];
                        if let Some(caps) = captures {
                            // Squares as the board names them (a scenario may number the squares
                            // of a board whose names are algebraic, as Brazilian's are).
                            let mut want: Vec<String> = caps
                                .iter()
                                .map(|c| {
                                    g.parse_square(c).map_or_else(|_| c.clone(), |s| g.name(s))
                                })
                                .collect();
                            let mut got: Vec<String> =
                                d.captures.iter().map(|&s| g.name(s)).collect();
                            want.sort();
                            got.sort();
                            if want != got {
                                problems
                                    .push(format!("`{text}` captures {got:?}, expected {want:?}"));
                            }
                        }
                        if let Some(p) = promotes {
                            if d.mv.promotes() != *p {
                                problems.push(format!(
                                    "`{text}` promotes: {}, expected {p}",
                                    d.mv.promotes()
                                ));
                            }
                        }
                    }
                }
            }
        }
        let extra: Vec<String> = legal
            .iter()
            .zip(&matched)
            .filter(|(_, m)| !**m)
            .map(|(d, _)| full_path(g, d))
            .collect();
        if !missing.is_empty() {
            problems.push(format!(
                "missing (expected but not legal): {}",
                missing.join(" ")
            ));
        }
        if !extra.is_empty() {
            problems.push(format!(
                "extra (legal but not expected): {}",
                extra.join(" ")
            ));
        }
    }
    if let Some(paths) = case.paths {
        let got = rules.count_moves(&pos, Duplicates::Keep) as usize;
        if got != paths {
            problems.push(format!("{got} capture sequences (paths), expected {paths}"));
        }
    }
    if let Some(outcome) = &case.outcome {
        let game = Game::from_position(rules.clone(), pos);
        let got = match game.outcome() {
            None => "ongoing".to_string(),
            Some(Outcome::Draw(_)) => "draw".to_string(),
            Some(Outcome::Win { winner, .. }) => winner.name().to_string(),
        };
        if &got != outcome {
            problems.push(format!("outcome {got}, expected {outcome}"));
        }
    }
    if case.moves.is_none() && case.paths.is_none() && case.outcome.is_none() {
        problems.push("the case checks nothing: give moves, paths or outcome".into());
    }
    problems
}
