//! The atlas report against hand computation: a database built row by row per the contract
//! (docs/atlas.md) with chosen outcomes, its metrics checked against figures worked out by hand
//! (in the comments), the report's files checked, and bad databases refused with clear errors.

use std::path::Path;

use damspel_atlas_report::fit::{piece_values, FitSample};
use damspel_atlas_report::intervals::{pentanomial_score, t975, wilson};
use damspel_atlas_report::metrics::lead_changes;
use damspel_atlas_report::{build, load, Error, Interval, SCHEMA};
use rusqlite::{params, Connection};

fn close(actual: f64, expected: f64, what: &str) {
    assert!(
        (actual - expected).abs() < 1e-5,
        "{what}: {actual} but {expected} by hand"
    );
}

fn close_interval(i: Option<Interval>, value: f64, low: f64, high: f64, what: &str) {
    let i = i.unwrap_or_else(|| panic!("{what}: no estimate"));
    close(i.value, value, what);
    close(i.low, low, &format!("{what} (low)"));
    close(i.high, high, &format!("{what} (high)"));
}

/// The outcome of each pair's two games, chosen so that the pentanomial counts (pairs scoring
/// 0, ½, 1, 1½, 2 points for the first player) are 1, 1, 4, 2, 2.
const PAIRS: [(&str, &str); 10] = [
    ("second", "second"), // 0
    ("draw", "second"),   // ½
    ("first", "second"),  // 1
    ("second", "first"),  // 1
    ("draw", "draw"),     // 1
    ("draw", "draw"),     // 1
    ("first", "draw"),    // 1½
    ("draw", "first"),    // 1½
    ("first", "first"),   // 2
    ("first", "first"),   // 2
];

/// Draw reasons in the order the 7 draws appear (pair by pair, game 0 first).
const DRAW_REASONS: [&str; 7] = [
    "repetition",
    "repetition",
    "no-progress",
    "repetition",
    "no-progress",
    "repetition",
    "ply-cap",
];

/// The hand-made atlas: variant `alpha` at `nodes=100`, 10 pairs (20 games). Game k, that is
/// 2·pair plus game, has 20 + k plies. Plies 0-3 are the opening (eval NULL). Legal moves: 8 in pairs
/// 0-4, 12 in pairs 5-9. Ply 3 of every game captures one piece; ply 5 of game 0 captures four.
/// Games of pairs 8 and 9 promote at ply 15. Evaluations: the winner's side by 300 at every
/// engine ply of a decided game, except game 0 (second won) where the first player is ahead by
/// 100 at plies 4-9, and game 16 (pair 8, first won, 36 plies) whose evaluation is 0 at ply 30;
/// draws are evaluated 0. Openings: pairs 8 and 9 repeat pair 0's position.
fn hand_db(path: &Path) {
    let mut conn = Connection::open(path).unwrap();
    conn.execute_batch(SCHEMA).unwrap();
    // One transaction: a commit per row would sync the disk hundreds of times.
    let conn = conn.transaction().unwrap();
    conn.execute("INSERT INTO runs VALUES ('alpha', 'nodes=100', 7, 4)", [])
        .unwrap();
    let mut draws = DRAW_REASONS.iter();
    for (pair, outcomes) in PAIRS.iter().enumerate() {
        for (game, result) in [outcomes.0, outcomes.1].into_iter().enumerate() {
            let k = 2 * pair + game;
            let plies = 20 + k as i64;
            let reason = if result == "draw" {
                draws.next().unwrap()
            } else {
                "no-moves"
            };
            let fen_pair = if pair >= 8 { 0 } else { pair };
            conn.execute(
                "INSERT INTO games VALUES ('alpha', 'nodes=100', ?1, ?2, '1. 32-28', ?3, ?4, ?5, ?6, '')",
                params![pair as i64, game as i64, format!("W:W{}:B1", 31 + fen_pair), result, reason, plies],
            )
            .unwrap();
            let sign = match result {
                "first" => 1,
                "second" => -1,
                _ => 0,
            };
            for ply in 0..plies {
                let legal = if pair < 5 { 8 } else { 12 };
                let captured = match (k, ply) {
                    (_, 3) => 1,
                    (0, 5) => 4,
                    _ => 0,
                };
                let promotes = i64::from(pair >= 8 && ply == 15);
                let eval = if ply < 4 {
                    None
                } else if k == 0 && ply <= 9 {
                    Some(100)
                } else if k == 16 && ply == 30 {
                    Some(0)
                } else {
                    Some(300 * sign)
                };
                conn.execute(
                    "INSERT INTO plies VALUES ('alpha', 'nodes=100', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 12, 0, 12, 0)",
                    params![
                        pair as i64,
                        game as i64,
                        ply,
                        if ply % 2 == 0 { "first" } else { "second" },
                        legal,
                        captured,
                        promotes,
                        eval
                    ],
                )
                .unwrap();
            }
        }
    }
    conn.commit().unwrap();
}

