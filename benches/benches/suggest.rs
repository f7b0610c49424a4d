//! Suggestions for names a model gets wrong, and the work a hostile name can cause.
//!
//! - `unknown tool`: `ToolCatalog::closest_names(name, 3)` (what the executor suggests) on a
//!   catalog of 10,000 generated tool names (`domain.verb_object`, as in real catalogs), for a
//!   slip of an existing name, a name of nothing in the catalog, a fragment, and a 1 MB name;
//!   then the whole executor path (record and message) for the 1 MB name;
//! - `unknown key`: extraction of a 16-parameter tool's arguments, clean, with one misspelt
//!   key, and with a 1 MB key: the difference from clean is what the key costs; and the
//!   suggestion alone for the misspelt key against the 16 declared names (prepared once per
//!   thread, as extraction does; and prepared anew for each key);
//! - `1 MB name, 3 tools`: the case the issue measured before the bounds.
//!
//! Run: `cargo bench -p tool-benches --bench suggest -- --warm-up-time 1 --measurement-time 3`
//! then `python3 benches/criterion_table.py` for the medians.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use tool_core::prelude::*;

const DOMAINS: &[&str] = &[
    "travel",
    "flights",
    "hotels",
    "finance",
    "stocks",
    "crypto",
    "weather",
    "calendar",
    "email",
    "contacts",
    "crm",
    "smart_home",
    "music",
    "video",
    "news",
    "maps",
    "shopping",
    "payments",
    "github",
    "jira",
    "slack",
    "files",
    "memory",
    "search",
    "recipes",
    "fitness",
    "health",
    "translate",
    "sports",
    "movies",
    "books",
    "jobs",
    "real_estate",
    "cars",
    "pets",
    "education",
    "games",
    "social",
    "banking",
    "insurance",
];
const VERBS: &[&str] = &[
    "get", "list", "search", "create", "update", "delete", "book", "cancel", "find", "set", "add", "remove", "send",
    "fetch", "check", "compare", "convert", "track", "schedule", "play",
];
const OBJECTS: &[&str] = &[
    "user",
    "users",
    "item",
    "items",
    "order",
    "orders",
    "booking",
    "reservation",
    "quote",
    "price",
    "forecast",
    "event",
    "events",
    "message",
    "contact",
    "playlist",
    "track",
    "route",
    "location",
    "review",
    "reviews",
    "account",
    "balance",
    "transaction",
    "status",
    "details",
    "history",
    "summary",
    "report",
    "settings",
    "thermostat_temperature",
    "exchange_rate",
    "flight_status",
    "stock_price",
    "weather_alerts",
];

/// 10,000 distinct names `domain.verb_object`, spread over the vocabulary.
fn tool_names(count: usize) -> Vec<String> {
    let mut names = Vec::with_capacity(count);
    'all: for (d, domain) in DOMAINS.iter().enumerate() {
        for (v, verb) in VERBS.iter().enumerate() {
            for (o, object) in OBJECTS.iter().enumerate() {
                // Not every domain has every verb-object pair: keep about two in five.
                if (d * 7 + v * 3 + o) % 5 < 2 {
                    names.push(format!("{domain}.{verb}_{object}"));
                    if names.len() == count {
                        break 'all;
                    }
                }
            }
        }
    }
    assert_eq!(names.len(), count, "the vocabulary makes enough names");
    names
}

fn catalog(names: &[String]) -> ToolCatalog {
    let mut builder = ToolCatalog::builder();
    for name in names {
        let tool = DynamicTool::builder(name.as_str())
            .description("A generated tool.")
            .handler(|_, _| async { ToolOutput::text("") })
            .build()
            .expect("a valid generated name");
        builder = builder.add_tool(tool);
    }
    builder.build().expect("distinct generated names")
}

/// A 16-parameter tool (the most a tool takes today); the body does nothing.
#[tool]
#[allow(clippy::too_many_arguments)]
fn wide(
    /// Keywords.
    query: String,
    /// At most this many.
    limit: Option<u32>,
    /// Skip this many.
    offset: Option<u32>,
    /// Sort key.
    sort_by: Option<String>,
    /// Sort direction.
    ascending: Option<bool>,
    /// Earliest date.
    start_date: Option<String>,
    /// Latest date.
    end_date: Option<String>,
    /// Language code.
    language: Option<String>,
    /// Region code.
    region: Option<String>,
    /// Category.
    category: Option<String>,
    /// Lowest price.
    min_price: Option<f64>,
    /// Highest price.
    max_price: Option<f64>,
    /// Only these tags.
    tags: Option<Vec<String>>,
    /// Include archived.
    include_archived: Option<bool>,
    /// Currency code.
    currency: Option<String>,
    /// Page token.
    page_token: Option<String>,
) -> String {
    let _ = (query, limit, offset, sort_by, ascending, start_date, end_date, language, region, category);
    let _ = (min_price, max_price, tags, include_archived, currency, page_token);
    String::new()
}

