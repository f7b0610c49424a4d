//! Tool search and deferral in the `tools` command line and the playground: `tools size` up
//! front with and without deferral per format, `tools search` and its reasons, and the
//! playground's `/api/search` over real HTTP. `tools_cli` (the provider-dialect tools) runs as a
//! real process; a catalog with its own deferral runs in process through `ToolsCli::run_with`.

use serde_json::{json, Value};
use tool_core::providers::export::export;
use tool_core::providers::Dialect;
use tool_core::search::SearchToolBuilder;
use tool_core::{DynamicTool, Executor, Tool, ToolCatalog};
use tool_tests::dialect_tools::catalog;

#[path = "../src/tools_cli.rs"]
mod tools_cli;
use tools_cli::{json_out_ok, stderr, stdout, tools};

const WHOLE_LIST: &str = "The whole list, per request (o200k_base tokens):
FORMAT              CHARS  TOKENS
openai              4102   975     counted
openai-strict       4546   1065    counted
responses           4050   964     counted
responses-strict    4494   1054    counted
anthropic           3488   847     estimated
anthropic-strict    3296   814     estimated
gemini              3556   823     estimated
gemini-json-schema  3929   939     estimated
mcp                 3646   881     estimated
xml                 3577   862     estimated
";

const PER_TOOL: &str = "
Tokens per tool:
TOOL             openai  openai-strict  responses  responses-strict  anthropic  anthropic-strict  gemini  gemini-json-schema  mcp  xml
canvas_draw      230     240            228        238               243        279               215     222                 243  246
clock.now        33      40             31         38                24         32                13      13                  39   27
folders.create   165     179            163        177               114        -                 113     157                 114  117
shipment.create  543     602            541        600               463        501               474     539                 481  466
anthropic-strict cannot express folders.create (`tools check` says why)
";

#[test]
fn size_says_when_nothing_is_deferred_and_how_to_see_what_deferral_saves() {
    let output = tools(&["size"]);
    assert!(output.status.success());
    assert_eq!(
        stdout(&output),
        format!(
            "{WHOLE_LIST}\nUp front with tool search: no tool is deferred (mark tools `#[tool(defer)]`, or try \
             --defer-all and --keep-loaded NAME)\n{PER_TOOL}"
        )
    );
    // In JSON: nothing deferred, no search tool, and up front is the whole list in every format.
    let report = json_out_ok(&["size", "--json"]);
    let deferral = &report["deferral"];
    assert_eq!(deferral["search_tool"], Value::Null);
    assert_eq!(deferral["deferred"], json!([]));
    assert_eq!(deferral["loaded"], json!(["canvas_draw", "clock.now", "folders.create", "shipment.create"]));
    for (format, whole) in deferral["formats"].as_array().unwrap().iter().zip(report["formats"].as_array().unwrap()) {
        assert_eq!(format["all_tools"]["tokens"], whole["total"]["tokens"], "{format}");
        assert_eq!(format["with_deferral"], format["all_tools"], "{format}");
        assert_eq!((format["saved_tokens"].clone(), format["saved_percent"].clone()), (json!(0), json!(0.0)));
    }
}

