//! The order of one conversation's calls: tickets taken when arguments are bound, served in
//! order.

use std::collections::BTreeSet;
use std::sync::Mutex;

use tokio::sync::Notify;

/// Tickets in the order calls were bound; one is served at a time (it then takes its place in
/// the instance lock's own first-come queue and lets the next ticket go).
#[derive(Default)]
pub(super) struct Queue {
    state: Mutex<QueueState>,
    turn: Notify,
}

#[derive(Default)]
struct QueueState {
    next: u64,
    serving: u64,
    /// Tickets given up before their turn (the call was cancelled or refused first).
    abandoned: BTreeSet<u64>,
}

impl Queue {
    pub(super) fn take(&self) -> u64 {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let ticket = state.next;
        state.next += 1;
        ticket
    }

    /// Waits until `ticket` is served.
    pub(super) async fn wait(&self, ticket: u64) {
        loop {
            let turn = self.turn.notified();
            tokio::pin!(turn);
            turn.as_mut().enable();
            if self.state.lock().unwrap_or_else(|e| e.into_inner()).serving >= ticket {
                return;
            }
            turn.await;
        }
    }

    /// `ticket` is done with its turn, used or given up: the next one still wanted is served.
    pub(super) fn release(&self, ticket: u64) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.serving == ticket {
            state.serving += 1;
            loop {
                let serving = state.serving;
                if !state.abandoned.remove(&serving) {
                    break;
                }
                state.serving += 1;
            }
            drop(state);
            self.turn.notify_waiters();
        } else if ticket > state.serving {
            state.abandoned.insert(ticket);
        }
    }
}
