//! pydraughts (PyPI, 0.6.7) as an independent oracle for International, Russian, Brazilian and
//! American draughts (pydraughts' `standard`, `russian`, `brazilian` and `english`).
//!
//! Positions come from random games from the start and from random positions with kings. At each
//! one, pydraughts lists its legal moves (tests/oracles/pydraughts_oracle.py, one Python process
//! per variant, the four side by side) as (from, to, captured set) with the position after
//! each; Damspel's de-duplicated moves must give the same set and the same positions after, so
//! promotion, removal and the capture rules are all compared.
//!
//! Needs a Python with pydraughts: set `DAMSPEL_PYTHON` (`.ci/run` installs it in a venv).
//! Without it the test says so and is skipped. `DAMSPEL_ORACLE_ROUNDS=50` runs fifty rounds of
//! other seeds (one in CI).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::common;

use damspel_notation::write_fen;
use damspel_rules::{
    with_rules, Bits, Catalogue, Color, Duplicates, Geometry, Move, Position, Rules, Square,
};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::{json, Value};

/// Random games from the start, and random positions with kings (each followed by a game).
const START_GAMES: usize = 12;
const RANDOM_POSITIONS: usize = 60;
const MAX_PLIES: usize = 100;
const MAX_REPORTED: usize = 5;

/// Damspel's id and pydraughts' name of each variant compared.
const VARIANTS: [(&str, &str); 4] = [
    ("international", "standard"),
    ("russian", "russian"),
    ("brazilian", "brazilian"),
    ("american", "english"),
];

/// pydraughts writes 8x8 Russian and Brazilian squares as a1..h8 (its own numbering differs from
/// the standard one); International and English use the standard numbers, as Damspel does.
fn algebraic(pydraughts: &str) -> bool {
    matches!(pydraughts, "russian" | "brazilian")
}

struct Oracle {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Oracle {
    fn start(python: &std::ffi::OsStr) -> Oracle {
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/oracles/pydraughts_oracle.py"
        );
        let mut child = Command::new(python)
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("DAMSPEL_PYTHON runs");
        let input = child.stdin.take().expect("piped stdin");
        let output = BufReader::new(child.stdout.take().expect("piped stdout"));
        Oracle {
            child,
            input,
            output,
        }
    }

