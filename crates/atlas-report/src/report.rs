//! The static HTML report: index.html (the variants side by side for each metric, plus the
//! courses over the game of all variants together) and one page per variant and budget (every
//! metric, draw reasons, length and capture histograms, courses). Plots are separate SVG files
//! beside the pages; the pages carry their CSS inline and use no script, so the report opens
//! from a disk or a server with no network.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use crate::intervals::Interval;
use crate::metrics::{Atlas, Error, VariantMetrics, DRAWN_LOOKING};
use crate::plots;

/// The report's files by name (flat: no directories), HTML and SVG text.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub files: BTreeMap<String, String>,
}

impl Report {
    /// Writes every file into `dir` (created if missing).
    pub fn write(&self, dir: &Path) -> Result<(), Error> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| Error::Write { path, source }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        for (name, text) in &self.files {
            let path = dir.join(name);
            std::fs::write(&path, text).map_err(io(&path))?;
        }
        Ok(())
    }

    /// A file's content type for serving it.
    pub fn content_type(name: &str) -> &'static str {
        if name.ends_with(".svg") {
            "image/svg+xml"
        } else {
            "text/html; charset=utf-8"
        }
    }
}

/// A metric shown side by side: file slug, title, unit, decimals, accessor.
struct Metric {
    slug: &'static str,
    title: &'static str,
    unit: &'static str,
    digits: usize,
    get: fn(&VariantMetrics) -> Option<Interval>,
}

const METRICS: &[Metric] = &[
    Metric {
        slug: "first-score",
        title: "First player's score",
        unit: "score per game (pentanomial, pairs)",
        digits: 3,
        get: |m| m.first_score,
    },
    Metric {
        slug: "balance",
        title: "Balance (Ludii)",
        unit: "1 - |first's win rate - second's|",
        digits: 3,
        get: |m| m.balance,
    },
    Metric {
        slug: "decisive-rate",
        title: "Decisive rate",
        unit: "share of games decided (pairs)",
        digits: 3,
        get: |m| m.decisive_rate,
    },
    Metric {
        slug: "draw-rate",
        title: "Draw rate",
        unit: "share of games drawn (pairs)",
        digits: 3,
        get: |m| m.draw_rate,
    },
    Metric {
        slug: "drawishness",
        title: "Drawishness (Ludii)",
        unit: "draws not by ply cap or adjudication",
        digits: 3,
        get: |m| m.natural_draw_rate,
    },
    Metric {
        slug: "length",
        title: "Game length",
        unit: "plies",
        digits: 1,
        get: |m| m.length,
    },
    Metric {
        slug: "branching",
        title: "Branching factor",
        unit: "legal moves per position",
        digits: 2,
        get: |m| m.branching,
    },
    Metric {
        slug: "capture-rate",
        title: "Capture frequency",
        unit: "share of plies that capture",
        digits: 3,
        get: |m| m.capture_rate,
    },
    Metric {
        slug: "longest-capture",
        title: "Longest capture of a game",
        unit: "pieces (mean over games)",
        digits: 2,
        get: |m| m.longest_capture_mean,
    },
    Metric {
        slug: "promotions",
        title: "Promotions per game",
        unit: "promotions",
        digits: 2,
        get: |m| m.promotions,
    },
    Metric {
        slug: "promotion-games",
        title: "Games with a promotion",
        unit: "share of games",
        digits: 3,
        get: |m| m.promotion_games,
    },
    Metric {
        slug: "first-promotion",
        title: "First promotion",
        unit: "ply",
        digits: 1,
        get: |m| m.first_promotion_ply,
    },
    Metric {
        slug: "lead-changes",
        title: "Lead changes (Ludii)",
        unit: "per 100 engine plies",
        digits: 2,
        get: |m| m.lead_changes,
    },
    Metric {
        slug: "drama",
        title: "Drama: winner behind",
        unit: "share of the winner's plies behind",
        digits: 3,
        get: |m| m.drama,
    },
    Metric {
        slug: "drama-severity",
        title: "Drama (Ludii, average)",
        unit: "winner's mean deficit in men",
        digits: 3,
        get: |m| m.drama_severity,
    },
    Metric {
        slug: "late-drawn",
        title: "Decided games that looked drawn late",
        unit: "share of decided games",
        digits: 3,
        get: |m| m.late_drawn_looking,
    },
    Metric {
        slug: "decision-point",
        title: "Decision point (Ludii's decisiveness moves)",
        unit: "fraction of the game before the winner led by 2 men",
        digits: 3,
        get: |m| m.decision_point,
    },
    Metric {
        slug: "opening-diversity",
        title: "Opening diversity",
        unit: "distinct positions after the opening / pairs",
        digits: 3,
        get: |m| m.opening_diversity,
    },
    Metric {
        slug: "king-value",
        title: "A king's worth",
        unit: "men (logistic fit of the result on material)",
        digits: 2,
        get: |m| m.piece_values.as_ref().and_then(|p| p.king_in_men),
    },
];

