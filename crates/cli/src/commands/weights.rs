//! `damspel weights ID [--derived]`: the evaluation weights a variant plays with, as a weights
//! file (so a tuned-against-untuned match can be reproduced from the command line).

use anyhow::Result;
use damspel_engine::eval::FEATURES;
use damspel_engine::Weights;
use damspel_rules::Catalogue;

pub fn run(catalogue: &Catalogue, id: &str, derived: bool, json: bool) -> Result<()> {
    let variant = catalogue.get(id)?;
    let weights = if derived {
        Weights::derived(&variant)
    } else {
        Weights::for_variant(&variant)
    };
    let made_by = if derived {
        format!("damspel weights {} --derived", variant.id)
    } else {
        weights
            .made_by
            .clone()
            .unwrap_or_else(|| weights.source.clone())
    };
    if json {
        let table = |w: &[i32]| -> serde_json::Map<String, serde_json::Value> {
            FEATURES
                .iter()
                .zip(w)
                .map(|(name, &value)| (name.to_string(), value.into()))
                .collect()
        };
        let out = serde_json::json!({
            "variant": variant.id,
            "made_by": made_by,
            "source": weights.source,
            "opening": table(&weights.opening),
            "endgame": table(&weights.endgame),
        });
        println!("{}", crate::files::json_text(&out)?);
    } else {
        print!("{}", weights.to_toml(&variant.id, &made_by));
    }
    Ok(())
}
