//! Perfect matchings in general graphs (Edmonds' blossoms), for the pairing test. Its graphs are
//! small (up to a few hundred tokens), dense and asked thousands of times by one listing: each
//! vertex's neighbours are a row of bits, the work space is kept between searches, and a search
//! ends at the first vertex no augmenting path reaches. (With petgraph's `maximum_matching`,
//! which builds a graph of nodes and edges and finds a maximum matching whatever it is, the
//! matchings and the graphs built for them took 72 % of the time of the audit's row with b4;
//! docs/capture-trials.md.)

const NONE: u32 = u32::MAX;

/// A graph on vertices `0..n`, each with its row of neighbours (`words` words of 64 bits).
pub(crate) struct Graph {
    n: usize,
    words: usize,
    rows: Vec<u64>,
}

impl Graph {
    /// A graph without edges on `n` vertices.
    pub fn new(n: usize) -> Self {
        let words = n.div_ceil(64);
        Graph {
            n,
            words,
            rows: vec![0; n * words],
        }
    }

    pub fn len(&self) -> usize {
        self.n
    }

    /// Words of a row (and of a set of vertices given to `add_row`).
    pub fn words(&self) -> usize {
        self.words
    }

    pub fn add_edge(&mut self, a: usize, b: usize) {
        self.rows[a * self.words + b / 64] |= 1 << (b % 64);
        self.rows[b * self.words + a / 64] |= 1 << (a % 64);
    }

    /// Joins `a` to every vertex of `set` (one way: the caller joins them back).
    pub fn add_row(&mut self, a: usize, set: &[u64]) {
        let row = &mut self.rows[a * self.words..(a + 1) * self.words];
        for (r, s) in row.iter_mut().zip(set) {
            *r |= s;
        }
    }

    /// Takes the vertices of `set` from `a`'s neighbours (one way).
    pub fn remove_row(&mut self, a: usize, set: &[u64]) {
        let row = &mut self.rows[a * self.words..(a + 1) * self.words];
        for (r, s) in row.iter_mut().zip(set) {
            *r &= !s;
        }
    }

    pub fn remove_edge(&mut self, a: usize, b: usize) {
        self.rows[a * self.words + b / 64] &= !(1 << (b % 64));
        self.rows[b * self.words + a / 64] &= !(1 << (a % 64));
    }

    fn row(&self, v: usize) -> &[u64] {
        &self.rows[v * self.words..(v + 1) * self.words]
    }
}

/// The work space of the search, kept between graphs.
#[derive(Default)]
pub(crate) struct Matcher {
    mate: Vec<u32>,
    parent: Vec<u32>,
    base: Vec<u32>,
    used: Vec<bool>,
    blossom: Vec<bool>,
    on_path: Vec<bool>,
    queue: Vec<u32>,
    /// Per vertex its number of neighbours, and per number where its vertices go (`greedy`).
    degree: Vec<u32>,
    count: Vec<u32>,
    /// The vertices of the last search's tree: the only ones whose marks are not clean.
    tree: Vec<u32>,
}

impl Matcher {
    /// Whether `graph` has a perfect matching; then `mate` gives it.
    pub fn perfect(&mut self, graph: &Graph) -> bool {
        let n = graph.len();
        if n % 2 == 1 {
            return false;
        }
        self.mate.clear();
        self.mate.resize(n, NONE);
        self.parent.clear();
        self.parent.resize(n, NONE);
        self.base.clear();
        self.base.extend(0..n as u32);
        self.used.clear();
        self.used.resize(n, false);
        self.blossom.clear();
        self.blossom.resize(n, false);
        self.on_path.clear();
        self.on_path.resize(n, false);
        self.tree.clear();
        self.greedy(graph);
        for root in 0..n {
            if self.mate[root] != NONE {
                continue;
            }
            // No augmenting path from an exposed vertex now means none after later
            // augmentations either: it stays exposed in a maximum matching.
            let Some(mut v) = self.augmenting_path(graph, root) else {
                return false;
            };
            while v != NONE as usize {
                let p = self.parent[v] as usize;
                let next = self.mate[p];
                self.mate[v] = p as u32;
                self.mate[p] = v as u32;
                v = next as usize;
            }
        }
        true
    }

