//! `damspel`: the command line. A thin layer over the libraries: it parses arguments, loads the
//! catalogue (plus any `--variant-file`), calls the library and prints text or JSON.

mod board_view;
mod catalogue;
mod commands;
mod files;
mod machine;
mod options;
mod waiting;

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
    /// Serve the web page to play and study every variant (then open the printed address).
    Serve {
        /// Address to listen on: an IP address or a name such as localhost. Anything but a
        /// loopback address makes the server reachable from other machines and needs an access
        /// token (--token, or one is generated and printed).
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// Port to listen on (0: any free port).
        #[arg(long, default_value_t = 8080)]
        port: u16,
        /// SQLite database that keeps the games (one server per database: a second one is refused).
        #[arg(long, default_value = "damspel.db")]
        db: PathBuf,
        /// Engine searches allowed to run at the same time, 1 to 64 (others wait; beyond 64
        /// waiting, a request gets 503).
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=64))]
        searches: u16,
        /// Another host name (or IP address) the server answers to, as in a browser's address
        /// bar, with a port or without (then any port): e.g. `box.lan` or `box.lan:8080`, a
        /// name for this machine on your network. Repeatable.
        #[arg(long = "allow-host", value_name = "NAME", value_parser = allow_host)]
        allow_hosts: Vec<String>,
        /// Access token every request must carry (16 to 256 letters, digits, `-`, `_`).
        /// Needed off loopback: without it one is generated and printed.
        #[arg(long)]
        token: Option<String>,
        /// Open connections, 16 to 4096: beyond it the oldest is asked to close (at once if
        /// idle), and 64 past it new ones are closed at once.
        #[arg(long, default_value_t = 512, value_parser = clap::value_parser!(u16).range(16..=4096))]
        max_connections: u16,
        /// Minutes a game stays in memory unused, 1 to 1440 (it stays in the database).
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1440))]
        idle_minutes: u64,
        /// A variant atlas database (written by `damspel atlas run`) to show at /atlas, opened
        /// read-only.
        #[arg(long, value_name = "PATH")]
        atlas_db: Option<PathBuf>,
        /// Folder of endgame tables for the page's verdicts (default: the cache folder).
        #[arg(long)]
        tb_dir: Option<PathBuf>,
    },
    /// List the variants: id, name, family and board.
    Variants {
        /// Print one JSON array of the variants (with aliases and descriptions).
        #[arg(long)]
        json: bool,
    },
    /// Show the rules of a variant as a player reads them.
    Rules {
        /// Variant id or alias.
        id: String,
        /// Print the rules as one JSON object (the variant's definition).
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
        /// Print one JSON array: per move its notation, squares, path, captures and promotion.
        #[arg(long)]
        json: bool,
        /// Give up after this many seconds: 0.001 to 86400 (default: list to the end; a
        /// position set up with many kings can take minutes).
        #[arg(long, value_parser = options::seconds())]
        time: Option<f64>,
    },
    /// Count the leaf nodes of the move tree at exactly DEPTH.
    Perft {
        /// Variant id or alias.
        id: String,
        /// Depth in plies: 0 to 64.
        #[arg(value_parser = options::count(0, 64))]
        depth: usize,
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
        /// Print the count and the time taken (with --divide, per move) as one JSON object.
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
        /// Seconds to think: 0.001 to 86400 (default 5 when no depth is given).
        #[arg(long, value_parser = options::seconds())]
        time: Option<f64>,
        /// Depth in plies: 1 to 64.
        #[arg(long, value_parser = options::depth())]
        depth: Option<u32>,
        /// Search threads: 1 to 256, and at most four per core of the machine.
        #[arg(long, default_value_t = 1, value_parser = options::threads())]
        threads: usize,
        /// Transposition table size in MiB: 1 to 65536, and at most half the machine's memory.
        #[arg(long, default_value_t = 64, value_parser = options::hash())]
        hash: usize,
        /// Print each iteration, then the best move, as one JSON object a line.
        #[arg(long)]
        json: bool,
        /// Folder of endgame tables (default: the cache folder, see docs/tablebases.md).
        #[arg(long)]
        tb_dir: Option<std::path::PathBuf>,
    },
    /// Play a game against the engine in the terminal.
    Play {
        /// Variant id or alias.
        id: String,
        /// Seconds the engine thinks per move: 0.001 to 86400 (default 2 when no depth is given).
        #[arg(long, value_parser = options::seconds())]
        time: Option<f64>,
        /// Depth the engine searches per move: 1 to 64.
        #[arg(long, value_parser = options::depth())]
        depth: Option<u32>,
        /// Your colour: white or black (default white).
        #[arg(long)]
        color: Option<String>,
        /// Start from this position (PDN FEN) instead of the start position.
        #[arg(long)]
        fen: Option<String>,
        /// Playing level, 1 (a beginner can win) to 8 (full strength: --time or --depth).
        #[arg(long, value_parser = |s: &str| s.parse::<damspel_engine::Level>())]
        level: Option<damspel_engine::Level>,
        /// Folder of endgame tables, used at full strength (default: the cache folder).
        #[arg(long)]
        tb_dir: Option<PathBuf>,
    },
    /// Fit the evaluation weights to self-play games (Texel's method) and write a weights file.
    Tune {
        /// Variant id or alias.
        id: String,
        /// Self-play games to generate: 2 to 1000000.
        #[arg(long, default_value_t = 2000, value_parser = options::count(2, 1_000_000))]
        games: usize,
        /// Search depth of the self-play games: 1 to 64.
        #[arg(long, default_value_t = 4, value_parser = options::depth())]
        depth: u32,
        /// Where to write the weights (default weights/ID.toml).
        #[arg(long)]
        out: Option<String>,
        /// Games played at the same time: 1 to 256.
        #[arg(long, default_value_t = 2, value_parser = options::count(1, 256))]
        concurrency: usize,
        /// Seed of the openings.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Weights file the games are played with and the fit starts from (default: the
        /// weights derived from the rules).
        #[arg(long)]
        weights: Option<String>,
        /// Random plies of each opening: 0 to 100.
        #[arg(long, default_value_t = 8, value_parser = options::count(0, 100))]
        openings: usize,
        /// Adjudicate a draw after this many plies: 1 to 10000.
        #[arg(long, default_value_t = 300, value_parser = options::count(1, 10_000))]
        max_plies: usize,
        /// Plies at the start of each game whose positions are not used: 0 to 10000.
        #[arg(long, default_value_t = 12, value_parser = options::count(0, 10_000))]
        skip: usize,
        /// Ridge strength pulling the weights toward the starting ones: this times the sum of
        /// the squared changes in men is added to the error (0: none): 0 to 1000.
        #[arg(long, default_value_t = 0.001, value_parser = options::real(0.0, 1000.0))]
        ridge: f64,
    },
    /// Print the evaluation weights a variant plays with (or the ones derived from its rules).
    Weights {
        /// Variant id or alias.
        id: String,
        /// The weights derived from the rules alone, not the tuned ones.
        #[arg(long)]
        derived: bool,
        /// JSON instead of a weights file (TOML).
        #[arg(long)]
        json: bool,
    },
    /// Play a match between two engines: score, Elo with its 95% error, games in PDN.
    Match {
        /// Variant id or alias.
        id: String,
        /// A player: `damspel[:depth=D,time=S,weights=FILE,level=N,tb=DIR|none]` (level 1 to 8;
        /// tb: its own endgame tables, or none), `random`, `hub:COMMAND` for an external Hub
        /// engine (e.g. "hub:dame hub"), or `dxp:HOST:PORT` for a program listening for DXP
        /// (10x10 variants). Give it twice.
        #[arg(long = "engine", value_name = "SPEC")]
        engines: Vec<String>,
        /// Number of games (each opening is played twice, colours swapped): 1 to 1000000.
        #[arg(long, default_value_t = 100, value_parser = options::count(1, 1_000_000))]
        games: usize,
        /// Seconds per move for engines that do not set their own: 0.001 to 86400.
        #[arg(long, value_parser = options::seconds())]
        time: Option<f64>,
        /// Depth for engines that do not set their own: 1 to 64.
        #[arg(long, value_parser = options::depth())]
        depth: Option<u32>,
        /// Games played at the same time: 1 to 256.
        #[arg(long, default_value_t = 1, value_parser = options::count(1, 256))]
        concurrency: usize,
        /// Random plies (0 to 100) played before the engines take over, or a file of openings: one per
        /// line as moves from the start position (`32-28 19-23 28x19 14x23`), or PDN games.
        #[arg(long, default_value = "4", value_name = "PLIES|FILE")]
        openings: String,
        /// Write every game to this PDN file, each as it ends (an interrupted match keeps the
        /// games it played; with --concurrency they come in the order they end, each with its
        /// Round).
        #[arg(long)]
        pdn: Option<String>,
        /// Adjudicate a draw after this many plies: 1 to 10000.
        #[arg(long, default_value_t = 400, value_parser = options::count(1, 10_000))]
        max_plies: usize,
        /// Seed of the random openings and random players.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print the result as one JSON object (no progress bar).
        #[arg(long)]
        json: bool,
        /// Endgame tables for the Damspel engines (default: the cache folder); an engine's own
        /// `tb=DIR` or `tb=none` overrides it.
        #[arg(long)]
        tb_dir: Option<PathBuf>,
    },
    /// Read a PDN file of any number of games: list them, check that each replays to its
    /// end, or convert them (to FENs, JSON or PDN). See docs/pdn.md.
    Pdn {
        #[command(subcommand)]
        action: commands::pdn::Action,
    },
    /// Review one game of a PDN file: the engine judges every move (inaccuracies, mistakes,
    /// blunders, accuracy per player); the annotated PDN goes to --out or stdout, a summary to
    /// stderr.
    Review(commands::review::Args),
    /// Search fixed positions of several variants to a fixed depth: total nodes and speed.
    Bench {
        /// Depth of every search: 1 to 64.
        #[arg(long, default_value_t = 9, value_parser = options::depth())]
        depth: u32,
        /// Print the totals and each position's figures as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Speak the Hub protocol (Scan's) on standard input and output, as an engine for GUIs.
    Hub,
    /// Play over DXP (DamExchange) on TCP, 10x10 variants: listen for or connect to a peer.
    Dxp {
        /// Variant id (a 10x10 dark-squares variant).
        #[arg(long, default_value = "international")]
        variant: String,
        /// Wait for a peer on this address (e.g. 127.0.0.1:27531).
        #[arg(long, conflicts_with = "connect")]
        listen: Option<String>,
        /// With --listen: when a peer leaves (or asks to stop, or breaks the protocol), wait
        /// for the next one instead of ending, until interrupted (a bot that connects for each
        /// game, as pydraughts' DXP client does).
        // `requires` alone lets `--connect` through: clap does not ask for an argument that
        // conflicts with one given.
        #[arg(long, requires = "listen", conflicts_with = "connect")]
        keep_listening: bool,
        /// With --keep-listening: how many peers are served at once, each with an engine of
        /// its own (a bot playing several games at once): 1 to 16. A peer over the limit
        /// waits until one leaves.
        #[arg(
            long,
            default_value_t = 1,
            value_parser = options::count(1, 16),
            requires = "keep_listening"
        )]
        peers: usize,
        /// Connect to a peer at this address and propose the game.
        #[arg(long)]
        connect: Option<String>,
        /// Seconds per move: 0.001 to 86400.
        #[arg(long, value_parser = options::seconds())]
        time: Option<f64>,
        /// Depth per move: 1 to 64.
        #[arg(long, value_parser = options::depth())]
        depth: Option<u32>,
        /// Seconds the peer may stay silent when no clock bounds it (before its game request,
        /// or in a game without a time limit): 1 to 86400.
        #[arg(long, default_value_t = 600, value_parser = options::count(1, 86_400))]
        idle_timeout: usize,
    },
    /// The variant atlas: self-play of many variants into SQLite, shards and their merge.
    Atlas {
        #[command(subcommand)]
        action: commands::atlas::Action,
    },
    /// The seeds' endgame claims settled from the tables: writes docs/claims.md.
    Claims {
        /// Folder of the tables (default: the cache folder, see docs/tablebases.md).
        #[arg(long)]
        tb_dir: Option<std::path::PathBuf>,
        /// The page to write.
        #[arg(long, default_value = "docs/claims.md")]
        out: std::path::PathBuf,
        /// Build the tables a claim needs when they are missing.
        #[arg(long)]
        build: bool,
    },
    /// Endgame tablebases: build, probe, verify, stats, plan (docs/tablebases.md).
    Tablebase {
        #[command(subcommand)]
        action: commands::tablebase::Action,
    },
    /// Print perft from every variant's start position, both conventions, as Markdown.
    PerftTable {
        /// Deepest depth in plies: 1 to 64.
        #[arg(long, default_value_t = 6, value_parser = options::depth())]
        depth: u32,
        /// Worker threads (variants are counted in parallel): 1 to 256.
        #[arg(long, default_value_t = 2, value_parser = options::threads())]
        threads: usize,
        /// One JSON array of rows instead of the Markdown page.
        #[arg(long)]
        json: bool,
    },
}

