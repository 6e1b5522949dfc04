//! Damspel's variant atlas read back (issue 14, items 2 and 3): the metrics of every variant
//! with their 95% intervals (metrics.rs, intervals.rs, fit.rs) and a static HTML report with
//! SVG plots (plots.rs, report.rs). It reads only the atlas database (the contract is in
//! docs/atlas.md), never the runner that writes it. No I/O but the database and the report's
//! directory; nothing is printed.

pub mod fit;
pub mod fixture;
pub mod intervals;
pub mod metrics;
pub mod plots;
pub mod report;

use std::path::Path;

pub use intervals::Interval;
pub use metrics::{load, Atlas, Error, VariantMetrics};
pub use report::{render, Report};

/// The atlas database's tables, as the contract defines them (for fixtures and tests).
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    variant TEXT NOT NULL, budget TEXT NOT NULL, seed INTEGER NOT NULL,
    opening_plies INTEGER NOT NULL, PRIMARY KEY (variant, budget));
CREATE TABLE IF NOT EXISTS games (
    variant TEXT NOT NULL, budget TEXT NOT NULL, pair INTEGER NOT NULL, game INTEGER NOT NULL,
    opening TEXT NOT NULL, opening_fen TEXT NOT NULL, result TEXT NOT NULL, reason TEXT NOT NULL,
    plies INTEGER NOT NULL, pdn TEXT NOT NULL, PRIMARY KEY (variant, budget, pair, game));
CREATE TABLE IF NOT EXISTS plies (
    variant TEXT NOT NULL, budget TEXT NOT NULL, pair INTEGER NOT NULL, game INTEGER NOT NULL,
    ply INTEGER NOT NULL, mover TEXT NOT NULL, legal INTEGER NOT NULL, captured INTEGER NOT NULL,
    promotes INTEGER NOT NULL, eval INTEGER,
    men_first INTEGER NOT NULL, kings_first INTEGER NOT NULL,
    men_second INTEGER NOT NULL, kings_second INTEGER NOT NULL,
    PRIMARY KEY (variant, budget, pair, game, ply));
INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', '1');
";

/// Reads the database at `db` and renders its report.
pub fn build(db: &Path) -> Result<Report, Error> {
    render(&load(db)?)
}
