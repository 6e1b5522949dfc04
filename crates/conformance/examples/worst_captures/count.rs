//! Counting capture sequences, in a child process: the counting walk has no stop flag, so a
//! position it cannot count in time is given up by killing the child.

use std::collections::BTreeMap;
use std::io::Read;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use damspel_rules::{Bits, Duplicates, Position, Rules};

/// (from, to, captured set, promotes), in layout indices.
pub type Key = (u8, u8, u128, bool);

/// What the counting walk found: the number of sequences (`count_moves(.., Keep)`) and the
/// distinct moves with their numbers of sequences (`legal_moves_counted`).
pub struct Counted {
    pub sequences: u64,
    /// The time `count_moves` took in the child.
    pub seconds: f64,
    pub moves: BTreeMap<Key, u64>,
}

/// The child's side: counts and prints (first line the sequences, then one move a line).
pub fn child<B: Bits>(rules: &Rules<B>, pos: &Position<B>) {
    let started = Instant::now();
    let sequences = rules.count_moves(pos, Duplicates::Keep);
    println!("{sequences} {}", started.elapsed().as_secs_f64());
    let mut list = Vec::new();
    rules.legal_moves_counted(pos, &mut list);
    for (m, n) in list {
        println!(
            "{} {} {:x} {} {n}",
            m.from().0,
            m.to().0,
            m.captured().to_u128(),
            u8::from(m.promotes())
        );
    }
}

/// Runs the child for `variant` and `fen`; `None` if it takes longer than `limit` (or fails).
pub fn in_child(variant: &str, fen: &str, limit: Duration) -> Option<Counted> {
    let exe = std::env::current_exe().ok()?;
    let mut child = Command::new(exe)
        .args(["--child-count", variant, fen])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    // Read while it runs: a long list would fill the pipe.
    let mut stdout = child.stdout.take()?;
    let reader = thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).map(|_| text)
    });
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(Some(_)) | Err(_) => return None,
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => thread::sleep(Duration::from_millis(10)),
        }
    }
    let text = reader.join().ok()?.ok()?;
    parse(&text)
}

fn parse(text: &str) -> Option<Counted> {
    let mut lines = text.lines();
    let mut first = lines.next()?.split_whitespace();
    let sequences = first.next()?.parse().ok()?;
    let seconds = first.next()?.parse().ok()?;
    let mut moves = BTreeMap::new();
    for line in lines {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 5 {
            return None;
        }
        let key = (
            f[0].parse().ok()?,
            f[1].parse().ok()?,
            u128::from_str_radix(f[2], 16).ok()?,
            f[3] == "1",
        );
        *moves.entry(key).or_insert(0) += f[4].parse::<u64>().ok()?;
    }
    Some(Counted {
        sequences,
        seconds,
        moves,
    })
}