    fn ask(&mut self, variant: &str, fen: &str) -> Value {
        let request = json!({ "variant": variant, "fen": fen });
        writeln!(self.input, "{request}").expect("oracle reads");
        let mut line = String::new();
        self.output.read_line(&mut line).expect("oracle answers");
        assert!(
            !line.is_empty(),
            "pydraughts oracle died on {variant} {fen}"
        );
        serde_json::from_str(&line).expect("oracle writes JSON")
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One side of the comparison: the move's squares, and the position after it.
type Key = (String, String, Vec<String>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct After {
    side: String,
    pieces: [Vec<String>; 4],
}

struct Compare<'a, B: Bits> {
    rules: &'a Rules<B>,
    pydraughts: &'static str,
    oracle: &'a mut Oracle,
    positions: usize,
    moves: usize,
    captures: usize,
    promotions: usize,
    mismatches: usize,
    list: Vec<Move<B>>,
}

impl<B: Bits> Compare<'_, B> {
    fn geometry(&self) -> &Geometry {
        &self.rules.variant().geometry
    }

    fn name(&self, sq: Square) -> String {
        if algebraic(self.pydraughts) {
            self.geometry().algebraic(sq)
        } else {
            self.geometry().name(sq)
        }
    }

    /// The position in pydraughts' FEN for the variant.
    fn fen(&self, pos: &Position<B>) -> String {
        let side = |c: Color| if c == Color::White { "W" } else { "B" };
        let mut fen = side(pos.side_to_move()).to_string();
        for color in Color::BOTH {
            let items: Vec<String> = self
                .geometry()
                .all_squares()
                .iter()
                .filter_map(|&sq| {
                    let p = pos.piece_at(sq)?;
                    (p.color == color)
                        .then(|| format!("{}{}", if p.king { "K" } else { "" }, self.name(sq)))
                })
                .collect();
            fen.push_str(&format!(":{}{}", side(color), items.join(",")));
        }
        fen
    }

    fn after(&self, pos: &Position<B>) -> After {
        let mut pieces: [Vec<String>; 4] = Default::default();
        for &sq in self.geometry().all_squares() {
            if let Some(p) = pos.piece_at(sq) {
                let i = 2 * usize::from(p.color == Color::Black) + usize::from(p.king);
                pieces[i].push(self.name(sq));
            }
        }
        for list in &mut pieces {
            list.sort();
        }
        let side = if pos.side_to_move() == Color::White {
            "W"
        } else {
            "B"
        };
        After {
            side: side.into(),
            pieces,
        }
    }

    fn theirs(answer: &Value) -> BTreeMap<Key, After> {
        let strings = |v: &Value| -> Vec<String> {
            v.as_array()
                .expect("a list")
                .iter()
                .map(|s| s.as_str().expect("a square").to_string())
                .collect()
        };
        let mut moves = BTreeMap::new();
        for m in answer["moves"].as_array().expect("moves") {
            let key = (
                m["from"].as_str().expect("from").to_string(),
                m["to"].as_str().expect("to").to_string(),
                strings(&m["captures"]),
            );
            let a = &m["after"];
            let after = After {
                side: a["side"].as_str().expect("side").to_string(),
                pieces: [
                    strings(&a["wm"]),
                    strings(&a["wk"]),
                    strings(&a["bm"]),
                    strings(&a["bk"]),
                ],
            };
            moves.insert(key, after);
        }
        moves
    }

    /// Compares the moves at `pos`; returns Damspel's moves if both agree.
    fn compare(&mut self, pos: &Position<B>) -> Option<Vec<Move<B>>> {
        let fen = self.fen(pos);
        let answer = self.oracle.ask(self.pydraughts, &fen);
        let theirs = Self::theirs(&answer);
        let mut list = std::mem::take(&mut self.list);
        self.rules.legal_moves(pos, &mut list, Duplicates::Merge);
        let mut ours = BTreeMap::new();
        for mv in &list {
            let mut captured: Vec<String> = mv
                .captured()
                .squares()
                .map(|i| self.name(Square(i)))
                .collect();
            captured.sort();
            let key = (self.name(mv.from()), self.name(mv.to()), captured);
            ours.insert(key, self.after(&pos.play(mv)));
        }
        self.positions += 1;
        self.moves += list.len();
        self.captures += list.iter().filter(|m| m.is_capture()).count();
        self.promotions += list.iter().filter(|m| m.promotes()).count();
        let result = if ours == theirs {
            Some(list.clone())
        } else {
            self.mismatches += 1;
            if self.mismatches <= MAX_REPORTED {
                let keys: BTreeSet<&Key> = ours.keys().chain(theirs.keys()).collect();
                let mut report = format!(
                    "MISMATCH {} at {} (pydraughts FEN {fen})\n",
                    self.rules.variant().id,
                    write_fen(self.geometry(), pos)
                );
                for k in keys {
                    match (ours.get(k), theirs.get(k)) {
                        (Some(a), Some(b)) if a != b => {
                            report += &format!("  {k:?}: damspel gives {a:?}, pydraughts {b:?}\n")
                        }
                        (Some(_), None) => report += &format!("  extra   {k:?}\n"),
                        (None, Some(_)) => report += &format!("  missing {k:?}\n"),
                        _ => {}
                    }
                }
                eprint!("{report}");
            }
            None
        };
        self.list = list;
        result
    }

    fn game(&mut self, mut pos: Position<B>, rng: &mut StdRng) {
        for _ in 0..MAX_PLIES {
            let Some(moves) = self.compare(&pos) else {
                return;
            };
            if moves.is_empty() {
                return;
            }
            pos = pos.play(&moves[rng.random_range(0..moves.len())]);
        }
    }
}

fn run<B: Bits>(
    rules: Rules<B>,
    pydraughts: &'static str,
    oracle: &mut Oracle,
    seed: u64,
) -> String {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut c = Compare {
        rules: &rules,
        pydraughts,
        oracle,
        positions: 0,
        moves: 0,
        captures: 0,
        promotions: 0,
        mismatches: 0,
        list: Vec::new(),
    };
    let start = Position::start(&rules);
    for _ in 0..START_GAMES {
        c.game(start, &mut rng);
    }
    for _ in 0..RANDOM_POSITIONS {
        let pos = common::random_position(&rules, &mut rng, 0..=8);
        c.game(pos, &mut rng);
    }
    let summary = format!(
        "{}: {} positions, {} moves ({} captures, {} promotions), {} mismatches",
        rules.variant().id,
        c.positions,
        c.moves,
        c.captures,
        c.promotions,
        c.mismatches
    );
    eprintln!("{summary}");
    if c.mismatches > 0 {
        summary
    } else {
        String::new()
    }
}

#[test]
fn pydraughts_oracle_random_games() {
    let Some(python) = std::env::var_os("DAMSPEL_PYTHON").filter(|p| !p.is_empty()) else {
        eprintln!("skipped: set DAMSPEL_PYTHON to a Python with pydraughts to run this test");
        return;
    };
    // One round in CI; `DAMSPEL_ORACLE_ROUNDS=50` for a long run over other seeds.
    let rounds = common::rounds("DAMSPEL_ORACLE_ROUNDS");
    let catalogue = Catalogue::builtin();
    // A pydraughts process per variant, each in a thread of its own: the four run side by side
    // (pydraughts takes most of the time), with the same seeds as one after another.
    let failures: Vec<String> = std::thread::scope(|scope| {
        let threads: Vec<_> = VARIANTS
            .into_iter()
            .enumerate()
            .map(|(i, (id, pydraughts))| {
                let variant = catalogue.get(id).expect("built-in variant");
                let python = &python;
                scope.spawn(move || {
                    let mut oracle = Oracle::start(python);
                    let mut failures = Vec::new();
                    for round in 0..rounds {
                        let seed = 7 + i as u64 + 1000 * round;
                        let failure = with_rules!(variant.clone(), |rules| {
                            run(rules, pydraughts, &mut oracle, seed)
                        });
                        if !failure.is_empty() {
                            failures.push(failure);
                        }
                    }
                    failures
                })
            })
            .collect();
        threads
            .into_iter()
            .flat_map(|t| t.join().expect("an oracle thread panicked"))
            .collect()
    });
    assert!(failures.is_empty(), "pydraughts disagrees: {failures:?}");
}
