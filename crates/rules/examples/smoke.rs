use damspel_rules::*;
fn main() {
    let cat = Catalogue::builtin();
    for id in [
        "turkish",
        "international",
        "killer",
        "american",
        "russian",
        "brazilian",
    ] {
        let v = cat.get(id).unwrap();
        with_rules!(v, |rules| {
            let pos = Position::start(&rules);
            for dups in [Duplicates::Keep, Duplicates::Merge] {
                let t = std::time::Instant::now();
                let counts: Vec<u64> = (1..=7).map(|d| perft(&rules, &pos, d, dups)).collect();
                println!("{id} {dups:?} {counts:?} {:?}", t.elapsed());
            }
        });
    }
}
