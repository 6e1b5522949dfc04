//! `damspel play` as a user runs it: the real binary, with the moves and commands typed on its
//! standard input. The engine searches to depth 1 or 2, so every game here takes milliseconds.

mod common;

use common::scratch;

use std::io::Write;
use std::process::{Command, Stdio};

struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
}

fn play(args: &[&str], input: &[u8]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_damspel"))
        .arg("play")
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Written beside the reading, so that a program answering a long input at length cannot
    // block on a full pipe while the input is still being written. The program may stop
    // reading early (quit, or an error before the game): ignore EPIPE.
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("the binary finishes");
    writer.join().unwrap();
    let run = Run {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        !run.stderr.contains("panicked"),
        "the program panicked:\n{}",
        run.stderr
    );
    run
}

/// The text after the last occurrence of `marker`.
fn after<'a>(text: &'a str, marker: &str) -> &'a str {
    text.rfind(marker).map_or("", |i| &text[i + marker.len()..])
}

#[test]
fn a_short_turkish_game_the_human_wins() {
    // White: king h3, men b7, c7; Black: a man on a7, whose only move is a7-a6 (b7 blocks the
    // side step and the capture of b7, since c7 is taken). 1. h3-a3 a7-a6 2. a3xa7 takes the
    // last black piece.
    let run = play(
        &["turkish", "--depth", "2", "--fen", "W:WKh3,b7,c7:Ba7"],
        b"h3-a3\na3xa7\nquit\n",
    );
    assert!(run.ok, "{}", run.stderr);
    let out = &run.stdout;
    assert!(out.contains("You play 1. h3-a3"), "{out}");
    assert!(
        out.contains("Damspel plays 1... a7-a6  (the only legal move)"),
        "{out}"
    );
    assert!(out.contains("You play 2. a3xa7"), "{out}");
    assert!(
        out.contains("Game over: white wins: black has no pieces left (1-0). You win!"),
        "{out}"
    );
    // The final board: the king on a7 and its from square marked, the captured man on a6.
    let last = after(out, "You play 2. a3xa7");
    assert!(last.contains(" 7 [W] w  w  .  .  .  .  .  7"), "{last}");
    assert!(last.contains(" 6  x  .  .  .  .  .  .  .  6"), "{last}");
    assert!(last.contains(" 3 [.] .  .  .  .  .  .  .  3"), "{last}");
    assert!(out.ends_with("game over> quit\nGoodbye.\n"), "{out}");
}

#[test]
fn the_engine_moves_first_and_wins_when_the_human_plays_black() {
    // White (Damspel) to move: its king on a1 takes the only black man up the a-file.
    let run = play(
        &[
            "turkish",
            "--depth",
            "1",
            "--color",
            "black",
            "--fen",
            "W:WKa1,h2:Ba5",
        ],
        b"",
    );
    assert!(run.ok, "{}", run.stderr);
    let out = &run.stdout;
    assert!(out.contains("You play black; Damspel plays white"), "{out}");
    assert!(out.contains("Damspel plays 1. a1x"), "{out}");
    assert!(
        out.contains("Game over: white wins: black has no pieces left (1-0). Damspel wins."),
        "{out}"
    );
    // Seen from Black's side: rank 1 on top, the h-file on the left.
    assert!(out.contains("    h  g  f  e  d  c  b  a\n 1 "), "{out}");
    assert!(out.contains("End of input"), "{out}");
}

#[test]
fn a_line_past_the_bound_is_skipped_not_held() {
    // 3 MiB without a line break, then a command: the line is dropped unread past its first
    // MiB (a file without line breaks, `< /dev/zero`, would fill memory), not echoed back.
    let mut input = vec![b'a'; 3 << 20];
    input.extend_from_slice(b"\nquit\n");
    let run = play(&["turkish", "--depth", "1"], &input);
    assert!(run.ok, "{}", run.stderr);
    let out = &run.stdout;
    assert!(
        out.contains("A line of more than 1048576 bytes: ignored."),
        "{}",
        &out[..out.len().min(2000)]
    );
    assert!(
        out.ends_with("quit\nGoodbye.\n"),
        "{}",
        &out[out.len().saturating_sub(2000)..]
    );
    assert!(out.len() < 100_000, "{} bytes out", out.len());
}

