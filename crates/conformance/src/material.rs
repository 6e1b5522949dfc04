//! Whether a position could arise in a game by its material: no side has more pieces than the
//! variant's start position gives it (no rule of any variant adds a piece; a man crowned stays
//! one piece). A necessary condition only: a position that passes may still be unreachable.
//!
//! The search for the worst capture positions (`examples/worst_captures.rs`) may keep to it,
//! and the captures benchmark counts the rows that keep to it apart: a position set up by hand
//! (a FEN sent to the server) may break it, a game played from the start cannot.

use damspel_rules::{Bits, Color, Position, Rules};

/// The number of pieces each side starts with, by colour index.
pub fn start_counts<B: Bits>(rules: &Rules<B>) -> [usize; 2] {
    let start = Position::start(rules);
    Color::BOTH.map(|c| start.pieces(c).count() as usize)
}

/// Whether neither side has more pieces than it starts with.
pub fn within_start_counts<B: Bits>(rules: &Rules<B>, pos: &Position<B>) -> bool {
    let limits = start_counts(rules);
    Color::BOTH
        .into_iter()
        .all(|c| pos.pieces(c).count() as usize <= limits[c.index()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use damspel_notation::parse_fen;
    use damspel_rules::{with_rules, Catalogue};

    fn check(id: &str, fen: &str) -> bool {
        let variant = Catalogue::builtin().get(id).expect("a built-in variant");
        with_rules!(variant, |rules| {
            let setup = parse_fen(&rules.variant().geometry, fen).expect("a valid FEN");
            let pos = Position::from_setup(&rules, &setup).expect("a legal setup");
            within_start_counts(&rules, &pos)
        })
    }

    /// The rule book's setups: Turkish T23, 16 each; International D4(10x10), 20 each
    /// (shared/rules/variants.md, "Setup shorthands").
    #[test]
    fn counts_are_the_setups_of_the_rule_book() {
        let turkish = Catalogue::builtin().get("turkish").expect("turkish");
        with_rules!(turkish, |rules| assert_eq!(start_counts(&rules), [16, 16]));
        let international = Catalogue::builtin()
            .get("international")
            .expect("international");
        with_rules!(international, |rules| assert_eq!(
            start_counts(&rules),
            [20, 20]
        ));
    }

    #[test]
    fn a_side_with_a_piece_more_than_its_start_is_not_from_a_game() {
        // White: 16 pieces (ranks 2 and 3 of T23), Black one king; then a 17th white piece.
        let sixteen = "W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:BKd8";
        assert!(check("turkish", sixteen));
        assert!(!check("turkish", &sixteen.replace(":BKd8", ",a4:BKd8")));
        // Kings count as the men they were: 16 black kings are as many as Black's start.
        let kings = "B:WKa1:BKa2,Kb2,Kc2,Kd2,Ke2,Kf2,Kg2,Kh2,Ka3,Kb3,Kc3,Kd3,Ke3,Kf3,Kg3,Kh3";
        assert!(check("turkish", kings));
        assert!(!check("turkish", &kings.replace(":BK", ":BKa5,K")));
    }
}