    /// Matches each vertex, those with fewest neighbours first, to its first neighbour not yet
    /// matched: most vertices are matched without a search, and those that are hardest to
    /// match are not left to the end (the universal rows: a third of the searches of a greedy
    /// pass in the vertices' order). The order by counting: a sort costs as much as the pass.
    fn greedy(&mut self, graph: &Graph) {
        let n = graph.len();
        self.degree.clear();
        self.degree
            .extend((0..n).map(|v| graph.row(v).iter().map(|w| w.count_ones()).sum::<u32>()));
        self.count.clear();
        self.count.resize(n + 1, 0);
        for &d in &self.degree {
            self.count[d as usize] += 1;
        }
        let mut at = 0;
        for c in &mut self.count {
            (*c, at) = (at, at + *c);
        }
        self.queue.clear();
        self.queue.resize(n, 0);
        for (v, &d) in self.degree.iter().enumerate() {
            self.queue[self.count[d as usize] as usize] = v as u32;
            self.count[d as usize] += 1;
        }
        for &v in &self.queue {
            let v = v as usize;
            if self.mate[v] != NONE {
                continue;
            }
            if let Some(w) = neighbours(graph.row(v)).find(|&w| self.mate[w] == NONE) {
                self.mate[v] = w as u32;
                self.mate[w] = v as u32;
            }
        }
    }

    /// The vertex matched to `v` by the last perfect matching found.
    pub fn mate(&self, v: usize) -> usize {
        self.mate[v] as usize
    }

    /// Searches the alternating tree from `root`; returns the exposed vertex it reaches.
    fn augmenting_path(&mut self, graph: &Graph, root: usize) -> Option<usize> {
        for &v in &self.tree {
            let v = v as usize;
            self.used[v] = false;
            self.parent[v] = NONE;
            self.base[v] = v as u32;
        }
        self.tree.clear();
        self.tree.push(root as u32);
        self.used[root] = true;
        self.queue.clear();
        self.queue.push(root as u32);
        let mut head = 0;
        while head < self.queue.len() {
            let v = self.queue[head] as usize;
            head += 1;
            for to in neighbours(graph.row(v)) {
                if self.base[v] == self.base[to] || self.mate[v] == to as u32 {
                    continue;
                }
                let mate_to = self.mate[to];
                if to == root || (mate_to != NONE && self.parent[mate_to as usize] != NONE) {
                    // An odd cycle: its vertices become one, with base `lca`.
                    let lca = self.common_base(v, to);
                    self.mark_path(v, lca, to);
                    self.mark_path(to, lca, v);
                    // Every vertex of the blossom is in the tree.
                    for &i in &self.tree {
                        let i = i as usize;
                        if self.blossom[self.base[i] as usize] {
                            self.base[i] = lca as u32;
                            if !self.used[i] {
                                self.used[i] = true;
                                self.queue.push(i as u32);
                            }
                        }
                    }
                    for &i in &self.tree {
                        self.blossom[i as usize] = false;
                    }
                } else if self.parent[to] == NONE {
                    self.parent[to] = v as u32;
                    self.tree.push(to as u32);
                    if mate_to == NONE {
                        return Some(to);
                    }
                    self.used[mate_to as usize] = true;
                    self.queue.push(mate_to);
                    self.tree.push(mate_to);
                }
            }
        }
        None
    }

    /// The base of the blossom that the edge `a`-`b` closes: where their paths to the root meet.
    fn common_base(&mut self, mut a: usize, mut b: usize) -> usize {
        for &v in &self.tree {
            self.on_path[v as usize] = false;
        }
        loop {
            a = self.base[a] as usize;
            self.on_path[a] = true;
            match self.mate[a] {
                NONE => break,
                m => a = self.parent[m as usize] as usize,
            }
        }
        loop {
            b = self.base[b] as usize;
            if self.on_path[b] {
                return b;
            }
            b = self.parent[self.mate[b] as usize] as usize;
        }
    }

    /// Marks the blossoms on the path from `v` down to `base`, and points the path's parents
    /// the other way round the cycle (through `child`).
    fn mark_path(&mut self, mut v: usize, base: usize, mut child: usize) {
        while self.base[v] as usize != base {
            let m = self.mate[v] as usize;
            self.blossom[self.base[v] as usize] = true;
            self.blossom[self.base[m] as usize] = true;
            self.parent[v] = child as u32;
            child = m;
            v = self.parent[m] as usize;
        }
    }
}

