//! The playground page in a real browser: headless Chromium (Debian's `chromium`, driven
//! through `chromedriver` with fantoccini) against `tools_cli playground` run as a real
//! process. A form with an enum, a list and a nested object is filled and called; messy JSON
//! typed into the raw arguments shows its warnings at their fields; a refused call shows the
//! message for the model; the tool search box ranks the tools and marks the words each matched;
//! a call that waits for approval shows its reasons and the buttons that answer it. A
//! screenshot of each state is kept in `target/playground/`.
//!
//! Calls that wait for approval are also tested over plain HTTP (no browser): kept by the
//! server under its own id, approved (as sent or edited, and checked again) or denied once,
//! the latest 100 kept.
//!
//! `.ci/run` installs `chromium` and `chromium-driver`. They are found on `PATH` (also as
//! `chromium-browser` or `google-chrome`), or at `TOOL_CHROMIUM` and `TOOL_CHROMEDRIVER`.

use std::io::BufRead;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

/// A child process killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The playground, and its URL.
fn playground() -> (Running, String) {
    playground_with(&[])
}

/// The playground with more arguments (`--defer-all`), and its URL.
fn playground_with(more: &[&str]) -> (Running, String) {
    playground_of("tools_cli", more)
}

/// The playground of the command line `binary` (`tools_cli_examples` adds a tool with
/// examples), and its URL.
fn playground_of(binary: &str, more: &[&str]) -> (Running, String) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin(binary))
        .args(["playground", "--addr", "127.0.0.1:0", "--json"])
        .args(more)
        .stdout(Stdio::piped())
        .spawn()
        .expect("tools_cli starts");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = serde_json::from_str::<Value>(&line).unwrap()["url"].as_str().unwrap().to_owned();
    (Running(child), url)
}

/// chromedriver on a free port, once it accepts connections.
fn chromedriver(path: &str) -> (Running, u16) {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = Command::new(path)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{path}: {e}; install Debian's chromium and chromium-driver (.ci/run does)"));
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(started.elapsed() < Duration::from_secs(20), "chromedriver did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    (Running(child), port)
}

async fn browser(port: u16, chromium: &str) -> Client {
    // A profile per browser: the tests of this file run at once, and Chromium locks its profile.
    static BROWSERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = BROWSERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let profile = std::env::temp_dir().join(format!("playground-chromium-{}-{n}", std::process::id()));
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1360,1000", format!("--user-data-dir={}", profile.display())],
        }),
    );
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a Chromium session")
}

fn screenshots() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/playground");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A screenshot of the whole page.
async fn shot(client: &Client, name: &str) {
    let height =
        client.execute("window.scrollTo(0, 0); return document.documentElement.scrollHeight;", vec![]).await.unwrap();
    client.set_window_size(1360, height.as_u64().unwrap_or(1000).clamp(700, 4000) as u32 + 20).await.unwrap();
    let png = client.screenshot().await.unwrap();
    std::fs::write(screenshots().join(name), png).unwrap();
}

/// A screenshot of the element at `selector` alone (the record beside a tall form).
async fn shot_of(client: &Client, selector: &str, name: &str) {
    client.execute("document.querySelector(arguments[0]).scrollIntoView();", vec![json!(selector)]).await.unwrap();
    let png = css(client, selector).await.screenshot().await.unwrap();
    std::fs::write(screenshots().join(name), png).unwrap();
}

async fn css(client: &Client, selector: &str) -> fantoccini::elements::Element {
    client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css(selector))
        .await
        .unwrap_or_else(|e| panic!("{selector}: {e}"))
}

async fn fill(client: &Client, name: &str, text: &str) {
    let input = css(client, &format!("[name=\"{name}\"]")).await;
    input.clear().await.unwrap();
    input.send_keys(text).await.unwrap();
}

/// Replaces the raw arguments with `text`, as a user typing it would.
async fn type_raw(client: &Client, text: &str) {
    client
        .execute(
            "const raw = document.getElementById('raw'); raw.value = arguments[0]; \
             raw.dispatchEvent(new Event('input', {bubbles: true}));",
            vec![json!(text)],
        )
        .await
        .unwrap();
}

/// Clicks Call and waits for the record of this call.
async fn call(client: &Client) -> String {
    client.execute("const r = document.getElementById('record'); if (r) r.replaceChildren();", vec![]).await.unwrap();
    css(client, "#call").await.click().await.unwrap();
    css(client, "#status").await.text().await.unwrap()
}

