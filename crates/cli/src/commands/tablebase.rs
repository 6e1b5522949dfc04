//! `damspel tablebase build|probe|verify|stats|plan`: endgame tables (docs/tablebases.md).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Result};
use clap::Subcommand;
use damspel_notation::{format_all, sort_for_reading, write_fen};
use damspel_rules::{with_rules, Bits, Catalogue, Color, Duplicates, Rules};
use damspel_tablebase::{
    build, build_slice, default_dir, drawn_by_material, plan, remove_stale_temporaries, set_needs,
    slice_needs, verify, Indexer, Material, Needs, Probe, Progress, Tablebase, Value,
    STALE_TEMPORARY_AGE,
};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::options;

/// The largest sets the commands accept: 7 pieces is already beyond one machine (see
/// docs/tablebases.md).
const MAX_PIECES: u64 = 7;

#[derive(Subcommand)]
pub enum Action {
    /// Build every table up to --pieces pieces (tables already in the folder are kept), or one
    /// signature with --slice from the tables of its dependencies.
    Build {
        /// Variant id or alias.
        id: String,
        /// Pieces on the board, both sides together: 2 to 7.
        #[arg(long, value_parser = options::count(2, MAX_PIECES))]
        pieces: usize,
        /// Worker threads: 1 to 256.
        #[arg(long, default_value_t = 2, value_parser = options::threads())]
        threads: usize,
        /// Folder of the tables (default: the cache folder, see docs/tablebases.md).
        #[arg(long)]
        tb_dir: Option<PathBuf>,
        /// Build only this signature (e.g. KKMvK; see `tablebase plan`).
        #[arg(long)]
        slice: Option<String>,
    },
    /// A position's value, distance and every move's value.
    Probe {
        /// Variant id or alias.
        id: String,
        /// Position in PDN FEN.
        #[arg(long)]
        fen: String,
        /// Folder of the tables (default: the cache folder, see docs/tablebases.md).
        #[arg(long)]
        tb_dir: Option<PathBuf>,
        /// Print the value, the distance and every move's value as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Re-derive every stored value from its successors and compare a sample with a plain
    /// search; exits non-zero on any disagreement.
    Verify {
        /// Variant id or alias.
        id: String,
        /// Pieces: 2 to 7.
        #[arg(long, value_parser = options::count(2, MAX_PIECES))]
        pieces: usize,
        /// Positions per table checked against the plain search: 0 to 100000.
        #[arg(long, default_value_t = 200, value_parser = options::count(0, 100_000))]
        samples: usize,
        /// Depth of that search in plies: 1 to 12 (deeper values are not compared).
        #[arg(long, default_value_t = 5, value_parser = options::count(1, 12))]
        depth: usize,
        /// Worker threads: 1 to 256.
        #[arg(long, default_value_t = 2, value_parser = options::threads())]
        threads: usize,
        /// Folder of the tables (default: the cache folder, see docs/tablebases.md).
        #[arg(long)]
        tb_dir: Option<PathBuf>,
    },
    /// Per signature: wins, draws and losses for each side to move, the longest win and an
    /// example position of it.
    Stats {
        /// Variant id or alias.
        id: String,
        /// Folder of the tables (default: the cache folder, see docs/tablebases.md).
        #[arg(long)]
        tb_dir: Option<PathBuf>,
        /// Print one JSON array, an object per signature.
        #[arg(long)]
        json: bool,
    },
    /// The signatures up to --pieces in dependency waves, one line each: `WAVE SIGNATURE
    /// POSITIONS`. Every signature of a wave needs only tables of earlier waves.
    Plan {
        /// Variant id or alias (the waves are the same for every variant; the sizes are not).
        id: String,
        /// Pieces: 2 to 7.
        #[arg(long, value_parser = options::count(2, MAX_PIECES))]
        pieces: usize,
    },
}

pub fn run(catalogue: &Catalogue, action: Action) -> Result<()> {
    match action {
        Action::Build {
            id,
            pieces,
            threads,
            tb_dir,
            slice,
        } => {
            let variant = catalogue.get(&id)?;
            let dir = tb_dir.unwrap_or_else(default_dir);
            with_rules!(variant, |rules| run_build(
                &rules,
                pieces as u8,
                &dir,
                threads,
                slice.as_deref()
            ))
        }
        Action::Probe {
            id,
            fen,
            tb_dir,
            json,
        } => {
            let variant = catalogue.get(&id)?;
            let dir = tb_dir.unwrap_or_else(default_dir);
            with_rules!(variant, |rules| run_probe(&rules, &dir, &fen, json))
        }
        Action::Verify {
            id,
            pieces,
            samples,
            depth,
            threads,
            tb_dir,
        } => {
            let variant = catalogue.get(&id)?;
            let dir = tb_dir.unwrap_or_else(default_dir);
            with_rules!(variant, |rules| run_verify(
                &rules,
                &dir,
                pieces as u8,
                samples,
                depth as u32,
                threads
            ))
        }
        Action::Stats { id, tb_dir, json } => {
            let variant = catalogue.get(&id)?;
            let dir = tb_dir.unwrap_or_else(default_dir);
            with_rules!(variant, |rules| run_stats(&rules, &dir, json))
        }
        Action::Plan { id, pieces } => {
            let variant = catalogue.get(&id)?;
            with_rules!(variant, |rules| print_plan(&rules, pieces as u8))
        }
    }
}

/// One line per signature: wave, signature, slots of its table (both sides to move).
fn print_plan<B: Bits>(rules: &Rules<B>, pieces: u8) -> Result<()> {
    for (w, wave) in plan(pieces).iter().enumerate() {
        for &m in wave {
            println!("{w} {m} {}", Indexer::new(rules, m).len());
        }
    }
    Ok(())
}

fn run_build<B: Bits>(
    rules: &Rules<B>,
    pieces: u8,
    dir: &Path,
    threads: usize,
    slice: Option<&str>,
) -> Result<()> {
    let material = match slice {
        Some(text) => {
            let material: Material = text.parse()?;
            if material.total() > pieces {
                bail!("{material} has more than --pieces {pieces} pieces");
            }
            Some(material)
        }
        None => None,
    };
    // Refused before the first table rather than killed at the largest one, hours in.
    let needs = match material {
        Some(m) => Some(slice_needs(rules, m)?),
        None => set_needs(rules, pieces)?,
    };
    if let (Some(needs), Some(usable)) = (needs, crate::machine::usable_memory_bytes()) {
        check_memory(rules, pieces, material.is_some(), &needs, usable)?;
    }
    // A build killed while writing a table (kill -9, a lost node) left its temporary file;
    // the next build in the folder clears those no writer has touched for an hour.
    let stale = remove_stale_temporaries(dir, rules.variant(), STALE_TEMPORARY_AGE)?;
    if !stale.is_empty() {
        let names: Vec<String> = stale
            .iter()
            .filter_map(|p| p.file_name())
            .map(|n| crate::files::printable(&n.to_string_lossy()))
            .collect();
        eprintln!(
            "removed {} temporary file{} left by a build that was stopped while writing: {}",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            names.join(", ")
        );
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template(
            "{msg:>10} [{bar:30}] {pos}/{len} positions, {per_sec}, {elapsed}",
        )
        .expect("a valid template"),
    );
    // On a terminal a bar; otherwise (a batch job's log: a large table takes hours) a line at
    // each tenth of a table's positions.
    let terminal = std::io::stderr().is_terminal();
    let logged = Mutex::new((None::<Material>, 0u64));
    let start = Instant::now();
    let progress = |p: Progress| {
        let name = p.material.to_string();
        if bar.length() != Some(p.total) || bar.message() != name {
            bar.set_length(p.total);
            bar.set_message(name);
            bar.reset();
        }
        bar.set_position(p.done);
        if !terminal {
            let tenth = p.done * 10 / p.total.max(1);
            let mut last = logged.lock().unwrap_or_else(|e| e.into_inner());
            if last.0 != Some(p.material) {
                *last = (Some(p.material), 0);
            }
            if tenth > last.1 {
                last.1 = tenth;
                eprintln!(
                    "{}: {}% of {} positions, {} s",
                    p.material,
                    tenth * 10,
                    p.total,
                    start.elapsed().as_secs()
                );
            }
        }
        true
    };
    let built = match material {
        Some(material) => vec![build_slice(rules, material, dir, threads, &progress)?],
        None => build(rules, pieces, dir, threads, &progress)?,
    };
    bar.finish_and_clear();
    let mut positions = 0;
    let mut bytes = 0;
    for b in &built {
        positions += b.positions;
        bytes += b.bytes;
        let secs = b.time.as_secs_f64();
        if b.reused {
            println!(
                "{:>10} {:>12} positions {:>11} bytes  (kept)",
                b.material.to_string(),
                b.positions,
                b.bytes
            );
        } else {
            // A file that was there and not kept is said, with why: rebuilding it silently
            // hid a variant file changed since, or tables of an older program.
            let replaced = b
                .replaced
                .as_ref()
                .map_or(String::new(), |why| format!("  (replaced: {why})"));
            println!(
                "{:>10} {:>12} positions {:>11} bytes {:>8.2} s {:>12.0} positions/s{replaced}",
                b.material.to_string(),
                b.positions,
                b.bytes,
                secs,
                b.positions as f64 / secs.max(1e-9)
            );
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{}: {} tables, {positions} positions, {bytes} bytes in {secs:.1} s ({:.0} positions/s on {threads} threads) in {}",
        rules.variant().id,
        built.len(),
        positions as f64 / secs.max(1e-9),
        dir.display()
    );
    Ok(())
}

/// Refuses a build whose estimated peak memory is more than this process may use, with both
/// figures (the estimate is docs/tablebases.md's, from the table's slots and sampled moves).
fn check_memory<B: Bits>(
    rules: &Rules<B>,
    pieces: u8,
    slice: bool,
    needs: &Needs,
    usable: u64,
) -> Result<()> {
    if needs.bytes <= usable {
        return Ok(());
    }
    let what = if slice {
        format!(
            "building {} needs about {} of memory ({} positions, with the tables it depends on)",
            needs.material,
            bytes(needs.bytes),
            needs.slots
        )
    } else {
        format!(
            "building {} up to {pieces} pieces needs about {} of memory at {} ({} positions, with the earlier tables still needed)",
            rules.variant().id,
            bytes(needs.bytes),
            needs.material,
            needs.slots
        )
    };
    bail!(
        "{what}; this process may use {} (see docs/tablebases.md, Memory)",
        bytes(usable)
    )
}

/// Bytes as a person reads them: `1.4 GiB`, `230 MiB`.
fn bytes(n: u64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    let n = n as f64;
    if n >= GIB {
        format!("{:.1} GiB", n / GIB)
    } else {
        format!("{:.0} MiB", (n / MIB).max(1.0))
    }
}

fn describe(p: &Probe) -> String {
    let mut s = match p.value {
        Value::Draw => "draw".to_string(),
        v => format!("{} in {} plies", v.name(), p.distance),
    };
    if p.cursed {
        if let Some(l) = p.limit {
            s.push_str(&format!(
                " (beyond the {}-move limit: drawn under it)",
                l / 2
            ));
        }
    }
    s
}

#[derive(Serialize)]
struct ProbeJson {
    value: &'static str,
    distance: u32,
    limit_plies: Option<u32>,
    cursed: bool,
}

impl From<&Probe> for ProbeJson {
    fn from(p: &Probe) -> ProbeJson {
        ProbeJson {
            value: p.value.name(),
            distance: p.distance,
            limit_plies: p.limit,
            cursed: p.cursed,
        }
    }
}

#[derive(Serialize)]
struct MoveJson {
    notation: String,
    /// For the side that plays it.
    #[serde(flatten)]
    probe: ProbeJson,
}

fn run_probe<B: Bits>(rules: &Rules<B>, dir: &Path, fen: &str, json: bool) -> Result<()> {
    let pos = super::position(rules, Some(fen))?;
    let tb = Tablebase::open(dir, rules)?;
    let Some(probe) = tb.probe(&pos) else {
        bail!(
            "no table for {} in {} (build it with `damspel tablebase build {} --pieces {}`)",
            Material::of(&pos),
            dir.display(),
            rules.variant().id,
            pos.occupied().count()
        );
    };
    let g = &rules.variant().geometry;
    // One piece each where that draws: the game is over, no move is played.
    let over = drawn_by_material(rules, &pos);
    let mut legal = if over {
        Vec::new()
    } else {
        rules.legal_moves_detailed(&pos, Duplicates::Merge)
    };
    sort_for_reading(g, &mut legal);
    let names = format_all(g, &legal);
    let mut rows = Vec::new();
    for (d, name) in legal.iter().zip(names) {
        let after = tb
            .probe(&pos.play(&d.mv))
            .map(|a| Probe::for_mover(&a))
            .ok_or_else(|| anyhow::anyhow!("no table for the position after {name}"))?;
        rows.push((name, after));
    }
    // Best first: wins fastest, then draws, then losses longest.
    rows.sort_by_key(|(_, p)| match p.value {
        Value::Win => (0, p.distance as i64),
        Value::Draw => (1, 0),
        Value::Loss => (2, -(p.distance as i64)),
    });
    if json {
        #[derive(Serialize)]
        struct Out {
            fen: String,
            side_to_move: &'static str,
            #[serde(flatten)]
            probe: ProbeJson,
            moves: Vec<MoveJson>,
        }
        let out = Out {
            fen: write_fen(g, &pos),
            side_to_move: pos.side_to_move().name(),
            probe: (&probe).into(),
            moves: rows
                .iter()
                .map(|(n, p)| MoveJson {
                    notation: n.clone(),
                    probe: p.into(),
                })
                .collect(),
        };
        println!("{}", crate::files::json_text(&out)?);
    } else {
        let side = pos.side_to_move();
        let why = if over { " (one piece each)" } else { "" };
        println!("{} to move: {}{why}", side, describe(&probe));
        if let Some(l) = probe.limit {
            println!("limit: {} plies ({} moves each)", l, l / 2);
        }
        for (name, p) in rows {
            println!("{name:>12}  {}", describe(&p));
        }
    }
    Ok(())
}

fn run_verify<B: Bits>(
    rules: &Rules<B>,
    dir: &Path,
    pieces: u8,
    samples: usize,
    depth: u32,
    threads: usize,
) -> Result<()> {
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    let report = verify(rules, dir, pieces, samples, depth, threads, &stop)?;
    for e in &report.errors {
        println!("mismatch: {e}");
    }
    println!(
        "{}: {} tables, {} positions re-derived, {} checked by a {depth}-ply search, {:.1} s: {}",
        rules.variant().id,
        report.tables,
        report.positions,
        report.searched,
        start.elapsed().as_secs_f64(),
        if report.failed { "FAILED" } else { "ok" }
    );
    if report.failed {
        bail!("the tables disagree with their successors or the search");
    }
    Ok(())
}

#[derive(Serialize)]
struct SideJson {
    to_move: &'static str,
    wins: u64,
    draws: u64,
    losses: u64,
    longest_win: u32,
    example: Option<String>,
}

#[derive(Serialize)]
struct StatsJson {
    signature: String,
    positions: u64,
    sides: Vec<SideJson>,
}

fn run_stats<B: Bits>(rules: &Rules<B>, dir: &Path, json: bool) -> Result<()> {
    let tb = Tablebase::open(dir, rules)?;
    let g = &rules.variant().geometry;
    let mut rows = Vec::new();
    for m in tb.materials() {
        let h = tb.header(m).expect("a listed table has a header");
        let sides = Color::BOTH
            .iter()
            .zip(h.counts.iter())
            .map(|(c, s)| SideJson {
                to_move: c.name(),
                wins: s.wins,
                draws: s.draws,
                losses: s.losses,
                longest_win: s.longest_win,
                example: (s.wins > 0)
                    .then(|| tb.position(m, s.longest_win_slot))
                    .flatten()
                    .map(|p| write_fen(g, &p)),
            })
            .collect();
        rows.push(StatsJson {
            signature: m.to_string(),
            positions: h.slots,
            sides,
        });
    }
    if rows.is_empty() {
        bail!("no tables for {} in {}", rules.variant().id, dir.display());
    }
    if json {
        println!("{}", crate::files::json_text(&rows)?);
        return Ok(());
    }
    println!(
        "{:>10} {:>6} {:>10} {:>10} {:>10} {:>8}  example",
        "signature", "move", "wins", "draws", "losses", "longest"
    );
    for r in rows {
        for s in r.sides {
            println!(
                "{:>10} {:>6} {:>10} {:>10} {:>10} {:>8}  {}",
                r.signature,
                s.to_move,
                s.wins,
                s.draws,
                s.losses,
                s.longest_win,
                s.example.unwrap_or_default()
            );
        }
    }
    Ok(())
}