/// The vertices of a row of bits.
fn neighbours(row: &[u64]) -> impl Iterator<Item = usize> + '_ {
    row.iter().enumerate().flat_map(|(w, &bits)| {
        let mut bits = bits;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let b = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(w * 64 + b)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[(usize, usize)]) -> Graph {
        let mut g = Graph::new(n);
        for &(a, b) in edges {
            g.add_edge(a, b);
        }
        g
    }

    /// Whether some perfect matching of the graph of `edges` (pairs `(a, b)` with `a < b`)
    /// covers the vertices `left`, by trying every partner of the lowest one.
    fn brute(edges: &[(usize, usize)], left: &mut [bool]) -> bool {
        let Some(a) = left.iter().position(|&l| l) else {
            return true;
        };
        left[a] = false;
        for &(x, b) in edges {
            if x == a && left[b] {
                left[b] = false;
                let found = brute(edges, left);
                left[b] = true;
                if found {
                    left[a] = true;
                    return true;
                }
            }
        }
        left[a] = true;
        false
    }

    #[test]
    fn a_triangle_with_tails_has_a_perfect_matching_and_a_star_has_none() {
        let edges = [(0, 1), (0, 2), (1, 2), (2, 3), (0, 4), (1, 5)];
        let mut m = Matcher::default();
        assert!(m.perfect(&graph(6, &edges)));
        check_mates(&m, 6, &edges);
        assert!(!m.perfect(&graph(4, &[(0, 1), (0, 2), (0, 3)])));
        assert!(!m.perfect(&graph(3, &[(0, 1), (1, 2)])));
    }

    /// A xorshift generator: the same graphs on every run.
    fn random() -> impl FnMut() -> u64 {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// Whether a matching of `m` is perfect in the graph of `edges`.
    fn check_mates(m: &Matcher, n: usize, edges: &[(usize, usize)]) {
        for v in 0..n {
            let w = m.mate(v);
            assert!(w < n && m.mate(w) == v && w != v, "{v}-{w} is a pair");
            assert!(edges.contains(&(v.min(w), v.max(w))), "{v}-{w} is an edge");
        }
    }

    /// Asserts that the matcher finds a perfect matching of the graph of `edges` on `n`
    /// vertices exactly when `expected`, and that the one it finds is one; returns `expected`.
    fn agrees(
        m: &mut Matcher,
        n: usize,
        edges: &[(usize, usize)],
        expected: bool,
        round: usize,
    ) -> bool {
        assert_eq!(
            m.perfect(&graph(n, edges)),
            expected,
            "round {round}, {n} vertices"
        );
        if expected {
            check_mates(m, n, edges);
        }
        expected
    }

    #[test]
    fn perfect_matchings_of_big_graphs_are_found_where_petgraph_finds_one() {
        // Graphs of up to 200 vertices (rows of several words) made like the pairing test's:
        // vertices on random sets of a few "squares", joined where their sets meet.
        let mut next = random();
        let mut m = Matcher::default();
        let (mut with, mut without) = (0, 0);
        for round in 0..400 {
            let n = 2 * (5 + next() as usize % 96);
            let squares = 8 + next() % 56;
            let sets: Vec<u64> = (0..n)
                .map(|_| {
                    let mut set = 0u64;
                    for _ in 0..1 + next() % 3 {
                        set |= 1 << (next() % squares);
                    }
                    set
                })
                .collect();
            let mut edges = Vec::new();
            for a in 0..n {
                for b in a + 1..n {
                    if sets[a] & sets[b] != 0 {
                        edges.push((a, b));
                    }
                }
            }
            // Every vertex a node, those without an edge too.
            let mut oracle = petgraph::graph::UnGraph::<(), ()>::new_undirected();
            for _ in 0..n {
                oracle.add_node(());
            }
            oracle.extend_with_edges(edges.iter().map(|&(a, b)| (a as u32, b as u32)));
            let expected = petgraph::algo::maximum_matching(&oracle).is_perfect();
            let count = if agrees(&mut m, n, &edges, expected, round) {
                &mut with
            } else {
                &mut without
            };
            *count += 1;
        }
        assert!(with > 50 && without > 50, "{with} with, {without} without");
    }

    #[test]
    fn perfect_matchings_are_found_where_and_only_where_they_exist() {
        // Random graphs, against a search over every pairing.
        let mut next = random();
        let mut m = Matcher::default();
        let (mut with, mut without) = (0, 0);
        for round in 0..3000 {
            let n = 2 + 2 * (round % 7);
            let density = next() % 100;
            let mut edges = Vec::new();
            for a in 0..n {
                for b in a + 1..n {
                    if next() % 100 < density {
                        edges.push((a, b));
                    }
                }
            }
            let expected = brute(&edges, &mut vec![true; n]);
            let count = if agrees(&mut m, n, &edges, expected, round) {
                &mut with
            } else {
                &mut without
            };
            *count += 1;
        }
        assert!(
            with > 500 && without > 500,
            "{with} with, {without} without"
        );
    }
}