#[test]
fn a_long_line_within_the_bound_is_quoted_short() {
    // An unknown word and a move text of 600 kB each, a file name of 300 kB: the transcript's
    // echo and the answers quote their start, not the whole line back (each was written out
    // whole before).
    let word = "a".repeat(600_000);
    let path = ["d3", "d4"].repeat(100_000).join("x");
    let file = "x".repeat(300_000);
    let input = format!("{word}\n{path}\nsave {file}\nquit\n");
    let run = play(&["turkish", "--depth", "1"], input.as_bytes());
    assert!(run.ok, "{}", run.stderr);
    let out = &run.stdout;
    let head = &out[..out.len().min(4000)];
    assert!(out.contains("Unknown command `aaaa"), "{head}");
    assert!(out.contains("` is not a legal move"), "{head}");
    assert!(out.contains("Cannot write xxxx"), "{head}");
    assert!(out.ends_with("quit\nGoodbye.\n"), "{head}");
    assert!(out.len() < 10_000, "{} bytes out", out.len());
}

#[test]
fn commands_undo_flip_fen_save_hint_and_bad_moves() {
    let scratch = scratch("play");
    let dir = scratch.path();
    let pdn = dir.join("game.pdn");
    let input = format!(
        "d3-d5\nresign\nd3d4\nfen\nhint\nmoves\nsave {}\nundo\nfen\nflip\nundo\nsave\nhelp\n",
        pdn.display()
    );
    let run = play(&["turkish", "--depth", "1"], input.as_bytes());
    assert!(run.ok, "{}", run.stderr);
    let out = &run.stdout;
    // An illegal move is explained with the legal ones from that square.
    assert!(
        out.contains("`d3-d5` is not a legal move: legal moves from d3: d3-d4."),
        "{out}"
    );
    assert!(out.contains("Unknown command `resign`"), "{out}");
    // From and to squares without a separator.
    assert!(out.contains("You play 1. d3-d4"), "{out}");
    assert!(out.contains("Damspel plays 1... "), "{out}");
    // fen after the reply: White to move, the d-pawn on d4.
    let fen_line = after(out, "your move> fen\n").lines().next().unwrap();
    let first_fen = out
        .split("your move> fen\n")
        .nth(1)
        .and_then(|s| s.lines().next())
        .unwrap();
    assert!(
        first_fen.starts_with("W:W") && first_fen.contains("d4"),
        "{first_fen}"
    );
    assert!(out.contains("Hint: "), "{out}");
    assert!(out.contains("for you, depth 1)"), "{out}");
    assert!(out.contains("Legal moves ("), "{out}");
    assert!(out.contains("Game saved to"), "{out}");
    // undo takes back both moves: the start position again.
    assert!(out.contains("Taken back: d3-d4 "), "{out}");
    assert_eq!(
        fen_line,
        "W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7"
    );
    assert!(
        after(out, "your move> flip\n").contains("    h  g  f  e  d  c  b  a\n 1  .  ."),
        "{out}"
    );
    assert!(out.contains("Nothing to take back"), "{out}");
    assert!(out.contains("Usage: save FILE"), "{out}");
    assert!(out.contains("Commands:"), "{out}");
    let saved = std::fs::read_to_string(&pdn).unwrap();
    assert!(saved.contains("[Variant \"turkish\"]"), "{saved}");
    // The game starts from the standard position: no FEN tag (issue 11).
    assert!(!saved.contains("[FEN "), "{saved}");
    assert!(saved.contains("[GameType \"30,W,8,8,A0,0\"]"), "{saved}");
    assert!(saved.contains("[Result \"*\"]"), "{saved}");
    assert!(saved.contains("1. d3-d4 "), "{saved}");
}