/// Variants drawn together in one course plot on the index.
const COURSES_PER_PLOT: usize = 8;

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em auto;max-width:1100px;padding:0 1em;color:#222}\
table{border-collapse:collapse;margin:1em 0;font-size:.9em}th,td{border:1px solid #ccc;padding:.25em .5em;text-align:right}\
th:first-child,td:first-child{text-align:left}thead th{background:#f0f0f0}img{max-width:100%;display:block;margin:.5em 0}\
.small{color:#666;font-size:.85em}nav a{margin-right:1em}.wide{overflow-x:auto}";

pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n{body}\n</body></html>\n",
        escape(title)
    )
}

fn show(i: Option<Interval>, digits: usize) -> String {
    match i {
        Some(i) if i.low.is_finite() && i.high.is_finite() => escape(&i.show(digits)),
        Some(i) => format!("{:.digits$} [n = 1]", i.value),
        None => "–".into(),
    }
}

fn label(m: &VariantMetrics) -> String {
    format!("{} ({})", m.variant, m.budget)
}

/// A file-name part from free text: letters, digits, `-`, `_`, `.` kept, others as `-`.
fn slug(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// Renders the report of an atlas.
pub fn render(atlas: &Atlas) -> Result<Report, Error> {
    let mut files = BTreeMap::new();
    // One unique slug per (variant, budget).
    let mut used = HashSet::new();
    let slugs: Vec<String> = atlas
        .variants
        .iter()
        .map(|m| {
            let base = format!("{}--{}", slug(&m.variant), slug(&m.budget));
            let mut s = base.clone();
            let mut k = 2;
            while !used.insert(s.clone()) {
                s = format!("{base}-{k}");
                k += 1;
            }
            s
        })
        .collect();

    let mut body = String::new();
    body.push_str("<h1>Damspel variant atlas</h1>\n");
    if atlas.variants.is_empty() {
        body.push_str("<p data-role=\"atlas-empty\">The database holds no games yet.</p>\n");
        files.insert("index.html".into(), page("Damspel variant atlas", &body));
        return Ok(Report { files });
    }
    let total: u64 = atlas.variants.iter().map(|m| m.games).sum();
    let _ = writeln!(
        body,
        "<p>{} variant(s) and budget(s), {total} games. Every figure is an estimate with its \
         95% interval in brackets; definitions and sources in docs/atlas.md (\"Metrics\").</p>",
        atlas.variants.len()
    );
    body.push_str("<nav>");
    for m in METRICS {
        let _ = write!(body, "<a href=\"#{}\">{}</a> ", m.slug, escape(m.title));
    }
    body.push_str("</nav>\n");

    // The table of every metric, variants as rows.
    body.push_str(
        "<div class=\"wide\"><table data-role=\"atlas-metrics\"><thead><tr><th>variant (budget)</th><th>games</th>",
    );
    for m in METRICS {
        let _ = write!(
            body,
            "<th title=\"{}\">{}</th>",
            escape(m.unit),
            escape(m.title)
        );
    }
    body.push_str("</tr></thead><tbody>\n");
    for (v, s) in atlas.variants.iter().zip(&slugs) {
        let _ = write!(
            body,
            "<tr data-variant=\"{}\"><td><a href=\"variant-{s}.html\">{}</a></td><td>{}</td>",
            escape(&v.variant),
            escape(&label(v)),
            v.games
        );
        for m in METRICS {
            let _ = write!(body, "<td>{}</td>", show((m.get)(v), m.digits));
        }
        body.push_str("</tr>\n");
    }
    body.push_str("</tbody></table></div>\n");

    for m in METRICS {
        let rows: Vec<(String, Option<Interval>)> = atlas
            .variants
            .iter()
            .map(|v| (label(v), (m.get)(v)))
            .collect();
        let name = format!("metric-{}.svg", m.slug);
        files.insert(name.clone(), plots::forest(m.title, m.unit, &rows)?);
        let _ = writeln!(
            body,
            "<h2 id=\"{}\">{}</h2><p class=\"small\">{}</p>\
             <img data-role=\"atlas-plot\" src=\"{name}\" alt=\"{} by variant\">",
            m.slug,
            escape(m.title),
            escape(m.unit),
            escape(m.title)
        );
    }

    // The courses of all variants, eight to a plot (more lines cannot be told apart).
    body.push_str("<h2 id=\"courses\">Over the game</h2>\n");
    type Course = fn(&VariantMetrics) -> &[crate::metrics::CoursePoint];
    let courses: [(&str, &str, &str, Course); 2] = [
        (
            "branching",
            "Branching factor over the game",
            "legal moves",
            |v| &v.branching_course,
        ),
        (
            "abs-eval",
            "Mean |evaluation| over the game",
            "centi-men",
            |v| &v.abs_eval_course,
        ),
    ];
    for (name, title, unit, get) in courses {
        let groups: Vec<&[VariantMetrics]> = atlas.variants.chunks(COURSES_PER_PLOT).collect();
        for (g, group) in groups.iter().enumerate() {
            let series: Vec<_> = group.iter().map(|v| (label(v), get(v))).collect();
            let file = format!("course-{name}-{}.svg", g + 1);
            let title = if groups.len() > 1 {
                format!("{title} ({}/{})", g + 1, groups.len())
            } else {
                title.to_string()
            };
            files.insert(file.clone(), plots::courses(&title, unit, &series, false)?);
            let _ = writeln!(
                body,
                "<img data-role=\"atlas-plot\" src=\"{file}\" alt=\"{}\">",
                escape(&title)
            );
        }
    }
    files.insert("index.html".into(), page("Damspel variant atlas", &body));

    for (v, s) in atlas.variants.iter().zip(&slugs) {
        variant_page(v, s, &mut files)?;
    }
    Ok(Report { files })
}

fn variant_page(
    v: &VariantMetrics,
    s: &str,
    files: &mut BTreeMap<String, String>,
) -> Result<(), Error> {
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<p><a href=\"index.html\">← all variants</a></p><h1>{}</h1>\
         <p>{} games, {} complete pairs; first player wins {}, second wins {}, draws {}.{}</p>",
        escape(&label(v)),
        v.games,
        v.pairs,
        v.first_wins,
        v.second_wins,
        v.draws,
        match (v.seed, v.opening_plies) {
            (Some(seed), Some(p)) => format!(" Openings: {p} random plies, seed {seed}."),
            _ => String::new(),
        }
    );
    body.push_str("<table data-role=\"atlas-variant-metrics\"><thead><tr><th>metric</th><th>estimate [95% interval]</th><th>unit</th><th>n</th></tr></thead><tbody>\n");
    for m in METRICS {
        let i = (m.get)(v);
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(m.title),
            show(i, m.digits),
            escape(m.unit),
            i.map_or(0, |i| i.n)
        );
    }
    let _ = writeln!(
        body,
        "<tr><td>Median length</td><td>{}</td><td>plies</td><td>{}</td></tr>\
         <tr><td>Longest capture</td><td>{}</td><td>pieces</td><td></td></tr>\
         <tr><td>Distinct openings</td><td>{}</td><td>positions</td><td></td></tr>",
        v.length_median.map_or("–".into(), |m| format!("{m:.1}")),
        v.games,
        v.longest_capture,
        v.distinct_openings
    );
    if let Some(p) = &v.piece_values {
        let _ = writeln!(
            body,
            "<tr><td>Logistic coefficients</td><td>man {:.3}, king {:.3}</td><td>per piece</td><td>{}</td></tr>",
            p.man, p.king, p.samples
        );
    }
    body.push_str("</tbody></table>\n");
    let _ = writeln!(
        body,
        "<h2>Pairs (pentanomial)</h2><table><thead><tr><th>first player's points in the pair</th>\
         <th>0</th><th>½</th><th>1</th><th>1½</th><th>2</th></tr></thead><tbody><tr><td>pairs</td>{}</tr></tbody></table>",
        v.pentanomial.iter().map(|c| format!("<td>{c}</td>")).collect::<String>()
    );
    body.push_str("<h2>How games ended</h2><table><thead><tr><th>outcome</th><th>reason</th><th>games</th><th>share [95%]</th></tr></thead><tbody>\n");
    for r in &v.reasons {
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            r.outcome,
            escape(&r.reason),
            r.count,
            escape(&r.share.show(3))
        );
    }
    body.push_str("</tbody></table>\n");

    let title = label(v);
    let mut plot = |name: String, svg: String, alt: &str, body: &mut String| {
        let _ = writeln!(
            body,
            "<img data-role=\"atlas-plot\" src=\"{name}\" alt=\"{}\">",
            escape(alt)
        );
        files.insert(name, svg);
    };
    body.push_str("<h2>Game length</h2>\n");
    if !v.lengths.is_empty() {
        plot(
            format!("length-{s}.svg"),
            plots::histogram(&format!("Game length: {title}"), "plies", &v.lengths, 40)?,
            "histogram of game lengths",
            &mut body,
        );
    }
    body.push_str("<h2>Over the game</h2>\n");
    if !v.branching_course.is_empty() {
        plot(
            format!("branching-{s}.svg"),
            plots::courses(
                &format!("Branching factor: {title}"),
                "legal moves",
                &[("legal moves".into(), &v.branching_course)],
                true,
            )?,
            "branching factor by ply",
            &mut body,
        );
    }
    if !v.eval_course.is_empty() {
        plot(
            format!("evals-{s}.svg"),
            plots::courses(
                &format!("Evaluation: {title}"),
                "centi-men (first player's view)",
                &[
                    ("mean evaluation".into(), &v.eval_course),
                    ("mean |evaluation|".into(), &v.abs_eval_course),
                ],
                true,
            )?,
            "evaluation course by ply",
            &mut body,
        );
        let _ = writeln!(
            body,
            "<p class=\"small\">Bands: 95% intervals treating plies as independent (a guide). \
             \"Drawn-looking\" means |evaluation| ≤ {DRAWN_LOOKING} centi-men.</p>"
        );
    }
    body.push_str("<h2>Captures and promotions</h2>\n");
    if let Some(last) = v.capture_sizes.iter().rposition(|&c| c > 0) {
        let bins: Vec<(f64, f64, u64)> = v.capture_sizes[1..=last.max(1)]
            .iter()
            .enumerate()
            .map(|(k, &c)| ((k + 1) as f64 - 0.4, (k + 1) as f64 + 0.4, c))
            .collect();
        plot(
            format!("captures-{s}.svg"),
            plots::bars(
                &format!("Pieces taken per capture: {title}"),
                "pieces",
                &bins,
            )?,
            "captures by size",
            &mut body,
        );
    }
    if !v.promotion_plies.is_empty() {
        plot(
            format!("promotions-{s}.svg"),
            plots::histogram(
                &format!("When promotions happen: {title}"),
                "ply",
                &v.promotion_plies,
                40,
            )?,
            "promotions by ply",
            &mut body,
        );
    }
    files.insert(format!("variant-{s}.html"), page(&title, &body));
    Ok(())
}
