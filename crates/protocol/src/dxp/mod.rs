//! DXP, the DamExchange protocol (mesander.nl/damexchange): two draughts programs play a game
//! over TCP, 10x10 International-style boards only.
//!
//! * [`message`]: the seven messages (GAMEREQ `R`, GAMEACC `A`, MOVE `M`, GAMEEND `E`, CHAT `C`,
//!   BACKREQ `B`, BACKACC `K`), typed, parsed with errors naming the field, and printed.
//! * [`frame`]: layer 1, each message followed by one NUL byte on the stream; partial reads.
//! * [`board`]: DXP positions and moves against Damspel's rules; incoming moves are checked
//!   against the legal moves of the position.
//!
//! Pure: the sockets are the match runner's (`damspel_arena::dxp_player`) and the command
//! line's (`damspel dxp`).

pub mod board;
pub mod frame;
pub mod message;

pub use board::{
    back_request_for, back_request_ply, check_variant, decode_move, describe_move, encode_move,
    end_reason, from_board, start_of, start_position, to_board, white_score_claimed, MoveError,
};
pub use frame::{frame, Deframer, FrameError, TERMINATOR};
pub use message::{
    parse, print, AcceptCode, BackAcceptCode, BackRequest, DxpBoard, EndReason, GameAccept,
    GameEnd, GameRequest, Kind, Message, MoveMessage, ParseError, PrintError, Start, StopCode,
    MAX_MESSAGE_LEN, NAME_LEN, PROTOCOL_VERSION,
};
