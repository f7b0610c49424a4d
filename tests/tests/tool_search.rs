//! Tool search and deferral: the ranking and why each tool matched, the catalog's deferral
//! policy, the `search_tools` tool run by the executor, what a conversation discovered, hybrid
//! search with a host's embedder, and the bounds on what a remote definition makes us index.

use std::sync::Arc;

use serde_json::json;
use tool_core::prelude::*;
use tool_core::search::{
    Discovered, EmbedError, Embedder, HybridSearch, SearchField, SearchOptions, SearchToolBuilder, ToolSearch,
};
use tool_core::{BoxFuture, CatalogProblem, ToolDefinition};
use tool_tests::trigrams::Trigrams;

/// Book a flight between two airports.
#[tool(name = "flights.book", defer, tags("travel"))]
fn flights_book(
    /// The airport to leave from (IATA code).
    origin: String,
    /// The airport to land at (IATA code).
    destination: String,
) -> String {
    format!("{origin}-{destination}")
}

/// The weather forecast for a city: temperature, rain and wind.
#[tool(name = "weather.forecast", defer)]
fn weather_forecast(
    /// The city.
    city: String,
) -> String {
    city
}

/// Search the memory store for fragments matching a query.
#[tool(name = "memory.search")]
fn memory_search(
    /// Keywords to look for.
    query: String,
) -> String {
    query
}

/// Send an email to a contact.
#[tool(name = "sendEmail", tags("mail"))]
fn send_email(
    /// Who gets it.
    recipient: String,
    /// The subject line.
    subject: String,
) -> String {
    format!("{recipient}: {subject}")
}

fn catalog() -> ToolCatalog {
    ToolCatalog::builder()
        .add_declared::<flights_book>()
        .add_declared::<weather_forecast>()
        .add_declared::<memory_search>()
        .add_declared::<send_email>()
        .build()
        .unwrap()
}

fn definition(name: &str, description: &str, schema: serde_json::Value) -> ToolDefinition {
    ToolDefinition::new(name, description, schema)
}

#[test]
fn a_query_ranks_tools_and_says_which_words_matched_where() {
    let catalog = catalog();
    let search = ToolSearch::new(catalog.definitions());
    let hits = search.search("I need to book a flight to Lyon", 3);
    assert_eq!(hits.iter().map(|h| h.name.as_str()).collect::<Vec<_>>(), ["flights.book"]);
    let hit = &hits[0];
    assert!(!hit.exact_name);
    assert_eq!(hit.similarity, None);
    let words: Vec<(&str, &str, &[SearchField])> =
        hit.matches.iter().map(|m| (m.word.as_str(), m.term.as_str(), m.fields.as_slice())).collect();
    assert_eq!(
        words,
        [
            ("book", "book", &[SearchField::Name, SearchField::Description][..]),
            ("flight", "flight", &[SearchField::Name, SearchField::Description][..])
        ]
    );
    assert!(hit.matches.iter().all(|m| m.score > 0.0));
    let total: f32 = hit.matches.iter().map(|m| m.score).sum();
    // Both of the query's known words matched: the coverage factor is 1.
    assert!((total - hit.score).abs() < 1e-4, "{total} vs {}", hit.score);
}

#[test]
fn names_are_split_into_words_and_words_stemmed() {
    let search = ToolSearch::new(catalog().definitions());
    assert_eq!(search.search("emails", 1)[0].name, "sendEmail");
    let hit = &search.search("forecasts of temperatures", 1)[0];
    assert_eq!(hit.name, "weather.forecast");
    assert_eq!(hit.matches[0].word, "forecasts");
    assert_eq!(hit.matches[0].term, "forecast");
    // Tags are searched.
    assert_eq!(search.search("travel", 5).iter().map(|h| h.name.as_str()).collect::<Vec<_>>(), ["flights.book"]);
}

#[test]
fn a_query_that_is_a_tool_name_puts_it_first_even_without_other_matches() {
    let search = ToolSearch::new(catalog().definitions());
    let hits = search.search("MEMORY.SEARCH", 5);
    assert_eq!(hits[0].name, "memory.search");
    assert!(hits[0].exact_name);
}

#[test]
fn nothing_matches_nothing_and_a_limit_of_zero_finds_nothing() {
    let search = ToolSearch::new(catalog().definitions());
    assert!(search.search("the of and", 5).is_empty(), "stop words alone match nothing");
    assert!(search.search("zyxxy", 5).is_empty());
    assert!(search.search("flight", 0).is_empty());
    assert!(ToolSearch::new([]).search("flight", 5).is_empty());
}

