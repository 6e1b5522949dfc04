//! A capture's route, found backwards through the layers of its walk.

use super::*;

/// Finds a capture's route backwards through the layers of its walk. The capture stands on a
/// square of a node; some node of the layer before, with one piece fewer, had a square whose
/// jump over that piece arrives there: that jump is found by expanding that square alone, as
/// the walk did. Every node and square was reached from the start, so the walk back always
/// comes to it, and the route it finds is legal whether the walk went that way or another (an
/// aim only leaves nodes unexpanded).
#[derive(Default)]
pub(super) struct Routes<B: Bits> {
    /// The landing squares and the pieces taken, in order, of the last route found.
    pub(super) path: Vec<u8>,
    pub(super) order: Vec<u8>,
    arrivals: Vec<Arrival<B>>,
}

impl<B: Bits> Routes<B> {
    /// A route from `from` to `to` ending in node `i` of layer `t`; false if none was found.
    pub(super) fn find<const MAN: bool>(
        &mut self,
        walk: &mut Walk<'_, B>,
        history: &[Layer<B>],
        from: u8,
        t: usize,
        i: usize,
        to: u8,
    ) -> bool {
        let r = walk.rules;
        let jumps = walk.jumps;
        self.path.clear();
        self.order.clear();
        let (mut t, mut i, mut q) = (t, i, to);
        // How the capture arrived on `q`: a square where it ended, or one it went on from,
        // kept in a slot (a bit per slot, `ENDS` as the top one).
        let layer = &history[t];
        let mut kinds = (0..layer.slots)
            .filter(|&s| layer.squares(i)[s].has(q))
            .fold(0u16, |acc, s| acc | 1 << s);
        if layer.ends[i].has(q) {
            kinds |= 1 << 15;
        }
        // The squares on a line through `sq`: where the piece taken last before it stood, and
        // where the jump over that piece started.
        let lines = |sq: u8| {
            r.ray
                .iter()
                .fold(B::ZERO, |acc, ray| acc | ray[sq as usize])
        };
        let found = 'walk: loop {
            if t == 0 {
                break 'walk q == from;
            }
            let key = history[t].keys[i];
            let before = &history[t - 1];
            for victim in (key.0 & lines(q)).squares() {
                let captured = key.0 & !B::bit(victim);
                // The node before: a man may have been crowned by this jump, and under halt
                // rule II the piece taken before may have been a king or not.
                let kings: &[u8] = if MAN && key.1 & KING != 0 {
                    &[KING, 0]
                } else {
                    &[key.1 & KING]
                };
                let lasts: &[u8] = if walk.last_kind {
                    &[0, LAST_KING]
                } else {
                    &[0]
                };
                for flags in kings.iter().flat_map(|k| lasts.iter().map(move |l| k | l)) {
                    let Some(j) = before.find((captured, flags)) else {
                        continue;
                    };
                    let from_line = lines(victim);
                    for slot in 0..before.slots {
                        for p in (before.squares(j)[slot] & from_line).squares() {
                            let mut at = [B::ZERO; NO_DIRECTION + 1];
                            at[slot] = B::bit(p);
                            self.arrivals.clear();
                            walk.expand::<MAN>(
                                (captured, flags),
                                &at[..before.slots],
                                (t - 1) as u32,
                                &mut self.arrivals,
                            );
                            let arrives = self.arrivals.iter().any(|a| {
                                a.key == key
                                    && a.squares.has(q)
                                    && kinds & (1 << (a.slot as u16).min(15)) != 0
                            });
                            if arrives {
                                self.path.push(q);
                                self.order.push(victim);
                                (t, i, q) = (t - 1, j, p);
                                kinds = 1 << slot;
                                continue 'walk;
                            }
                        }
                    }
                }
            }
            break 'walk false;
        };
        walk.jumps = jumps;
        self.path.reverse();
        self.order.reverse();
        if found && r.king_captures_fly && !walk.immediate {
            self.straighten(r, from);
        }
        found
    }

    /// Under deferred removal a flying king that goes on straight after a jump sweeps over its
    /// landing squares without stopping: one sequence, written (and listed by the merged walk)
    /// with the square right behind the piece it took. A walk back may have come through
    /// another of them.
    pub(super) fn straighten(&mut self, r: &Rules<B>, from: u8) {
        let direction = |start: u8, victim: u8, landing: u8| {
            (0..8).find(|&d| {
                r.ray[d][start as usize].has(victim) && r.ray[d][victim as usize].has(landing)
            })
        };
        let mut start = from;
        let mut last = None;
        for k in 0..self.path.len() {
            let d = direction(start, self.order[k], self.path[k]);
            if let (Some(d), Some(before)) = (d, last) {
                if d == before {
                    self.path[k - 1] = r.next[self.order[k - 1] as usize][d];
                }
            }
            start = self.path[k];
            last = d;
        }
    }
}
