//! What a conversation has discovered: the deferred tools a search found, in the order found,
//! so that every later request (to this provider or another) sends the same tools again and
//! the part of the request before them does not change.

use serde::{Deserialize, Serialize};

use super::tool::found_names;
use crate::executor::{CallStatus, ExecutionRecord};

/// The tools a conversation's searches found, in the order first found. Serializable, to be
/// kept with the conversation.
///
/// ```
/// use tool_core::search::Discovered;
///
/// let mut discovered = Discovered::new();
/// assert!(discovered.insert("weather.forecast"));
/// assert!(!discovered.insert("weather.forecast"));
/// assert_eq!(discovered.names().collect::<Vec<_>>(), ["weather.forecast"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Discovered {
    names: Vec<String>,
}

/// The most tools one conversation remembers: more than any provider takes in one request.
pub const MAX_DISCOVERED: usize = 10_000;

impl Discovered {
    /// Nothing discovered yet.
    pub fn new() -> Discovered {
        Discovered::default()
    }

    /// Records a found tool; `false` when it was already known (or the conversation holds
    /// [`MAX_DISCOVERED`] tools).
    pub fn insert(&mut self, name: impl Into<String>) -> bool {
        let name = name.into();
        if self.names.len() >= MAX_DISCOVERED || self.contains(&name) {
            return false;
        }
        self.names.push(name);
        true
    }

    /// Whether this tool was discovered.
    pub fn contains(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    /// The tools discovered, in the order first found.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }

    /// How many tools were discovered.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Records what a call of the search tool named `search_tool` found, if `record` is one
    /// that succeeded; returns the names it added.
    pub fn record(&mut self, search_tool: &str, record: &ExecutionRecord) -> Vec<String> {
        if record.request.tool_name != search_tool || record.status != CallStatus::Success {
            return Vec::new();
        }
        found_names(&record.content).into_iter().filter(|name| self.insert(name.clone())).collect()
    }
}
