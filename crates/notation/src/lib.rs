//! Text in and out for Damspel: PDN 3.0 FEN and move text. Pure functions over the rules core.

pub mod fen;
pub mod movetext;
pub mod pdn;

/// User text as a message quotes it (the rules core's, for the layers above).
pub use damspel_rules::quoted;
pub use fen::{parse_fen, write_fen, FenError, FenErrorKind, MAX_FEN_LEN};
pub use movetext::{
    format_all, format_among, format_detail, format_move, full_path, parse_move, parse_move_among,
    parse_move_text, parse_move_until, sort_for_reading, MoveText, MoveTextError,
};