/// `wide`'s parameters, as extraction compares an unknown key with them.
const WIDE_PARAMETERS: [&str; 16] = [
    "query",
    "limit",
    "offset",
    "sort_by",
    "ascending",
    "start_date",
    "end_date",
    "language",
    "region",
    "category",
    "min_price",
    "max_price",
    "tags",
    "include_archived",
    "currency",
    "page_token",
];

const WIDE_CLEAN: &str =
    r#"{"query":"hotels in lisbon","limit":10,"sort_by":"price","language":"pt","max_price":120.5}"#;
const WIDE_TYPO: &str =
    r#"{"query":"hotels in lisbon","limit":10,"sort_by":"price","lnaguage":"pt","max_price":120.5}"#;

fn unknown_tool(c: &mut Criterion) {
    let names = tool_names(10_000);
    let catalog = catalog(&names);
    let huge = format!("flights.book_{}", "x".repeat(1 << 20));
    // A slip: one letter of an existing name dropped.
    let existing = &names[4321];
    let slip = format!("{}{}", &existing[..existing.len() - 3], &existing[existing.len() - 2..]);
    let cases = [
        ("a slip of an existing name", slip),
        ("a name of nothing in the catalog", "translate_text_to_french".to_owned()),
        ("a fragment", "exchange".to_owned()),
        ("a 1 MB name", huge.clone()),
    ];
    // Sanity, and the index is built before measuring (once per catalog, on first use).
    assert_eq!(catalog.closest_names(&cases[0].1, 3)[0], existing);
    for (label, name) in &cases[..3] {
        eprintln!("{label}: {name} -> {:?}", catalog.closest_names(name, 3));
    }
    assert!(catalog.closest_names(&huge, 3).is_empty());
    let mut group = c.benchmark_group("suggest: unknown tool, 10000 tools");
    for (label, name) in &cases {
        group.bench_function(*label, |b| b.iter(|| catalog.closest_names(black_box(name), 3).len()));
    }
    let executor = Executor::new(catalog.clone());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    group.bench_function("executor, a 1 MB name", |b| {
        b.to_async(&rt).iter(|| executor.execute(ToolCallRequest::new(huge.as_str(), "c1", "{}")))
    });
    group.finish();

    let small = catalog_of(&["memory.search", "files.read", "weather.get_forecast"]);
    let mut group = c.benchmark_group("suggest: 1 MB name, 3 tools");
    group.bench_function("closest_names", |b| b.iter(|| small.closest_names(black_box(&huge), 3).len()));
    group.finish();
}

fn catalog_of(names: &[&str]) -> ToolCatalog {
    catalog(&names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>())
}

fn unknown_key(c: &mut Criterion) {
    let huge_key = format!(r#"{{"query":"hotels","{}":1}}"#, "k".repeat(1 << 20));
    let clean = <wide as DeclaredTool>::extract(WIDE_CLEAN);
    assert!(clean.value.is_ok() && clean.warnings.is_empty());
    let typo = <wide as DeclaredTool>::extract(WIDE_TYPO);
    assert_eq!(typo.warnings.len(), 1, "{:?}", typo.warnings);
    assert_eq!(typo.warnings[0].action(), "ignored; did you mean `language`?");
    let huge = <wide as DeclaredTool>::extract(&huge_key);
    assert_eq!(huge.warnings.len(), 1);
    let mut group = c.benchmark_group("suggest: unknown key, 16 params");
    // The suggestion alone, as extraction makes it for an unknown key.
    let declared = WIDE_PARAMETERS;
    assert_eq!(tool_core::__private::closest_key("lnaguage", &declared), Some("language"));
    group.bench_function("suggestion for a misspelt key", |b| {
        b.iter(|| tool_core::__private::closest_key(black_box("lnaguage"), black_box(&declared)))
    });
    // The same, with the declared names prepared anew each time (two lists taking turns).
    let mut other = declared;
    other.rotate_left(1);
    let mut turn = false;
    group.bench_function("suggestion for a misspelt key, names not prepared", |b| {
        b.iter(|| {
            turn = !turn;
            tool_core::__private::closest_key(black_box("lnaguage"), black_box(if turn { &declared } else { &other }))
        })
    });
    group.bench_function("extract clean", |b| b.iter(|| <wide as DeclaredTool>::extract(black_box(WIDE_CLEAN))));
    group.bench_function("extract, one misspelt key", |b| {
        b.iter(|| <wide as DeclaredTool>::extract(black_box(WIDE_TYPO)))
    });
    group.bench_function("extract, a 1 MB key", |b| b.iter(|| <wide as DeclaredTool>::extract(black_box(&huge_key))));
    group.finish();
}

criterion_group!(benches, unknown_tool, unknown_key);
criterion_main!(benches);
