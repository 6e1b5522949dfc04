//! Probing: the tables of one variant found in a folder, memory-mapped, each block
//! decompressed when first needed and kept in a small cache.

use std::collections::HashMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use damspel_rules::{Bits, Move, Position, Rules};
use memmap2::Mmap;

use crate::format::{decode_header, read_block, Header};
use crate::index::Indexer;
use crate::limit::limit_plies;
use crate::material::Material;
use crate::solve::drawn_by_material;
use crate::store::{variant_dir, variant_hash, EXTENSION};
use crate::value::{decode, Probe, Value};
use crate::Error;

/// Decompressed blocks kept per table (64 KiB each).
const CACHED_BLOCKS: usize = 64;

struct Table {
    map: Mmap,
    header: Header,
    indexer: Indexer,
    path: PathBuf,
    cache: Mutex<HashMap<usize, Arc<Vec<u16>>>>,
}

impl Table {
    fn code(&self, slot: u64) -> Option<u16> {
        let b = (slot / self.header.block as u64) as usize;
        let within = (slot % self.header.block as u64) as usize;
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(block) = cache.get(&b) {
            return block.get(within).copied();
        }
        let block = Arc::new(read_block(&self.header, &self.map, b).ok()?);
        if cache.len() >= CACHED_BLOCKS {
            cache.clear();
        }
        cache.insert(b, block.clone());
        block.get(within).copied()
    }
}

/// The tables of one variant in a folder.
pub struct Tablebase<B: Bits> {
    rules: Rules<B>,
    tables: HashMap<Material, Table>,
}

/// A legal move and what the tables say about the position after it (for the side to move
/// there, the opponent).
#[derive(Clone, Copy, Debug)]
pub struct MoveProbe<B: Bits> {
    pub mv: Move<B>,
    pub after: Probe,
}

/// Maps a file. The map is read-only; a table file is only ever replaced by a rename, never
/// written in place, so its pages do not change under the map.
#[allow(unsafe_code)]
fn map(file: &File) -> std::io::Result<Mmap> {
    // SAFETY: see above; a file truncated by someone else would be a bug outside Damspel.
    unsafe { Mmap::map(file) }
}

impl<B: Bits> Tablebase<B> {
    /// Opens every table of the variant in `dir` (`dir/<variant id>/*.dtb`). A table made for
    /// other rules data, another format version, or damaged, is an error naming the file: the
    /// folder must be rebuilt (or the file removed). No folder at all means no tables.
    pub fn open(dir: &Path, rules: &Rules<B>) -> Result<Tablebase<B>, Error> {
        let hash = variant_hash(rules.variant());
        let folder = variant_dir(dir, rules.variant());
        let mut tables = HashMap::new();
        let entries = match fs::read_dir(&folder) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Tablebase {
                    rules: rules.clone(),
                    tables,
                })
            }
            Err(e) => return Err(Error::io(&folder, e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(&folder, e))?;
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some(EXTENSION) {
                continue;
            }
            let Some(material) = path
                .file_stem()
                .and_then(|s| s.to_str())
                .and_then(|s| s.parse::<Material>().ok())
            else {
                continue;
            };
            let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
            let map = map(&file).map_err(|e| Error::io(&path, e))?;
            let header = decode_header(&path, &map, hash, Some(material))?;
            let indexer = Indexer::new(rules, material);
            if indexer.len() != header.slots {
                return Err(Error::Corrupt {
                    path,
                    reason: "slot count does not match the signature".into(),
                });
            }
            tables.insert(
                material,
                Table {
                    map,
                    header,
                    indexer,
                    path,
                    cache: Mutex::new(HashMap::new()),
                },
            );
        }
        Ok(Tablebase {
            rules: rules.clone(),
            tables,
        })
    }

    pub fn rules(&self) -> &Rules<B> {
        &self.rules
    }

    /// The signatures present, in order.
    pub fn materials(&self) -> Vec<Material> {
        let mut m: Vec<Material> = self.tables.keys().copied().collect();
        m.sort_by_key(|m| (m.total(), *m));
        m
    }

    /// The header of a signature's table (counts, longest wins), if present.
    pub fn header(&self, material: Material) -> Option<&Header> {
        self.tables.get(&material).map(|t| &t.header)
    }

    /// The file of a signature's table, if present.
    pub fn path(&self, material: Material) -> Option<&Path> {
        self.tables.get(&material).map(|t| t.path.as_path())
    }

    /// The largest number of pieces every signature of which is present (0 if none).
    pub fn complete_up_to(&self) -> u8 {
        let mut n = 0;
        while n < 64
            && Material::all_up_to(n + 1)
                .iter()
                .all(|m| self.tables.contains_key(m))
        {
            n += 1;
        }
        n
    }

    /// The position in a slot of a signature's table (for examples), if valid.
    pub fn position(&self, material: Material, slot: u64) -> Option<Position<B>> {
        self.tables
            .get(&material)
            .and_then(|t| t.indexer.position(&self.rules, slot))
    }

    /// Value and distance of a position for its side to move, with the variant's limit beside
    /// it; None when its material is not in the tables.
    pub fn probe(&self, pos: &Position<B>) -> Option<Probe> {
        let side = pos.side_to_move();
        let (value, distance) = if pos.pieces(side).is_empty() {
            (Value::Loss, 0)
        } else if pos.pieces(!side).is_empty() {
            (Value::Win, 0)
        } else {
            let table = self.tables.get(&Material::of(pos))?;
            decode(table.code(table.indexer.index(pos))?)?
        };
        let limit = limit_plies(&self.rules, pos);
        Some(Probe {
            value,
            distance,
            limit,
            cursed: value != Value::Draw && limit.is_some_and(|l| distance > l),
        })
    }

    /// Every legal move with the probe of the position after it; None when one of them is
    /// not in the tables; none where the game is over (one piece each, where that draws).
    pub fn probe_moves(&self, pos: &Position<B>) -> Option<Vec<MoveProbe<B>>> {
        if drawn_by_material(&self.rules, pos) {
            // One piece each: the game is over, drawn (as `Game::legal_moves` has no move).
            return Some(Vec::new());
        }
        self.rules
            .moves(pos)
            .into_iter()
            .map(|mv| {
                self.probe(&pos.play(&mv))
                    .map(|after| MoveProbe { mv, after })
            })
            .collect()
    }
}
