//! `damspel match ID --engine SPEC --engine SPEC ...`: a match between two players, with a
//! progress bar, the score, the Elo difference with its 95% error, and every game in PDN.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use damspel_arena::{
    random_openings, read_openings, run_match, DxpConfig, DxpMatchPlayer, EnginePlayer, Finished,
    HubPlayer, MatchConfig, PeerClock, Player, PlayerFactory, RandomPlayer,
};
use damspel_engine::{Level, Limits, Weights};
use damspel_notation::pdn::{GameResult, PdnGame};
use damspel_rules::{with_rules, Bits, Catalogue, Position, Rules};
use indicatif::{ProgressBar, ProgressStyle};

pub struct Args<'a> {
    pub id: &'a str,
    pub engines: &'a [String],
    pub games: usize,
    pub time: Option<f64>,
    pub depth: Option<u32>,
    pub concurrency: usize,
    pub openings: &'a str,
    pub pdn: Option<&'a str>,
    pub max_plies: usize,
    pub seed: u64,
    pub json: bool,
    /// Endgame tables for the Damspel engines without their own `tb=` (None: the cache folder).
    pub tb_dir: Option<&'a std::path::Path>,
}

/// A player as given on the command line.
#[derive(Clone, Debug)]
pub enum Spec {
    /// Damspel with optional depth, time (seconds) and weights file.
    Damspel {
        depth: Option<u32>,
        /// A playing level 1..=8 (1-7 are bounded by nodes; 8 uses the depth and time).
        level: Option<Level>,
        time: Option<f64>,
        weights: Option<String>,
        /// `tb=DIR` or `tb=none`; None: the match's `--tb-dir`.
        tables: Option<Tables>,
        label: String,
    },
    Random,
    /// An external engine speaking the Hub protocol, started with this command line.
    Hub {
        command: String,
        label: String,
    },
    /// A program listening for DXP at this address (HOST:PORT), asked for each game.
    Dxp {
        addr: String,
    },
}

/// Which endgame tables an engine probes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tables {
    None,
    Dir(std::path::PathBuf),
}

/// The longest random opening (a random game that long has left the opening long ago).
const MAX_OPENING_PLIES: usize = 100;

/// The largest weights file read (one is a few kilobytes of TOML).
pub(crate) const MAX_WEIGHTS_FILE_LEN: usize = 1 << 20;

/// The largest openings file read (a FEN a line: ten thousand openings are a megabyte).
const MAX_OPENINGS_FILE_LEN: usize = 16 << 20;

/// Parses `damspel`, `damspel:depth=2`, `damspel:time=0.1,weights=FILE`, `damspel:level=3`,
/// `damspel:tb=none` (or `tb=DIR`), `random`, `hub:COMMAND` (e.g. `hub:dame hub`),
/// `dxp:HOST:PORT` (e.g. `dxp:127.0.0.1:27531`).
pub fn parse_spec(text: &str) -> Result<Spec> {
    let (kind, options) = text.split_once(':').unwrap_or((text, ""));
    match kind {
        "hub" if options.trim().is_empty() => {
            bail!("`hub:` needs the engine's command line, e.g. `hub:dame hub`")
        }
        "hub" => Ok(Spec::Hub {
            command: options.trim().to_string(),
            label: text.to_string(),
        }),
        "dxp"
            if options
                .trim()
                .rsplit_once(':')
                .is_none_or(|(host, port)| host.is_empty() || port.parse::<u16>().is_err()) =>
        {
            bail!("`dxp:` needs the address of a program listening for DXP, HOST:PORT, e.g. `dxp:127.0.0.1:27531`")
        }
        "dxp" => Ok(Spec::Dxp {
            addr: options.trim().to_string(),
        }),
        "random" if options.is_empty() => Ok(Spec::Random),
        "random" => bail!("`random` takes no options (got `{options}`)"),
        "damspel" => {
            let (mut depth, mut time, mut weights, mut level) = (None, None, None, None);
            let mut tables = None;
            for option in options.split(',').filter(|o| !o.is_empty()) {
                let (key, value) = option
                    .split_once('=')
                    .with_context(|| format!("engine option `{option}` is not key=value"))?;
                match key {
                    "depth" => {
                        let max = damspel_engine::MAX_DEPTH;
                        depth = Some(
                            value
                                .parse()
                                .ok()
                                .filter(|d| (1..=max).contains(d))
                                .with_context(|| {
                                    format!("depth must be from 1 to {max}, not `{value}`")
                                })?,
                        )
                    }
                    "time" => {
                        let (min, max) = crate::options::SECONDS;
                        let t = value
                            .parse::<f64>()
                            .ok()
                            .filter(|t| (min..=max).contains(t))
                            .with_context(|| {
                                format!("time must be from {min} to {max} seconds, not `{value}`")
                            })?;
                        time = Some(t)
                    }
                    "weights" => weights = Some(value.to_string()),
                    "level" => level = Some(value.parse::<Level>()?),
                    "tb" if value.is_empty() => {
                        bail!("tb= needs a folder of endgame tables, or `none`")
                    }
                    "tb" if value == "none" => tables = Some(Tables::None),
                    "tb" => tables = Some(Tables::Dir(value.into())),
                    other => {
                        bail!("unknown engine option `{other}` (depth, time, weights, level, tb)")
                    }
                }
            }
            if depth.is_some() && level.is_some_and(|l| l < Level::FULL) {
                // It would be ignored: a level below 8 searches to its own depth.
                bail!("depth= is for level 8 (full strength); levels 1 to 7 search to depths of their own")
            }
            Ok(Spec::Damspel {
                depth,
                level,
                time,
                weights,
                tables,
                label: text.to_string(),
            })
        }
        other => {
            bail!("unknown engine `{other}`: use damspel[:depth=D,time=S,weights=FILE,level=N,tb=DIR], random, hub:COMMAND or dxp:HOST:PORT")
        }
    }
}

