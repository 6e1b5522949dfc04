//! A variant compiled for the bitboard width its board needs, for code that keeps the rules of
//! variants of both widths side by side (the games of a PDN file, the variants of an atlas run).

use std::sync::Arc;

use crate::rules::BoardTooLarge;
use crate::{Rules, Variant};

/// A variant's rules, compiled for the smallest bitboard type that holds its board. Cheap to
/// clone. Use [`on_rules!`](crate::on_rules) to run generic code on either width.
#[derive(Clone)]
pub enum AnyRules {
    /// Boards whose layout fits 64 bits (8x8; 10x10 of dark squares).
    Narrow(Arc<Rules<u64>>),
    /// Larger boards, up to 128 layout bits (10x10 of all squares).
    Wide(Arc<Rules<u128>>),
}

impl AnyRules {
    pub fn new(variant: impl Into<Arc<Variant>>) -> Result<AnyRules, BoardTooLarge> {
        let variant = variant.into();
        Ok(if variant.fits_u64() {
            AnyRules::Narrow(Arc::new(Rules::new(variant)?))
        } else {
            AnyRules::Wide(Arc::new(Rules::new(variant)?))
        })
    }

    pub fn variant(&self) -> &Variant {
        crate::on_rules!(self, |rules| rules.variant())
    }
}

impl From<Rules<u64>> for AnyRules {
    fn from(rules: Rules<u64>) -> AnyRules {
        AnyRules::Narrow(Arc::new(rules))
    }
}

impl From<Rules<u128>> for AnyRules {
    fn from(rules: Rules<u128>) -> AnyRules {
        AnyRules::Wide(Arc::new(rules))
    }
}

/// Runs `$body` with `$rules: &Arc<Rules<B>>` for whichever width `$any` (an [`AnyRules`] or a
/// reference to one) was compiled for.
#[macro_export]
macro_rules! on_rules {
    ($any:expr, |$rules:ident| $body:expr) => {
        match $any {
            $crate::AnyRules::Narrow($rules) => $body,
            $crate::AnyRules::Wide($rules) => $body,
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Catalogue;

    #[test]
    fn each_board_gets_the_width_it_needs() {
        let mut catalogue = Catalogue::builtin();
        // Turkish is played on the 64 squares of an 8x8 board (rule book §1.01); on 10x10 its
        // 100 squares need the wide bitboard.
        catalogue
            .add_source(
                "turkish-10.toml",
                "id = \"turkish-10\"\nextends = \"turkish\"\nname = \"Turkish 10x10\"\n\
                 [board]\nwidth = 10\nheight = 10\n",
            )
            .unwrap();
        let turkish = AnyRules::new(catalogue.get("turkish").unwrap()).unwrap();
        assert!(matches!(turkish, AnyRules::Narrow(_)));
        let wide = AnyRules::new(catalogue.get("turkish-10").unwrap()).unwrap();
        assert!(matches!(wide, AnyRules::Wide(_)));
        assert_eq!(wide.variant().id, "turkish-10");
    }
}