#[test]
fn size_with_defer_all_shows_the_saving_per_format_in_a_table() {
    let output = tools(&["size", "--defer-all", "--keep-loaded", "clock.now"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        format!(
            "{WHOLE_LIST}
Up front with tool search (3 of 4 tools deferred, found by `search_tools`):
FORMAT              ALL TOOLS  WITH SEARCH  SAVED  SAVED %  DEFERRED TOOLS
openai              975        184          791    81.1%    not sent until found
openai-strict       1065       208          857    80.5%    not sent until found
responses           964        233          731    75.8%    name and description
responses-strict    1054       257          797    75.6%    name and description
anthropic           847        165          682    80.5%    sent, kept out of the context
anthropic-strict    814        184          630    77.4%    sent, kept out of the context
gemini              823        158          665    80.8%    not sent until found
gemini-json-schema  939        160          779    83.0%    not sent until found
mcp                 881        202          679    77.1%    not sent until found
xml                 862        174          688    79.8%    not sent until found
loaded: clock.now; the search tool is sent with them
{PER_TOOL}"
        )
    );
}

#[test]
fn size_json_has_the_deferral_report_beside_the_whole_list() {
    let report = json_out_ok(&["size", "--defer-all", "--keep-loaded", "clock.now", "--json"]);
    let row = |format: &str, exact: bool, cost: &str, all: [u64; 2], with: [u64; 2], saved: i64, percent: f64| {
        json!({"format": format, "exact": exact, "deferred_cost": cost,
            "all_tools": {"name": "(catalog)", "chars": all[0], "tokens": all[1]},
            "with_deferral": {"name": "(up front)", "chars": with[0], "tokens": with[1]},
            "saved_tokens": saved, "saved_percent": percent})
    };
    let mut anthropic_strict = row("anthropic-strict", false, "out_of_context", [3296, 814], [796, 184], 630, 77.4);
    anthropic_strict["refused"] = json!(["folders.create"]);
    assert_eq!(
        report["deferral"],
        json!({
            "tokenizer": "o200k_base",
            "search_tool": "search_tools",
            "loaded": ["clock.now"],
            "deferred": ["canvas_draw", "folders.create", "shipment.create"],
            "formats": [
                row("openai", true, "not_sent", [4102, 975], [797, 184], 791, 81.1),
                row("openai-strict", true, "not_sent", [4546, 1065], [903, 208], 857, 80.5),
                row("responses", true, "name_and_description", [4050, 964], [1020, 233], 731, 75.8),
                row("responses-strict", true, "name_and_description", [4494, 1054], [1126, 257], 797, 75.6),
                row("anthropic", false, "out_of_context", [3488, 847], [709, 165], 682, 80.5),
                anthropic_strict,
                row("gemini", false, "not_sent", [3556, 823], [685, 158], 665, 80.8),
                row("gemini-json-schema", false, "not_sent", [3929, 939], [695, 160], 779, 83.0),
                row("mcp", false, "not_sent", [3646, 881], [858, 202], 679, 77.1),
                row("xml", false, "not_sent", [3577, 862], [760, 174], 688, 79.8),
            ]
        })
    );
    // The whole list is the one `formats` reports.
    assert_eq!(report["formats"][2]["total"]["chars"], 4050);
}

/// What the report prices, rebuilt from the exports: the loaded tools and the search tool over
/// the deferred ones; for OpenAI Responses, each deferred function's name and description too.
#[test]
fn up_front_is_the_loaded_tools_and_the_search_tool_plus_what_responses_still_shows() {
    let report = json_out_ok(&["size", "--defer-all", "--keep-loaded", "clock.now", "--json"]);
    let all: Vec<_> = catalog().definitions().collect();
    let deferred: Vec<_> = all.iter().copied().filter(|t| t.name != "clock.now").collect();
    let search = SearchToolBuilder::new(deferred.iter().copied()).build().unwrap();
    let sent = [catalog().definition("clock.now").unwrap(), Tool::definition(&search)];
    let chat = export(Dialect::OpenAiChat { strict: false }, sent).unwrap().request_fragment().to_string();
    assert_eq!(report["deferral"]["formats"][0]["with_deferral"]["chars"], chat.chars().count());
    let mut responses = export(Dialect::OpenAiResponses { strict: false }, sent).unwrap().request_fragment();
    for tool in &deferred {
        responses["tools"]
            .as_array_mut()
            .unwrap()
            .push(json!({"type": "function", "name": tool.name, "description": tool.description}));
    }
    assert_eq!(report["deferral"]["formats"][2]["with_deferral"]["chars"], responses.to_string().chars().count());
    let anthropic = export(Dialect::Anthropic { strict: false }, sent).unwrap().request_fragment().to_string();
    assert_eq!(report["deferral"]["formats"][4]["with_deferral"]["chars"], anthropic.chars().count());
    // Everything deferred: the search tool alone is sent up front.
    let alone = json_out_ok(&["size", "--defer-all", "--json"]);
    let only = export(Dialect::OpenAiChat { strict: false }, [Tool::definition(&search)]).unwrap();
    assert_eq!(alone["deferral"]["loaded"], json!([]));
    assert_eq!(
        alone["deferral"]["formats"][0]["with_deferral"]["chars"],
        only.request_fragment().to_string().chars().count()
    );
}

#[test]
fn keep_loaded_must_name_a_tool() {
    for command in ["size", "search"] {
        let mut args = vec![command];
        if command == "search" {
            args.push("clock");
        }
        args.extend(["--defer-all", "--keep-loaded", "clock"]);
        let output = tools(&args);
        assert_eq!(output.status.code(), Some(2), "{command}");
        assert_eq!(stdout(&output), "");
        assert_eq!(stderr(&output), "error: --keep-loaded: no tool named `clock`; did you mean `clock.now`?\n");
    }
}

/// A catalog that defers by itself: one tool `defer(true)`red at its declaration, one by tag.
fn deferring_catalog() -> ToolCatalog {
    let schema = |name: &str, description: &str| json!({"type": "object", "properties": {name: {"type": "string", "description": description}}, "required": [name]});
    let tool = |name: &str, description: &str, schema: Value| {
        DynamicTool::builder(name).description(description).input_schema(schema).handler(|_, _| async { "ok" })
    };
    ToolCatalog::builder()
        .add_tool(
            tool(
                "weather.forecast",
                "The forecast for a city: rain, wind and temperature.",
                schema("city", "The city."),
            )
            .build()
            .unwrap(),
        )
        .add_tool(
            tool("flights.book", "Books a flight between two airports.", schema("from", "The airport of departure."))
                .defer(true)
                .build()
                .unwrap(),
        )
        .add_tool(
            tool("hotels.reserve", "Reserves a hotel room for some nights.", schema("city", "Where the hotel is."))
                .tag("travel")
                .build()
                .unwrap(),
        )
        .defer_tagged("travel")
        .build()
        .unwrap()
}

/// `tools` on `catalog` in process: the exit status, standard output and standard error.
fn run(catalog: &ToolCatalog, args: &[&str]) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let cli = tool_core::cli::ToolsCli::new(Executor::new(catalog.clone()));
    let code = cli.run_with(
        std::iter::once("tools").chain(args.iter().copied()),
        &mut std::io::empty(),
        &mut out,
        &mut err,
        false,
    );
    (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

#[test]
fn size_follows_the_catalogs_own_deferral_and_keep_loaded_overrides_it() {
    let catalog = deferring_catalog();
    let (code, text, _) = run(&catalog, &["size", "--json"]);
    assert_eq!(code, 0);
    let report: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(report["deferral"]["loaded"], json!(["weather.forecast"]));
    assert_eq!(report["deferral"]["deferred"], json!(["flights.book", "hotels.reserve"]));

    let (_, text, _) = run(&catalog, &["size", "--keep-loaded", "flights.book"]);
    let table: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("Up front")).take(4).collect();
    assert_eq!(
        table,
        [
            "Up front with tool search (1 of 3 tools deferred, found by `search_tools`):",
            "FORMAT              ALL TOOLS  WITH SEARCH  SAVED  SAVED %  DEFERRED TOOLS",
            // One small tool deferred costs less than the search tool that finds it.
            "openai              172        262          -90    -52.3%   not sent until found",
            "openai-strict       187        289          -102   -54.5%   not sent until found",
        ]
    );
    assert!(text.contains("\nloaded: flights.book, weather.forecast; the search tool is sent with them\n"), "{text}");
}

#[test]
fn search_ranks_the_tools_and_says_which_words_matched_where() {
    let output = tools(&["search", "draw a circle"]);
    assert!(output.status.success());
    assert_eq!(
        stdout(&output),
        "RANK  TOOL         SCORE  MATCHED\n\
         1     canvas_draw  1.54   draw (name, description, parameter_descriptions); circle (parameter_descriptions, values)\n\
         1 of 4 tools matched `draw a circle`\n"
    );
    // A tool's name, in any case, comes first and says so.
    assert_eq!(
        stdout(&tools(&["search", "CLOCK.NOW"])),
        "RANK  TOOL       SCORE  MATCHED\n\
         1     clock.now  1.75   the tool's name; clock (name); now (name)\n\
         1 of 4 tools matched `CLOCK.NOW`\n"
    );
    assert_eq!(stdout(&tools(&["search", "zzz"])), "RANK  TOOL  SCORE  MATCHED\n0 of 4 tools matched `zzz`\n");
    assert_eq!(
        stdout(&tools(&["search", "create", "--limit", "1"])),
        "RANK  TOOL             SCORE  MATCHED\n\
         1     shipment.create  0.56   create (name)\n\
         1 of 4 tools matched `create`\n"
    );
    let zero = tools(&["search", "x", "--limit", "0"]);
    assert_eq!(zero.status.code(), Some(2));
    assert!(stderr(&zero).starts_with("error: invalid value '0' for '--limit <LIMIT>': 0 is not in 1..=10000\n"));
}

#[test]
fn search_json_gives_each_hit_its_score_and_matches() {
    assert_eq!(
        json_out_ok(&["search", "draw a circle", "--json"]),
        json!({"query": "draw a circle", "searched": 4, "tools": [{
            "name": "canvas_draw", "score": 1.5358695, "exact_name": false, "deferred": false,
            "matches": [
                {"word": "draw", "term": "draw", "fields": ["name", "description", "parameter_descriptions"], "score": 0.9855618},
                {"word": "circle", "term": "circl", "fields": ["parameter_descriptions", "values"], "score": 0.5503077}
            ]
        }]})
    );
    // Only the deferred tools, as the search tool sees them: its index holds those alone.
    assert_eq!(
        json_out_ok(&["search", "create", "--deferred", "--defer-all", "--keep-loaded", "clock.now", "--json"]),
        json!({"query": "create", "searched": 3, "tools": [
            {"name": "shipment.create", "score": 0.38211673, "exact_name": false, "deferred": true,
             "matches": [{"word": "create", "term": "creat", "fields": ["name"], "score": 0.38211673}]},
            {"name": "folders.create", "score": 0.36473042, "exact_name": false, "deferred": true,
             "matches": [{"word": "create", "term": "creat", "fields": ["name", "description"], "score": 0.36473042}]}
        ]})
    );
}

#[test]
fn search_of_the_deferred_tools_follows_the_catalog() {
    let catalog = deferring_catalog();
    let (code, text, err) = run(&catalog, &["search", "book a room in a hotel", "--deferred"]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        text,
        "RANK  TOOL            SCORE  MATCHED\n\
         1     hotels.reserve  0.72   room (description); hotel (name, description, parameter_descriptions)\n\
         2     flights.book    0.31   book (name, description)\n\
         2 of 2 deferred tools matched `book a room in a hotel`\n"
    );
    // The loaded tool is not among the deferred ones.
    let (_, text, _) = run(&catalog, &["search", "city", "--deferred"]);
    assert_eq!(
        text,
        "RANK  TOOL            SCORE  MATCHED\n\
         1     hotels.reserve  0.39   city (parameters)\n\
         1 of 2 deferred tools matched `city`\n"
    );
}

/// `tools_cli` started with `args`, and the one line of JSON it prints once it listens;
/// killed when dropped.
struct Served(std::process::Child, Value);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn served(args: &[&str]) -> Served {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tools_cli"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut line).unwrap();
    let printed = serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("{args:?}: {e}: {line:?}"));
    Served(child, printed)
}