pub fn run(catalogue: &Catalogue, args: &Args) -> Result<()> {
    if args.engines.len() != 2 {
        bail!(
            "a match needs exactly two --engine options, got {}",
            args.engines.len()
        );
    }
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if let Some(t) = args.time {
        if !(t.is_finite() && t > 0.0 && t < 1e5) {
            bail!("--time must be a positive number of seconds, not {t}");
        }
    }
    if args.depth == Some(0) {
        bail!("--depth must be at least 1");
    }
    let specs = [parse_spec(&args.engines[0])?, parse_spec(&args.engines[1])?];
    let variant = catalogue.get(args.id)?;
    with_rules!(variant, |rules| play(Arc::new(rules), &specs, args))
}

fn factory<B: Bits>(
    rules: &Arc<Rules<B>>,
    spec: &Spec,
    args: &Args,
    seat: u64,
) -> Result<PlayerFactory<B>> {
    Ok(match spec.clone() {
        Spec::Random => {
            let seed = args.seed.wrapping_mul(31).wrapping_add(seat);
            Arc::new(move |thread| {
                Box::new(RandomPlayer::new(seed + thread as u64 * 1000)) as Box<dyn Player<B>>
            })
        }
        Spec::Hub { command, label } => {
            // The match's --time (seconds per move) and --depth; 0.1 s per move by default.
            let mut level = damspel_protocol::hub::Level {
                depth: args.depth,
                move_time: args.time,
                ..Default::default()
            };
            if let Some(t) = level.move_time {
                if !(t > 0.0 && t < 1e5) {
                    bail!("--time must be a positive number of seconds, not {t}");
                }
            }
            if level.depth.is_none() && level.move_time.is_none() {
                level.move_time = Some(0.1);
            }
            Arc::new(move |_| {
                Box::new(HubPlayer::<B>::new(label.clone(), &command, level)) as Box<dyn Player<B>>
            })
        }
        Spec::Dxp { addr } => {
            damspel_protocol::dxp::check_variant(rules.variant())
                .map_err(|e| anyhow::anyhow!("dxp:{addr}: {e}"))?;
            // The thinking time `damspel dxp --connect` proposes, counted over the game as
            // `damspel dxp` counts it; no move may take longer than all of it.
            let minutes = super::dxp::proposed_minutes(args.time);
            let clock = PeerClock::for_minutes(minutes);
            let config = DxpConfig {
                name: format!("Damspel {}", env!("CARGO_PKG_VERSION")),
                minutes,
                moves: 0,
                move_timeout: clock.time,
                peer_clock: Some(clock),
            };
            let rules = rules.clone();
            Arc::new(move |_| {
                Box::new(DxpMatchPlayer::new(
                    rules.clone(),
                    addr.clone(),
                    config.clone(),
                )) as Box<dyn Player<B>>
            })
        }
        Spec::Damspel {
            depth,
            level,
            time,
            weights,
            tables,
            label,
        } => {
            let tb = match tables {
                Some(Tables::None) => None,
                Some(Tables::Dir(dir)) => {
                    Some(super::tables(rules, Some(&dir))?.with_context(|| {
                        format!(
                            "tb={}: no endgame tables for {} there",
                            dir.display(),
                            rules.variant().id
                        )
                    })?)
                }
                None => super::tables(rules, args.tb_dir)?,
            };
            let weights = match weights {
                Some(path) => {
                    let text = crate::files::read_text(
                        Path::new(&path),
                        MAX_WEIGHTS_FILE_LEN,
                        "weights file",
                    )?;
                    Some(Weights::from_toml(&path, &text, &rules.variant().id)?)
                }
                None => None,
            };
            let mut limits = Limits::default();
            match (depth.or(args.depth), time.or(args.time)) {
                (d, Some(t)) if depth.is_none() || time.is_some() => {
                    limits.move_time = Some(Duration::from_secs_f64(t));
                    limits.depth = d;
                }
                (Some(d), _) => limits.depth = Some(d),
                // Levels 1-7 are bounded by nodes: no default time.
                (None, None) if level.is_some_and(|l| l < Level::FULL) => {}
                (None, None) => limits.move_time = Some(Duration::from_millis(100)),
                (None, Some(t)) => limits.move_time = Some(Duration::from_secs_f64(t)),
            }
            let rules = rules.clone();
            let seed = args.seed.wrapping_mul(31).wrapping_add(seat);
            Arc::new(move |thread| {
                let mut player = EnginePlayer::new(
                    label.clone(),
                    rules.clone(),
                    weights.clone(),
                    limits.clone(),
                    16,
                );
                player.engine_mut().set_tablebase(tb.clone());
                let player = match level {
                    Some(level) => player.with_level(level, seed + thread as u64 * 1000),
                    None => player,
                };
                Box::new(player) as Box<dyn Player<B>>
            })
        }
    })
}

