//! Completion of a prompt's arguments and a resource template's variables
//! (`completion/complete`): the host's completer per argument, its candidates capped at MCP's
//! 100.

use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use serde_json::{json, Value};

use super::panics::payload_text;

/// A host's completer: from what the user typed so far and the other arguments already given,
/// the candidates, best first.
pub(crate) type Completer = Arc<dyn Fn(&str, &HashMap<String, String>) -> Vec<String> + Send + Sync>;

/// The completers of one prompt or template, by argument.
pub(crate) type Completers = BTreeMap<String, Completer>;

/// The most values one completion result holds (MCP's limit).
pub(crate) const MAX_VALUES: usize = 100;

/// MCP's `completion` object: the first [`MAX_VALUES`] candidates, their total and whether
/// more were left out; the panic's message when the completer panicked.
pub(crate) fn complete(
    completer: Option<&Completer>,
    value: &str,
    given: &HashMap<String, String>,
) -> Result<Value, String> {
    let mut candidates = match completer {
        None => Vec::new(),
        Some(completer) => {
            catch_unwind(AssertUnwindSafe(|| completer(value, given))).map_err(|panic| payload_text(panic.as_ref()))?
        }
    };
    let total = candidates.len();
    candidates.truncate(MAX_VALUES);
    Ok(json!({
        "values": candidates,
        "total": u32::try_from(total).unwrap_or(u32::MAX),
        "hasMore": total > MAX_VALUES,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_capped_at_one_hundred_with_their_total() {
        let many: Completer = Arc::new(|partial, _| (0..150).map(|i| format!("{partial}{i}")).collect());
        let completion = complete(Some(&many), "p", &HashMap::new()).unwrap();
        assert_eq!(completion["values"].as_array().unwrap().len(), 100);
        assert_eq!(completion["values"][99], "p99");
        assert_eq!((completion["total"].clone(), completion["hasMore"].clone()), (json!(150), json!(true)));
        let none = complete(None, "p", &HashMap::new()).unwrap();
        assert_eq!(none, json!({"values": [], "total": 0, "hasMore": false}));
    }
}
