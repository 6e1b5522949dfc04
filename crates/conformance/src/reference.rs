//! A deliberately simple, slow reference move generator: the test oracle for the fast generator.
//!
//! It is written from the rule book (shared/rules/variants.md, §0 "Conventions used by every
//! block" and §7 "Rule dimensions") and from the public fields of `Variant` only, without looking
//! at the fast generator. It uses its own board (a vector of cells indexed by (x, y)), steps in
//! (x, y) cells, clones the board at every jump and finds every capture by plain recursion.
//! Nothing is precomputed and nothing is clever, so that each rule can be checked against the
//! line of the rule book cited next to it.
//!
//! `reference_moves` returns every legal complete sequence (the "Keep" convention: one entry
//! per distinct series of landings). Merging sequences with the same (from, to, captured set,
//! promotes) is left to the caller. One counting convention (not a rule) shapes the series:
//! with deferred removal, a flying king that goes on in the same direction after a capture
//! sweeps on from the square right behind the captured piece, so going on straight is counted
//! once, not once per landing square (dctl's keep-duplicates count, shared/reference/perft.tsv);
//! with immediate removal every landing square is a stop of its own (kish's count).

use damspel_rules::direction::RelDir;
use damspel_rules::spec::{
    HaltRule, Landing, LineLeap, LineMembers, Precedence, PromotionInCapture, Range, Removal,
    Reversal, Targets,
};
use damspel_rules::{Bits, Color, Piece, Position, Setup, Square, Squares, Variant};
use std::time::Instant;

/// A board cell: (x, y) with a1 = (0, 0), files along x, ranks along y (§0 "Coordinates").
pub type Cell = (i32, i32);

/// A board of the reference generator: one entry per cell, row by row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefBoard {
    width: i32,
    height: i32,
    /// Only the dark cells (x + y even) are used (§0 "Which squares are used").
    dark: bool,
    cells: Vec<Option<Piece>>,
    pub side_to_move: Color,
}

/// One complete legal sequence: a quiet move has one landing and no capture.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RefSequence {
    pub from: Cell,
    /// The landing squares in order; the last one is where the piece ends.
    pub landings: Vec<Cell>,
    /// The captured pieces' squares, in capture order.
    pub captured: Vec<Cell>,
    /// Whether the moving man ends the move as a king.
    pub promotes: bool,
}

impl RefBoard {
    /// An empty board of the variant's shape.
    pub fn empty(variant: &Variant, side_to_move: Color) -> RefBoard {
        let g = &variant.geometry;
        let (width, height) = (g.width() as i32, g.height() as i32);
        RefBoard {
            width,
            height,
            dark: g.squares_kind() == Squares::Dark,
            cells: vec![None; (width * height) as usize],
            side_to_move,
        }
    }

    /// The board of a setup (an unknown side to move is taken as White).
    pub fn from_setup(variant: &Variant, setup: &Setup) -> RefBoard {
        let mut board = RefBoard::empty(variant, setup.side_to_move.unwrap_or(Color::White));
        for &(sq, piece) in &setup.pieces {
            let (x, y) = variant.geometry.coords(sq);
            board.put((x as i32, y as i32), Some(piece));
        }
        board
    }

    /// The board of a position of the fast engine.
    pub fn from_position<B: Bits>(variant: &Variant, pos: &Position<B>) -> RefBoard {
        let mut board = RefBoard::empty(variant, pos.side_to_move());
        for &sq in variant.geometry.all_squares() {
            let (x, y) = variant.geometry.coords(sq);
            board.put((x as i32, y as i32), pos.piece_at(sq));
        }
        board
    }

    /// The board as a setup, to build a `Position` of the fast engine from.
    pub fn to_setup(&self, variant: &Variant) -> Setup {
        let pieces = self
            .squares()
            .filter_map(|c| self.get(c).map(|p| (square_of(variant, c), p)))
            .collect();
        Setup {
            side_to_move: Some(self.side_to_move),
            pieces,
        }
    }

    /// Whether the cell is on the board and used (§0 "Which squares are used").
    pub fn is_square(&self, (x, y): Cell) -> bool {
        x >= 0 && y >= 0 && x < self.width && y < self.height && (!self.dark || (x + y) % 2 == 0)
    }