fn play<B: Bits>(rules: Arc<Rules<B>>, specs: &[Spec; 2], args: &Args) -> Result<()> {
    let from_file = args.openings.parse::<usize>().is_err();
    let openings = match args.openings.parse::<usize>() {
        Ok(plies) if plies > MAX_OPENING_PLIES => {
            bail!("--openings takes 0 to {MAX_OPENING_PLIES} random plies (or a file), not {plies}")
        }
        Ok(plies) => random_openings(&rules, args.games.div_ceil(2), plies, args.seed),
        Err(_) => {
            let path = args.openings;
            let text = crate::files::read_pdn_text(
                Path::new(path),
                MAX_OPENINGS_FILE_LEN,
                "openings file",
            )
            .map_err(|e| {
                anyhow::anyhow!(
                    "--openings {path}: {e:#} (give a number of random plies or an openings file)"
                )
            })?;
            read_openings(&rules, &text).map_err(|e| anyhow::anyhow!("{path}: {e}"))?
        }
    };
    let opening_count = openings.len();
    // Opened before the first game, each game written as it ends; after a write fails, the
    // error in its place.
    let pdn_out = args
        .pdn
        .map(|path| -> Result<Mutex<Result<crate::files::Output>>> {
            // The files read (the openings, the engines' weights) are not the one written.
            let mut inputs: Vec<&Path> = specs
                .iter()
                .filter_map(|spec| match spec {
                    Spec::Damspel {
                        weights: Some(w), ..
                    } => Some(Path::new(w.as_str())),
                    _ => None,
                })
                .collect();
            if from_file {
                inputs.push(Path::new(args.openings));
            }
            let mut out = crate::files::Output::open(Path::new(path), &inputs)?;
            out.clear()?;
            Ok(Mutex::new(Ok(out)))
        })
        .transpose()?;
    let config = MatchConfig {
        rules: rules.clone(),
        players: [
            factory(&rules, &specs[0], args, 0)?,
            factory(&rules, &specs[1], args, 1)?,
        ],
        openings,
        games: args.games,
        concurrency: args.concurrency,
        max_plies: args.max_plies,
    };
    let bar = ProgressBar::new(args.games as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} games  {msg}  [{elapsed_precise}, eta {eta}]",
        )
        .expect("a valid template"),
    );
    let progress = |f: Finished<'_, B>| {
        let t = f.tally;
        bar.set_message(format!("+{} ={} -{}", t.wins, t.draws, t.losses));
        bar.set_position(f.done as u64);
        if let Some(out) = &pdn_out {
            let mut out = out.lock().expect("the PDN file");
            if let Ok(file) = out.as_mut() {
                let text = game_pdn(&rules, args, f.index, f.game, from_file, opening_count);
                if let Err(e) = file.append(text.as_bytes()) {
                    *out = Err(e);
                }
            }
        }
    };
    if args.json {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let result = run_match(&config, &progress);
    bar.finish_and_clear();
    // A game that could not be written is said after the score, which is still worth having.
    let written = match pdn_out.map(|out| out.into_inner().expect("the PDN file")) {
        Some(Err(e)) => Err(e),
        _ => Ok(()),
    };

    let names = [&args.engines[0], &args.engines[1]];
    let t = result.tally;
    let forfeits: Vec<String> = result
        .games
        .iter()
        .enumerate()
        .filter(|(_, g)| matches!(g.ending, damspel_arena::Ending::Forfeit { .. }))
        .map(|(i, g)| format!("game {}: {}", i + 1, g.ending.reason()))
        .collect();
    if args.json {
        let (lo, hi) = t.elo_interval();
        let finite = |x: f64| x.is_finite().then_some(x);
        let tally = |t: &damspel_arena::Tally| serde_json::json!({"wins": t.wins, "draws": t.draws, "losses": t.losses});
        let summary = serde_json::json!({
            "variant": rules.variant().id,
            "engines": names,
            "games": t.games(),
            "wins": t.wins,
            "draws": t.draws,
            "losses": t.losses,
            "score": t.score(),
            // Elo of the first engine; null where infinite (no game lost, or none won).
            "elo": t.elo().0,
            "elo_low": finite(lo),
            "elo_high": finite(hi),
            "as_white": tally(&result.by_color[0]),
            "as_black": tally(&result.by_color[1]),
            "forfeits": forfeits,
        });
        println!("{summary}");
        return written;
    }
    println!(
        "{} vs {} in {} ({} games)",
        names[0],
        names[1],
        rules.variant().id,
        t.games()
    );
    println!(
        "{}: {} wins, {} draws, {} losses; score {:.1}/{} = {:.1}%",
        names[0],
        t.wins,
        t.draws,
        t.losses,
        t.points(),
        t.games(),
        100.0 * t.score()
    );
    let (lo, hi) = t.elo_interval();
    let bound = |x: f64| {
        if x.is_finite() {
            format!("{x:+.0}")
        } else if x > 0.0 {
            "+inf".to_string()
        } else {
            "-inf".to_string()
        }
    };
    match t.elo() {
        (Some(elo), Some(err)) => println!("Elo difference: {elo:+.0} ± {err:.0} (95%)"),
        (Some(elo), None) => println!(
            "Elo difference: {elo:+.0}, 95% interval {} to {}",
            bound(lo),
            bound(hi)
        ),
        (None, _) => println!(
            "Elo difference: {} (no game {}), 95% interval {} to {}",
            if t.score() > 0.5 { "+inf" } else { "-inf" },
            if t.score() > 0.5 {
                "lost or drawn"
            } else {
                "won or drawn"
            },
            bound(lo),
            bound(hi)
        ),
    }
    for (color, tally) in ["white", "black"].iter().zip(result.by_color) {
        println!(
            "  as {color}: +{} ={} -{}",
            tally.wins, tally.draws, tally.losses
        );
    }
    for f in &forfeits {
        println!("  {f}");
    }
    if let (Some(path), Ok(())) = (args.pdn, &written) {
        println!("games written to {path}");
    }
    written
}

/// Game `i` of the match (0-based, as scheduled) in PDN.
fn game_pdn<B: Bits>(
    rules: &Rules<B>,
    args: &Args,
    i: usize,
    g: &damspel_arena::GameRecord<B>,
    from_file: bool,
    opening_count: usize,
) -> String {
    let start = Position::start(rules);
    let mut moves = g.opening.clone();
    moves.extend_from_slice(&g.moves);
    let pdn = PdnGame {
        rules,
        event: format!("damspel match {}", rules.variant().id),
        site: "damspel".into(),
        date: "????.??.??".into(),
        round: (i + 1).to_string(),
        white: g.white.clone(),
        black: g.black.clone(),
        result: GameResult::from_white_score(g.ending.white_score()),
        start,
        moves,
        extra: vec![
            ("Termination".into(), g.ending.reason()),
            (
                "Opening".into(),
                if from_file {
                    // The runner plays opening k for games 2k and 2k + 1.
                    format!("{} #{}", args.openings, (i / 2) % opening_count + 1)
                } else {
                    format!("{} random plies", g.opening.len())
                },
            ),
        ],
    };
    pdn.to_pdn()
}
