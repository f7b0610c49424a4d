//! What serves or runs as a process: MCP both ways, REST, the `tools` command line, the
//! playground, the state stores against a real `redis-server`. Each module was a test file of
//! its own and keeps its name, so `cargo test -p tool-tests --test services mcp_http::` runs
//! what `tests/mcp_http.rs` holds.

// `tests/src/mcp/tools.rs`, `hold.rs` and `tools_cli.rs` are modules of each file that uses
// them, as when each file was a binary of its own: each file keeps its own copy of their
// counters, which its tests assert on while other files' tests run beside them.
#![allow(clippy::duplicate_mod)]

mod cli;
mod cli_policy;
mod cli_search;
mod mcp_approval;
mod mcp_asking;
mod mcp_bad_input;
mod mcp_content;
mod mcp_conversations;
mod mcp_hostile;
mod mcp_health;
mod mcp_http;
mod mcp_import_rounds;
mod mcp_primitives;
mod mcp_prompt_questions;
mod mcp_processes;
mod mcp_rounds;
mod mcp_python;
mod mcp_python_server;
mod mcp_serve;
mod mcp_stateless;
mod mcp_task_takeover;
mod mcp_tasks;
mod mcp_tool_search;
mod playground;
mod oauth;
mod oauth_client;
mod replicas;
mod rest;
mod rest_openapi;
mod state_store;
