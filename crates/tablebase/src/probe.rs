//! Probing: the tables of one variant found in a folder, each checked whole when opened, each
//! block read and decompressed when first needed and kept in a small cache.
//!
//! Blocks are read from the file, not memory-mapped: a table copied over or truncated while a
//! program probes it then makes its reads fail (the position is not in the tables) instead of
//! killing the program with SIGBUS, as a map's pages past the file's new end did (the web
//! server and every game it held). The file is opened for each block read, not held open: a
//! variant has up to hundreds of tables, and descriptors held for each would run a server out
//! of them. A file that is no longer the one checked (another length, time or inode) is checked
//! again whole before a block of it is used.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use damspel_rules::{Bits, Move, Position, Rules};
use xxhash_rust::xxh3::Xxh3;

use crate::format::{block_range, decode_block, parse_header, Header, MAX_HEADER};
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
    header: Header,
    indexer: Indexer,
    path: PathBuf,
    cache: Mutex<Cache>,
}

/// The file as last checked, and the blocks read from it.
struct Cache {
    checked: Identity,
    /// The file as last found not to be the table checked: not read through again while it
    /// stays so (each probe of a search would read a whole table).
    refused: Option<Identity>,
    blocks: HashMap<usize, Arc<Vec<u16>>>,
}

/// What tells a file's contents changed without reading them.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Identity {
    len: u64,
    modified: Option<std::time::SystemTime>,
    inode: u64,
}

impl Identity {
    fn of(file: &File) -> std::io::Result<Identity> {
        let meta = file.metadata()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let inode = 0;
        Ok(Identity {
            len: meta.len(),
            modified: meta.modified().ok(),
            inode,
        })
    }
}

impl Table {
    /// The code of a slot; none when its block cannot be read (the file changed under us).
    fn code(&self, slot: u64) -> Option<u16> {
        let b = (slot / self.header.block as u64) as usize;
        let within = (slot % self.header.block as u64) as usize;
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(block) = cache.blocks.get(&b) {
            return block.get(within).copied();
        }
        let mut file = File::open(&self.path).ok()?;
        let now = Identity::of(&file).ok()?;
        if now != cache.checked {
            if cache.refused == Some(now) {
                return None;
            }
            let same = check_file(
                &self.path,
                &mut file,
                self.header.variant_hash,
                self.header.material,
            )
            .is_ok_and(|header| header == self.header);
            if !same {
                cache.refused = Some(now);
                return None;
            }
            cache.checked = now;
            file.seek(SeekFrom::Start(0)).ok()?;
        }
        let (start, end) = block_range(&self.header, b);
        let mut packed = vec![0; (end - start) as usize];
        file.seek(SeekFrom::Start(start)).ok()?;
        file.read_exact(&mut packed).ok()?;
        let block = Arc::new(decode_block(&self.header, b, &packed).ok()?);
        if cache.blocks.len() >= CACHED_BLOCKS {
            cache.blocks.clear();
        }
        cache.blocks.insert(b, block.clone());
        block.get(within).copied()
    }
}

/// Reads a table file through once: its header (the first bytes, kept) and its checksum.
fn check_file(
    path: &Path,
    file: &mut File,
    variant_hash: u64,
    material: Material,
) -> Result<Header, Error> {
    let io = |e| Error::io(path, e);
    let len = file.metadata().map_err(io)?.len();
    let data_len = len.saturating_sub(8);
    let mut head = Vec::new();
    let mut hasher = Xxh3::new();
    let mut chunk = vec![0u8; 1 << 20];
    let mut at = 0u64;
    while at < data_len {
        let n = chunk.len().min((data_len - at) as usize);
        file.read_exact(&mut chunk[..n]).map_err(io)?;
        hasher.update(&chunk[..n]);
        if head.len() < MAX_HEADER {
            let keep = n.min(MAX_HEADER - head.len());
            head.extend_from_slice(&chunk[..keep]);
        }
        at += n as u64;
    }
    let mut kept = [0u8; 8];
    let sum = if len >= 8 {
        file.read_exact(&mut kept).map_err(io)?;
        Some((hasher.digest(), u64::from_le_bytes(kept)))
    } else {
        None
    };
    parse_header(path, &head, len, sum, variant_hash, Some(material))
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
            let mut file = File::open(&path).map_err(|e| Error::io(&path, e))?;
            let checked = Identity::of(&file).map_err(|e| Error::io(&path, e))?;
            let header = check_file(&path, &mut file, hash, material)?;
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
                    header,
                    indexer,
                    path,
                    cache: Mutex::new(Cache {
                        checked,
                        refused: None,
                        blocks: HashMap::new(),
                    }),
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
