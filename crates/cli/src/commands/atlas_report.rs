//! `damspel atlas report`: the atlas database read back as a static HTML report with SVG plots
//! (the metrics and the pages are crates/atlas-report's; this only names the paths and says
//! where the report went).

use std::path::PathBuf;

use anyhow::Result;

#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// The atlas database (SQLite, written by `damspel atlas run`); opened read-only.
    #[arg(long, value_name = "PATH")]
    pub db: PathBuf,
    /// Directory to write index.html, one page per variant and the SVG plots into (created if
    /// missing; files of the same names are replaced).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Write a small made-up atlas database to --db first (for trying the report and for the
    /// browser test), refusing to overwrite an existing file.
    #[arg(long, hide = true)]
    pub fixture: bool,
}

pub fn run(args: &ReportArgs) -> Result<()> {
    if args.fixture {
        if args.db.exists() {
            anyhow::bail!(
                "--fixture writes a new database, but {} exists",
                args.db.display()
            );
        }
        damspel_atlas_report::fixture::write(&args.db)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", args.db.display()))?;
    }
    let atlas = damspel_atlas_report::load(&args.db)?;
    let report = damspel_atlas_report::render(&atlas)?;
    // A database named as a page of the report in --out (`index.html`) would be replaced by it.
    if let Some(name) = report
        .files
        .keys()
        .find(|name| crate::files::same_file(&args.out.join(name), &args.db))
    {
        anyhow::bail!(
            "cannot write {}: it is the database {}, which would be replaced; name another --out",
            args.out.join(name).display(),
            args.db.display()
        );
    }
    report.write(&args.out)?;
    println!(
        "Atlas report of {} variant(s) and budget(s) written to {} ({} files)",
        atlas.variants.len(),
        args.out.join("index.html").display(),
        report.files.len()
    );
    Ok(())
}
