//! A tool that waits until it is stopped, and says when it starts and when it is stopped:
//! included (`#[path]`) by the MCP tests that check a cancellation reaches the server.

use tokio::sync::Notify;
use tool_core::prelude::*;

/// Notified when `hold` starts.
pub static STARTED: Notify = Notify::const_new();
/// Notified when the body of `hold` is dropped: stopped, not left running.
pub static STOPPED: Notify = Notify::const_new();

struct NoteDrop;

impl Drop for NoteDrop {
    fn drop(&mut self) {
        STOPPED.notify_one();
    }
}

/// Wait until stopped.
#[tool(name = "hold")]
pub async fn hold() -> String {
    let _noted = NoteDrop;
    STARTED.notify_one();
    std::future::pending::<()>().await;
    String::new()
}
