//! The forms whose calls are JSON objects, read by one reader: Llama's and Mistral's.

mod state; // the reader as data: the form, and where reading stands
mod call; // a call written as a JSON object, and lists of them
mod llama; // Llama 3.1 to 4: `{"name": .., "parameters": {..}}`
mod mistral; // Mistral: `[TOOL_CALLS]`, before and from v11
mod reader; // the forms' steps behind one reader

pub(super) use state::{JsonForm, JsonReader};
