//! The call policy's `#[tool]` keys: `requires_approval`, `approval = "fn"`, `sequential` and
//! `example(..)`, as definitions, and the approval predicate deciding a call before its body.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use tool_core::prelude::*;
use tool_core::{Approval, ErrorKind, ExtractionPolicy};

/// Send money.
#[tool(
    approval = "large",
    sequential,
    example(amount = 50, to = "alice"),
    example(amount = 5000, to = "bob", note = "rent"),
    examples(r#"{"amount": 1, "to": "carol"}"#)
)]
fn transfer(
    /// In cents.
    amount: u64,
    /// Who gets it.
    to: String,
    /// For the statement.
    note: Option<String>,
    _ctx: &ToolContext,
) -> String {
    format!("sent {amount} to {to}{}", note.map(|n| format!(" ({n})")).unwrap_or_default())
}

/// Over 1000 needs a person, unless it goes to the host's own account (named in the
/// environment's `own` value). The `String` is read as `&str`, as any call would coerce it.
fn large(amount: &u64, to: &str, _note: &Option<String>, ctx: &ToolContext) -> bool {
    *amount > 1000 && ctx.environment().value("own").and_then(Value::as_str) != Some(to)
}

/// Delete everything.
#[tool(requires_approval, sequential = false, example())]
async fn wipe() -> String {
    "wiped".to_owned()
}

/// Look something up.
#[tool(requires_approval = false, sequential = true)]
fn lookup(
    /// What to look up.
    #[param(rename = "q")]
    query: String,
    #[param(default = 10)] limit: u32,
) -> String {
    format!("{query} {limit}")
}

/// Every shape an example value takes.
#[tool(example(
    r#type = "a",
    "max-results" = -3,
    ratio = 2.5,
    flags = [true, false],
    filter = json!({"tags": ["x", "y"], nested: {depth: -1, none: null}}),
))]
fn shapes(
    /// A keyword for a name.
    r#type: String,
    /// Renamed to no identifier.
    #[param(rename = "max-results")]
    max_results: i32,
    /// A float.
    ratio: f64,
    /// A list.
    flags: Vec<bool>,
    /// Any JSON.
    filter: Value,
) -> String {
    format!("{type} {max_results} {ratio} {flags:?} {filter}")
}

pub struct Wallet {
    balance: u64,
}

impl Default for Wallet {
    fn default() -> Self {
        Wallet { balance: 100 }
    }
}

#[tool]
impl Wallet {
    /// Spend from the wallet.
    #[tool(approval = "Self::over_balance", example(amount = 20))]
    fn spend(&mut self, amount: u64, _state: &ToolContext) -> Result<u64, ToolError> {
        self.balance = self.balance.checked_sub(amount).ok_or_else(|| ToolError::new("not enough"))?;
        Ok(self.balance)
    }

    /// A predicate of the type, named through `Self`.
    fn over_balance(amount: &u64, _ctx: &ToolContext) -> bool {
        *amount > 100
    }

    /// Empty the wallet.
    #[tool(requires_approval, sequential)]
    fn empty(&mut self) -> u64 {
        std::mem::take(&mut self.balance)
    }
}

static PURGED: AtomicUsize = AtomicUsize::new(0);

/// Purge old records.
#[tool(approval = "Purge::wide", sequential, example(days = 30), example(days = 1, dry_run = true))]
pub struct Purge {
    /// Records older than this go.
    days: u32,
    /// Only count them.
    #[param(default)]
    dry_run: bool,
}

impl Purge {
    fn wide(&self, ctx: &ToolContext) -> bool {
        self.days < 7 && !self.dry_run && ctx.request().tool_name == "purge"
    }
}

impl ToolRun for Purge {
    type Output = String;

    async fn run(self, _ctx: &ToolContext) -> String {
        PURGED.fetch_add(1, Ordering::SeqCst);
        format!("purged {} days{}", self.days, if self.dry_run { " (dry run)" } else { "" })
    }
}

