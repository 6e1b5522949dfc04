//! The Hub protocol (Scan 3.1 / Hub 2.1, `protocol.txt` of Scan): a line-based text protocol
//! between a GUI and an engine over the engine's standard input and output.
//!
//! * [`parse`]: the tokenizer and the typed messages of both directions.
//! * [`print`]: the messages back to text.
//! * [`board`]: positions and moves in Hub notation, for every variant.
//! * [`dialect`]: which square each character and number stands for, per variant: the 10x10
//!   standard, pydraughts' conventions for the 8x8 variants it plays, and Damspel's extension
//!   of the standard for the other boards (see `docs/hub.md`).
//! * [`session`]: the engine's state machine, commands in and actions out.
//! * [`stream`]: lines read from a stream, each within the protocol's bound.
//!
//! Everything here is pure (`stream` reads from a reader its caller gives): the command line (`damspel hub`) owns stdin, stdout and threads,
//! and the match runner's Hub client owns the engine process.

pub mod board;
pub mod dialect;
pub mod parse;
pub mod print;
pub mod session;
pub mod stream;

pub use board::{parse_move, parse_position, write_move, write_position, BoardTextError};
pub use dialect::Dialect;
pub use parse::{
    tokenize, Arg, ClockLevel, Command, EngineId, GoMode, HubError, InfoLine, Level, Line,
    ParamDecl, ParamKind, Response, MAX_LINE_LEN,
};
pub use print::quote;
pub use session::{
    apply_param, declare, info_response, score_in_men, Action, Identity, Limits, Params,
    SearchOrder, SearchScore, Session, Setup, SetupStep, DEFAULT_MOVE_TIME, MAX_DEPTH, MAX_LEVEL,
};