    /// Every used cell.
    pub fn squares(&self) -> impl Iterator<Item = Cell> + '_ {
        (0..self.height)
            .flat_map(move |y| (0..self.width).map(move |x| (x, y)))
            .filter(|&c| self.is_square(c))
    }

    pub fn width(&self) -> i32 {
        self.width
    }

    pub fn height(&self) -> i32 {
        self.height
    }

    /// The piece on a cell (None for an empty square or a cell off the board).
    pub fn get(&self, c: Cell) -> Option<Piece> {
        if self.is_square(c) {
            self.cells[(c.1 * self.width + c.0) as usize]
        } else {
            None
        }
    }

    /// Puts (or with None, removes) a piece on a used cell.
    pub fn put(&mut self, c: Cell, piece: Option<Piece>) {
        assert!(self.is_square(c), "cell {c:?} is not a square of the board");
        self.cells[(c.1 * self.width + c.0) as usize] = piece;
    }

    /// Whether the cell is a square with no piece on it.
    pub fn is_empty_square(&self, c: Cell) -> bool {
        self.is_square(c) && self.get(c).is_none()
    }

    /// The board after a sequence of the side to move: the captured pieces leave the board, the
    /// piece goes to its last landing (crowned if the sequence promotes), the other side moves.
    pub fn play(&self, seq: &RefSequence) -> RefBoard {
        let mut next = self.clone();
        let piece = next.get(seq.from).expect("a piece on the start square");
        for &c in &seq.captured {
            next.put(c, None);
        }
        next.put(seq.from, None);
        next.put(
            seq.to(),
            Some(Piece {
                color: piece.color,
                king: piece.king || seq.promotes,
            }),
        );
        next.side_to_move = !self.side_to_move;
        next
    }
}

impl RefSequence {
    /// Where the piece ends.
    pub fn to(&self) -> Cell {
        *self.landings.last().expect("a sequence has a landing")
    }

    pub fn is_capture(&self) -> bool {
        !self.captured.is_empty()
    }

    /// The captured squares as a mask of layout indices (as `Move::captured`).
    pub fn captured_mask(&self, variant: &Variant) -> u128 {
        self.captured
            .iter()
            .fold(0, |acc, &c| acc | 1u128 << square_of(variant, c).0)
    }

    /// Readable form in algebraic cells: "c3-d4", "d4xd6xf6 (d5 e6)", "+" when crowned.
    pub fn describe(&self) -> String {
        let sep = if self.is_capture() { "x" } else { "-" };
        let mut text = algebraic(self.from);
        for &l in &self.landings {
            text.push_str(sep);
            text.push_str(&algebraic(l));
        }
        if self.is_capture() {
            let caps: Vec<String> = self.captured.iter().map(|&c| algebraic(c)).collect();
            text.push_str(&format!(" ({})", caps.join(" ")));
        }
        if self.promotes {
            text.push('+');
        }
        text
    }
}

/// The algebraic name of a cell ("a1" = (0, 0)).
pub fn algebraic((x, y): Cell) -> String {
    format!("{}{}", (b'a' + x as u8) as char, y + 1)
}

/// The layout square of a used cell.
pub fn square_of(variant: &Variant, (x, y): Cell) -> Square {
    variant
        .geometry
        .square_at(x, y)
        .expect("a used cell of the board")
}

// ------------------------------------------------------------------------------------------------
// Directions (§0 "Relative directions", "Which squares are used"; §7 D3, D6)

/// The direction in White's frame as a cell offset: F = +y, R = +x. Black's frame is White's
/// rotated 180°, so Black's F is -y and Black's R is -x.
fn frame_vector(d: RelDir, color: Color) -> Cell {
    let (dx, dy) = match d {
        RelDir::F => (0, 1),
        RelDir::FR => (1, 1),
        RelDir::R => (1, 0),
        RelDir::BR => (1, -1),
        RelDir::B => (0, -1),
        RelDir::BL => (-1, -1),
        RelDir::L => (-1, 0),
        RelDir::FL => (-1, 1),
    };
    match color {
        Color::White => (dx, dy),
        Color::Black => (-dx, -dy),
    }
}

fn is_orthogonal(d: RelDir) -> bool {
    matches!(d, RelDir::F | RelDir::B | RelDir::L | RelDir::R)
}