#[test]
fn definitions_that_share_a_name_are_found_as_one_tool() {
    let schema = json!({"type": "object", "properties": {}, "required": []});
    let a = definition("get_weather", "Current conditions at a place.", schema.clone());
    let b = definition("get_weather", "Rain and snow forecast for tomorrow.", schema.clone());
    let c = definition("snow_report", "Snow depth at ski resorts.", schema);
    let search = ToolSearch::new([&a, &b, &c]);
    assert_eq!(search.len(), 3);
    let hits = search.search("snow forecast", 5);
    assert_eq!(hits.iter().map(|h| h.name.as_str()).collect::<Vec<_>>(), ["get_weather", "snow_report"]);
}

#[test]
fn chinese_japanese_and_korean_text_is_searched_by_pairs_of_characters() {
    let schema = json!({"type": "object", "properties": {}, "required": []});
    let weather = definition("tianqi", "查询城市的天气预报", schema.clone());
    let news = definition("news", "最新新闻", schema);
    let search = ToolSearch::new([&weather, &news]);
    let hits = search.search("北京明天的天气", 5);
    assert_eq!(hits.iter().map(|h| h.name.as_str()).collect::<Vec<_>>(), ["tianqi"]);
    let words: Vec<&str> = hits[0].matches.iter().map(|m| m.word.as_str()).collect();
    assert_eq!(words, ["的天", "天气"]);
}

#[test]
fn field_weights_change_the_ranking() {
    let schema = json!({"type": "object", "properties": {}, "required": []});
    let named = definition("invoice_export", "Writes a file.", schema.clone());
    let described = definition("writer", "Writes the invoice and the invoice lines to a file.", schema);
    let default = ToolSearch::new([&named, &described]);
    assert_eq!(default.search("invoice", 1)[0].name, "invoice_export");
    let options = SearchOptions::default().weight(SearchField::Name, 0.0);
    let descriptions_only = ToolSearch::with_options([&named, &described], options);
    assert_eq!(descriptions_only.search("invoice", 2).len(), 1);
    assert_eq!(descriptions_only.search("invoice", 1)[0].name, "writer");
}

#[test]
fn host_synonyms_find_a_tool_by_another_word() {
    let schema = json!({"type": "object", "properties": {}, "required": []});
    let movies = definition("movies.find", "Find movies showing near a place.", schema);
    assert!(ToolSearch::new([&movies]).search("a film tonight", 5).is_empty());
    let options = SearchOptions::default().synonyms([["film", "movie"]]);
    let hits = ToolSearch::with_options([&movies], options).search("a film tonight", 5);
    assert_eq!(hits[0].name, "movies.find");
    assert_eq!((hits[0].matches[0].word.as_str(), hits[0].matches[0].term.as_str()), ("film", "movi"));
}

#[test]
fn what_one_tool_makes_us_index_is_bounded() {
    // A remote server's description of megabytes, and a schema of thousands of properties.
    let description = "alpha ".repeat(1_000_000);
    let properties: serde_json::Map<String, serde_json::Value> =
        (0..5_000).map(|i| (format!("field{i}"), json!({"type": "string", "description": "beta"}))).collect();
    let huge = definition("huge", &description, json!({"type": "object", "properties": properties, "required": []}));
    let search = ToolSearch::new([&huge]);
    assert!(search.heap_bytes() < 1_000_000, "{} bytes", search.heap_bytes());
    assert_eq!(search.search("alpha", 1)[0].name, "huge");
    assert!(search.search("field4999", 1).is_empty(), "properties past the bound are not indexed");
    // A query of megabytes is read, not refused.
    assert_eq!(search.search(&"alpha ".repeat(200_000), 1)[0].name, "huge");
}

#[test]
fn the_catalog_defers_declared_tools_and_follows_its_policy() {
    let catalog = catalog();
    assert!(catalog.is_deferred("flights.book"));
    assert!(catalog.is_deferred("weather.forecast"));
    assert!(!catalog.is_deferred("memory.search"));
    assert!(!catalog.is_deferred("no.such.tool"));
    let names = |defs: Vec<&ToolDefinition>| defs.iter().map(|d| d.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(catalog.loaded().collect()), ["memory.search", "sendEmail"]);
    assert_eq!(names(catalog.deferred().collect()), ["flights.book", "weather.forecast"]);

    let all =
        catalog.to_builder().defer_all().keep_loaded("memory.search").keep_loaded_tagged("travel").build().unwrap();
    assert_eq!(names(all.loaded().collect()), ["flights.book", "memory.search"]);
    assert_eq!(names(all.deferred().collect()), ["sendEmail", "weather.forecast"]);
    let tagged = catalog.to_builder().defer_tagged("mail").keep_loaded("weather.forecast").build().unwrap();
    assert_eq!(names(tagged.deferred().collect()), ["flights.book", "sendEmail"]);
}

