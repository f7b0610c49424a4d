//! The JSON forms' reader as data: which form, and where in its calls reading stands.

use crate::open_models::json_extent::Extent;

/// A form whose calls are JSON objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonForm {
    /// Llama 3.1 to 4: call objects in plain text, separated by `;`, perhaps in a list or a
    /// markdown code fence.
    Llama,
    /// Mistral: `[TOOL_CALLS]` before a list of call objects (before v11) or before each call
    /// (from v11).
    Mistral,
}

/// Reads the calls of a [`JsonForm`].
#[derive(Debug)]
pub(crate) struct JsonReader {
    pub(super) form: JsonForm,
    pub(super) state: State,
    /// Llama: the calls are inside a markdown code fence, whose closing line ends them.
    pub(super) fenced: bool,
}

impl JsonReader {
    pub(crate) fn new(form: JsonForm) -> Self {
        JsonReader { form, state: State::default(), fenced: false }
    }
}

#[derive(Debug, Default)]
pub(super) enum State {
    /// At the opening the engine found: Llama's `{`, `[` or code fence, Mistral's
    /// `[TOOL_CALLS]`.
    #[default]
    Opening,
    /// In a list of calls, before an object, a `,` or the list's end.
    List,
    /// In a call object.
    Object { extent: Extent, in_list: bool },
    /// After a call or list: Llama, a separator and another call; Mistral, another
    /// `[TOOL_CALLS]`; or the end of the calls.
    After,
    /// Llama: at the `[` of a list of calls, its warning given.
    ListOpen,
    /// Llama: at a code fence's opening line, its warning given: the calls begin at `to`.
    Fence { to: usize },
    /// Llama: the calls ended at `at`: the fence around them closes after it, or not.
    Closing { at: usize },
    /// Mistral: after `[TOOL_CALLS]`: a list, an object or a name follows.
    AfterToken,
    /// Mistral: in a v11 call's name (or, `id` set, its `[CALL_ID]`), which began at `start`;
    /// scanned up to `scanned`.
    Name { start: usize, scanned: usize, name: Option<String> },
    /// Mistral: after `[ARGS]`.
    Args { name: String, id: Option<String> },
    /// Mistral: in the arguments object.
    Arguments { name: String, id: Option<String>, extent: Extent },
    /// Mistral: arguments that are no object, up to the next `[TOOL_CALLS]` or the end.
    Loose { name: String, id: Option<String>, start: usize, scanned: usize },
}