/// One unit step: diagonal (±1, ±1); orthogonal (±1, 0)/(0, ±1) on an all-squares board and
/// (±2, 0)/(0, ±2) on a dark-squares board (Frisian geometry, §0 and D3).
fn unit(board: &RefBoard, d: RelDir, color: Color) -> Cell {
    let (dx, dy) = frame_vector(d, color);
    if board.dark && is_orthogonal(d) {
        (2 * dx, 2 * dy)
    } else {
        (dx, dy)
    }
}

fn add((x, y): Cell, (dx, dy): Cell) -> Cell {
    (x + dx, y + dy)
}

/// Whether a cell is one of `color`'s promotion squares (D20: `Variant.promotion`).
fn is_promotion_square(variant: &Variant, color: Color, (x, y): Cell) -> bool {
    match variant.geometry.square_at(x, y) {
        Some(sq) => variant.promotion[color.index()] >> sq.0 & 1 == 1,
        None => false,
    }
}

// ------------------------------------------------------------------------------------------------
// The generator

/// How much the generator may do before it gives up. It holds every capture sequence before the
/// majority rule keeps the most valuable, so on a crowded board its memory grows with them (a
/// universal position of 100,730 legal sequences took 19 GB before it was stopped).
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// The most capture sequences it may hold, before the majority rule.
    pub sequences: usize,
    /// When it must give up.
    pub deadline: Option<Instant>,
}

impl Bounds {
    pub const NONE: Bounds = Bounds {
        sequences: usize::MAX,
        deadline: None,
    };
}

/// The generator gave up: it reached one of its bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OverBounds;

/// What the capture walk has done, against its bounds.
struct Work {
    bounds: Bounds,
    states: u64,
    over: bool,
}

impl Work {
    fn new(bounds: Bounds) -> Work {
        Work {
            bounds,
            states: 0,
            over: false,
        }
    }

    /// Counts a state; whether the walk must give up.
    fn give_up(&mut self, held: usize) -> bool {
        self.states += 1;
        if held > self.bounds.sequences {
            self.over = true;
        }
        if self.states.is_multiple_of(1024)
            && self.bounds.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.over = true;
        }
        self.over
    }
}

/// The answer of a walk made within `Bounds::NONE`, which cannot reach them.
fn never_over<T>(_: OverBounds) -> T {
    unreachable!("a walk without bounds does not give up")
}

/// Every legal complete sequence of the side to move, one per distinct series of landings.
pub fn reference_moves(variant: &Variant, board: &RefBoard) -> Vec<RefSequence> {
    reference_moves_within(variant, board, Bounds::NONE).unwrap_or_else(never_over)
}

/// `reference_moves`, or `OverBounds` when the walk would outgrow `bounds`.
pub fn reference_moves_within(
    variant: &Variant,
    board: &RefBoard,
    bounds: Bounds,
) -> Result<Vec<RefSequence>, OverBounds> {
    // §0: "Capturing is compulsory in every variant and has precedence over every non-capturing
    // move, including the line-leap."
    let captures = legal_captures_within(variant, board, bounds)?;
    if !captures.is_empty() {
        return Ok(captures);
    }
    let quiet = quiet_moves(variant, board, board.side_to_move);
    Ok(if variant.bahrain {
        bahrain_filter(variant, board, quiet)
    } else {
        quiet
    })
}

/// The legal capture sequences of the side to move (empty if it has no capture).
pub fn legal_captures(variant: &Variant, board: &RefBoard) -> Vec<RefSequence> {
    legal_captures_within(variant, board, Bounds::NONE).unwrap_or_else(never_over)
}

fn legal_captures_within(
    variant: &Variant,
    board: &RefBoard,
    bounds: Bounds,
) -> Result<Vec<RefSequence>, OverBounds> {
    let captures = all_capture_sequences_within(variant, board, board.side_to_move, bounds)?;
    Ok(match variant.capture.precedence {
        // D18 Majority: "among all complete sequences of all pieces, only those that capture the
        // maximum" value are legal (value = man_value per man + king_value per king).
        Precedence::Majority => {
            let best = captures
                .iter()
                .map(|s| sequence_value(variant, board, s))
                .max()
                .unwrap_or(0);
            captures
                .into_iter()
                .filter(|s| sequence_value(variant, board, s) == best)
                .collect()
        }
        // D18 FreeChoice: "Without the majority rule, any complete sequence is legal."
        Precedence::Free => captures,
    })
}

