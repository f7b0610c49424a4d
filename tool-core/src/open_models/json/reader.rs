//! The reader of the JSON forms: the steps of each form (`llama.rs`, `mistral.rs`) behind one
//! [`Reader`], and what the forms read alike, their call objects and lists of them.

use super::call::{list_item, read_object, ListItem, ObjectRules};
use super::state::{JsonForm, JsonReader, State};
use super::{llama, mistral};
use crate::open_models::json_extent::Extent;
use crate::open_models::reader::{Cx, Opens, Reader, Step};

impl JsonForm {
    /// The rule ids of the warnings about the form's call objects.
    fn object_rules(self) -> &'static ObjectRules {
        match self {
            JsonForm::Llama => &llama::OBJECT_RULES,
            JsonForm::Mistral => &mistral::OBJECT_RULES,
        }
    }
}

impl Reader for JsonReader {
    fn triggers(&self) -> &'static [u8] {
        match self.form {
            JsonForm::Llama => b"{[`",
            JsonForm::Mistral => b"[",
        }
    }

    fn opens(&self, cx: &Cx, buf: &str, at: usize, _: bool, finished: bool) -> Opens {
        match self.form {
            JsonForm::Llama => llama::opens(cx, buf, at, finished),
            JsonForm::Mistral => mistral::opens(buf, at, finished),
        }
    }

    fn step(&mut self, cx: &Cx, buf: &str, pos: usize, finished: bool) -> Step {
        match std::mem::take(&mut self.state) {
            State::Opening => match self.form {
                JsonForm::Llama => self.llama_opening(cx, buf, pos, finished),
                JsonForm::Mistral => self.mistral_opening(pos),
            },
            State::List => self.in_list(buf, pos, finished),
            State::Object { extent, in_list } => self.in_object(buf, extent, in_list, finished),
            State::After => match self.form {
                JsonForm::Llama => self.llama_after(cx, buf, pos, finished),
                JsonForm::Mistral => self.mistral_after(buf, pos, finished),
            },
            State::ListOpen => {
                self.state = State::List;
                Step::Skip(pos + 1)
            }
            State::Fence { to } => Step::Skip(to),
            State::Closing { at } => self.out(buf, at, finished),
            State::AfterToken => self.after_token(buf, pos, finished),
            State::Name { start, scanned, name } => self.in_name(buf, start, scanned, name, finished),
            State::Args { name, id } => self.args(buf, pos, name, id, finished),
            State::Arguments { name, id, extent } => self.arguments(buf, name, id, extent, finished),
            State::Loose { name, id, start, scanned } => self.loose(buf, name, id, start, scanned, finished),
        }
    }
}

impl JsonReader {
    /// Reads on in a call object.
    fn in_object(&mut self, buf: &str, mut extent: Extent, in_list: bool, finished: bool) -> Step {
        let next = if in_list { State::List } else { State::After };
        let rules = self.form.object_rules();
        match extent.scan(buf, usize::MAX) {
            Some(end) => {
                self.state = next;
                Step::Call(end, Box::new(read_object(buf, &extent, Some(end), rules)))
            }
            None if !finished => {
                self.state = State::Object { extent, in_list };
                Step::More
            }
            None => {
                self.state = next;
                let mut call = read_object(buf, &extent, None, rules);
                call.cut = Some("the rest of the call object and its closing `}`");
                Step::Call(buf.len(), Box::new(call))
            }
        }
    }

    /// Reads on in a list of calls.
    fn in_list(&mut self, buf: &str, pos: usize, finished: bool) -> Step {
        match list_item(buf, pos, finished) {
            ListItem::Blank(end) | ListItem::Comma(end) => {
                self.state = State::List;
                Step::Skip(end)
            }
            ListItem::More => {
                self.state = State::List;
                Step::More
            }
            ListItem::Object => {
                self.state = State::Object { extent: Extent::new(pos, true), in_list: true };
                Step::Skip(pos)
            }
            // Llama's list is all its calls; another `[TOOL_CALLS]` may follow Mistral's.
            ListItem::Close(end) => match self.form {
                JsonForm::Llama => self.out(buf, end, finished),
                JsonForm::Mistral => {
                    self.state = State::After;
                    Step::Skip(end)
                }
            },
            // The list left open, or words in it: the calls end here.
            ListItem::Other => self.out(buf, pos, finished),
        }
    }
}
