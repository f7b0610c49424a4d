//! The executor under tower's own layers: they wrap it as any service, and every call still
//! ends in a record.

use std::time::Duration;

use tool_core::prelude::*;
use tool_core::Executor;
use tower::{Service, ServiceBuilder, ServiceExt};

/// Wait, then say how long.
#[tool]
async fn nap(
    /// Milliseconds.
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

fn executor() -> Executor {
    Executor::new(ToolCatalog::builder().add_declared::<nap>().build().unwrap())
}

#[tokio::test]
async fn the_executor_is_a_service_whose_calls_end_in_records() {
    let mut service = executor();
    let record =
        service.ready().await.unwrap().call(ToolCallRequest::new("nap", "c1", r#"{"ms": "1"}"#)).await.unwrap();
    assert_eq!((record.status, record.model_text()), (CallStatus::Success, "slept 1 ms"));
    let record = service.call(ToolCallRequest::new("nope", "c2", "{}")).await.unwrap();
    assert_eq!(
        record.model_text(),
        "There is no tool named `nope`. The closest existing tools are: `nap`. Call one of them instead."
    );
}

#[tokio::test(start_paused = true)]
async fn towers_timeout_and_load_shedding_wrap_it() {
    let mut service = ServiceBuilder::new().timeout(Duration::from_millis(50)).service(executor());
    let error =
        service.ready().await.unwrap().call(ToolCallRequest::new("nap", "c1", r#"{"ms": 100}"#)).await.unwrap_err();
    assert_eq!(error.to_string(), "request timed out");

    // One call at a time; a second while the first runs is shed, not queued.
    let mut service = ServiceBuilder::new().load_shed().concurrency_limit(1).service(executor());
    let first = service.ready().await.unwrap().call(ToolCallRequest::new("nap", "c1", r#"{"ms": 100}"#));
    let second = service.ready().await.unwrap().call(ToolCallRequest::new("nap", "c2", r#"{"ms": 1}"#)).await;
    assert_eq!(second.unwrap_err().to_string(), "service overloaded");
    assert_eq!(first.await.unwrap().model_text(), "slept 100 ms");
}