/// D18: what a sequence is worth under the majority rule (pieces are read on the board before
/// the move: captured pieces keep their kind).
fn sequence_value(variant: &Variant, board: &RefBoard, seq: &RefSequence) -> u64 {
    seq.captured
        .iter()
        .map(|&c| {
            let piece = board.get(c).expect("a captured piece");
            if piece.king {
                variant.capture.king_value as u64
            } else {
                variant.capture.man_value as u64
            }
        })
        .sum()
}

// ------------------------------------------------------------------------------------------------
// Non-capturing moves

fn quiet_moves(variant: &Variant, board: &RefBoard, color: Color) -> Vec<RefSequence> {
    let mut out = Vec::new();
    for from in board.squares() {
        match board.get(from) {
            Some(p) if p.color == color && !p.king => {
                man_steps(variant, board, color, from, &mut out);
                line_leaps(variant, board, color, from, &mut out);
            }
            Some(p) if p.color == color => king_moves(variant, board, color, from, &mut out),
            _ => {}
        }
    }
    out
}

/// §0 "Man step = one unit step to an empty square", in the directions of D7 (`men.step`).
/// "A non-capturing move that ends on a promotion square always crowns."
fn man_steps(
    variant: &Variant,
    board: &RefBoard,
    color: Color,
    from: Cell,
    out: &mut Vec<RefSequence>,
) {
    for d in variant.men.step.iter() {
        let to = add(from, unit(board, d, color));
        if board.is_empty_square(to) {
            out.push(RefSequence {
                from,
                landings: vec![to],
                captured: vec![],
                promotes: is_promotion_square(variant, color, to),
            });
        }
    }
}

/// D10 line-leap (1.02, 1.23, §8 item 8): a man (on its own first rank for FirstRank, anywhere
/// for Anywhere) with an unbroken line of one or more friendly pieces (`Pieces`: men and kings;
/// `Men`: men only) directly in front of it in direction F, FL or FR moves to the first square
/// beyond the line, which must be on the board and empty. Non-capturing; promotion applies.
fn line_leaps(
    variant: &Variant,
    board: &RefBoard,
    color: Color,
    from: Cell,
    out: &mut Vec<RefSequence>,
) {
    let first_rank = match color {
        Color::White => 0,
        Color::Black => board.height - 1,
    };
    let allowed = match variant.men.line_leap {
        LineLeap::None => false,
        LineLeap::FirstRank => from.1 == first_rank,
        LineLeap::Anywhere => true,
    };
    if !allowed {
        return;
    }
    let in_line = |c: Cell| match board.get(c) {
        Some(p) if p.color == color => match variant.men.line_leap_over {
            LineMembers::Pieces => true,
            LineMembers::Men => !p.king,
        },
        _ => false,
    };
    for d in [RelDir::F, RelDir::FL, RelDir::FR] {
        let u = unit(board, d, color);
        let mut c = add(from, u);
        let mut length = 0;
        while in_line(c) {
            c = add(c, u);
            length += 1;
        }
        if length >= 1 && board.is_empty_square(c) {
            out.push(RefSequence {
                from,
                landings: vec![c],
                captured: vec![],
                promotes: is_promotion_square(variant, color, c),
            });
        }
    }
}

