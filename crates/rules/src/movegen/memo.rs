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
    /// Jumps walked to expand it: what forgetting it would cost.
    work: u32,
}

/// The most states a walk remembers (some 60 bytes each): when full it forgets the cheaper half
/// (those whose expansion walked fewest jumps), slower but in bounded memory. Listings (what a
/// server or an engine asks for) get 2 million, some 120 MB; counts of sequences (perft's
/// "paths", asked for by a person) 8 million.
const MAX_STATES: usize = 1 << 21;
const MAX_COUNTED_STATES: usize = 1 << 23;

/// What a state remembers of the captures it leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Counts {
    /// Only whether it has a jump (a listing sees each move once, at its first route).
    Nothing,
    /// Each move with its number of sequences.
    PerMove,
    /// The number of sequences of the most valuable captures.
    Total,
}

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
    /// Forgets every state (the walk starts over on another board), keeping the room.
    pub fn clear(&mut self) {
        self.index.clear();
        self.outcomes.clear();
        self.log.clear();
        self.open = 0;
    }

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

    /// Ends expanding a state without remembering it: its walk was cut short (a budget), so
    /// what it found is not all it leads to, and a later walk that met it would be misled.
    pub fn abandon(&mut self, mark: usize) {
        self.open -= 1;
        self.log.truncate(mark);
    }

    /// Ends expanding the state `key`. With `counts`, its outcomes (logged since `mark`) are
    /// merged (one per move, sequences added) and only the most valuable are kept: under the
    /// majority rule a lesser one can never be played after any route to this state.
    /// `work` is the number of jumps its expansion walked.
    pub fn finish(&mut self, key: Key<B>, mark: usize, found: bool, counts: Counts, work: u64) {
        self.open -= 1;
        let cap = match counts {
            Counts::Nothing => MAX_STATES,
            Counts::PerMove | Counts::Total => MAX_COUNTED_STATES,
        };
        if self.index.len() >= cap {
            self.forget_cheaper_half();
        }
        let mut entry = Entry {
            found,
            start: 0,
            len: 0,
            work: work.min(u32::MAX as u64) as u32,
        };
        if counts != Counts::Nothing {
            let best = self.log[mark..].iter().map(|o| o.value).max().unwrap_or(0);
            let mut kept = mark;
            for i in mark..self.log.len() {
                if self.log[i].value == best {
                    self.log[kept] = self.log[i];
                    kept += 1;
                }
            }
            self.log.truncate(kept);
            match counts {
                Counts::Total if kept > mark => {
                    // One outcome stands for all: only the number of sequences is wanted.
                    let total = self.log[mark..]
                        .iter()
                        .fold(0u64, |acc, o| acc.saturating_add(o.sequences));
                    self.log.truncate(mark + 1);
                    self.log[mark].sequences = total;
                }
                _ => {
                    let here = &mut self.log[mark..];
                    here.sort_unstable_by_key(|o| (o.captured, o.to, o.promotes));
                    let mut n = 0;
                    for i in 0..here.len() {
                        if n > 0
                            && here[n - 1].captured == here[i].captured
                            && here[n - 1].to == here[i].to
                            && here[n - 1].promotes == here[i].promotes
                        {
                            here[n - 1].sequences =
                                here[n - 1].sequences.saturating_add(here[i].sequences);
                        } else {
                            here[n] = here[i];
                            n += 1;
                        }
                    }
                    self.log.truncate(mark + n);
                }
            }
            entry.start = self.outcomes.len() as u32;
            entry.len = (self.log.len() - mark) as u32;
            self.outcomes.extend_from_slice(&self.log[mark..]);
            if self.open == 0 {
                self.log.truncate(mark);
            }
        }
        self.index.insert(key, entry);
    }

    /// Forgets the states that were cheapest to expand (at least half of them): walking one
    /// again costs little, while an expensive one forgotten could cost as much as the whole walk.
    /// The outcomes of the states kept are packed again so memory stays bounded.
    #[cold]
    fn forget_cheaper_half(&mut self) {
        let mut works: Vec<u32> = self.index.values().map(|e| e.work).collect();
        let middle = works.len() / 2;
        let (_, &mut median, _) = works.select_nth_unstable(middle);
        drop(works);
        let mut outcomes = Vec::with_capacity(self.outcomes.len() / 2);
        let old = &self.outcomes;
        self.index.retain(|_, e| {
            if e.work <= median {
                return false;
            }
            let range = e.start as usize..(e.start + e.len) as usize;
            e.start = outcomes.len() as u32;
            outcomes.extend_from_slice(&old[range]);
            true
        });
        self.outcomes = outcomes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(to: u8, sequences: u64) -> Outcome<u64> {
        Outcome {
            to,
            promotes: false,
            captured: 1 << to,
            value: 1,
            sequences,
        }
    }

    /// Forgetting keeps the expensive states with their own outcomes (packed anew) and drops the
    /// cheap ones, whose outcomes no longer take memory.
    #[test]
    fn forgetting_keeps_the_expensive_half_and_their_outcomes() {
        let mut memo = Memo::<u64>::default();
        for i in 0..100u32 {
            let mark = memo.begin();
            memo.record(outcome((i % 60) as u8, u64::from(i) + 1));
            memo.finish((u64::from(i), i), mark, true, Counts::PerMove, u64::from(i));
        }
        memo.forget_cheaper_half();
        assert_eq!(
            memo.index.len(),
            49,
            "works 51..=99 are above the median 50"
        );
        assert_eq!(memo.outcomes.len(), 49);
        for i in 0..100u32 {
            let entry = memo.get(&(u64::from(i), i));
            if i <= 50 {
                assert!(entry.is_none(), "state {i} should be forgotten");
                continue;
            }
            let entry = entry.expect("an expensive state is kept");
            let kept = memo.outcomes(entry);
            assert_eq!(kept.len(), 1);
            assert_eq!(kept[0].to, (i % 60) as u8);
            assert_eq!(kept[0].sequences, u64::from(i) + 1);
        }
    }
}
