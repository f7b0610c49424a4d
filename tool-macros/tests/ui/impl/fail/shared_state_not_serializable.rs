use tool_core::prelude::*;

/// A connection: it cannot be serialized.
pub struct Connection;

#[derive(Default)]
pub struct Session {
    connection: Option<Connection>,
    sent: u64,
}

#[tool(shared_state)]
impl Session {
    /// Send a message.
    #[tool]
    fn send(&mut self) -> u64 {
        let _ = self.connection.as_ref();
        self.sent += 1;
        self.sent
    }
}

fn main() {}
