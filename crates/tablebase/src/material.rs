//! Material signatures: how many men and kings each side has. One table (one file) per
//! signature, holding both sides to move. Written like chess tables: White's pieces, `v`,
//! Black's, kings `K` before men `M` ("KKMvK": two kings and a man against a king).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use damspel_rules::{Bits, Color, Position};

/// Men and kings of each side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    /// White men, white kings, black men, black kings.
    pub counts: [u8; 4],
}

impl Material {
    pub const fn new(white_men: u8, white_kings: u8, black_men: u8, black_kings: u8) -> Material {
        Material {
            counts: [white_men, white_kings, black_men, black_kings],
        }
    }

    /// The material of a position.
    pub fn of<B: Bits>(pos: &Position<B>) -> Material {
        Material::new(
            pos.men(Color::White).count() as u8,
            pos.kings(Color::White).count() as u8,
            pos.men(Color::Black).count() as u8,
            pos.kings(Color::Black).count() as u8,
        )
    }

    pub fn men(&self, color: Color) -> u8 {
        self.counts[color.index() * 2]
    }

    pub fn kings(&self, color: Color) -> u8 {
        self.counts[color.index() * 2 + 1]
    }

    pub fn pieces(&self, color: Color) -> u8 {
        self.men(color) + self.kings(color)
    }

    pub fn total(&self) -> u8 {
        self.counts.iter().sum()
    }

    /// Every signature with at least one piece a side and at most `pieces` in all, in a
    /// fixed order (fewer pieces first, then fewer men, then by counts).
    pub fn all_up_to(pieces: u8) -> Vec<Material> {
        let mut out = Vec::new();
        for wm in 0..=pieces {
            for wk in 0..=pieces - wm {
                for bm in 0..=pieces - wm - wk {
                    for bk in 0..=pieces - wm - wk - bm {
                        let m = Material::new(wm, wk, bm, bk);
                        if m.pieces(Color::White) > 0 && m.pieces(Color::Black) > 0 {
                            out.push(m);
                        }
                    }
                }
            }
        }
        out.sort_by_key(|m| (m.total(), m.men(Color::White) + m.men(Color::Black), *m));
        out
    }

    /// Signatures a move from this one may lead to (a superset: a capture of any number of
    /// the opponent's men and kings, a promotion of one of the mover's men, or both), leaving
    /// out those where a side has no piece (no table: the game is over).
    pub fn successors(&self) -> Vec<Material> {
        let mut out = Vec::new();
        for mover in Color::BOTH {
            let (um, uk) = (self.men(mover), self.kings(mover));
            let (tm, tk) = (self.men(!mover), self.kings(!mover));
            let promotions: &[u8] = if um > 0 { &[0, 1] } else { &[0] };
            for &p in promotions {
                for cm in 0..=tm {
                    for ck in 0..=tk {
                        if p == 0 && cm == 0 && ck == 0 {
                            continue;
                        }
                        if cm + ck == tm + tk {
                            continue;
                        }
                        let mut c = [0u8; 4];
                        c[mover.index() * 2] = um - p;
                        c[mover.index() * 2 + 1] = uk + p;
                        c[(!mover).index() * 2] = tm - cm;
                        c[(!mover).index() * 2 + 1] = tk - ck;
                        let m = Material { counts: c };
                        if !out.contains(&m) {
                            out.push(m);
                        }
                    }
                }
            }
        }
        out.sort();
        out
    }

    /// The signatures up to `pieces` in dependency waves: every signature of a wave depends
    /// only on signatures of earlier waves, so a wave's tables can be built in parallel.
    pub fn waves(pieces: u8) -> Vec<Vec<Material>> {
        let all = Material::all_up_to(pieces);
        let mut wave: BTreeMap<Material, usize> = BTreeMap::new();
        // `all` is ordered so that successors come first (fewer pieces, or fewer men).
        for m in &all {
            let w = m
                .successors()
                .iter()
                .map(|s| wave[s] + 1)
                .max()
                .unwrap_or(0);
            wave.insert(*m, w);
        }
        let depth = wave.values().max().map_or(0, |w| w + 1);
        let mut out = vec![Vec::new(); depth];
        for m in all {
            out[wave[&m]].push(m);
        }
        out
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for color in Color::BOTH {
            if color == Color::Black {
                f.write_str("v")?;
            }
            for _ in 0..self.kings(color) {
                f.write_str("K")?;
            }
            for _ in 0..self.men(color) {
                f.write_str("M")?;
            }
        }
        Ok(())
    }
}

/// A signature that is not of the form `KKMvK`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a material signature: write White's kings (K) and men (M), `v`, then Black's, e.g. KKMvK")]
pub struct MaterialError(pub String);

impl FromStr for Material {
    type Err = MaterialError;

    fn from_str(text: &str) -> Result<Material, MaterialError> {
        let bad = || MaterialError(text.to_string());
        let (white, black) = text.split_once(['v', 'V']).ok_or_else(bad)?;
        let side = |s: &str| -> Result<(u8, u8), MaterialError> {
            let mut men = 0u8;
            let mut kings = 0u8;
            for ch in s.chars() {
                match ch {
                    'K' | 'k' => kings += 1,
                    'M' | 'm' => men += 1,
                    _ => return Err(bad()),
                }
                if men as u32 + kings as u32 > 64 {
                    return Err(bad());
                }
            }
            if men + kings == 0 {
                return Err(bad());
            }
            Ok((men, kings))
        };
        let (wm, wk) = side(white)?;
        let (bm, bk) = side(black)?;
        Ok(Material::new(wm, wk, bm, bk))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trip() {
        let m: Material = "KKMvK".parse().unwrap();
        assert_eq!(m, Material::new(1, 2, 0, 1));
        assert_eq!(m.to_string(), "KKMvK");
        assert!("KKvX".parse::<Material>().is_err());
        assert!("KK".parse::<Material>().is_err());
        assert!("vK".parse::<Material>().is_err());
    }

    #[test]
    fn waves_respect_dependencies() {
        let waves = Material::waves(4);
        let mut seen = Vec::new();
        for wave in &waves {
            for m in wave {
                for s in m.successors() {
                    assert!(seen.contains(&s), "{m} needs {s} from an earlier wave");
                }
            }
            seen.extend(wave.iter().copied());
        }
        assert_eq!(seen.len(), Material::all_up_to(4).len());
    }
}
