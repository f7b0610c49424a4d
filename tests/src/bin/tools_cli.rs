//! The `tools` command line for the provider-dialect tools (`tool_tests::dialect_tools`), for
//! `tests/tests/cli.rs` and `tests/tests/playground.rs`, which run it as a real process.

fn main() -> std::process::ExitCode {
    let executor = tool_core::Executor::new(tool_tests::dialect_tools::catalog().clone());
    tool_core::cli::ToolsCli::new(executor).run()
}
