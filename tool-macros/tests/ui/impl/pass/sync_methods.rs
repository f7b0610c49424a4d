use tool_core::prelude::*;

/// A counter whose sync methods run on the blocking pool, unless `inline`.
#[derive(Default)]
pub struct Counter {
    total: u64,
}

#[tool]
impl Counter {
    /// Add to the counter, saying which thread it ran on.
    #[tool]
    pub fn add(&mut self, by: u64) -> String {
        self.total += by;
        format!("{} {:?}", self.total, std::thread::current().id())
    }

    /// Read the counter (`blocking` is the default for a sync method, and still accepted).
    #[tool(blocking)]
    pub fn read(&self, ctx: &ToolContext) -> String {
        format!("{} {} {:?}", self.total, ctx.call_id(), std::thread::current().id())
    }

    /// Read the counter on the async worker.
    #[tool(inline)]
    pub fn peek(&self) -> String {
        format!("{} {:?}", self.total, std::thread::current().id())
    }
}

fn main() {
    let catalog = ToolCatalog::builder()
        .add_declared::<Counter_add>()
        .add_declared::<Counter_read>()
        .add_declared::<Counter_peek>()
        .build()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let executor = Executor::new(catalog);
    let here = format!("{:?}", std::thread::current().id());
    let run = |name: &str, args: &str| {
        let request = ToolCallRequest::new(name, "c1", args).in_conversation("c");
        runtime.block_on(executor.execute(request)).content.text
    };
    let added = run("counter.add", r#"{"by": 2}"#);
    assert!(added.starts_with("2 ") && !added.ends_with(&here), "{added}");
    let read = run("counter.read", "{}");
    assert!(read.starts_with("2 c1 ") && !read.ends_with(&here), "{read}");
    assert_eq!(run("counter.peek", "{}"), format!("2 {here}"));
}
