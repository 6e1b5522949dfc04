//! `damspel serve`: the web page and its API. Parses and checks the options, prints where the
//! server listens (with its access token, and a warning when it is reachable from other
//! machines), and runs it.

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail, Result};
use damspel_rules::Catalogue;

pub struct Options {
    pub host: String,
    pub port: u16,
    pub db: PathBuf,
    pub searches: usize,
    pub allow_hosts: Vec<String>,
    pub token: Option<String>,
    pub max_connections: usize,
    pub idle_minutes: u64,
    pub atlas_db: Option<PathBuf>,
    pub tb_dir: Option<PathBuf>,
}

/// The address to bind: an IP address, or a name such as `localhost` resolved here (its first
/// address, IPv4 first).
fn resolve(host: &str, port: u16) -> Result<SocketAddr> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(SocketAddr::new(ip, port));
    }
    let addrs: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|e| {
            anyhow!(
                "--host `{}` is not an address this machine can resolve: {e}",
                damspel_rules::quoted(host)
            )
        })?
        .collect();
    addrs
        .iter()
        .find(|a| a.is_ipv4())
        .or(addrs.first())
        .copied()
        .ok_or_else(|| {
            anyhow!(
                "--host `{}` resolves to no address",
                damspel_rules::quoted(host)
            )
        })
}

pub fn run(catalogue: Catalogue, options: Options) -> Result<()> {
    let addr = resolve(&options.host, options.port)?;
    if let Some(t) = &options.token {
        // At most 256: it rides in every request's cookie or header and in the printed address.
        if !(16..=256).contains(&t.len())
            || !t
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            bail!("--token must be 16 to 256 letters, digits, `-` or `_`");
        }
    }
    let mut config = damspel_server::Config::new(addr, options.db.clone());
    config.settings.searches = options.searches;
    config.settings.idle_game = Duration::from_secs(options.idle_minutes * 60);
    if let Some(dir) = &options.tb_dir {
        // As the engine's commands: a folder given must be there (a misspelt one would leave
        // every game without tables without a word); the default may not exist yet.
        if !dir.is_dir() {
            bail!("--tb-dir {}: no such folder", dir.display());
        }
        config.settings.tb_dir = dir.clone();
    }
    config.transport.max_connections = options.max_connections;
    // A name given with --host is one of the server's own names.
    if options.host.parse::<IpAddr>().is_err() {
        config.allow_hosts.push(options.host.clone());
    }
    config
        .allow_hosts
        .extend(options.allow_hosts.iter().cloned());
    config.token = options.token.clone();
    if let Some(path) = &options.atlas_db {
        // A wrong path is said at once, not on the first visit to /atlas.
        damspel_atlas_report::metrics::open(path).map_err(|e| anyhow!("--atlas-db: {e}"))?;
    }
    config.atlas_db = options.atlas_db.clone();
    let db = options.db.clone();
    damspel_server::run(catalogue, config, |bound| {
        let addr = bound.addr;
        // An unspecified address (0.0.0.0, ::) listens everywhere but cannot be opened as is.
        let open = if addr.ip().is_unspecified() {
            let local: IpAddr = if addr.is_ipv4() {
                [127, 0, 0, 1].into()
            } else {
                std::net::Ipv6Addr::LOCALHOST.into()
            };
            SocketAddr::new(local, addr.port())
        } else {
            addr
        };
        let query = bound
            .token
            .as_ref()
            .map(|t| format!("?token={t}"))
            .unwrap_or_default();
        println!(
            "Damspel is serving on http://{open}/{query}  (games are kept in {})",
            db.display()
        );
        if !addr.ip().is_loopback() {
            println!(
                "Warning: listening on {addr}, reachable from other machines{}: anyone who can \
                 reach this port and has the token can watch every game and start games and \
                 engine searches; only a seat's holder can move in a game. Keep the token \
                 secret (it is in the address above).",
                if addr.ip().is_unspecified() {
                    " on every interface"
                } else {
                    ""
                }
            );
        }
        if addr.ip().is_unspecified() {
            println!(
                "From another machine, open http://<this machine's address>:{}/{query}",
                addr.port()
            );
        }
        if options.atlas_db.is_some() {
            println!("The variant atlas is at http://{open}/atlas/{query}");
        }
        println!("Open that address in a browser; stop with Ctrl-C.");
    })
    .map_err(|e| anyhow!("cannot serve on {addr}: {e}"))
}
