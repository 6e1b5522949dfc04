//! The rules core of Damspel: one data-driven engine for every draughts variant of the rule book.
//!
//! A variant is a TOML file of rule parameters (`spec`), checked into a `Variant`, compiled into
//! move-generation tables (`Rules<B>`) for a bitboard type `B` (`u64` or `u128`). Positions are
//! copy-make with incremental Zobrist hashing; the generator is one generic implementation of the
//! capture rules. This crate does no I/O.

pub mod bitboard;
pub mod catalogue;
mod color;
mod compiled;
pub mod describe;
pub mod direction;
pub mod game;
pub mod geometry;
pub mod movegen;
mod mv;
pub mod perft;
mod piece;
pub mod position;
mod quote;
pub mod rules;
pub mod setup;
pub mod spec;
pub mod variant;
pub mod zobrist;

pub use bitboard::Bits;
pub use catalogue::{Catalogue, CatalogueError, MAX_FILE_LEN as MAX_VARIANT_FILE_LEN};
pub use color::Color;
pub use compiled::AnyRules;
pub use game::{DrawReason, Game, Outcome, WinReason};
pub use geometry::{Geometry, Square, SquareNames, Squares};
pub use movegen::{Duplicates, RouteFilter, Stopped, Until};
pub use mv::{Move, MoveDetail};
pub use perft::{perft, Divided, Perft};
pub use piece::Piece;
pub use position::Position;
pub use quote::quoted;
pub use rules::Rules;
pub use setup::{PositionError, Setup, SetupIssue};
pub use variant::{Variant, VariantError};

/// Runs `$body` with `$rules` bound to the variant compiled for the smallest bitboard type that
/// holds its board (`Rules<u64>` or `Rules<u128>`): the one place where the width is chosen.
#[macro_export]
macro_rules! with_rules {
    ($variant:expr, |$rules:ident| $body:expr) => {{
        let variant: ::std::sync::Arc<$crate::Variant> = ::std::sync::Arc::new($variant);
        if variant.fits_u64() {
            let $rules = $crate::Rules::<u64>::new(variant).expect("the board fits 64 bits");
            $body
        } else {
            let $rules = $crate::Rules::<u128>::new(variant).expect("boards are at most 128 bits");
            $body
        }
    }};
}