#[test]
fn wilson_matches_newcombes_published_intervals() {
    // Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I,
    // method 3 (score): 81/263 -> 0.2553-0.3662, 15/148 -> 0.0624-0.1605, 0/20 -> 0-0.1611,
    // 1/29 -> 0.0061-0.1718.
    for (k, n, low, high) in [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ] {
        let i = wilson(k, n).unwrap();
        assert!(
            (i.low - low).abs() < 1e-4 && (i.high - high).abs() < 1e-4,
            "{k}/{n}: {i:?}"
        );
    }
    assert!(wilson(0, 0).is_none());
    // Student's t quantiles (any table): df 9 -> 2.262, df 19 -> 2.093, df 60 -> 2.000,
    // df 120 -> 1.980.
    for (df, t) in [(9, 2.262), (19, 2.093), (60, 2.000), (120, 1.980)] {
        assert!((t975(df) - t).abs() < 1e-3, "t({df}) = {}", t975(df));
    }
}

#[test]
fn pentanomial_score_by_hand() {
    // Pair scores per game 0, ¼, ½ (x4), ¾ (x2), 1 (x2): mean 5.75/10 = 0.575; squared
    // deviations sum to 0.88125, variance 0.88125/9 = 0.0979167, standard error
    // sqrt(0.0979167/10) = 0.0989529; t(9) = 2.2622 -> half-width 0.2238515.
    close_interval(
        pentanomial_score([1, 1, 4, 2, 2]),
        0.575,
        0.3511489,
        0.7988511,
        "pentanomial score",
    );
    assert!(pentanomial_score([0; 5]).is_none());
}