/// D11: a short king steps one unit to an empty square; a flying king moves "any number of
/// empty unit steps along one line" (§0), in the directions of `kings.moves`.
fn king_moves(
    variant: &Variant,
    board: &RefBoard,
    color: Color,
    from: Cell,
    out: &mut Vec<RefSequence>,
) {
    for d in variant.kings.moves.iter() {
        let u = unit(board, d, color);
        let mut to = add(from, u);
        while board.is_empty_square(to) {
            out.push(RefSequence {
                from,
                landings: vec![to],
                captured: vec![],
                promotes: false,
            });
            if variant.kings.move_range == Range::Short {
                break;
            }
            to = add(to, u);
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Captures

/// The state of a capture in progress.
#[derive(Clone, Debug)]
struct Capture {
    color: Color,
    from: Cell,
    /// The board as the capturing piece sees it: the piece itself is lifted from its start
    /// square ("the capturing piece's starting square counts as empty during its own move", §0),
    /// and with immediate removal the captured pieces are gone.
    board: RefBoard,
    /// Where the piece stands now.
    at: Cell,
    /// Whether it captures as a king now.
    king: bool,
    /// Whether it was crowned during this move (Stop, PromoteAndContinue).
    crowned: bool,
    /// The move ends here whatever else is possible (promotion rule Stop).
    stopped: bool,
    landings: Vec<Cell>,
    /// The captured pieces in capture order, with their kind.
    captured: Vec<(Cell, Piece)>,
    /// The cell offset of the previous jump (for the 180° rule).
    last_step: Option<Cell>,
}

/// One jump available from a capture state: over `victim`, onto one of `landings`.
struct Jump {
    step: Cell,
    victim: Cell,
    /// The landing squares the landing rule (D14) allows, nearest first. The completion rule
    /// and the halt rules choose among them afterwards.
    landings: Vec<Cell>,
}

/// Every complete capture sequence of every piece of `color`, before the majority rule.
pub fn all_capture_sequences(
    variant: &Variant,
    board: &RefBoard,
    color: Color,
) -> Vec<RefSequence> {
    all_capture_sequences_within(variant, board, color, Bounds::NONE).unwrap_or_else(never_over)
}

fn all_capture_sequences_within(
    variant: &Variant,
    board: &RefBoard,
    color: Color,
    bounds: Bounds,
) -> Result<Vec<RefSequence>, OverBounds> {
    let mut out = Vec::new();
    let mut work = Work::new(bounds);
    for from in board.squares() {
        if board.get(from).is_some_and(|p| p.color == color) {
            piece_capture_sequences(variant, board, from, &mut out, &mut work);
        }
    }
    // The last state walked may have added sequences past the bound.
    if work.over || out.len() > bounds.sequences {
        return Err(OverBounds);
    }
    Ok(out)
}

/// Every complete capture sequence of the piece on `from`.
fn piece_capture_sequences(
    variant: &Variant,
    board: &RefBoard,
    from: Cell,
    out: &mut Vec<RefSequence>,
    work: &mut Work,
) {
    let piece = board.get(from).expect("a piece to capture with");
    let mut lifted = board.clone();
    lifted.put(from, None);
    let start = Capture {
        color: piece.color,
        from,
        board: lifted,
        at: from,
        king: piece.king,
        crowned: false,
        stopped: false,
        landings: vec![],
        captured: vec![],
        last_step: None,
    };
    extend(variant, &start, out, None, work);
}

/// Tries every jump from `state` and follows each to the end of the move. `straight` is a
/// direction not to follow here because the series going on straight that way is counted from
/// the nearest landing (see the module comment).
fn extend(
    variant: &Variant,
    state: &Capture,
    out: &mut Vec<RefSequence>,
    straight: Option<Cell>,
    work: &mut Work,
) {
    if work.give_up(out.len()) {
        return;
    }
    for jump in jumps(variant, state) {
        if straight == Some(jump.step) {
            continue;
        }
        let after: Vec<Capture> = jump
            .landings
            .iter()
            .map(|&l| land(variant, state, &jump, l))
            .collect();
        // Completion rule (§0, D23): "after each jump, if some legal landing square of that
        // jump allows a further capture, the piece must land on such a square and continue."
        let continuing: Vec<&Capture> = after.iter().filter(|s| can_continue(variant, s)).collect();
        if !continuing.is_empty() {
            let nearest = after[0].at;
            for next in continuing {
                let skip = (variant.capture.removal == Removal::Deferred && next.at != nearest)
                    .then_some(jump.step);
                extend(variant, next, out, skip, work);
            }
            continue;
        }
        // This was the last jump. D15: a halt rule restricts only this final landing, to the
        // square immediately behind the last captured piece.
        let halt = halt_applies(variant.capture.halt, &after[0].captured);
        let behind = add(jump.victim, jump.step);
        for end in &after {
            if halt && end.at != behind {
                continue;
            }
            out.push(finish(variant, end));
        }
    }
}

/// Whether the move may go on from this state: not stopped by a promotion, and a jump exists.
fn can_continue(variant: &Variant, state: &Capture) -> bool {
    !state.stopped && !jumps(variant, state).is_empty()
}

/// The complete sequence ending in `state`.
fn finish(variant: &Variant, state: &Capture) -> RefSequence {
    // §0 Promotion during capture: Stop and PromoteAndContinue crowned the man when it landed;
    // ContinueAsMan crowns it "only if the move ends on a promotion square".
    let promotes =
        state.crowned || (!state.king && is_promotion_square(variant, state.color, state.at));
    RefSequence {
        from: state.from,
        landings: state.landings.clone(),
        captured: state.captured.iter().map(|&(c, _)| c).collect(),
        promotes,
    }
}

/// D15, with the rule book's 4.03–4.06: whether the final landing must be right behind the last
/// captured piece, given every piece captured by the move (in order).
fn halt_applies(halt: HaltRule, captured: &[(Cell, Piece)]) -> bool {
    let n = captured.len();
    let last_is_king = captured.last().is_some_and(|(_, p)| p.king);
    match halt {
        HaltRule::None => false,
        // 4.03: "if the last captured piece is a king … This applies to single captures too."
        HaltRule::Killer => last_is_king,
        // 4.04: "only if the sequence captured ≥ 2 pieces and the last captured piece is a king".
        HaltRule::SequentialKiller => n >= 2 && last_is_king,
        // 4.05: "the last captured piece (of any kind) … whenever the sequence captured ≥ 2".
        HaltRule::SequentialHalt => n >= 2,
        // 4.06: "≥ 2 pieces and both of the last two captured pieces are kings".
        HaltRule::SequentialHalt2 => n >= 2 && captured[n - 2..].iter().all(|(_, p)| p.king),
    }
}

/// Whether a piece on `c` can be jumped: an enemy piece that has not been captured yet (§0:
/// "Pieces are never jumped if they are friendly"; "A piece can never be jumped twice").
fn jumpable(state: &Capture, c: Cell) -> Option<Piece> {
    let piece = state.board.get(c)?;
    let already = state.captured.iter().any(|&(v, _)| v == c);
    (piece.color != state.color && !already).then_some(piece)
}

/// Every jump the capturing piece can make from where it stands.
fn jumps(variant: &Variant, state: &Capture) -> Vec<Jump> {
    let mut out = Vec::new();
    if state.stopped {
        return out;
    }
    let first_jump = state.captured.is_empty();
    let board = &state.board;
    // D17 / §0 180° rule: "two consecutive jumps of the same move may not be in exactly
    // opposite directions" (across a mid-capture promotion too: `last_step` is kept).
    let reversal = |u: Cell| {
        variant.capture.reversal == Reversal::Forbidden && state.last_step == Some((-u.0, -u.1))
    };

    if !state.king {
        // D8: a man's capture is a short leap "over an adjacent (one unit step away) enemy piece
        // onto the empty square directly behind it", in the directions of `men.capture`;
        // D9: the directions of `men.first_jump_forbidden` are not allowed as the first jump.
        let dirs = if first_jump {
            variant.men.capture.minus(variant.men.first_jump_forbidden)
        } else {
            variant.men.capture
        };
        for d in dirs.iter() {
            let u = unit(board, d, state.color);
            if reversal(u) {
                continue;
            }
            let victim = add(state.at, u);
            let landing = add(victim, u);
            if jumpable(state, victim).is_some() && board.is_empty_square(landing) {
                out.push(Jump {
                    step: u,
                    victim,
                    landings: vec![landing],
                });
            }
        }
        return out;
    }

    let kings = &variant.kings;
    for d in kings.captures.iter() {
        let u = unit(board, d, state.color);
        if reversal(u) {
            continue;
        }
        // D13: per-direction target filter; `Kings` = only enemy kings may be captured along
        // such a line, and with `targets_first_jump_only` such a capture is allowed only as the
        // first jump of the move.
        let targets = if is_orthogonal(d) {
            kings.orth_targets
        } else {
            kings.diag_targets
        };
        if targets == Targets::Kings && kings.targets_first_jump_only && !first_jump {
            continue;
        }
        // D12: a short king jumps the adjacent piece; a flying king goes "along one line, over
        // zero or more empty squares, then exactly one enemy piece that has not yet been
        // captured" (§0). With deferred removal a captured piece is still on the board: it
        // blocks the line ("They block passage and landing and cannot be jumped again").
        let mut victim = add(state.at, u);
        if kings.capture_range == Range::Flying {
            while board.is_empty_square(victim) {
                victim = add(victim, u);
            }
        }
        let Some(piece) = jumpable(state, victim) else {
            continue;
        };
        if targets == Targets::Kings && !piece.king {
            continue;
        }
        // Landings (§0, D14): the empty squares behind the piece, up to the next occupied square
        // or the edge ("Two adjacent enemy pieces on a line cannot be jumped together"). A short
        // king and an `Adjacent` king land only on the square immediately behind.
        let mut landings = Vec::new();
        let mut l = add(victim, u);
        while board.is_empty_square(l) {
            landings.push(l);
            if kings.capture_range == Range::Short || kings.landing == Landing::Adjacent {
                break;
            }
            l = add(l, u);
        }
        if !landings.is_empty() {
            out.push(Jump {
                step: u,
                victim,
                landings,
            });
        }
    }
    out
}

/// The state after making `jump` and landing on `landing`.
fn land(variant: &Variant, state: &Capture, jump: &Jump, landing: Cell) -> Capture {
    let mut next = state.clone();
    let piece = state.board.get(jump.victim).expect("a piece to capture");
    // D16: with immediate removal "the piece is gone, and its square is empty for the rest of
    // the move"; with deferred removal it stays until the move is complete (see `jumpable`).
    if variant.capture.removal == Removal::Immediate {
        next.board.put(jump.victim, None);
    }
    next.captured.push((jump.victim, piece));
    next.landings.push(landing);
    next.at = landing;
    next.last_step = Some(jump.step);
    // D19, §0 "Promotion during capture", when a man lands on one of its promotion squares.
    if !next.king && is_promotion_square(variant, state.color, landing) {
        match variant.capture.promotion {
            // "the move ends there and the man is crowned, even if more jumps were available"
            PromotionInCapture::Stop => {
                next.crowned = true;
                next.stopped = true;
            }
            // "the man keeps capturing as a man. It is crowned only if the move ends on a
            // promotion square" (see `finish`).
            PromotionInCapture::ContinueAsMan => {}
            // "the man is crowned at once, and the rest of the sequence is generated with king
            // powers."
            PromotionInCapture::PromoteAndContinue => {
                next.crowned = true;
                next.king = true;
            }
        }
    }
    next
}

// ------------------------------------------------------------------------------------------------
// D21: the Bahrain restriction (rule book 1.29)

/// 1.29: applied to the non-capturing moves (the side to move has no capture, item 1).
fn bahrain_filter(
    variant: &Variant,
    board: &RefBoard,
    quiet: Vec<RefSequence>,
) -> Vec<RefSequence> {
    let color = board.side_to_move;
    // Item 2: "A man of the mover is threatened if it appears among the captured pieces of at
    // least one legal capture move the opponent would have in the current position. 'Legal'
    // here includes the opponent's majority rule."
    let mut their_turn = board.clone();
    their_turn.side_to_move = !color;
    let threatened: Vec<Cell> = legal_captures(variant, &their_turn)
        .into_iter()
        .flat_map(|s| s.captured)
        .filter(|&c| board.get(c).is_some_and(|p| p.color == color && !p.king))
        .collect();
    if threatened.is_empty() {
        return quiet;
    }
    // Item 3: "any non-capturing move by a man that is not threatened is illegal if, after the
    // move, that moved man would have a capture available". Item 4: king moves, moves of
    // threatened men and moves that create no threat are unaffected.
    let allowed: Vec<RefSequence> = quiet
        .iter()
        .filter(|s| {
            let mover = board.get(s.from).expect("a moving piece");
            if mover.king || threatened.contains(&s.from) {
                return true;
            }
            let mut after = board.play(s);
            after.side_to_move = color;
            let mut threats = Vec::new();
            let mut work = Work::new(Bounds::NONE);
            piece_capture_sequences(variant, &after, s.to(), &mut threats, &mut work);
            threats.is_empty()
        })
        .cloned()
        .collect();
    // Item 5: "If this filter would leave no legal move, it is lifted."
    if allowed.is_empty() {
        quiet
    } else {
        allowed
    }
}