#[test]
fn an_ambiguous_capture_asks_for_the_full_path() {
    // The white king on e8 takes e7, f6 and g7 or e7, f5 and g7, ending on g8 either way; one
    // black man is left against the king, a draw in Turkish.
    let run = play(
        &["turkish", "--depth", "1", "--fen", "W:WKe8:Bg7,f6,f5,e7"],
        b"e8xg8\ne8 g8\ne8xe6xg6xg8\nsave\n",
    );
    assert!(run.ok, "{}", run.stderr);
    let out = &run.stdout;
    assert!(
        out.contains(
            "`e8xg8` is ambiguous: it could be e8xe5xg5xg8 or e8xe6xg6xg8; write the full path"
        ),
        "{out}"
    );
    assert!(out.contains("`e8 g8` is ambiguous"), "{out}");
    assert!(out.contains("You play 1. e8xe6xg6xg8"), "{out}");
    assert!(
        out.contains("Game over: draw: one piece each (1/2-1/2). A draw."),
        "{out}"
    );
}

#[test]
fn numbered_boards_show_the_square_numbers() {
    let run = play(&["international", "--depth", "1"], b"32 28\nmoves\n");
    assert!(run.ok, "{}", run.stderr);
    let out = &run.stdout;
    assert!(out.contains("square numbers"), "{out}");
    assert!(
        out.contains(" 1  w     w     w     w     w     1     46    47    48    49    50"),
        "{out}"
    );
    assert!(out.contains("You play 1. 32-28"), "{out}");
    assert!(out.contains("Damspel plays 1... "), "{out}");
    assert!(out.contains("2. white, your move> moves\n"), "{out}");
}

#[test]
fn bad_arguments_give_one_line_and_fail() {
    for (args, needle) in [
        (
            vec!["turkish", "--fen", "W:Wz9:Ba7"],
            "bad FEN at character 4",
        ),
        (
            vec!["turkish", "--color", "purple"],
            "--color must be white or black",
        ),
        (
            vec!["turkish", "--fen", "W:WKa1:Bh8"],
            "the game is over in this position: draw: one piece each",
        ),
        (vec!["turkish", "--time", "0"], "from 0.001 to 86400"),
        (vec!["no-such-variant"], "unknown variant"),
        // Levels 1 to 7 search to depths of their own: a depth given beside one was ignored.
        (
            vec!["turkish", "--level", "3", "--depth", "5"],
            "--depth is for level 8 (full strength)",
        ),
    ] {
        let run = play(&args, b"");
        assert!(!run.ok, "{args:?} succeeded");
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(needle), "{args:?}: {}", run.stderr);
    }
}

#[test]
fn odd_input_never_breaks_the_game() {
    let mut input = Vec::new();
    for line in [
        "", "   ", "x", "-", "d3-", "-d3", "d9-d10", "a0-a1", "dxd", "é", "d3 d4 d5", "32-28",
        "undo 2", "hint me", "save", "Moves", "q!", "d3-d4-d5", "d3xd4", "d3:d4x", "FLIP",
    ] {
        input.extend_from_slice(line.as_bytes());
        input.push(b'\n');
    }
    input.extend_from_slice(&[0xff, 0xfe, b'd', b'3', b'\n', 0, b'\n']);
    input.extend(std::iter::repeat_n(b'9', 10_000));
    input.extend_from_slice(b"\r\nd3-d4\r\nundo");
    let run = play(&["turkish", "--depth", "1", "--color", "black"], &input);
    assert!(run.ok, "{}", run.stderr);
    let out = &run.stdout;
    // Playing Black, the human has no move to take back before their first one.
    assert!(out.contains("Nothing to take back"), "{out}");
    assert!(out.contains("`undo` takes no argument."), "{out}");
    assert!(
        out.contains("is a number, but this variant names squares a1, b1"),
        "{out}"
    );
    assert!(out.contains("End of input"), "{out}");
}