#[test]
fn metrics_of_the_hand_made_atlas() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("hand.db");
    hand_db(&db);
    let atlas = load(&db).unwrap();
    assert_eq!(atlas.variants.len(), 1);
    let m = &atlas.variants[0];
    assert_eq!(
        (m.variant.as_str(), m.budget.as_str()),
        ("alpha", "nodes=100")
    );
    assert_eq!((m.seed, m.opening_plies), (Some(7), Some(4)));
    assert_eq!((m.games, m.pairs), (20, 10));
    assert_eq!((m.first_wins, m.second_wins, m.draws), (8, 5, 7));
    assert_eq!(m.pentanomial, [1, 1, 4, 2, 2]);
    // As in pentanomial_score_by_hand.
    close_interval(m.first_score, 0.575, 0.3511489, 0.7988511, "first score");
    // Decided games per pair, halved: 1, ½, 1, 1, 0, 0, ½, ½, 1, 1: mean 0.65, squared
    // deviations 5·0.1225 + 3·0.0225 + 2·0.4225 = 1.525, variance 1.525/9, standard error
    // 0.1301708, half-width 2.2622·0.1301708 = 0.2944724.
    close_interval(m.decisive_rate, 0.65, 0.3555276, 0.9444724, "decisive rate");
    close_interval(m.draw_rate, 0.35, 0.0555276, 0.6444724, "draw rate");
    // Ludii's drawishness leaves the ply-cap draw out: 6 of 20. Wilson: centre
    // (0.3 + 1.92073/20)/(1 + 3.84146/20) = 0.3322241, half-width
    // 1.959964/1.192073 · sqrt(0.0105 + 0.0024009) = 0.1867468.
    close_interval(
        m.natural_draw_rate,
        0.3,
        0.1454772,
        0.5189728,
        "drawishness",
    );
    let reasons: Vec<(&str, &str, u64)> = m
        .reasons
        .iter()
        .map(|r| (r.outcome, r.reason.as_str(), r.count))
        .collect();
    assert_eq!(
        reasons,
        [
            ("decided", "no-moves", 13),
            ("draw", "no-progress", 2),
            ("draw", "ply-cap", 1),
            ("draw", "repetition", 4)
        ]
    );
    // Lengths 20..39: mean 29.5, variance 20·21/12 = 35, standard error sqrt(35/20) = 1.3228757,
    // t(19) = 2.0930 -> half-width 2.7687788. Median (29 + 30)/2.
    close_interval(m.length, 29.5, 26.7312212, 32.2687788, "length");
    assert_eq!(m.length_median, Some(29.5));
    // Game means 8 (x10) and 12 (x10): mean 10, variance 10·2·4/19 = 4.2105263, standard
    // error 0.4588315, half-width 2.0930·0.4588315 = 0.9603343.
    close_interval(m.branching, 10.0, 9.0396657, 10.9603343, "branching factor");
    assert_eq!(m.branching_course.first().map(|p| p.ply), Some(0));
    assert_eq!(m.longest_capture, 4);
    assert_eq!(m.capture_sizes[1], 20);
    assert_eq!(m.capture_sizes[4], 1);
    // Longest capture per game: 4 once, 1 nineteen times: mean 23/20.
    close(
        m.longest_capture_mean.unwrap().value,
        1.15,
        "longest capture mean",
    );
    // Promotions: 4 of 20 games, each at ply 15.
    close(m.promotions.unwrap().value, 0.2, "promotions per game");
    close_interval(
        m.promotion_games,
        0.2,
        0.0806577,
        0.4160174,
        "games with a promotion",
    );
    close_interval(
        m.first_promotion_ply,
        15.0,
        15.0,
        15.0,
        "first promotion ply",
    );
    assert_eq!(m.promotion_plies, vec![15; 4]);
    // Game 0 (20 plies, 16 evaluated) is the only one whose winner was ever behind: 6 of 16
    // plies. Over the 13 decided games: 0.375/13.
    close(m.drama.unwrap().value, 0.375 / 13.0, "drama");
    // Its deficit: 1 man at 6 of 16 plies -> 0.375 men; over 13 games 0.375/13.
    close(
        m.drama_severity.unwrap().value,
        0.375 / 13.0,
        "drama severity",
    );
    // Game 16 (36 plies): evaluation 0 at ply 30 >= 27, the last quarter; 1 of 13 decided
    // games. Wilson(1, 13): centre 0.1734241, half-width 0.1597137.
    close_interval(
        m.late_drawn_looking,
        1.0 / 13.0,
        0.0137104,
        0.3331395,
        "late drawn-looking",
    );
    // Game 0: the winner first led by more than 2 men at ply 10 of 20 (0.5); every other
    // decided game at its first engine ply, 4: 4/plies. Mean of 0.5 and 4/(20 + k) for the
    // other twelve decided games.
    let others: f64 = [1, 3, 4, 5, 6, 7, 12, 15, 16, 17, 18, 19]
        .iter()
        .map(|&k| 4.0 / (20.0 + k as f64))
        .sum();
    close(
        m.decision_point.unwrap().value,
        (0.5 + others) / 13.0,
        "decision point",
    );
    // Ten pairs, eight distinct opening positions.
    assert_eq!(m.distinct_openings, 8);
    close_interval(
        m.opening_diversity,
        0.8,
        0.4901625,
        0.9433178,
        "opening diversity",
    );
    // Material never differs: the fit cannot tell a man's worth.
    assert!(m
        .piece_values
        .as_ref()
        .is_none_or(|p| p.king_in_men.is_none()));
}

