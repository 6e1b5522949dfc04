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
    let addr = config.addr;
    damspel_server::run(catalogue, config, |bound| {
        // An unspecified address (0.0.0.0, ::) listens everywhere but cannot be opened as is.
        let open = if bound.ip().is_unspecified() {
            let local: IpAddr = if bound.is_ipv4() {
                [127, 0, 0, 1].into()
            } else {
                std::net::Ipv6Addr::LOCALHOST.into()
            };
            SocketAddr::new(local, bound.port())
        } else {
            bound
        };
        println!(
            "Damspel is serving on http://{open}/  (games are kept in {})",
            db.display()
        );
        if open != bound {
            println!("Listening on every interface ({bound}).");
        }
        println!("Open that address in a browser; stop with Ctrl-C.");
    })
    .map_err(|e| anyhow!("cannot serve on {addr}: {e}"))
}