#[test]
fn a_deferral_setting_naming_no_tool_is_a_catalog_problem() {
    let error = catalog().to_builder().keep_loaded("memory.serch").defer("nothing.like.it").build().unwrap_err();
    assert_eq!(
        error.problems,
        [
            CatalogProblem::UnknownTool { name: "nothing.like.it".into(), setting: "defer", suggestion: None },
            CatalogProblem::UnknownTool {
                name: "memory.serch".into(),
                setting: "keep_loaded",
                suggestion: Some("memory.search".into())
            },
        ]
    );
    assert_eq!(
        error.to_string(),
        "the tool catalog is invalid:\n- `defer(\"nothing.like.it\")` names no tool of the catalog: give the name a tool is declared with\n- `keep_loaded(\"memory.serch\")` names no tool of the catalog (did you mean `memory.search`?)"
    );
}

#[test]
fn a_dynamic_tool_can_be_deferred() {
    let tool = DynamicTool::builder("rare.report")
        .description("A report nobody needs often.")
        .defer(true)
        .handler(|_, _| async { ToolOutput::text("") })
        .build()
        .unwrap();
    assert!(tool.definition().defer);
    assert_eq!(serde_json::to_value(tool.definition()).unwrap()["defer"], true);
    let catalog = ToolCatalog::builder().add_tool(tool).build().unwrap();
    assert!(catalog.is_deferred("rare.report"));
}

fn executor_with_search() -> (Executor, String) {
    let catalog = catalog();
    let search = SearchToolBuilder::new(catalog.deferred()).build().unwrap();
    let name = search.definition().name.clone();
    let executor = Executor::builder(catalog.to_builder().add_tool(search).build().unwrap()).build();
    (executor, name)
}

