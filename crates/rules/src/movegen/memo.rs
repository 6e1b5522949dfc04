//! The capture walk's memory of states already expanded. Two sequences of one piece that stand
//! on the same square having taken the same pieces (and agree on the little else the rules look
//! at: piece kind, previous direction, ...) have the same continuations, so the second arrival
//! reuses what the first found instead of walking them again. A sink that lists distinct moves
//! needs nothing back (the first arrival listed them); a sink that counts sequences gets the
//! state's outcomes with their numbers of sequences.

use rustc_hash::FxHashMap;

use crate::bitboard::Bits;

/// A complete capture as the memo keeps it: where it ends, what it took, and by how many
/// sequences from the state it was reached.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Outcome<B: Bits> {
    pub to: u8,
    pub promotes: bool,
    pub captured: B,
    pub value: u32,
    pub sequences: u64,
}

/// What an expanded state led to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    /// Whether the state has a jump (the completion rule then forbids stopping on it).
    pub found: bool,
    start: u32,
    len: u32,
}

/// The most states a walk remembers (some 60 bytes each): past them it walks on without
/// remembering more, slower but in bounded memory.
const MAX_STATES: usize = 1 << 21;

/// A state: the pieces taken, and the square, the piece and the route filter's state packed.
pub(crate) type Key<B> = (B, u32);

#[derive(Default)]
pub(crate) struct Memo<B: Bits> {
    index: FxHashMap<Key<B>, Entry>,
    /// Outcomes of every expanded state, each entry a range.
    outcomes: Vec<Outcome<B>>,
    /// Outcomes found below the states being expanded (counting walks only).
    log: Vec<Outcome<B>>,
    /// States being expanded.
    open: u32,
}

impl<B: Bits> Memo<B> {
    #[inline]
    pub fn get(&self, key: &Key<B>) -> Option<Entry> {
        self.index.get(key).copied()
    }

    pub fn outcomes(&self, entry: Entry) -> &[Outcome<B>] {
        &self.outcomes[entry.start as usize..(entry.start + entry.len) as usize]
    }

    /// Starts expanding a state; returns the mark to pass to `finish`.
    #[inline]
    pub fn begin(&mut self) -> usize {
        self.open += 1;
        self.log.len()
    }

    /// Notes again, for the states being expanded, the outcomes of a state reached once more.
    pub fn replayed(&mut self, entry: Entry) {
        if self.open > 0 {
            let range = entry.start as usize..(entry.start + entry.len) as usize;
            self.log.extend_from_slice(&self.outcomes[range]);
        }
    }

    /// Notes an outcome for the states being expanded (counting walks).
    #[inline]
    pub fn record(&mut self, outcome: Outcome<B>) {
        if self.open > 0 {
            self.log.push(outcome);
        }
    }

    /// Ends expanding the state `key`. With `counts`, its outcomes (logged since `mark`) are
    /// merged (one per move, sequences added) and only the most valuable are kept: under the
    /// majority rule a lesser one can never be played after any route to this state.
    pub fn finish(&mut self, key: Key<B>, mark: usize, found: bool, counts: bool) {
        if self.index.len() >= MAX_STATES {
            // Full: the outcomes stay logged for the states still open, nothing is remembered.
            self.open -= 1;
            return;
        }
        self.open -= 1;
        let mut entry = Entry {
            found,
            start: 0,
            len: 0,
        };
        if counts {
            let mut found_here = self.log.split_off(mark);
            let best = found_here.iter().map(|o| o.value).max().unwrap_or(0);
            found_here.retain(|o| o.value == best);
            found_here.sort_unstable_by_key(|o| (o.captured, o.to, o.promotes));
            found_here.dedup_by(|later, first| {
                let same = later.captured == first.captured
                    && later.to == first.to
                    && later.promotes == first.promotes;
                if same {
                    first.sequences = first.sequences.saturating_add(later.sequences);
                }
                same
            });
            entry.start = self.outcomes.len() as u32;
            entry.len = found_here.len() as u32;
            self.outcomes.extend_from_slice(&found_here);
            if self.open > 0 {
                self.log.extend_from_slice(&found_here);
            }
        }
        self.index.insert(key, entry);
    }
}
