use tool_core::prelude::*;

pub struct Answer {
    pub text: String,
}

/// Answer a question.
#[tool]
fn answer(question: String) -> Answer {
    Answer { text: question }
}

fn main() {}