#[test]
fn lead_changes_by_hand() {
    // Leaders: first, (level), second, second, (level), first: two changes.
    let evals = [(0, 50), (1, 10), (2, -30), (3, -100), (4, 0), (5, 40)];
    assert_eq!(lead_changes(&evals), 2);
    assert_eq!(lead_changes(&[(0, 20), (1, -20), (2, 5)]), 0);
}

#[test]
fn kings_worth_from_a_saturated_fit() {
    // Three cells and three coefficients: the fit reproduces each cell's mean score.
    // Level material: as many wins as losses -> σ(a) = ½, a = 0. A man up: 3 wins to 1 loss ->
    // σ(m) = ¾, m = ln 3. A king up: 9 wins to 1 loss -> σ(k) = 0.9, k = ln 9. A king is worth
    // ln 9 / ln 3 = 2 men. Every sample is a game of its own.
    fn samples(scale: usize) -> Vec<FitSample> {
        let mut out = Vec::new();
        for (men, kings, wins, losses) in [(0, 0, 1, 1), (1, 0, 3, 1), (0, 1, 9, 1)] {
            for i in 0..(wins + losses) * scale {
                out.push(FitSample {
                    game: out.len() as u32,
                    men,
                    kings,
                    score: if i < wins * scale { 1.0 } else { 0.0 },
                });
            }
        }
        out
    }
    let p = piece_values(&samples(100)).unwrap();
    close(p.man, 3f64.ln(), "man coefficient");
    close(p.king, 9f64.ln(), "king coefficient");
    let k = p.king_in_men.unwrap();
    close(k.value, 2.0, "a king in men");
    assert!(k.low < 2.0 && k.high > 2.0 && k.low.is_finite() && k.high.is_finite());
    // The same proportions from 16 games: the same coefficients, but a man's worth is not
    // clearly above 0 (its standard error is well above ln 3 / 1.96 = 0.56), so a king's worth in
    // men has no bounded interval (Fieller) and none is given.
    let p = piece_values(&samples(1)).unwrap();
    close(p.man, 3f64.ln(), "man coefficient (16 games)");
    assert!(p.king_in_men.is_none(), "{:?}", p.king_in_men);
    // No king ever on the board: no king value.
    let none: Vec<FitSample> = samples(100).into_iter().filter(|s| s.kings == 0).collect();
    assert!(piece_values(&none).is_none_or(|p| p.king_in_men.is_none()));
}

#[test]
fn the_report_writes_pages_and_svg_plots() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("report.db");
    hand_db(&db);
    let out = scratch.path().join("report-out");
    let report = build(&db).unwrap();
    report.write(&out).unwrap();
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("data-role=\"atlas-metrics\""));
    assert!(index.contains("alpha (nodes=100)"));
    assert!(
        index.contains("0.575 [0.351, 0.799]"),
        "the first-player score is in the table"
    );
    let mut svgs = 0;
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        match path.extension().and_then(|e| e.to_str()) {
            Some("svg") => {
                svgs += 1;
                assert!(
                    text.starts_with("<svg") && text.trim_end().ends_with("</svg>"),
                    "{}",
                    path.display()
                );
                assert!(text.contains("<text"), "{} has no text", path.display());
            }
            Some("html") => {
                // No network at view time, and every local file the page names exists.
                assert!(
                    !text.contains("http://")
                        && !text.contains("https://")
                        && !text.contains("<script")
                );
                for part in text
                    .split("src=\"")
                    .skip(1)
                    .chain(text.split("href=\"").skip(1))
                {
                    let target = part.split('"').next().unwrap().split('#').next().unwrap();
                    if !target.is_empty() {
                        assert!(
                            out.join(target).is_file(),
                            "{} names missing {target}",
                            path.display()
                        );
                    }
                }
            }
            _ => panic!("unexpected file {}", path.display()),
        }
    }
    // One plot per metric (19), two courses on the index, and the variant's own five.
    assert_eq!(svgs, 19 + 2 + 5);
    assert!(out.join("variant-alpha--nodes-100.html").is_file());
}

