//! The catalogue a run works with: the built-in variants plus the user's files.

use std::path::PathBuf;

use anyhow::Result;
use damspel_rules::{Catalogue, CatalogueError, MAX_VARIANT_FILE_LEN};

pub fn load(files: &[PathBuf]) -> Result<Catalogue> {
    let mut catalogue = Catalogue::builtin();
    let mut sources = Vec::new();
    for path in files {
        let text = crate::files::read_text(path, MAX_VARIANT_FILE_LEN, "variant file")?;
        sources.push((path.display().to_string(), text));
    }
    let refs: Vec<(&str, &str)> = sources
        .iter()
        .map(|(f, t)| (f.as_str(), t.as_str()))
        .collect();
    catalogue.add_sources(&refs)?;
    Ok(catalogue)
}

/// An error as the command line shows it: its causes in turn (a cause its message already ends
/// with is not said again: the library errors name their cause, "database a.db: file is not a
/// database"), and an unknown variant id names the nearest ids instead of all of them.
pub fn explain(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let said = cause.to_string();
        if text.ends_with(&said) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&said);
    }
    let Some(CatalogueError::Unknown { name, known }) = e
        .chain()
        .find_map(|cause| cause.downcast_ref::<CatalogueError>())
    else {
        return text;
    };
    let unknown = CatalogueError::Unknown {
        name: name.clone(),
        known: known.clone(),
    }
    .to_string();
    text.replace(&unknown, &unknown_variant(name, known))
}

/// "unknown variant `turkis`; did you mean turkish? (...)": the ids within a small distance
/// (Jaro-Winkler similarity, which favours a shared beginning), best first.
fn unknown_variant(name: &str, known: &[String]) -> String {
    let lower = name.to_lowercase();
    let mut near: Vec<(f64, &String)> = known
        .iter()
        .map(|id| (strsim::jaro_winkler(&lower, id), id))
        .filter(|(similarity, _)| *similarity >= 0.8)
        .collect();
    near.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let list = format!("`damspel variants` lists all {}", known.len());
    let name = damspel_rules::quoted(name);
    match near.len() {
        0 => format!("unknown variant `{name}` ({list})"),
        _ => {
            let ids: Vec<&str> = near.iter().take(3).map(|(_, id)| id.as_str()).collect();
            format!(
                "unknown variant `{name}`; did you mean {}? ({list})",
                ids.join(", ")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::explain;

    /// An error whose message names its cause, as the libraries' (thiserror's
    /// `#[error("database {path}: {source}")]`) do.
    #[derive(Debug)]
    struct Named {
        path: String,
        source: std::io::Error,
    }

    impl std::fmt::Display for Named {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "database {}: {}", self.path, self.source)
        }
    }

    impl std::error::Error for Named {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.source)
        }
    }

    /// A cause is said once, whether its error's message names it or a context adds it.
    #[test]
    fn each_cause_is_said_once() {
        let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let named = anyhow::Error::new(Named {
            path: "a.db".into(),
            source: io(),
        });
        assert_eq!(explain(&named), "database a.db: no such file");
        let context = anyhow::Error::new(io()).context("cannot read b.pdn");
        assert_eq!(explain(&context), "cannot read b.pdn: no such file");
    }
}
