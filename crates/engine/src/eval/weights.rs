//! Evaluation weights: data, per variant. Tuned weights live in `weights/<id>.toml` (embedded at
//! build time, made by `damspel tune`); a variant without a file gets weights derived from its
//! rules (how strong its kings are).

use damspel_rules::spec::Range;
use damspel_rules::Variant;
use serde::{Deserialize, Serialize};

/// The features, in order (see `Evaluator::features`).
pub const FEATURES: [&str; FEATURE_COUNT] = [
    "man",
    "king",
    "advance",
    "advance2",
    "mobility",
    "centre",
    "edge",
    "back_rank",
    "king_only",
    "balance",
];
pub const FEATURE_COUNT: usize = 10;

/// The largest weight a file may give, in centi-men per feature unit (ten men): tuned weights
/// are a few hundred at most, and the evaluation's sums stay far from the scores of a win.
pub const MAX_WEIGHT: i32 = 1_000;

mod tuned {
    include!(concat!(env!("OUT_DIR"), "/tuned_weights.rs"));
}

/// One weight per feature, for the opening and for the endgame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    pub opening: [i32; FEATURE_COUNT],
    pub endgame: [i32; FEATURE_COUNT],
    /// Where the weights come from ("tuned: weights/turkish.toml", "derived from the rules").
    pub source: String,
    /// The command that made them, as a weights file records it.
    pub made_by: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    #[error("{file}: {reason}")]
    Invalid { file: String, reason: String },
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WeightsFile {
    variant: String,
    /// How the weights were made (the command).
    made_by: String,
    opening: Table,
    endgame: Table,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    man: i32,
    king: i32,
    advance: i32,
    advance2: i32,
    mobility: i32,
    centre: i32,
    edge: i32,
    back_rank: i32,
    king_only: i32,
    balance: i32,
}

impl Table {
    fn to_array(&self) -> [i32; FEATURE_COUNT] {
        [
            self.man,
            self.king,
            self.advance,
            self.advance2,
            self.mobility,
            self.centre,
            self.edge,
            self.back_rank,
            self.king_only,
            self.balance,
        ]
    }

    fn from_array(a: &[i32; FEATURE_COUNT]) -> Table {
        Table {
            man: a[0],
            king: a[1],
            advance: a[2],
            advance2: a[3],
            mobility: a[4],
            centre: a[5],
            edge: a[6],
            back_rank: a[7],
            king_only: a[8],
            balance: a[9],
        }
    }
}

impl Weights {
    /// Weights derived from the rules alone: a man is 100; a king is worth more the more
    /// directions it moves in and the farther it goes.
    pub fn derived(variant: &Variant) -> Weights {
        let dirs = variant.kings.moves.iter().count() as i32;
        let king = match variant.kings.move_range {
            Range::Flying => 100 + 25 * dirs * 2,
            Range::Short => 100 + 25 * dirs / 2,
        }
        .clamp(130, 400);
        Weights {
            opening: [100, king, 3, 1, 2, 3, -2, 4, 0, 2],
            endgame: [100, king, 5, 2, 2, 1, 0, 0, 30, 0],
            source: "derived from the rules".into(),
            made_by: None,
        }
    }

    /// The weights Damspel plays a variant with: its tuned file, or derived ones.
    pub fn for_variant(variant: &Variant) -> Weights {
        tuned::FILES
            .iter()
            .find(|(id, _)| *id == variant.id)
            .and_then(|(id, text)| Weights::from_toml(&format!("weights/{id}.toml"), text, id).ok())
            .unwrap_or_else(|| Weights::derived(variant))
    }

    /// Reads a weights file for the variant `variant` (its id): one made for another variant, or
    /// with a weight outside ±`MAX_WEIGHT`, is refused (values of 2^31 made the engine lose
    /// every game to a random mover, silently).
    pub fn from_toml(file: &str, text: &str, variant: &str) -> Result<Weights, WeightsError> {
        let invalid = |reason: String| WeightsError::Invalid {
            file: file.to_string(),
            reason,
        };
        let parsed: WeightsFile = toml::from_str(text)
            .map_err(|e| invalid(e.to_string().lines().next().unwrap_or_default().to_string()))?;
        if parsed.variant != variant {
            return Err(invalid(format!(
                "the weights are for `{}`, not `{variant}` (its `variant` line)",
                parsed.variant
            )));
        }
        for (phase, table) in [("opening", &parsed.opening), ("endgame", &parsed.endgame)] {
            for (name, value) in FEATURES.iter().zip(table.to_array()) {
                // Not `abs()`: i32::MIN's wraps to itself in a release build and passed.
                if !(-MAX_WEIGHT..=MAX_WEIGHT).contains(&value) {
                    return Err(invalid(format!(
                        "{phase}.{name} = {value}: a weight is from -{MAX_WEIGHT} to \
                         {MAX_WEIGHT} (centi-men per feature unit)"
                    )));
                }
            }
        }
        Ok(Weights {
            opening: parsed.opening.to_array(),
            endgame: parsed.endgame.to_array(),
            source: format!("tuned: {file}"),
            made_by: Some(parsed.made_by),
        })
    }

    /// Writes a weights file.
    pub fn to_toml(&self, variant: &str, made_by: &str) -> String {
        let file = WeightsFile {
            variant: variant.to_string(),
            made_by: made_by.to_string(),
            opening: Table::from_array(&self.opening),
            endgame: Table::from_array(&self.endgame),
        };
        format!(
            "# Evaluation weights for `{variant}` (centi-men per feature unit).\n{}",
            toml::to_string(&file).expect("weights serialise")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tuned file embedded loads (a file refused would leave its variant the derived
    /// weights, silently).
    #[test]
    fn every_tuned_file_loads_for_its_variant() {
        assert!(!tuned::FILES.is_empty());
        for (id, text) in tuned::FILES {
            let weights = Weights::from_toml(id, text, id).unwrap();
            assert!(weights.source.starts_with("tuned"), "{id}");
        }
    }

    /// A file for another variant, or with a weight past `MAX_WEIGHT`, is refused and says why;
    /// the bound itself is accepted.
    #[test]
    fn weights_for_another_variant_or_out_of_range_are_refused() {
        let (id, text) = tuned::FILES[0];
        let other = Weights::from_toml("w.toml", text, "not-this-one").unwrap_err();
        assert!(
            other.to_string().contains(&format!("are for `{id}`")),
            "{other}"
        );
        let line = text
            .lines()
            .find(|l| l.starts_with("mobility = "))
            .expect("a mobility weight");
        for (value, ok) in [
            (MAX_WEIGHT, true),
            (-MAX_WEIGHT, true),
            (MAX_WEIGHT + 1, false),
            (-MAX_WEIGHT - 1, false),
            (i32::MAX, false),
            (i32::MIN, false),
        ] {
            let edited = text.replacen(line, &format!("mobility = {value}"), 1);
            let read = Weights::from_toml("w.toml", &edited, id);
            assert_eq!(read.is_ok(), ok, "{value}: {read:?}");
            if let Err(e) = read {
                assert!(
                    e.to_string().contains(&format!("mobility = {value}")),
                    "{e}"
                );
            }
        }
    }
}
