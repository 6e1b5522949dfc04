//! The catalogue of variants: the built-in files (embedded at build time from `variants/`) and any
//! files a user adds. Resolves `extends` and checks each file into a `Variant`.

use std::fmt;

use crate::spec::VariantFile;
use crate::variant::{Variant, VariantError};

mod builtin {
    include!(concat!(env!("OUT_DIR"), "/builtin_variants.rs"));
}

/// Keys that describe one file and are never inherited through `extends`.
const OWN_KEYS: [&str; 6] = ["id", "name", "aliases", "block", "description", "extends"];

/// The longest variant file read, in bytes: the built-in ones are under 3 KiB, so this is far
/// above any real file and keeps a stray huge file from being parsed at all.
pub const MAX_FILE_LEN: usize = 64 * 1024;

/// The longest `extends` chain (the built-in ones are at most 3 deep).
pub const MAX_EXTENDS_DEPTH: usize = 16;

#[derive(Clone, Debug)]
struct Entry {
    file: String,
    id: String,
    table: toml::Table,
    /// The checked variant, kept once its file (and every file added with it) has checked, so
    /// that looking a name up costs a scan, not a parse of every file.
    variant: Option<Variant>,
}

/// All variants known to a program run.
#[derive(Clone, Debug, Default)]
pub struct Catalogue {
    entries: Vec<Entry>,
}

/// A variant name that does not resolve, or a file that does not check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CatalogueError {
    Unknown { name: String, known: Vec<String> },
    Invalid(VariantError),
}

