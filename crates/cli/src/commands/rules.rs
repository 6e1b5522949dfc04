//! `damspel rules ID`

use anyhow::Result;
use damspel_rules::Catalogue;

pub fn run(catalogue: &Catalogue, id: &str, json: bool) -> Result<()> {
    let variant = catalogue.get(id)?;
    let page = variant.rules_page();
    if json {
        println!("{}", crate::files::json_text(&page)?);
        return Ok(());
    }
    println!("{} ({})", page.name, page.id);
    println!("{}", page.description);
    for section in &page.sections {
        println!();
        println!("{}", section.title);
        for line in &section.lines {
            println!("  - {line}");
        }
        if section.title == "Board and setup" {
            println!();
            let g = &variant.geometry;
            for (i, row) in page.diagram.iter().enumerate() {
                let rank = g.height() as usize - i;
                let cells: Vec<String> = row.chars().map(|c| c.to_string()).collect();
                println!("    {rank:>2} {}", cells.join(" "));
            }
            let files: Vec<String> = (0..g.width())
                .map(|x| ((b'a' + x) as char).to_string())
                .collect();
            println!("       {}", files.join(" "));
        }
    }
    Ok(())
}
