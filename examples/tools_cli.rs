//! `tools`: the command line for the quickstart's tools. `cargo run -p tool-examples --features cli --bin tools
//! -- --help` lists the subcommands: list, show, export, call, check, size, serve-mcp,
//! playground.

use std::process::ExitCode;
use std::time::Duration;

use tool_core::cli::ToolsCli;
use tool_core::prelude::*;

#[path = "tools.rs"]
mod tools;

fn main() -> ExitCode {
    let Ok(catalog) = ToolCatalog::global() else {
        eprintln!("error: the quickstart's tools do not make a catalog");
        return ExitCode::from(2);
    };
    // The one line a host adds is `tool_core::cli::main()`; these tools need their store.
    let executor =
        Executor::builder(catalog.clone()).timeout(Duration::from_secs(5)).state(tools::sample_store()).build();
    ToolsCli::new(executor).run()
}