#[test]
fn save_counts_moves_not_half_moves() {
    // Issue 12, item 8: after 1. d3-d4 and Damspel's reply the game has one move (two plies).
    let scratch = scratch("save");
    let dir = scratch.path();
    let pdn = dir.join("game.pdn");
    let input = format!("d3-d4\nsave {}\n", pdn.display());
    let run = play(&["turkish", "--depth", "1"], input.as_bytes());
    assert!(run.ok, "{}", run.stderr);
    assert!(run.stdout.contains(" (1 move, 2 plies)."), "{}", run.stdout);
}

#[test]
fn an_unknown_variant_suggests_the_nearest_ids() {
    // Issue 12, item 8: not the whole list of ids, the near ones.
    let run = play(&["turkis"], b"");
    assert!(!run.ok);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("did you mean turkish"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("babylonian"), "{}", run.stderr);
    let run = play(&["frisian"], b"");
    assert!(!run.ok);
    assert!(
        run.stderr.contains("unknown variant `frisian`"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("damspel variants"), "{}", run.stderr);
    assert!(!run.stderr.contains("babylonian-c"), "{}", run.stderr);
}

#[test]
fn the_engine_shows_one_status_line_per_move() {
    // Issue 12, item 8: no table of iterations after every move, one line.
    let run = play(&["turkish", "--depth", "6"], b"d3-d4\nquit\n");
    assert!(run.ok, "{}", run.stderr);
    let out = &run.stdout;
    let plays = out
        .lines()
        .find(|l| l.starts_with("Damspel plays 1... "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(plays.contains("depth 6"), "{plays}");
    assert!(!out.contains("depth  1"), "{out}");
    assert!(!out.contains("Damspel is thinking"), "{out}");
}

#[test]
fn play_takes_a_level() {
    let run = play(&["turkish", "--level", "1"], b"d3-d4\nquit\n");
    assert!(run.ok, "{}", run.stderr);
    assert!(run.stdout.contains("level 1"), "{}", run.stdout);
    assert!(run.stdout.contains("Damspel plays 1... "), "{}", run.stdout);
    for bad in ["0", "9", "x"] {
        let run = play(&["turkish", "--level", bad], b"");
        assert!(!run.ok);
        assert!(run.stderr.contains("1 to 8"), "{}", run.stderr);
    }
}

/// The result at the game's end is written as the saved PDN writes it, in the variant's own
/// convention (docs/pdn.md; CheckerBoard's for American checkers, where `1-0` is a win for
/// Black, the first player). Before, `play american` said "(0-1)" for Black's win while the
/// file it saved said `1-0`.
#[test]
fn the_result_is_written_in_the_variants_convention() {
    let scratch = scratch("play-american");
    let file = scratch.path().join("won.pdn");
    let save = format!("save {}\nquit\n", file.display());
    // Black (the human, who moves first in American checkers) takes White's last man.
    let run = play(
        &[
            "american",
            "--depth",
            "1",
            "--color",
            "black",
            "--fen",
            "B:W18:B14",
        ],
        format!("14x23\n{save}").as_bytes(),
    );
    assert!(run.ok, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("Game over: black wins: white has no pieces left (1-0). You win!"),
        "{}",
        run.stdout
    );
    let pdn = std::fs::read_to_string(&file).unwrap();
    assert!(pdn.contains("[Result \"1-0\"]"), "{pdn}");
    // International scores out of two.
    let run = play(
        &["international", "--depth", "1", "--fen", "W:W28:B23"],
        b"28x19\nquit\n",
    );
    assert!(
        run.stdout
            .contains("Game over: white wins: black has no pieces left (2-0). You win!"),
        "{}",
        run.stdout
    );
}

/// Lines read from a pipe are echoed as a transcript with their control characters shown as
/// `?`: a file of moves holding an escape sequence cleared the screen.
#[test]
fn an_echoed_line_sends_no_control_character_to_the_terminal() {
    let run = play(&["turkish", "--depth", "1"], b"\x01\x1b[2J\nquit\n");
    assert!(run.ok, "{}", run.stderr);
    assert!(!run.stdout.contains('\x1b'), "{:?}", run.stdout);
    assert!(run.stdout.contains("??[2J"), "{:?}", run.stdout);
}