impl fmt::Display for CatalogueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatalogueError::Unknown { name, known } => write!(
                f,
                "unknown variant `{}`; known variants: {}",
                crate::quoted(name),
                known.join(", ")
            ),
            CatalogueError::Invalid(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for CatalogueError {}

impl From<VariantError> for CatalogueError {
    fn from(e: VariantError) -> Self {
        CatalogueError::Invalid(e)
    }
}

impl Catalogue {
    /// The built-in variants.
    pub fn builtin() -> Catalogue {
        let mut catalogue = Catalogue::default();
        // Built-in files are checked by the test suite; a broken one is a build defect.
        if let Err(e) = catalogue.add_sources(builtin::FILES) {
            panic!("built-in variant file does not check: {e}");
        }
        catalogue
    }

    /// Adds a variant file (its name is used in messages) and checks it, returning its id.
    pub fn add_source(&mut self, file: &str, text: &str) -> Result<String, VariantError> {
        let ids = self.add_sources(&[(file, text)])?;
        Ok(ids.into_iter().next().expect("one file was added"))
    }

    /// Adds several files that may extend each other, in any order, and checks them all.
    /// Nothing is added if one of them does not check.
    pub fn add_sources(&mut self, files: &[(&str, &str)]) -> Result<Vec<String>, VariantError> {
        let before = self.entries.len();
        let result = self.try_add_sources(files);
        if result.is_err() {
            self.entries.truncate(before);
        }
        result
    }

    fn try_add_sources(&mut self, files: &[(&str, &str)]) -> Result<Vec<String>, VariantError> {
        let before = self.entries.len();
        for (file, text) in files {
            if text.len() > MAX_FILE_LEN {
                return Err(VariantError::new(
                    file,
                    None,
                    format!(
                        "the file has {} bytes; a variant file may have at most {MAX_FILE_LEN}",
                        text.len()
                    ),
                ));
            }
            let table: toml::Table = toml::from_str(text)
                .map_err(|e| VariantError::new(file, None, toml_error(text, &e)))?;
            let id = match table.get("id") {
                Some(toml::Value::String(id)) => id.clone(),
                Some(_) => return Err(VariantError::new(file, Some("id"), "must be a string")),
                None => return Err(VariantError::new(file, Some("id"), "missing")),
            };
            if let Some(existing) = self.entries.iter().find(|e| e.id == id) {
                if existing.file == *file && existing.table == table {
                    // The same file given twice (`--variant-file a.toml --variant-file a.toml`).
                    continue;
                }
                return Err(VariantError::new(
                    file,
                    Some("id"),
                    format!(
                        "`{id}` is already defined by {}; choose another id (use extends = \"{id}\" to build on it)",
                        existing.file
                    ),
                ));
            }
            self.entries.push(Entry {
                file: file.to_string(),
                id,
                table,
                variant: None,
            });
        }
        let mut names: Vec<(String, String)> = Vec::new();
        let mut checked = Vec::new();
        for i in 0..self.entries.len() {
            let variant = match &self.entries[i].variant {
                Some(v) => v.clone(),
                None => self.resolve(i)?,
            };
            for (i, name) in std::iter::once(&variant.id)
                .chain(&variant.aliases)
                .enumerate()
            {
                if let Some((_, owner)) = names.iter().find(|(n, _)| n == name) {
                    // The id (`id = "dama"`, another variant's alias), or one of the aliases.
                    let key = if i == 0 { "id" } else { "aliases" };
                    return Err(VariantError::new(
                        &variant.file,
                        Some(key),
                        format!("`{name}` is already a name of `{owner}`"),
                    ));
                }
                names.push((name.clone(), variant.id.clone()));
            }
            // A new file must give a playable game: the first player has a move at the start
            // (8x8 setup rows on a 10x10 board's numbers, say, can fill every square).
            if i >= before {
                let playable = crate::with_rules!(variant.clone(), |rules| {
                    rules.has_legal_move(&crate::Position::start(&rules))
                });
                if !playable {
                    return Err(VariantError::new(
                        &variant.file,
                        Some("setup"),
                        "the first player has no legal move in the start position",
                    ));
                }
                checked.push(variant);
            }
        }
        for (entry, variant) in self.entries[before..].iter_mut().zip(checked) {
            entry.variant = Some(variant);
        }
        Ok(self.entries[before..]
            .iter()
            .map(|e| e.id.clone())
            .collect())
    }

    /// The ids, in the order the files were added (built-ins sorted by file name).
    pub fn ids(&self) -> Vec<String> {
        self.entries.iter().map(|e| e.id.clone()).collect()
    }

    /// The variant with this id or alias.
    pub fn get(&self, name: &str) -> Result<Variant, CatalogueError> {
        let checked = || self.entries.iter().filter_map(|e| e.variant.as_ref());
        checked()
            .find(|v| v.id == name)
            .or_else(|| checked().find(|v| v.answers_to(name)))
            .cloned()
            .ok_or_else(|| CatalogueError::Unknown {
                name: name.to_string(),
                known: self.ids(),
            })
    }

    /// Every variant, checked.
    pub fn variants(&self) -> Result<Vec<Variant>, VariantError> {
        Ok(self
            .entries
            .iter()
            .filter_map(|e| e.variant.clone())
            .collect())
    }

    fn resolve(&self, index: usize) -> Result<Variant, VariantError> {
        let entry = &self.entries[index];
        let table = self.resolved_table(index, &mut Vec::new())?;
        let spec: VariantFile = serde_path_to_error::deserialize(table).map_err(|e| {
            let path = e.path().to_string();
            let key = (path != ".").then_some(path);
            // The inner message may repeat the path on a second line; the key is reported apart.
            let message = e.into_inner().to_string();
            let reason = plain(
                key.as_deref(),
                message.lines().next().unwrap_or_default().trim(),
            );
            VariantError::new(&entry.file, key.as_deref(), reason)
        })?;
        Variant::from_file(&entry.file, spec)
    }

    /// The table of entry `index` with what it extends merged in; `chain` holds the entries
    /// followed so far, the first the one asked for.
    fn resolved_table(
        &self,
        index: usize,
        chain: &mut Vec<usize>,
    ) -> Result<toml::Table, VariantError> {
        let entry = &self.entries[index];
        chain.push(index);
        let ids = |chain: &[usize]| {
            chain
                .iter()
                .map(|&i| self.entries[i].id.as_str())
                .collect::<Vec<_>>()
                .join(" -> ")
        };
        let mut table = entry.table.clone();
        match entry.table.get("extends") {
            None => {}
            Some(toml::Value::String(parent)) => {
                if chain.len() > MAX_EXTENDS_DEPTH {
                    // Blamed on the file the chain starts from (the user's), not on the file
                    // where it grew too long (often a built-in one).
                    return Err(VariantError::new(
                        &self.entries[chain[0]].file,
                        Some("extends"),
                        format!(
                            "the chain {} is longer than {MAX_EXTENDS_DEPTH} files",
                            ids(chain)
                        ),
                    ));
                }
                if chain.iter().any(|&i| self.entries[i].id == *parent) {
                    return Err(VariantError::new(
                        &entry.file,
                        Some("extends"),
                        format!("`{parent}` leads back to this file ({})", ids(chain)),
                    ));
                }
                // By its id, or by an alias (`extends = "dama"` builds on Turkish).
                let parent_index = self
                    .entries
                    .iter()
                    .position(|e| &e.id == parent)
                    .or_else(|| {
                        self.entries
                            .iter()
                            .position(|e| has_alias(&e.table, parent))
                    })
                    .ok_or_else(|| {
                        VariantError::new(
                            &entry.file,
                            Some("extends"),
                            format!("no variant has the id `{parent}`"),
                        )
                    })?;
                let mut base = self.resolved_table(parent_index, chain)?;
                for key in OWN_KEYS {
                    base.remove(key);
                }
                merge(&mut base, table);
                table = base;
            }
            Some(_) => {
                return Err(VariantError::new(
                    &entry.file,
                    Some("extends"),
                    "must be the id of another variant, as a string",
                ))
            }
        }
        Ok(table)
    }
}

/// Overlays `top` on `base`: sections (`[men]`, ...) merge key by key; a key's value, even an
/// inline table such as `white = { ranks = [1, 2] }`, replaces the inherited one whole.
fn merge(base: &mut toml::Table, top: toml::Table) {
    for (key, value) in top {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(section)), toml::Value::Table(keys)) => {
                for (k, v) in keys {
                    section.insert(k, v);
                }
            }
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

/// Whether a variant file's table lists `name` among its aliases.
fn has_alias(table: &toml::Table, name: &str) -> bool {
    match table.get("aliases") {
        Some(toml::Value::Array(aliases)) => aliases.iter().any(|a| a.as_str() == Some(name)),
        _ => false,
    }
}

/// A type error said in the words of a TOML file, not of the Rust types it is read into
/// (serde says "invalid type: string \"x\", expected i64" or "expected struct BoardSpec"); a
/// numeric key's range is named. Other messages are kept.
fn plain(key: Option<&str>, message: &str) -> String {
    let Some((found, expected)) = message
        .strip_prefix("invalid type: ")
        .and_then(|rest| rest.split_once(", expected "))
    else {
        return message.to_string();
    };
    let range = key.and_then(|k| {
        crate::spec::KEY_RANGES
            .iter()
            .find(|(name, _)| *name == k)
            .map(|(_, r)| r)
    });
    let expected = match (expected, range) {
        (_, Some(r)) => format!("a whole number from {} to {} ({})", r.min, r.max, r.why),
        ("i64" | "i32" | "u8" | "u16" | "u32" | "u64" | "usize", None) => "a whole number".into(),
        ("a sequence", None) => "a list".into(),
        ("a boolean", None) => "true or false".into(),
        // A key of names or of one-key tables (`halt`, `setup.white`): toml says no more
        // than this whatever was written.
        ("string only", None) => {
            return "a value of another type than this key takes (docs/variant-files.md lists \
                    what each key takes)"
                .into()
        }
        (e, None) if e.starts_with("struct ") || e == "a map" => "a table".into(),
        (e, None) => e.to_string(),
    };
    let found = [
        ("string ", "the text "),
        ("floating point ", "the number "),
        ("integer ", "the number "),
        ("boolean ", ""),
        ("map", "a table"),
        ("sequence", "a list"),
    ]
    .iter()
    .find_map(|(serde, toml)| {
        found
            .strip_prefix(serde)
            .map(|rest| format!("{toml}{rest}"))
    })
    .unwrap_or_else(|| found.to_string());
    format!("expected {expected}, not {found}")
}

/// A TOML syntax error in one line: where, and what. (toml's own text spans several lines,
/// quoting the whole source line, which may be kilobytes long.)
fn toml_error(text: &str, e: &toml::de::Error) -> String {
    let message = e.message().trim();
    match e.span() {
        Some(span) => {
            let before = text.get(..span.start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("TOML syntax error at line {line}, column {column}: {message}")
        }
        None => format!("TOML syntax error: {message}"),
    }
}