/// `--allow-host`'s names checked as they are read (a usage error, like the numeric ranges).
fn allow_host(text: &str) -> Result<String, String> {
    damspel_server::allowed_host(text)
}

/// Help and version go to stdout as clap writes them; a usage error becomes one line on stderr,
/// like every other error of the command line (clap's own adds usage and tips on more lines).
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return if e.exit_code() == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(2)
        };
    }
    // The first paragraph says what is wrong (a missing argument's names follow on indented
    // lines); usage and tips come after a blank line.
    let text = e.to_string();
    let first: Vec<&str> = text
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    let first = first.join(" ");
    let first = first.strip_prefix("error: ").unwrap_or(&first);
    eprintln!("damspel: {first} (see `damspel --help`)");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    // Like other command-line tools, stop quietly when the reader of the output goes away
    // (`damspel moves turkish | head`) instead of failing on a broken pipe.
    sigpipe::reset();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let result = catalogue::load(&cli.variant_files).and_then(|catalogue| match cli.command {
        Command::Serve {
            host,
            port,
            db,
            searches,
            allow_hosts,
            token,
            max_connections,
            idle_minutes,
            atlas_db,
            tb_dir,
        } => commands::serve::run(
            catalogue,
            commands::serve::Options {
                host,
                port,
                db,
                searches: usize::from(searches),
                allow_hosts,
                token,
                max_connections: usize::from(max_connections),
                idle_minutes,
                atlas_db,
                tb_dir,
            },
        ),
        Command::Variants { json } => commands::variants::run(&catalogue, json),
        Command::Rules { id, json } => commands::rules::run(&catalogue, &id, json),
        Command::Moves {
            id,
            fen,
            json,
            time,
        } => commands::moves::run(&catalogue, &id, fen.as_deref(), json, time),
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
                depth: depth as u32,
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
            tb_dir,
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
                tb_dir: tb_dir.as_deref(),
            },
        ),
        Command::Play {
            id,
            time,
            depth,
            color,
            fen,
            level,
            tb_dir,
        } => commands::play::run(
            &catalogue,
            &commands::play::Args {
                id: &id,
                time,
                depth,
                color: color.as_deref(),
                fen: fen.as_deref(),
                level,
                tb_dir: tb_dir.as_deref(),
            },
        ),
        Command::Tune {
            id,
            games,
            depth,
            out,
            concurrency,
            seed,
            weights,
            openings,
            max_plies,
            skip,
            ridge,
        } => commands::tune::run(
            &catalogue,
            &commands::tune::Args {
                id: &id,
                games,
                depth,
                out: out.as_deref(),
                concurrency,
                seed,
                weights: weights.as_deref(),
                openings,
                max_plies,
                skip,
                ridge,
            },
        ),
        Command::Weights { id, derived, json } => {
            commands::weights::run(&catalogue, &id, derived, json)
        }
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
            json,
            tb_dir,
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
                json,
                tb_dir: tb_dir.as_deref(),
            },
        ),
        Command::Hub => commands::hub::run(&catalogue),
        Command::Dxp {
            variant,
            listen,
            connect,
            keep_listening,
            peers,
            time,
            depth,
            idle_timeout,
        } => commands::dxp::run(
            &catalogue,
            &commands::dxp::Args {
                variant: &variant,
                listen: listen.as_deref(),
                keep_listening,
                peers,
                connect: connect.as_deref(),
                time,
                depth,
                idle: std::time::Duration::from_secs(idle_timeout as u64),
            },
        ),
        Command::Pdn { action } => commands::pdn::run(&catalogue, action),
        Command::Review(args) => commands::review::run(&catalogue, &args),
        Command::Atlas { action } => commands::atlas::run(&catalogue, action),
        Command::Bench { depth, json } => commands::bench::run(&catalogue, depth, json),
        Command::Tablebase { action } => commands::tablebase::run(&catalogue, action),
        Command::Claims { tb_dir, out, build } => {
            commands::claims::run(&catalogue, &commands::claims::Args { tb_dir, out, build })
        }
        Command::PerftTable {
            depth,
            threads,
            json,
        } => commands::perft_table::run(&catalogue, depth, threads, json),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Errors quote the user's files (a PDN's tags, a variant file's names).
            eprintln!("damspel: {}", files::printable(&catalogue::explain(&e)));
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    /// Every option and argument of every command says what it does in `--help` (six `--json`
    /// flags were shown with an empty line).
    #[test]
    fn every_option_has_help() {
        fn check(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if arg
                    .get_help()
                    .is_none_or(|h| h.to_string().trim().is_empty())
                {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in cmd.get_subcommands() {
                check(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        check(&Cli::command(), "damspel", &mut missing);
        assert!(missing.is_empty(), "without help: {missing:?}");
    }
}
