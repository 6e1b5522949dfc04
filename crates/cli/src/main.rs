//! `damspel`: the command line. A thin layer over the libraries: it parses arguments, loads the
//! catalogue (plus any `--variant-file`), calls the library and prints text or JSON.

mod catalogue;
mod commands;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "damspel",
    version,
    about = "Play, analyse and design draughts variants"
)]
struct Cli {
    /// Load a variant file of your own (TOML; may `extends` a built-in variant). Repeatable.
    #[arg(long = "variant-file", value_name = "PATH", global = true)]
    variant_files: Vec<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the variants: id, name, family and board.
    Variants {
        #[arg(long)]
        json: bool,
    },
    /// Show the rules of a variant as a player reads them.
    Rules {
        /// Variant id or alias.
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// List the legal moves of a position, one per line.
    Moves {
        /// Variant id or alias.
        id: String,
        /// Position in PDN FEN (default: the start position).
        #[arg(long)]
        fen: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Count the leaf nodes of the move tree at exactly DEPTH.
    Perft {
        /// Variant id or alias.
        id: String,
        /// Depth in plies.
        depth: u32,
        /// Position in PDN FEN (default: the start position).
        #[arg(long)]
        fen: Option<String>,
        /// Count every capture sequence separately (kish's and dctl's keep-duplicates convention)
        /// instead of merging sequences with the same from, to and captured pieces.
        #[arg(long)]
        paths: bool,
        /// Print the count below each legal move.
        #[arg(long)]
        divide: bool,
        #[arg(long)]
        json: bool,
    },
    /// Search a position and print each iteration: depth, score, nodes, speed and line.
    Analyze {
        /// Variant id or alias.
        id: String,
        /// Position in PDN FEN (default: the start position).
        #[arg(long)]
        fen: Option<String>,
        /// Seconds to think (default 5 when no depth is given).
        #[arg(long)]
        time: Option<f64>,
        /// Depth in plies.
        #[arg(long)]
        depth: Option<u32>,
        /// Search threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 64)]
        hash: usize,
        #[arg(long)]
        json: bool,
    },
    /// Play a match between two engines: score, Elo with its 95% error, games in PDN.
    Match {
        /// Variant id or alias.
        id: String,
        /// A player: `damspel[:depth=D,time=S,weights=FILE]` or `random`. Give it twice.
        #[arg(long = "engine", value_name = "SPEC")]
        engines: Vec<String>,
        /// Number of games (each opening is played twice, colours swapped).
        #[arg(long, default_value_t = 100)]
        games: usize,
        /// Seconds per move for engines that do not set their own.
        #[arg(long)]
        time: Option<f64>,
        /// Depth for engines that do not set their own.
        #[arg(long)]
        depth: Option<u32>,
        /// Games played at the same time.
        #[arg(long, default_value_t = 1)]
        concurrency: usize,
        /// Random plies played before the engines take over.
        #[arg(long, default_value = "4")]
        openings: String,
        /// Write every game to this PDN file.
        #[arg(long)]
        pdn: Option<String>,
        /// Adjudicate a draw after this many plies.
        #[arg(long, default_value_t = 400)]
        max_plies: usize,
        /// Seed of the random openings and random players.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Print perft from every variant's start position, both conventions, as Markdown.
    PerftTable {
        /// Deepest depth in plies.
        #[arg(long, default_value_t = 6)]
        depth: u32,
        /// Worker threads (variants are counted in parallel).
        #[arg(long, default_value_t = 2)]
        threads: usize,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = catalogue::load(&cli.variant_files).and_then(|catalogue| match cli.command {
        Command::Variants { json } => commands::variants::run(&catalogue, json),
        Command::Rules { id, json } => commands::rules::run(&catalogue, &id, json),
        Command::Moves { id, fen, json } => {
            commands::moves::run(&catalogue, &id, fen.as_deref(), json)
        }
        Command::Perft {
            id,
            depth,
            fen,
            paths,
            divide,
            json,
        } => commands::perft::run(
            &catalogue,
            &commands::perft::Args {
                id: &id,
                depth,
                fen: fen.as_deref(),
                paths,
                divide,
                json,
            },
        ),
        Command::Analyze {
            id,
            fen,
            time,
            depth,
            threads,
            hash,
            json,
        } => commands::analyze::run(
            &catalogue,
            &commands::analyze::Args {
                id: &id,
                fen: fen.as_deref(),
                time,
                depth,
                threads,
                hash,
                json,
            },
        ),
        Command::Match {
            id,
            engines,
            games,
            time,
            depth,
            concurrency,
            openings,
            pdn,
            max_plies,
            seed,
        } => commands::matches::run(
            &catalogue,
            &commands::matches::Args {
                id: &id,
                engines: &engines,
                games,
                time,
                depth,
                concurrency,
                openings: &openings,
                pdn: pdn.as_deref(),
                max_plies,
                seed,
            },
        ),
        Command::PerftTable { depth, threads } => {
            commands::perft_table::run(&catalogue, depth, threads)
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("damspel: {e:#}");
            ExitCode::FAILURE
        }
    }
}
