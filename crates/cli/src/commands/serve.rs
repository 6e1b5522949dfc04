//! `damspel serve [--host 127.0.0.1] [--port 8080] [--db PATH]`: the web page and its API.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};
use damspel_rules::Catalogue;

pub fn run(
    catalogue: Catalogue,
    host: &str,
    port: u16,
    db: PathBuf,
    searches: usize,
) -> Result<()> {
    let ip: IpAddr = host
        .parse()
        .with_context(|| format!("--host must be an IP address like 127.0.0.1, not `{host}`"))?;
    let config = damspel_server::Config {
        addr: SocketAddr::new(ip, port),
        db: db.clone(),
        concurrent_searches: searches,
    };
    damspel_server::run(catalogue, config, |addr| {
        println!(
            "Damspel is serving on http://{addr}/  (games are kept in {})",
            db.display()
        );
        println!("Open that address in a browser; stop with Ctrl-C.");
    })
    .map_err(|e| anyhow!("{e}"))
}