async fn post(client: &reqwest::Client, url: &str, body: Value) -> (u16, String) {
    let response = client.post(format!("{url}api/search")).json(&body).send().await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

#[tokio::test]
async fn the_playground_search_api_gives_the_ranking_with_the_matched_words_marked() {
    let server = served(&["playground", "--addr", "127.0.0.1:0", "--json"]);
    let url = server.1["url"].as_str().unwrap().to_owned();
    let client = reqwest::Client::new();
    let (status, body) = post(&client, &url, json!({"query": "draw a circle", "limit": 3})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"query": "draw a circle", "searched": 4, "tools": [{
            "name": "canvas_draw", "score": 1.5358695, "exact_name": false, "deferred": false,
            "matches": [
                {"word": "draw", "term": "draw", "fields": ["name", "description", "parameter_descriptions"], "score": 0.9855618},
                {"word": "circle", "term": "circl", "fields": ["parameter_descriptions", "values"], "score": 0.5503077}
            ],
            "highlights": [
                {"field": "name", "text": "canvas_draw", "marks": [[7, 11]]},
                {"field": "description", "text": "Draws a shape at a point.", "marks": [[0, 5]]},
                {"field": "parameter_descriptions", "text": "What to draw.", "marks": [[8, 12]]},
                {"field": "parameter_descriptions", "text": "A circle.", "marks": [[2, 8]]},
                {"field": "parameter_descriptions", "text": "A shape to draw.", "marks": [[11, 15]]},
                {"field": "values", "text": "circle", "marks": [[0, 6]]}
            ]
        }]})
    );
    // Nothing deferred in this catalog: the deferred tools' search has nothing to search.
    let (status, body) = post(&client, &url, json!({"query": "folders", "deferred": true})).await;
    assert_eq!(
        (status, serde_json::from_str::<Value>(&body).unwrap()),
        (200, json!({"query": "folders", "searched": 0, "tools": []}))
    );

    // Bounded: the query's length and the limit.
    let long = "a".repeat(2049);
    assert_eq!(
        post(&client, &url, json!({"query": long})).await,
        (400, "the query is longer than 2048 bytes".to_owned())
    );
    assert_eq!(post(&client, &url, json!({"query": "a".repeat(2048)})).await.0, 200);
    for limit in [0, 51] {
        assert_eq!(
            post(&client, &url, json!({"query": "draw", "limit": limit})).await,
            (400, "`limit` must be from 1 to 50".to_owned())
        );
    }
    let (status, body) = post(&client, &url, json!({"query": "create", "limit": 50})).await;
    assert_eq!(
        (status, serde_json::from_str::<Value>(&body).unwrap()["tools"].as_array().map(Vec::len)),
        (200, Some(2))
    );
    // From another page: refused as calls are.
    let response = client
        .post(format!("{url}api/search"))
        .header("origin", "http://evil.example")
        .json(&json!({"query": "draw"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 403);
}

#[tokio::test]
async fn the_playground_searches_the_deferred_tools_its_flags_defer() {
    let server =
        served(&["playground", "--addr", "127.0.0.1:0", "--json", "--defer-all", "--keep-loaded", "clock.now"]);
    let url = server.1["url"].as_str().unwrap().to_owned();
    let client = reqwest::Client::new();
    let (status, body) = post(&client, &url, json!({"query": "folder tree", "deferred": true})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"query": "folder tree", "searched": 3, "tools": [{
            "name": "folders.create", "score": 1.278651, "exact_name": false, "deferred": true,
            "matches": [
                {"word": "folder", "term": "folder", "fields": ["name", "description", "parameter_descriptions"], "score": 0.8545087},
                {"word": "tree", "term": "tree", "fields": ["description"], "score": 0.42414236}
            ],
            // Each word where the hit found it; `folders` is marked for `folder` (one stem).
            "highlights": [
                {"field": "name", "text": "folders.create", "marks": [[0, 7]]},
                {"field": "description", "text": "Creates a tree of folders.", "marks": [[10, 14], [18, 25]]},
                {"field": "parameter_descriptions", "text": "The top folder.", "marks": [[8, 14]]},
                {"field": "parameter_descriptions", "text": "The folders inside.", "marks": [[4, 11]]},
                {"field": "parameter_descriptions", "text": "A folder and what is in it.", "marks": [[2, 8]]}
            ]
        }]})
    );
    let refused = tools(&["playground", "--addr", "127.0.0.1:0", "--keep-loaded", "nope"]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(stderr(&refused), "error: --keep-loaded: no tool named `nope`; `tools list` shows them\n");
}

