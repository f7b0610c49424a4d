//! `Conversations::end_all` cleans every instance of the executor's store up exactly once.

use std::sync::atomic::{AtomicUsize, Ordering};

use tool_core::prelude::*;

static CLEANED: AtomicUsize = AtomicUsize::new(0);

#[derive(Default)]
pub struct Notes {
    notes: Vec<String>,
}

impl Notes {
    async fn forget(&mut self) {
        self.notes.clear();
        CLEANED.fetch_add(1, Ordering::SeqCst);
    }
}

#[tool(cleanup = "forget")]
impl Notes {
    /// Keep a note; returns how many are kept.
    #[tool]
    fn keep(&mut self, note: String) -> usize {
        self.notes.push(note);
        self.notes.len()
    }
}

#[tokio::test]
async fn ending_every_conversation_cleans_each_instance_up_once() {
    let executor = Executor::new(ToolCatalog::builder().add_declared::<Notes_keep>().build().unwrap());
    for conversation in ["a", "b", "c"] {
        for note in ["x", "y"] {
            let call = ToolCallRequest::new("notes.keep", "k", format!(r#"{{"note": "{note}"}}"#));
            executor.execute(call.in_conversation(conversation)).await;
        }
    }
    assert_eq!(executor.conversations().live(), 3);
    assert_eq!(executor.conversations().end_all().await, 3);
    assert_eq!(executor.conversations().end_all().await, 0);
    assert_eq!((CLEANED.load(Ordering::SeqCst), executor.conversations().live()), (3, 0));
}