#[tokio::test]
async fn the_search_tool_answers_with_names_and_descriptions_and_the_conversation_remembers() {
    let (executor, name) = executor_with_search();
    assert_eq!(name, "search_tools");
    let record =
        executor.execute(ToolCallRequest::new("search_tools", "c1", r#"{"query": "weather in Paris tomorrow"}"#)).await;
    assert_eq!(record.status, CallStatus::Success, "{record:?}");
    assert_eq!(
        record.content.structured,
        Some(json!({
            "query": "weather in Paris tomorrow",
            "tools": [{"name": "weather.forecast", "description": "The weather forecast for a city: temperature, rain and wind."}]
        }))
    );
    let mut discovered = Discovered::new();
    assert_eq!(discovered.record("search_tools", &record), ["weather.forecast"]);
    assert_eq!(discovered.record("search_tools", &record), Vec::<String>::new(), "already known");
    let second =
        executor.execute(ToolCallRequest::new("search_tools", "c2", r#"{"query": "flight", "limit": "1"}"#)).await;
    assert_eq!(discovered.record("search_tools", &second), ["flights.book"]);
    assert_eq!(discovered.names().collect::<Vec<_>>(), ["weather.forecast", "flights.book"]);
    let saved = serde_json::to_string(&discovered).unwrap();
    assert_eq!(saved, r#"{"names":["weather.forecast","flights.book"]}"#);
    assert_eq!(serde_json::from_str::<Discovered>(&saved).unwrap(), discovered);
}

#[tokio::test]
async fn the_search_tool_says_when_nothing_matched_and_refuses_an_empty_query() {
    let (executor, _) = executor_with_search();
    let none =
        executor.execute(ToolCallRequest::new("search_tools", "c1", r#"{"query": "quantum chromodynamics"}"#)).await;
    assert_eq!(
        none.content.structured,
        Some(json!({
            "query": "quantum chromodynamics",
            "tools": [],
            "message": "No tool matched. Try other words for the action (a verb and what it acts on), or go on without one."
        }))
    );
    let empty = executor.execute(ToolCallRequest::new("search_tools", "c2", r#"{"query": "  "}"#)).await;
    assert_eq!(empty.status, CallStatus::Failed);
    let Some(tool_core::CallFailure::ToolError { error }) = empty.failure else { panic!("{:?}", empty.failure) };
    assert_eq!(error.message(), "`query` must be a non-empty string: describe the tool you need in a few words.");
    assert_eq!(error.code(), Some("empty_query"));
    let mut discovered = Discovered::new();
    assert!(discovered.record("search_tools", &none).is_empty());
}

#[tokio::test]
async fn the_search_tool_keeps_the_limit_the_host_set() {
    let many: Vec<ToolDefinition> = (0..30)
        .map(|i| {
            definition(
                &format!("report_{i}"),
                "Makes a sales report.",
                json!({"type": "object", "properties": {}, "required": []}),
            )
        })
        .collect();
    let search = SearchToolBuilder::new(&many).max_limit(3).default_limit(2).name("find_tools").build().unwrap();
    assert_eq!(
        search.definition().input_schema["properties"]["limit"]["description"],
        "How many tools to return, best first (default 2, at most 3)."
    );
    let executor = Executor::builder(ToolCatalog::builder().add_tool(search).build().unwrap()).build();
    let count = |record: ExecutionRecord| record.content.structured.unwrap()["tools"].as_array().unwrap().len();
    let asked_many =
        executor.execute(ToolCallRequest::new("find_tools", "c1", r#"{"query": "sales report", "limit": 500}"#)).await;
    assert_eq!(count(asked_many), 3);
    let default = executor.execute(ToolCallRequest::new("find_tools", "c2", r#"{"query": "sales report"}"#)).await;
    assert_eq!(count(default), 2);
}

#[tokio::test]
async fn hybrid_search_finds_what_words_miss_and_keeps_the_reasons() {
    let schema = json!({"type": "object", "properties": {}, "required": []});
    let weather = definition("weather.forecast", "The forecast for a city.", schema.clone());
    let flights = definition("flights.book", "Books a flight.", schema);
    let embedder = Arc::new(Trigrams::default());
    let hybrid = HybridSearch::embed([&weather, &flights], SearchOptions::default(), embedder.clone()).await.unwrap();
    assert!(hybrid.lexical().search("wether forcast", 5).is_empty(), "misspelt: no word matches");
    let hits = hybrid.search("wether forcast", 1).await.unwrap();
    assert_eq!(hits[0].name, "weather.forecast");
    assert!(hits[0].matches.is_empty());
    assert!(hits[0].similarity.unwrap() > 0.3);
    let both = hybrid.search("book a flight", 2).await.unwrap();
    assert_eq!(both[0].name, "flights.book");
    assert_eq!(both[0].matches.len(), 2);
    // One batch at build, one call per query.
    assert_eq!(embedder.calls.load(std::sync::atomic::Ordering::SeqCst), 3);
}

struct Broken(usize);

impl Embedder for Broken {
    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
        let dims = self.0;
        Box::pin(async move { Ok(texts.iter().enumerate().map(|(i, _)| vec![1.0; dims + i]).collect()) })
    }
}

#[tokio::test]
async fn an_embedder_that_gives_unusable_vectors_is_an_error() {
    let schema = json!({"type": "object", "properties": {}, "required": []});
    let a = definition("a_tool", "One.", schema.clone());
    let b = definition("b_tool", "Two.", schema);
    let error = HybridSearch::embed([&a, &b], SearchOptions::default(), Arc::new(Broken(4))).await.unwrap_err();
    assert_eq!(error.to_string(), "the embedder gave vectors of 4 and of 5 dimensions");
    let one = HybridSearch::embed([&a], SearchOptions::default(), Arc::new(Broken(4))).await.unwrap();
    assert_eq!(one.search("one", 1).await.unwrap()[0].name, "a_tool");
    let other = HybridSearch::embed([&a], SearchOptions::default(), Arc::new(Broken(3))).await.unwrap();
    drop(other);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Any text, as a tool's name, description or a query, is indexed and searched without a
    /// panic; hits never exceed the limit, name no tool twice, come best first, and each
    /// match names a word the query holds.
    #[test]
    fn any_text_is_indexed_and_searched(
        names in proptest::collection::vec("[a-zA-Z_][a-zA-Z0-9_.]{0,12}", 1..8),
        descriptions in proptest::collection::vec("\\PC{0,80}", 1..8),
        query in "\\PC{0,60}",
        limit in 0usize..6,
    ) {
        let schema = json!({"type": "object", "properties": {}, "required": []});
        let tools: Vec<ToolDefinition> = names
            .iter()
            .zip(descriptions.iter().cycle())
            .map(|(name, description)| definition(name, description, schema.clone()))
            .collect();
        let search = ToolSearch::new(&tools);
        let hits = search.search(&query, limit);
        proptest::prop_assert!(hits.len() <= limit);
        let mut seen = std::collections::HashSet::new();
        for pair in hits.windows(2) {
            proptest::prop_assert!(pair[0].exact_name || pair[0].score >= pair[1].score);
        }
        // Folded as the search folds a word: character by character.
        let folded: String = query.chars().flat_map(char::to_lowercase).collect();
        for hit in &hits {
            proptest::prop_assert!(seen.insert(hit.name.clone()), "{} twice", hit.name);
            for m in &hit.matches {
                proptest::prop_assert!(folded.contains(&m.word), "{:?} not in {:?}", m.word, query);
            }
        }
    }
}