#[test]
fn a_tool_named_as_the_search_tool_cannot_be_sent_beside_it() {
    let own = DynamicTool::builder("search_tools")
        .description("Searches the web.")
        .input_schema(json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}))
        .handler(|_, _| async { "ok" })
        .build()
        .unwrap();
    let catalog = deferring_catalog().to_builder().add_tool(own).build().unwrap();
    // The whole list is still reported; what deferral saves cannot be, and the command fails.
    let (code, out, err) = run(&catalog, &["size"]);
    assert_eq!((code, err.as_str()), (1, ""));
    let section: Vec<&str> = out.lines().skip_while(|l| !l.starts_with("Up front")).take(2).collect();
    assert_eq!(
        section,
        [
            "Up front with tool search: the tools cannot be exported: tools `search_tools` and `search_tools` would \
             both be sent as `search_tools` to OpenAI Chat Completions; rename one",
            ""
        ]
    );
    assert!(out.starts_with("The whole list, per request (o200k_base tokens):\n"), "{out}");
    let (code, out, _) = run(&catalog, &["size", "--json"]);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(code, 1);
    assert_eq!(report["deferral"], Value::Null);
    assert_eq!(
        report["deferral_error"],
        "the tools cannot be exported: tools `search_tools` and `search_tools` would both be sent as `search_tools` \
         to OpenAI Chat Completions; rename one"
    );
    assert_eq!(report["formats"].as_array().map(Vec::len), Some(10));
}

