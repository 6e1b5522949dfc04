//! `damspel hub`: a Hub engine (Scan's protocol) on standard input and output.
//!
//! The protocol itself (parsing, printing, the session state machine) lives in
//! `damspel_protocol::hub`; this module only moves lines and runs the work. Three kinds of
//! threads, so that nothing slow stands between the GUI and an answer to `ping`, `stop` or
//! `quit`:
//!
//! * the reader ([`read_input`]) turns standard input into lines (each at most
//!   `MAX_LINE_LEN` bytes);
//! * the desk ([`desk`], the main thread) answers `ping`, `stop` and `quit` at once and
//!   hands every other command over in order;
//! * the engine side ([`engine_side`]) runs the session: engine building, positions, searches
//!   (each on its own thread).
//!
//! Nothing is written to standard error: some GUIs read it as engine output.

mod desk;
mod engine_side;
mod shared;

use std::io;
use std::sync::mpsc;
use std::sync::Arc;

use anyhow::Result;
use damspel_protocol::hub::{
    stream, Command, EngineId, HubError, Identity, Limits, Params, MAX_LINE_LEN,
};
use damspel_rules::Catalogue;

use shared::Shared;

/// Lines read and not yet taken by the desk.
const INPUT_QUEUE: usize = 64;

/// What the reader passes to the desk.
enum Input {
    Line(String),
    /// A line longer than this was skipped.
    TooLong(usize),
    Eof,
}

/// What the engine side receives.
enum EngineEvent {
    Command(Result<Command, HubError>),
    /// Answer ping number N (unless the desk has).
    Ping(u64),
    /// The running search has ended.
    SearchDone,
}

fn identity(catalogue: &Catalogue) -> Result<Identity> {
    let variants = catalogue.variants()?;
    let names = Identity::names_of(&variants);
    let default = if variants.iter().any(|v| v.id == "international") {
        "international".to_string()
    } else {
        variants.first().map(|v| v.id.clone()).unwrap_or_default()
    };
    Ok(Identity {
        id: EngineId {
            name: "Damspel".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            author: "The Damspel developers".into(),
            country: "Unknown".into(),
        },
        variants: variants.iter().map(|v| v.id.clone()).collect(),
        names,
        defaults: Params {
            variant: default,
            variant_chosen: false,
            threads: 1,
            hash_mb: 64,
            level: damspel_protocol::hub::MAX_LEVEL,
            tb_dir: String::new(),
        },
        limits: Limits {
            max_threads: crate::machine::max_threads() as u32,
            max_hash_mb: crate::machine::max_hash_mb() as u32,
        },
    })
}

pub fn run(catalogue: &Catalogue) -> Result<()> {
    let identity = identity(catalogue)?;
    let shared = Arc::new(Shared::new());
    // Bounded: the reader waits for the desk, which is never slow.
    let (input_tx, input) = mpsc::sync_channel(INPUT_QUEUE);
    std::thread::spawn(move || read_input(input_tx));
    let (engine, events) = mpsc::channel();
    {
        let (catalogue, shared, sender) = (catalogue.clone(), shared.clone(), engine.clone());
        std::thread::spawn(move || engine_side::run(catalogue, identity, events, sender, shared));
    }
    // Returning ends the program, and with it the engine side and any search.
    desk::run(&input, &engine, &shared);
    Ok(())
}

/// Reads standard input line by line until its end.
fn read_input(lines: mpsc::SyncSender<Input>) {
    let stdin = io::stdin();
    let mut stdin = stdin.lock();
    let mut buf = Vec::new();
    loop {
        let input = match stream::read_line(&mut stdin, &mut buf) {
            stream::Got::End => break,
            stream::Got::TooLong => {
                stream::skip_line(&mut stdin, &mut buf);
                Input::TooLong(MAX_LINE_LEN)
            }
            stream::Got::Line(line) => Input::Line(line),
        };
        if lines.send(input).is_err() {
            return;
        }
    }
    let _ = lines.send(Input::Eof);
}