async fn texts(client: &Client, selector: &str) -> Vec<String> {
    let mut out = Vec::new();
    for element in client.find_all(Locator::Css(selector)).await.unwrap() {
        out.push(element.text().await.unwrap());
    }
    out
}

#[tokio::test]
async fn the_playground_fills_forms_calls_tools_and_shows_warnings_at_their_fields() {
    let test = "playground::the_playground_fills_forms_calls_tools_and_shows_warnings_at_their_fields";
    let Some((chromium, driver)) = tool_tests::external::chromium(test) else { return };
    let (_server, url) = playground();
    let (_driver, port) = chromedriver(&driver);
    let client = browser(port, &chromium).await;
    client.goto(&url).await.unwrap();

    // The list, and search by name.
    css(&client, "#tools li[data-tool=\"shipment.create\"]").await;
    assert_eq!(texts(&client, "#tools li").await, ["canvas_draw", "clock.now", "folders.create", "shipment.create"]);
    css(&client, "#search").await.send_keys("fold").await.unwrap();
    assert_eq!(texts(&client, "#tools li").await, ["folders.create"]);
    css(&client, "#search").await.clear().await.unwrap();
    client.execute("document.getElementById('search').dispatchEvent(new Event('input'))", vec![]).await.unwrap();

    // A form with a nested object, a list of objects, an enum, a map and constraints.
    css(&client, "#tools li[data-tool=\"shipment.create\"]").await.click().await.unwrap();
    assert_eq!(css(&client, ".tool-head h2").await.text().await.unwrap(), "shipment.create");
    assert!(css(&client, "fieldset[data-pointer=\"/return_to\"] legend")
        .await
        .text()
        .await
        .unwrap()
        .contains("(optional)"));
    fill(&client, "/recipient/name", "Ada").await;
    fill(&client, "/recipient/street", "1 Main St").await;
    css(&client, "[data-pointer=\"/items\"] > button.add").await.click().await.unwrap();
    fill(&client, "/items/0/sku", "A1").await;
    fill(&client, "/items/0/quantity", "3").await;
    fill(&client, "/items/0/weight_kg", "1.5").await;
    css(&client, "select[name=\"/service\"]").await.select_by_value("1").await.unwrap();
    fill(&client, "/metadata", "{\"order\": \"A-1\"}").await;
    fill(&client, "/account", "7").await;
    fill(&client, "/reference", "PO-12").await;
    let raw: Value = serde_json::from_str(&css(&client, "#raw").await.prop("value").await.unwrap().unwrap()).unwrap();
    assert_eq!(
        raw,
        json!({"recipient": {"name": "Ada", "street": "1 Main St"}, "items": [{"sku": "A1", "quantity": 3, "weight_kg": 1.5}],
            "service": "express", "metadata": {"order": "A-1"}, "account": 7, "reference": "PO-12"})
    );
    assert_eq!(call(&client).await, "success");
    let result: Value = serde_json::from_str(&css(&client, "#result").await.text().await.unwrap()).unwrap();
    assert_eq!(result["items"], json!([{"sku": "A1", "quantity": 3, "weight_kg": 1.5}]));
    assert_eq!((result["service"].clone(), result["parcels"].clone()), (json!("express"), json!(1)));
    shot(&client, "1-form-called.png").await;

    // Messy JSON, typed by hand: sent as typed, repaired and converted, each warning at its field.
    let messy = r#"{"recipient": {"name": "Ada", "street": "1 Main St"}, "items": [{"sku": "A1", "quantity": "3", "weight_kg": 1.5}], "service": "Express", "metadata": {}, "account": "7", "reference": "PO-12",}"#;
    type_raw(&client, messy).await;
    assert!(css(&client, "#raw-note").await.text().await.unwrap().starts_with("Not a JSON object as it stands"));
    assert_eq!(call(&client).await, "success");
    assert_eq!(
        texts(&client, "#warnings li").await,
        [
            // What arrived is cut after 120 characters in a warning.
            format!(
                "trailing_comma_removed at (arguments): removed the comma after the last element (received {}… ({} chars))",
                messy.chars().take(120).collect::<String>(),
                messy.chars().count()
            ),
            "string_to_integer at /items/0/quantity: converted to 3 (received \"3\")".to_owned(),
            "enum_case_normalized at /service: read as \"express\" (received \"Express\")".to_owned(),
            "string_to_integer at /account: converted to 7 (received \"7\")".to_owned(),
        ]
    );
    // Each at its field; the repair of the whole text beside the text.
    assert_eq!(
        texts(&client, "#form .warned > .finding").await,
        [
            "string_to_integer: converted to 3",
            "enum_case_normalized: read as \"express\"",
            "string_to_integer: converted to 7"
        ]
    );
    assert_eq!(
        texts(&client, "#raw-findings.warned > .finding").await,
        ["trailing_comma_removed: removed the comma after the last element"]
    );
    assert_eq!(
        css(&client, ".warned[data-pointer=\"/account\"] .finding").await.text().await.unwrap(),
        "string_to_integer: converted to 7"
    );
    shot(&client, "2-messy-json-warnings.png").await;

    // A refused call: the message for the model, and the field it concerns.
    type_raw(&client, r#"{"recipient": {"name": "Ada", "street": "1 Main St"}, "items": [], "service": "express", "metadata": {}, "account": 7, "reference": "PO1"}"#).await;
    assert_eq!(css(&client, "#raw-note").await.text().await.unwrap(), "");
    assert_eq!(css(&client, "input[name=\"/reference\"]").await.prop("value").await.unwrap().as_deref(), Some("PO1"));
    assert_eq!(call(&client).await, "failed (invalid_arguments)");
    assert_eq!(
        css(&client, "#message").await.text().await.unwrap(),
        "The arguments for `shipment.create` were not accepted:\n- `reference`: expected text of at least 4 characters; \
         got \"PO1\".\n- `reference`: expected text matching the pattern `^PO-[0-9]+$`; got \"PO1\".\n\
         Send the corrected arguments to `shipment.create` again."
    );
    // Both errors at the one field.
    assert_eq!(texts(&client, "#form .refused").await.len(), 1);
    assert_eq!(texts(&client, ".refused[data-pointer=\"/reference\"] > .finding").await.len(), 2);
    assert!(css(&client, ".refused[data-pointer=\"/reference\"]").await.text().await.unwrap().contains("PO1"));
    shot(&client, "3-refused.png").await;

    client.close().await.unwrap();
}

/// Waits until the texts at `selector` are `expected` (the search box answers as typing pauses).
async fn wait_for_texts(client: &Client, selector: &str, expected: &[&str]) {
    let started = Instant::now();
    loop {
        // Read in one script: the ranking may be redrawn between finding an element and reading it.
        let found = client
            .execute(
                "return [...document.querySelectorAll(arguments[0])].map((e) => e.innerText);",
                vec![json!(selector)],
            )
            .await
            .unwrap();
        if found == json!(expected) {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{selector}: {found:?}, expected {expected:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn the_playground_search_box_ranks_the_tools_and_marks_why_each_matched() {
    let test = "playground::the_playground_search_box_ranks_the_tools_and_marks_why_each_matched";
    let Some((chromium, driver)) = tool_tests::external::chromium(test) else { return };
    let (_server, url) = playground_with(&["--defer-all", "--keep-loaded", "clock.now"]);
    let (_driver, port) = chromedriver(&driver);
    let client = browser(port, &chromium).await;
    client.goto(&url).await.unwrap();
    css(&client, "#tools li[data-tool=\"clock.now\"]").await;

    css(&client, "#find-query").await.send_keys("draw a circle").await.unwrap();
    // The answer to the whole query (those to its first letters may come before it).
    wait_for_texts(
        &client,
        ".hit .why",
        &["draw: name, description, parameter_descriptions · circle (circl): parameter_descriptions, values"],
    )
    .await;
    assert_eq!(texts(&client, "#ranking-summary").await, ["1 of 4 tools matched"]);
    assert_eq!(texts(&client, ".hit .hit-name").await, ["canvas_draw"]);
    assert_eq!(texts(&client, ".hit .score").await, ["1.54"]);
    assert_eq!(texts(&client, ".hit .tag").await, ["deferred"]);
    // Each text where a word matched, the word marked: `Draws` for `draw`, by its stem.
    assert_eq!(
        texts(&client, ".hit .highlights .field-name").await,
        ["name", "description", "parameter descriptions", "parameter descriptions", "parameter descriptions", "values"]
    );
    assert_eq!(
        texts(&client, ".hit .highlights .text").await,
        ["canvas_draw", "Draws a shape at a point.", "What to draw.", "A circle.", "A shape to draw.", "circle"]
    );
    assert_eq!(texts(&client, ".hit mark").await, ["draw", "Draws", "draw", "circle", "draw", "circle"]);
    shot(&client, "4-search.png").await;

    // Only the deferred tools: the loaded one is not searched.
    css(&client, "#find-query").await.clear().await.unwrap();
    css(&client, "#find-query").await.send_keys("clock").await.unwrap();
    wait_for_texts(&client, ".hit .hit-name", &["clock.now"]).await;
    assert_eq!(texts(&client, "#ranking-summary").await, ["1 of 4 tools matched"]);
    css(&client, "#find-deferred").await.click().await.unwrap();
    wait_for_texts(&client, "#ranking-summary", &["0 of 3 deferred tools matched"]).await;

    // A hit's name opens its form.
    css(&client, "#find-deferred").await.click().await.unwrap();
    wait_for_texts(&client, ".hit .hit-name", &["clock.now"]).await;
    css(&client, ".hit .hit-name").await.click().await.unwrap();
    assert_eq!(css(&client, ".tool-head h2").await.text().await.unwrap(), "clock.now");

    client.close().await.unwrap();
}

#[tokio::test]
async fn the_playground_lists_a_tools_examples_and_a_click_fills_the_arguments_with_one() {
    let test = "playground::the_playground_lists_a_tools_examples_and_a_click_fills_the_arguments_with_one";
    let Some((chromium, driver)) = tool_tests::external::chromium(test) else { return };
    let (_server, url) = playground_of("tools_cli_examples", &[]);
    let (_driver, port) = chromedriver(&driver);
    let client = browser(port, &chromium).await;
    client.goto(&url).await.unwrap();

    css(&client, "#tools li[data-tool=\"docs.search\"]").await.click().await.unwrap();
    assert_eq!(css(&client, ".tool-head h2").await.text().await.unwrap(), "docs.search");
    assert_eq!(texts(&client, "#examples h3").await, ["Examples"]);
    assert_eq!(
        texts(&client, "#examples button.example").await,
        [r#"{"query":"rust"}"#, r#"{"query":"tokio","limit":5}"#]
    );
    let raw = || async {
        serde_json::from_str::<Value>(&css(&client, "#raw").await.prop("value").await.unwrap().unwrap()).unwrap()
    };
    // The first example fills the form when the tool is picked; a click puts another there.
    assert_eq!(raw().await, json!({"query": "rust"}));
    css(&client, "#examples button.example[data-example=\"1\"]").await.click().await.unwrap();
    assert_eq!(raw().await, json!({"query": "tokio", "limit": 5}));
    assert_eq!(css(&client, "[name=\"/query\"]").await.prop("value").await.unwrap(), Some("tokio".to_owned()));
    assert_eq!(css(&client, "[name=\"/limit\"]").await.prop("value").await.unwrap(), Some("5".to_owned()));
    assert_eq!(call(&client).await, "success");
    assert_eq!(css(&client, "#result").await.text().await.unwrap(), "searched for \"tokio\"");
    shot(&client, "5-examples.png").await;
    // A tool without examples shows no list.
    css(&client, "#tools li[data-tool=\"clock.now\"]").await.click().await.unwrap();
    assert_eq!(css(&client, ".tool-head h2").await.text().await.unwrap(), "clock.now");
    assert!(client.find_all(Locator::Css("#examples")).await.unwrap().is_empty());
    client.close().await.unwrap();
}

// ---- calls that wait for approval ----------------------------------------------------------

const FOLDERS: &str = r#"{"root":{"name":"a","children":[]}}"#;

/// POSTs `body` to the playground's `path`; the status and the answer's text.
async fn post(client: &reqwest::Client, url: &str, path: &str, body: Value) -> (u16, String) {
    let response = client.post(format!("{url}{path}")).json(&body).send().await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// An answer that must be a record: read as JSON, without its duration.
fn record((status, body): (u16, String)) -> Value {
    assert_eq!(status, 200, "{body}");
    let mut record: Value = serde_json::from_str(&body).unwrap();
    assert!(record["duration_us"].is_u64(), "{record}");
    record.as_object_mut().unwrap().remove("duration_us");
    record
}

/// A call of `folders.create` that ends pending; its `pending_id`.
async fn pending_call(client: &reqwest::Client, url: &str) -> String {
    let answer = record(post(client, url, "api/call", json!({"tool": "folders.create", "arguments": FOLDERS})).await);
    assert_eq!(answer["status"], "pending", "{answer}");
    answer["pending_id"].as_str().unwrap().to_owned()
}

/// `GET /api/pending`, each record without its duration.
async fn waiting(client: &reqwest::Client, url: &str) -> Value {
    let response = client.get(format!("{url}api/pending")).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let mut answer: Value = response.json().await.unwrap();
    for record in answer["pending"].as_array_mut().unwrap() {
        assert!(record["duration_us"].is_u64(), "{record}");
        record.as_object_mut().unwrap().remove("duration_us");
    }
    answer
}

fn unknown(id: &str) -> (u16, String) {
    (
        404,
        format!(
            "no call waits for approval under the id `{id}`: it was answered already, expired, or was dropped for newer \
             ones (the playground keeps the latest 100, 16 MiB in all)"
        ),
    )
}

#[tokio::test]
async fn a_pending_call_is_kept_by_the_server_and_approved_once_by_its_id() {
    let (_server, url) = playground_with(&["--require-approval", "tool:folders.create"]);
    let client = reqwest::Client::new();
    let pending =
        record(post(&client, &url, "api/call", json!({"tool": "folders.create", "arguments": FOLDERS})).await);
    let read = json!({"root": {"name": "a", "children": []}});
    // The pending call's own id, 128 random bits; and when it expires.
    let id = pending["pending_id"].as_str().unwrap().to_owned();
    assert!(id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
    let expires = pending["pending"]["expires_at_ms"].clone();
    assert!(expires.is_u64(), "{pending}");
    assert_eq!(
        pending,
        json!({
            "request": {"tool_name": "folders.create", "call_id": "cli_call", "raw_arguments": FOLDERS, "arguments": read},
            "status": "pending",
            "content": {"text": "`folders.create` waits for a person's approval and has not run (rule tool:folders.create)."},
            "pending": {
                "id": id,
                "expires_at_ms": expires,
                "request": {"tool_name": "folders.create", "call_id": "cli_call", "raw_arguments": FOLDERS},
                "arguments": read,
                "reasons": [{"kind": "rule", "rule": "tool:folders.create"}]
            },
            "decisions": [{"stage": "approval", "by": "approval", "outcome": "pending", "message": "rule tool:folders.create"}],
            "pending_id": id
        })
    );
    // The server lists it, as the page was given it.
    assert_eq!(waiting(&client, &url).await, json!({"pending": [pending]}));
    // Approved: the call runs as the model sent it.
    assert_eq!(
        record(post(&client, &url, &format!("api/pending/{id}/approve"), json!({})).await),
        json!({
            "request": {"tool_name": "folders.create", "call_id": "cli_call", "raw_arguments": FOLDERS},
            "status": "success",
            "content": {"text": FOLDERS},
            "decisions": [{"stage": "approval", "by": "approval", "outcome": "pending", "message": "rule tool:folders.create"}, {"stage": "approval", "by": "person", "outcome": "approved"}]
        })
    );
    assert_eq!(waiting(&client, &url).await, json!({"pending": []}));
    // Once: a second answer finds nothing, and neither does an id the server never gave.
    assert_eq!(post(&client, &url, &format!("api/pending/{id}/approve"), json!({})).await, unknown(&id));
    assert_eq!(post(&client, &url, &format!("api/pending/{id}/deny"), json!({"reason": "late"})).await, unknown(&id));
    assert_eq!(post(&client, &url, "api/pending/x9/approve", json!({})).await, unknown("x9"));
    // Tools no rule covers run at once, with no id.
    let clock = record(post(&client, &url, "api/call", json!({"tool": "clock.now", "arguments": "{}"})).await);
    assert_eq!((clock["status"].clone(), clock.get("pending_id")), (json!("success"), None));
}

#[tokio::test]
async fn edited_arguments_are_read_and_checked_again() {
    let (_server, url) = playground_with(&["--require-approval", "tool:folders.create"]);
    let client = reqwest::Client::new();
    let id = pending_call(&client, &url).await;
    let edited = r#"{"root": {"name": "b", "children": []}}"#;
    assert_eq!(
        record(post(&client, &url, &format!("api/pending/{id}/approve"), json!({"arguments": edited})).await),
        json!({
            "request": {"tool_name": "folders.create", "call_id": "cli_call", "raw_arguments": r#"{"root":{"name":"b","children":[]}}"#},
            "status": "success",
            "content": {"text": r#"{"root":{"name":"b","children":[]}}"#},
            "decisions": [{"stage": "approval", "by": "approval", "outcome": "pending", "message": "rule tool:folders.create"}, {"stage": "approval", "by": "person", "outcome": "changed",
                "message": r#"approved with the arguments {"root":{"name":"b","children":[]}}"#}],
            // The call as the model sent it.
            "original": {"tool_name": "folders.create", "call_id": "cli_call", "raw_arguments": FOLDERS}
        })
    );

    // Not JSON: said, and the call still waits.
    let id = pending_call(&client, &url).await;
    let path = format!("api/pending/{id}/approve");
    assert_eq!(
        post(&client, &url, &path, json!({"arguments": "{nope"})).await,
        (400, "the edited arguments are not JSON: key must be a string at line 1 column 2".to_owned())
    );
    // Arguments the tool does not accept: the record the model would read for them.
    let refused = record(post(&client, &url, &path, json!({"arguments": r#"{"root": {"name": "c"}}"#})).await);
    assert_eq!(
        refused,
        json!({
            "request": {"tool_name": "folders.create", "call_id": "cli_call", "raw_arguments": r#"{"root":{"name":"c"}}"#,
                "arguments": {"root": {"name": "c"}},
                "parse_error": [{"pointer": "/root/children", "rule": "missing_required", "expected": "a list of objects",
                    "received": null, "detail": "missing field `children`"}]},
            "status": "failed",
            "content": {
                "text": "The arguments for `folders.create` were not accepted:\n- `root.children`: required, expected a list of \
                         objects; it was missing.\nSend the corrected arguments to `folders.create` again.",
                "structured": {"errors": [{"type": "missing_required", "loc": ["root", "children"],
                    "msg": "expected a list of objects", "input": null, "detail": "missing field `children`"}]}
            },
            "failure": {"kind": "invalid_arguments"},
            "decisions": [{"stage": "approval", "by": "approval", "outcome": "pending", "message": "rule tool:folders.create"}, {"stage": "approval", "by": "person", "outcome": "changed",
                "message": r#"approved with the arguments {"root":{"name":"c"}}"#}],
            "original": {"tool_name": "folders.create", "call_id": "cli_call", "raw_arguments": FOLDERS}
        })
    );
    assert_eq!(post(&client, &url, &path, json!({})).await, unknown(&id));
}

#[tokio::test]
async fn a_denial_needs_a_reason_and_the_model_reads_it() {
    let (_server, url) = playground_with(&["--require-approval", "tool:folders.create"]);
    let client = reqwest::Client::new();
    let id = pending_call(&client, &url).await;
    let path = format!("api/pending/{id}/deny");
    assert_eq!(
        post(&client, &url, &path, json!({"reason": " "})).await,
        (400, "a denial needs a reason: the model reads it".to_owned())
    );
    assert_eq!(
        post(&client, &url, &path, json!({"reason": "x".repeat(2049)})).await,
        (400, "the reason is longer than 2048 bytes".to_owned())
    );
    // The page sends an id and an answer, nothing else: not the call, nor other arguments.
    let (status, body) = post(&client, &url, &path, json!({"reason": "no", "tool": "canvas_draw"})).await;
    assert_eq!(status, 422, "{body}");
    let approve = format!("api/pending/{id}/approve");
    let (status, body) =
        post(&client, &url, &approve, json!({"pending": {"request": {"tool_name": "canvas_draw"}}})).await;
    assert_eq!(status, 422, "{body}");
    // From another page: refused as calls are.
    let response = client
        .post(format!("{url}{path}"))
        .header("origin", "http://evil.example")
        .json(&json!({"reason": "no"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 403);

    assert_eq!(record(post(&client, &url, &path, json!({"reason": "x".repeat(2048)})).await)["status"], "denied");
    let id = pending_call(&client, &url).await;
    assert_eq!(
        record(post(&client, &url, &format!("api/pending/{id}/deny"), json!({"reason": "  not this folder "})).await),
        json!({
            "request": {"tool_name": "folders.create", "call_id": "cli_call", "raw_arguments": FOLDERS,
                "arguments": {"root": {"name": "a", "children": []}}},
            "status": "denied",
            "content": {"text": "This call of `folders.create` was denied: not this folder"},
            "failure": {"kind": "denied", "reason": "not this folder"},
            "decisions": [{"stage": "approval", "by": "approval", "outcome": "pending", "message": "rule tool:folders.create"}, {"stage": "approval", "by": "person", "outcome": "denied", "message": "not this folder"}]
        })
    );
}

#[tokio::test]
async fn the_server_keeps_the_latest_hundred_pending_calls() {
    let (_server, url) = playground_with(&["--require-approval", "all"]);
    let client = reqwest::Client::new();
    let ids: Vec<String> = {
        let mut ids = Vec::new();
        for _ in 0..101 {
            ids.push(pending_call(&client, &url).await);
        }
        ids
    };
    assert_eq!(ids.iter().collect::<std::collections::HashSet<_>>().len(), 101, "every id its own");
    // Newest first.
    let listed: Vec<Value> =
        waiting(&client, &url).await["pending"].as_array().unwrap().iter().map(|r| r["pending_id"].clone()).collect();
    assert_eq!(listed.len(), 100);
    let newest_first: Vec<Value> = ids[1..].iter().rev().map(|id| json!(id)).collect();
    assert_eq!(listed, newest_first);
    // The oldest was dropped for the newest, its pending call with it; the second oldest still
    // waits.
    let approve = |id: &str| format!("api/pending/{id}/approve");
    assert_eq!(post(&client, &url, &approve(&ids[0]), json!({})).await, unknown(&ids[0]));
    assert_eq!(record(post(&client, &url, &approve(&ids[1]), json!({})).await)["status"], "success");
    assert_eq!(record(post(&client, &url, &approve(&ids[100]), json!({})).await)["status"], "success");
}

#[tokio::test]
async fn the_playground_shows_a_pending_call_with_buttons_that_answer_it() {
    let test = "playground::the_playground_shows_a_pending_call_with_buttons_that_answer_it";
    let Some((chromium, driver)) = tool_tests::external::chromium(test) else { return };
    let (_server, url) = playground_with(&["--require-approval", "tool:folders.create"]);
    let (_driver, port) = chromedriver(&driver);
    let client = browser(port, &chromium).await;
    client.goto(&url).await.unwrap();
    css(&client, "#tools li[data-tool=\"folders.create\"]").await.click().await.unwrap();

    // Pending: the arguments as read with their warnings, the reasons, the policy's decision,
    // and the three answers.
    let messy = r#"{"root":{"name":"a","children":[]},}"#;
    type_raw(&client, messy).await;
    assert_eq!(call(&client).await, "pending");
    let read: Value = serde_json::from_str(&css(&client, "#read").await.text().await.unwrap()).unwrap();
    assert_eq!(read, json!({"root": {"name": "a", "children": []}}));
    assert_eq!(
        texts(&client, "#warnings li").await,
        [format!("trailing_comma_removed at (arguments): removed the comma after the last element (received {messy})")]
    );
    assert_eq!(texts(&client, "#reasons li").await, ["rule tool:folders.create"]);
    assert_eq!(texts(&client, "#decisions li").await, ["approval by approval: pending: rule tool:folders.create"]);
    assert_eq!(texts(&client, "#pending button").await, ["Approve", "Approve with the arguments as edited", "Deny"]);
    let id = css(&client, "#pending").await.attr("data-pending-id").await.unwrap().unwrap();
    assert!(id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
    shot_of(&client, "#record", "5-pending-record.png").await;

    // Left for another tool, it waits in the side bar, and comes back from there.
    wait_for_texts(&client, "#waiting-list li", &[&format!("folders.create#{}", &id[..8])]).await;
    css(&client, "#tools li[data-tool=\"clock.now\"]").await.click().await.unwrap();
    assert_eq!(css(&client, ".tool-head h2").await.text().await.unwrap(), "clock.now");
    css(&client, &format!("#waiting-list li[data-pending-id=\"{id}\"]")).await.click().await.unwrap();
    assert_eq!(css(&client, ".tool-head h2").await.text().await.unwrap(), "folders.create");
    assert_eq!(css(&client, "#status").await.text().await.unwrap(), "pending");
    assert_eq!(css(&client, "#raw").await.prop("value").await.unwrap().as_deref(), Some(messy));
    shot(&client, "5-waiting.png").await;

    // Approve: the call runs, and its record shows as any call's does.
    css(&client, "#approve").await.click().await.unwrap();
    wait_for_texts(&client, "#status", &["success"]).await;
    assert_eq!(css(&client, "#result").await.text().await.unwrap(), FOLDERS);
    assert_eq!(
        texts(&client, "#decisions li").await,
        ["approval by approval: pending: rule tool:folders.create", "approval by person: approved"]
    );
    assert!(client.find(Locator::Css("#pending")).await.is_err());
    wait_for_texts(&client, "#waiting-list li", &[]).await;
    assert_eq!(css(&client, "#waiting").await.attr("hidden").await.unwrap().as_deref(), Some("true"));
    shot_of(&client, "#record", "6-approved.png").await;

    // Approve with the arguments as edited in the box.
    assert_eq!(call(&client).await, "pending");
    type_raw(&client, r#"{"root":{"name":"b","children":[]}}"#).await;
    css(&client, "#approve-edited").await.click().await.unwrap();
    wait_for_texts(&client, "#status", &["success"]).await;
    assert_eq!(css(&client, "#result").await.text().await.unwrap(), r#"{"root":{"name":"b","children":[]}}"#);
    assert_eq!(
        texts(&client, "#decisions li").await,
        [
            "approval by approval: pending: rule tool:folders.create",
            r#"approval by person: changed: approved with the arguments {"root":{"name":"b","children":[]}}"#
        ]
    );

    // Deny: without a reason the server says what is missing, and the call still waits.
    assert_eq!(call(&client).await, "pending");
    css(&client, "#deny").await.click().await.unwrap();
    wait_for_texts(&client, "#pending-error", &["a denial needs a reason: the model reads it"]).await;
    css(&client, "#deny-reason").await.send_keys("not this folder").await.unwrap();
    css(&client, "#deny").await.click().await.unwrap();
    wait_for_texts(&client, "#status", &["denied"]).await;
    assert_eq!(
        css(&client, "#message").await.text().await.unwrap(),
        "This call of `folders.create` was denied: not this folder"
    );
    shot_of(&client, "#record", "7-denied.png").await;

    client.close().await.unwrap();
}

#[tokio::test]
async fn the_server_keeps_at_most_sixteen_mebibytes_of_pending_calls() {
    let (_server, url) = playground_with(&["--require-approval", "all"]);
    let client = reqwest::Client::new();
    // Each record about 8 MB as the server keeps it: the raw arguments and what was read of
    // them, in the request and in the pending call.
    let arguments = json!({"root": {"name": "x".repeat(2_000_000), "children": []}}).to_string();
    let mut ids = Vec::new();
    for _ in 0..3 {
        let (status, body) =
            post(&client, &url, "api/call", json!({"tool": "folders.create", "arguments": arguments})).await;
        assert_eq!(status, 200);
        let answer: Value = serde_json::from_str(&body).unwrap();
        ids.push(answer["pending_id"].as_str().unwrap().to_owned());
    }
    // Two fit in 16 MiB; the third dropped the first.
    assert_eq!(
        post(&client, &url, &format!("api/pending/{}/deny", ids[0]), json!({"reason": "no"})).await,
        unknown(&ids[0])
    );
    for id in &ids[1..] {
        let path = format!("api/pending/{id}/deny");
        assert_eq!(record(post(&client, &url, &path, json!({"reason": "no"})).await)["status"], "denied");
    }
}

#[tokio::test]
async fn with_scopes_the_playground_plays_a_caller_held_to_them() {
    let client = reqwest::Client::new();
    let names = |document: Value| -> Vec<String> {
        document["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
    };
    let search = json!({"query": "docs search"});
    // A caller without `docs:read`: `docs.search` is not listed, not found, and refused.
    let (_server, url) = playground_of("tools_cli_examples", &["--scopes", "notes:read other"]);
    let listed: Value = client.get(format!("{url}api/tools")).send().await.unwrap().json().await.unwrap();
    assert!(!names(listed.clone()).contains(&"docs.search".to_owned()), "{listed}");
    assert!(names(listed).contains(&"clock.now".to_owned()), "a tool without scopes is listed");
    let (status, found) = post(&client, &url, "api/search", search.clone()).await;
    assert_eq!(status, 200);
    assert!(!found.contains("docs.search"), "{found}");
    assert_eq!(
        post(&client, &url, "api/call", json!({"tool": "docs.search", "arguments": "{\"query\": \"rust\"}"})).await,
        (403, "the access token lacks the scope docs:read, which the tool `docs.search` needs".to_owned())
    );
    // Granted the scope, the caller sees it and calls it.
    let (_server, url) = playground_of("tools_cli_examples", &["--scopes", "docs:read"]);
    let listed: Value = client.get(format!("{url}api/tools")).send().await.unwrap().json().await.unwrap();
    assert!(names(listed).contains(&"docs.search".to_owned()));
    let called = record(
        post(&client, &url, "api/call", json!({"tool": "docs.search", "arguments": "{\"query\": \"rust\"}"})).await,
    );
    assert_eq!(called["content"]["text"], "searched for \"rust\"");
}

#[tokio::test]
async fn the_playground_answers_a_supervisors_probes() {
    let (_server, url) = playground();
    for (path, expected) in [("healthz", "ok"), ("readyz", "ready")] {
        let answer = reqwest::get(format!("{url}{path}")).await.unwrap();
        assert_eq!((answer.status().as_u16(), answer.text().await.unwrap()), (200, expected.to_owned()), "{path}");
    }
}