/// 21 tools: one more than Anthropic's strict mode takes in a request.
fn many_tools() -> ToolCatalog {
    let mut builder = ToolCatalog::builder();
    for i in 0..21 {
        let tool = DynamicTool::builder(format!("job_{i:02}"))
            .description(format!("Runs job number {i}."))
            .input_schema(json!({"type": "object", "properties": {"when": {"type": "string"}}, "required": ["when"]}))
            .handler(|_, _| async { "ok" })
            .build()
            .unwrap();
        builder = builder.add_tool(tool);
    }
    builder.build().unwrap()
}

#[test]
fn a_list_over_a_request_limit_is_priced_and_said_to_be_refused_and_deferral_brings_it_under() {
    let catalog = many_tools();
    let (code, text, err) = run(&catalog, &["size", "--defer-all", "--keep-loaded", "job_00"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let head: Vec<&str> = text.lines().take(27).collect();
    assert_eq!(
        head,
        [
            "The whole list, per request (o200k_base tokens):",
            "FORMAT              CHARS  TOKENS",
            "openai              4012   949     counted",
            "openai-strict       4600   1054    counted",
            "responses           3739   887     counted",
            "responses-strict    4327   992     counted",
            "anthropic           3088   760     estimated",
            "anthropic-strict    3991   929     estimated",
            "gemini              3073   744     estimated",
            "gemini-json-schema  3283   786     estimated",
            "mcp                 3067   760     estimated",
            "xml                 3500   825     estimated",
            "over a limit: anthropic-strict: Anthropic (strict) takes at most 20 strict tools per request; these tools \
             have 21; the provider refuses this list",
            "",
            "Up front with tool search (20 of 21 tools deferred, found by `search_tools`):",
            "FORMAT              ALL TOOLS  WITH SEARCH  SAVED  SAVED %  DEFERRED TOOLS",
            "openai              949        196          753    79.3%    not sent until found",
            "openai-strict       1054       218          836    79.3%    not sent until found",
            "responses           887        571          316    35.6%    name and description",
            "responses-strict    992        593          399    40.2%    name and description",
            "anthropic           760        178          582    76.6%    sent, kept out of the context",
            "anthropic-strict    929        197          732    78.8%    sent, kept out of the context",
            "gemini              744        181          563    75.7%    not sent until found",
            "gemini-json-schema  786        185          601    76.5%    not sent until found",
            "mcp                 760        199          561    73.8%    not sent until found",
            "xml                 825        186          639    77.5%    not sent until found",
            "loaded: job_00; the search tool is sent with them",
        ]
    );
    let (_, text, _) = run(&catalog, &["size", "--defer-all", "--keep-loaded", "job_00", "--json"]);
    let report: Value = serde_json::from_str(&text).unwrap();
    let limit = "Anthropic (strict) takes at most 20 strict tools per request; these tools have 21";
    assert_eq!(report["formats"][5]["over_limit"], json!([limit]));
    assert_eq!(report["deferral"]["formats"][5]["over_limit"], json!([limit]));
    assert_eq!(report["deferral"]["formats"][5]["with_deferral_over_limit"], Value::Null);
    assert_eq!(report["formats"][4]["over_limit"], Value::Null);

    // Twenty kept loaded and the search tool: still over, and said so under the table.
    let mut args = vec!["size", "--defer-all"];
    let names: Vec<String> = (0..20).map(|i| format!("job_{i:02}")).collect();
    for name in &names {
        args.extend(["--keep-loaded", name.as_str()]);
    }
    let (_, text, _) = run(&catalog, &args);
    let section: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("Up front")).skip(12).take(2).collect();
    assert_eq!(
        section,
        [
            "over a limit: anthropic-strict with search: Anthropic (strict) takes at most 20 strict tools per request; \
             these tools have 21",
            "loaded: job_00, job_01, job_02, job_03, job_04, job_05, job_06, job_07, job_08, job_09 and 10 more; the \
             search tool is sent with them",
        ]
    );
}