fn context(request: ToolCallRequest, approved: bool) -> ToolContext {
    ToolContext::new(Arc::new(request), Default::default(), Default::default()).with_approved(approved)
}

/// Binds `arguments` to `tool` and runs the call, approved or not.
async fn run(tool: &dyn Tool, arguments: &str, approved: bool) -> Result<ToolOutput, ToolError> {
    let mut request = ToolCallRequest::new(&tool.definition().name, "1", arguments);
    let invocation = tool.bind(&mut request, ExtractionPolicy::LENIENT).unwrap();
    invocation.run(context(request, approved)).await
}

fn text(result: Result<ToolOutput, ToolError>) -> String {
    result.unwrap().text
}

fn assert_needs_approval(result: Result<ToolOutput, ToolError>, message: &str) {
    let error = result.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::ApprovalRequired);
    assert_eq!(error.message(), message);
    assert_eq!(error.code(), None);
}

#[test]
fn the_keys_fill_the_definition() {
    let d = <transfer as DeclaredTool>::definition();
    assert_eq!(d.approval, Approval::ByArguments);
    assert!(d.sequential);
    // The JSON texts of `examples(..)` first, then each `example(..)` in order.
    assert_eq!(
        d.examples,
        [
            json!({"amount": 1, "to": "carol"}),
            json!({"amount": 50, "to": "alice"}),
            json!({"amount": 5000, "to": "bob", "note": "rent"}),
        ]
    );

    let d = <wipe as DeclaredTool>::definition();
    assert_eq!((d.approval, d.sequential), (Approval::Always, false));
    assert_eq!(d.examples, [json!({})]);

    let d = <lookup as DeclaredTool>::definition();
    assert_eq!((d.approval, d.sequential), (Approval::Never, true));
    assert_eq!(d.examples, Vec::<Value>::new());

    let d = <shapes as DeclaredTool>::definition();
    assert_eq!((d.approval, d.sequential), (Approval::Never, false));
    assert_eq!(
        d.examples,
        [json!({
            "type": "a",
            "max-results": -3,
            "ratio": 2.5,
            "flags": [true, false],
            "filter": {"tags": ["x", "y"], "nested": {"depth": -1, "none": null}},
        })]
    );
}

#[test]
fn methods_and_structs_take_the_keys_too() {
    let d = <Wallet_spend as DeclaredTool>::definition();
    assert_eq!((d.approval, d.sequential), (Approval::ByArguments, false));
    assert_eq!(d.examples, [json!({"amount": 20})]);
    let d = <Wallet_empty as DeclaredTool>::definition();
    assert_eq!((d.approval, d.sequential), (Approval::Always, true));
    assert_eq!(d.examples, Vec::<Value>::new());

    let d = <Purge as DeclaredTool>::definition();
    assert_eq!((d.approval, d.sequential), (Approval::ByArguments, true));
    assert_eq!(d.examples, [json!({"days": 30}), json!({"days": 1, "dry_run": true})]);
}

#[test]
fn the_examples_are_valid_calls_in_a_catalog() {
    let catalog = ToolCatalog::builder()
        .add_declared::<transfer>()
        .add_declared::<wipe>()
        .add_declared::<shapes>()
        .add_declared::<Wallet_spend>()
        .add_declared::<Purge>()
        .build()
        .unwrap();
    assert_eq!(catalog.len(), 5);
}

