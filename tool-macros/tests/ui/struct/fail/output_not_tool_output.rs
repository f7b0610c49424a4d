use tool_core::prelude::*;

pub struct Answer {
    pub text: String,
}

/// Answer a question.
#[tool]
struct Ask {
    /// The question.
    question: String,
}

impl ToolRun for Ask {
    type Output = Answer;

    async fn run(self, _ctx: &ToolContext) -> Answer {
        Answer { text: self.question }
    }
}

fn main() {}