#[test]
fn the_fixture_database_reports() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("fixture.db");
    damspel_atlas_report::fixture::write(&db).unwrap();
    let atlas = load(&db).unwrap();
    assert_eq!(atlas.variants.len(), 2);
    assert!(atlas.variants.iter().all(|m| m.games == 16 && m.pairs == 8));
    assert!(build(&db).unwrap().files.contains_key("index.html"));
}

#[test]
fn an_empty_atlas_gives_a_page_that_says_so() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("empty.db");
    Connection::open(&db)
        .unwrap()
        .execute_batch(SCHEMA)
        .unwrap();
    let report = build(&db).unwrap();
    assert!(report.files["index.html"].contains("no games yet"));
}

#[test]
fn bad_databases_are_refused_clearly() {
    let scratch = tempfile::tempdir().unwrap();
    let missing = scratch.path().join("missing.db");
    let e = load(&missing).unwrap_err();
    assert!(
        matches!(e, Error::Open { .. }) && e.to_string().contains("no such file"),
        "{e}"
    );
    // A folder is named as one, not as missing.
    let e = load(&std::env::temp_dir()).unwrap_err();
    assert!(
        e.to_string().contains("a folder, not a database file"),
        "{e}"
    );

    let text = scratch.path().join("text.db");
    std::fs::write(&text, "this is not a database, just some text that is long enough ......................................................").unwrap();
    let e = load(&text).unwrap_err();
    assert!(
        e.to_string().contains("not an atlas database") || e.to_string().contains("cannot open"),
        "{e}"
    );

    let bare = scratch.path().join("bare.db");
    Connection::open(&bare)
        .unwrap()
        .execute_batch("CREATE TABLE games (x)")
        .unwrap();
    let e = load(&bare).unwrap_err();
    assert!(e.to_string().contains("no table `meta`"), "{e}");

    let future = scratch.path().join("future.db");
    let conn = Connection::open(&future).unwrap();
    conn.execute_batch(SCHEMA).unwrap();
    conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema'", [])
        .unwrap();
    drop(conn);
    let e = load(&future).unwrap_err();
    assert!(e.to_string().contains("schema version is 2"), "{e}");

    let odd = scratch.path().join("odd.db");
    hand_db(&odd);
    Connection::open(&odd)
        .unwrap()
        .execute(
            "UPDATE games SET result = 'white' WHERE pair = 3 AND game = 1",
            [],
        )
        .unwrap();
    let e = load(&odd).unwrap_err();
    assert!(e.to_string().contains("result `white`"), "{e}");

    // Writing into a path that is a file fails with the path named.
    let blocked = scratch.path().join("blocked");
    std::fs::write(&blocked, "x").unwrap();
    let e = build(&odd.with_file_name("hand-for-blocked.db"))
        .map(|_| ())
        .unwrap_err();
    assert!(e.to_string().contains("no such file"));
    let report = damspel_atlas_report::Report::default();
    let mut report = report;
    report.files.insert("index.html".into(), String::new());
    let e = report.write(&blocked).unwrap_err();
    assert!(
        e.to_string().contains(&blocked.display().to_string()),
        "{e}"
    );
}