#[tokio::test]
async fn a_function_asks_for_approval_when_its_predicate_says_so() {
    let tool = <transfer as DeclaredTool>::tool();
    let message = "`transfer` needs a person's approval for these arguments";
    assert_needs_approval(run(tool, r#"{"amount": 5000, "to": "bob"}"#, false).await, message);
    // Approved, the body runs.
    assert_eq!(text(run(tool, r#"{"amount": 5000, "to": "bob"}"#, true).await), "sent 5000 to bob");
    // The predicate says no: the body runs without asking.
    assert_eq!(text(run(tool, r#"{"amount": 50, "to": "bob", "note": "tea"}"#, false).await), "sent 50 to bob (tea)");
    // The predicate reads the context too.
    let mut environment = tool_core::Environment::new();
    environment.insert_value("own", "savings");
    let mut request = ToolCallRequest::new("transfer", "1", r#"{"amount": 5000, "to": "savings"}"#);
    let invocation = tool.bind(&mut request, ExtractionPolicy::LENIENT).unwrap();
    let ctx = ToolContext::new(Arc::new(request), Arc::new(environment), Default::default());
    assert_eq!(text(invocation.run(ctx).await), "sent 5000 to savings");
}

#[tokio::test]
async fn a_struct_asks_before_its_run() {
    let tool = <Purge as DeclaredTool>::tool();
    let before = PURGED.load(Ordering::SeqCst);
    assert_needs_approval(
        run(tool, r#"{"days": 2}"#, false).await,
        "`purge` needs a person's approval for these arguments",
    );
    // Asking ran nothing.
    assert_eq!(PURGED.load(Ordering::SeqCst), before);
    assert_eq!(text(run(tool, r#"{"days": 2}"#, true).await), "purged 2 days");
    assert_eq!(text(run(tool, r#"{"days": 2, "dry_run": true}"#, false).await), "purged 2 days (dry run)");
    assert_eq!(text(run(tool, r#"{"days": 30}"#, false).await), "purged 30 days");
}

#[tokio::test]
async fn a_method_asks_before_it_takes_its_instance() {
    let tool = <Wallet_spend as DeclaredTool>::tool();
    // Outside an executor the call has no instance; asking comes first, so the error says so.
    let mut request = ToolCallRequest::new("wallet.spend", "1", r#"{"amount": 500}"#).in_conversation("c");
    let invocation = tool.bind(&mut request, ExtractionPolicy::LENIENT).unwrap();
    assert_needs_approval(
        invocation.run(context(request, false)).await,
        "`wallet.spend` needs a person's approval for these arguments",
    );
    // Approved, the call goes on to its instance, which only an executor holds.
    let mut request = ToolCallRequest::new("wallet.spend", "1", r#"{"amount": 500}"#).in_conversation("c");
    let invocation = tool.bind(&mut request, ExtractionPolicy::LENIENT).unwrap();
    let error = invocation.run(context(request, true)).await.unwrap_err();
    assert_eq!(error.code(), Some("no_conversation_store"));

    // Through an executor, a call the predicate lets through runs on the conversation's wallet.
    let catalog = ToolCatalog::builder().add_declared::<Wallet_spend>().add_declared::<Wallet_empty>().build().unwrap();
    let executor = Executor::new(catalog);
    let spend = |amount: u64| {
        ToolCallRequest::new("wallet.spend", "1", format!(r#"{{"amount": {amount}}}"#)).in_conversation("c")
    };
    assert_eq!(executor.execute(spend(30)).await.content.text, "70");
    assert_eq!(executor.execute(spend(20)).await.content.text, "50");
}

/// Pay: an example whose value the parameter's type refuses.
#[tool(example(amount = "lots", to = "x"))]
fn pay(
    /// In cents.
    amount: u64,
    /// Who gets it.
    to: String,
) -> String {
    format!("{amount} {to}")
}

/// The macro checks the keys; the types are checked when the catalog is built.
#[test]
fn an_example_the_types_refuse_makes_the_catalog_invalid() {
    let error = ToolCatalog::builder().add_declared::<pay>().build().unwrap_err();
    let line = include_str!("policy_macros.rs")
        .lines()
        .position(|l| l.starts_with("#[tool(example(amount = \"lots\""))
        .unwrap()
        + 1;
    assert_eq!(
        error.to_string(),
        format!(
            "the tool catalog is invalid:\n\
             - the tool `pay` (at {}:{line}) has example 0 that its input schema refuses: \
             at `/amount`: \"lots\" is not of type \"integer\"",
            file!()
        )
    );
}
