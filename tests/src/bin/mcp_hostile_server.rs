//! The misbehaving MCP server of `src/mcp/hostile.rs` on standard input and output, for
//! `tests/tests/mcp_hostile.rs`: `mcp_hostile_server tools|endless|silent-list|duplicates`.

use std::sync::Arc;

use rmcp::ServiceExt;

#[path = "../mcp/hostile.rs"]
mod hostile;

use hostile::{Behaviour, Hostile};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let behaviour = match std::env::args().nth(1).as_deref() {
        Some("endless") => Behaviour::EndlessCursor,
        Some("silent-list") => Behaviour::SilentList,
        Some("duplicates") => Behaviour::Duplicates,
        _ => Behaviour::Tools { huge: 0 },
    };
    let handler = Hostile { behaviour, seen: Arc::default() };
    handler.serve(rmcp::transport::stdio()).await?.waiting().await?;
    Ok(())
}
