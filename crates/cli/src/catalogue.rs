//! The catalogue a run works with: the built-in variants plus the user's files.

use std::path::PathBuf;

use anyhow::{Context, Result};
use damspel_rules::Catalogue;

pub fn load(files: &[PathBuf]) -> Result<Catalogue> {
    let mut catalogue = Catalogue::builtin();
    let mut sources = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read variant file {}", path.display()))?;
        sources.push((path.display().to_string(), text));
    }
    let refs: Vec<(&str, &str)> = sources
        .iter()
        .map(|(f, t)| (f.as_str(), t.as_str()))
        .collect();
    catalogue.add_sources(&refs)?;
    Ok(catalogue)
}
