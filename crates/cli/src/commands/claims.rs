//! `damspel claims`: the seeds' endgame claims settled from the tables, written as
//! docs/claims.md (issue 13, item 7). The figures and verdicts come from
//! `damspel_tablebase::claims`; this module builds missing tables (with --build) and writes
//! the page.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use damspel_notation::write_fen;
use damspel_rules::{with_rules, Bits, Catalogue, Rules};
use damspel_tablebase::claims::{settle, share, verdict, Claim, CLAIMS};
use damspel_tablebase::{build, build_slice, default_dir, Material, Tablebase};

pub struct Args {
    pub tb_dir: Option<PathBuf>,
    pub out: PathBuf,
    pub build: bool,
}

pub fn run(catalogue: &Catalogue, args: &Args) -> Result<()> {
    let dir = args.tb_dir.clone().unwrap_or_else(default_dir);
    // Opened before the tables are read or built (--build can take minutes).
    let mut out = crate::files::Output::open(&args.out, &[])?;
    let mut page = String::new();
    page.push_str(HEAD);
    for claim in CLAIMS {
        let variant = catalogue.get(claim.variant)?;
        let row = with_rules!(variant, |rules| row(&rules, claim, &dir, args.build))?;
        page.push_str(&row);
    }
    page.push_str(FOOT);
    out.replace(page.as_bytes())?;
    Ok(())
}

/// Builds what a claim needs: every table of 3 pieces, and its own signature from those.
fn ensure<B: Bits>(rules: &Rules<B>, material: Material, dir: &Path) -> Result<()> {
    build(rules, 3.min(material.total()), dir, 2, &|_| true)?;
    if material.total() > 3 {
        build_slice(rules, material, dir, 2, &|_| true)?;
    }
    Ok(())
}

fn row<B: Bits>(rules: &Rules<B>, claim: &Claim, dir: &Path, may_build: bool) -> Result<String> {
    let material: Material = claim.material.parse()?;
    let mut tb = Tablebase::open(dir, rules)?;
    if tb.header(material).is_none() {
        if !may_build {
            bail!(
                "{} {material}: no table in {} (run with --build)",
                claim.variant,
                dir.display()
            );
        }
        ensure(rules, material, dir)?;
        tb = Tablebase::open(dir, rules)?;
    }
    let s = settle(&tb, material).context("the table was just built")?;
    let [w, b] = s.sides;
    let pct = |p: u64, q: u64| format!("{:.1}%", 100.0 * share(p, q));
    let longest = match &s.longest {
        Some((d, pos)) => format!("{d} plies, `{}`", write_fen(&rules.variant().geometry, pos)),
        None => "none".into(),
    };
    let limit = match s.limit {
        Some(l) => format!("{l} plies"),
        None => "none".into(),
    };
    let fit = |p: u64, q: u64| if q == 0 { "–".to_string() } else { pct(p, q) };
    let fits = format!(
        "{} / {}",
        fit(w.white_wins_in_limit, w.white_wins),
        fit(b.white_wins_in_limit, b.white_wins)
    );
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| {} | {} | {} \"{}\" | {} / {} | {} / {} | {} | {} | {} | {} |",
        claim.variant,
        material,
        claim.source,
        claim.text,
        pct(w.white_wins, w.positions),
        pct(b.white_wins, b.positions),
        pct(w.quiet_white_wins, w.quiet),
        pct(b.quiet_white_wins, b.quiet),
        longest,
        limit,
        fits,
        verdict(claim, &s)
    );
    Ok(out)
}

const HEAD: &str = "# The seeds' endgame claims, settled

Written by `damspel claims --build --out docs/claims.md` (tables in the default folder, or
`--tb-dir`); do not edit by hand. Every figure counts every position of the material in the
variant's table (both colours' pieces anywhere they may stand, each side to move), from
complete retrograde analysis (docs/tablebases.md).

White is the side the claim is about: the stronger side (`KKvK`: two white kings against a
black king), or the man's side in a man against a king.

- **won**: the share of positions White wins under best play, with White to move / with Black
  to move. Only rules of the position count here (no legal move loses; one piece each draws
  where the variant says so); move-count rules are the *fits* column.
- **non-trivial**: the same share among the positions where **neither side has a capture
  available** (neither the side to move nor, were it to move, its opponent). This leaves out the
  wins by an immediate capture: what \"normally\" and \"in non-trivial positions\" ask.
- **longest win**: White's longest win in plies under best play (fastest win against the longest
  resistance), with a position of it (PDN FEN).
- **limit**: the variant's move limit for this material in plies with White to move, counted
  from the moment the material is reached (rule book 4.01 and §10 A1: 16 moves each = 32 plies
  for three pieces against a lone king, and for two pieces in killer, deferred-killer and both
  Hoogland variants; 5 moves each = 10 plies for two pieces elsewhere in the FMJD family; A3:
  Russian 15 moves of the stronger side; the Turkish family has none). For kings only, the
  no-progress rule where the variant has one.
- **fits**: the share of White's wins no longer than that limit (with White / Black to move).
- **verdict**: \"most\" means more than half of the non-trivial positions. A claim that a side
  wins holds if it wins most non-trivial positions within the limit with either side to move;
  holds only with the move if it does so only when it is to move; is false otherwise, naming the
  rule that makes it so.

| variant | material | claim | won (W / B to move) | non-trivial won | longest win | limit | fits | verdict |
|---|---|---|---|---|---|---|---|---|
";

const FOOT: &str = "
The 4-piece tables the claims need are built alone (`damspel tablebase build VARIANT --pieces 4
--slice KKKvK`, from the 3-piece set), not the whole 4-piece set. Measured on the 2-core
machine of this page, loaded by other builds: International KKKvK, 1,842,400 positions, 1.6 s
on 2 threads (0.3 MB); the killer-light and halt variants 2.0-3.9 s; Turkthic II KKKvK,
5,083,008 positions, 4.2 s. The whole page with every table it needs built from nothing:
22 s.

Other seeds (002, 003) were searched for endgame claims (\"against one\", \"against a lone\",
\"wins\") and make none.
";
