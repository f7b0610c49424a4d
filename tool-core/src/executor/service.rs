//! The executor as a tower `Service` (feature `tower`): a call in, its record out.

use std::convert::Infallible;
use std::task::{Context, Poll};

use crate::model::ToolCallRequest;
use crate::tool::BoxFuture;

use super::{ExecutionRecord, Executor};

/// Every call ends in a record, so the service never fails: tower's layers around it (a
/// timeout, load shedding) add their own errors. The executor is always ready; its own
/// limits (per tool, per conversation, approval) are its policy's, which tower's layers cannot
/// see.
impl tower_service::Service<ToolCallRequest> for Executor {
    type Response = ExecutionRecord;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<ExecutionRecord, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: ToolCallRequest) -> Self::Future {
        let executor = self.clone();
        Box::pin(async move { Ok(executor.execute(request).await) })
    }
}
