//! A call's metrics through OpenTelemetry (feature `otel`, `ExecutorBuilder::meter`), read back
//! from the SDK's in-memory exporter: the duration histogram of the GenAI conventions by tool
//! and `error.type`, and the warnings counter by rule.

use opentelemetry::metrics::MeterProvider as _;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use serde_json::json;
use tool_core::prelude::*;

fn adder() -> DynamicTool {
    DynamicTool::builder("add")
        .description("Add two integers.")
        .input_schema(json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}))
        .handler(|arguments, _| async move { ToolOutput::text((arguments["a"].as_i64().unwrap_or(0) + arguments["b"].as_i64().unwrap_or(0)).to_string()) })
        .build()
        .unwrap()
}

/// A metric's points as `(attributes, value)`, attributes sorted `key=value` and joined.
fn points(exporter: &InMemoryMetricExporter, name: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for resource in exporter.get_finished_metrics().unwrap() {
        for scope in resource.scope_metrics() {
            for metric in scope.metrics().filter(|m| m.name() == name) {
                let key = |attributes: &mut dyn Iterator<Item = &opentelemetry::KeyValue>| {
                    let mut all: Vec<String> = attributes.map(|kv| format!("{}={}", kv.key, kv.value)).collect();
                    all.sort();
                    all.join(" ")
                };
                match metric.data() {
                    AggregatedMetrics::F64(MetricData::Histogram(histogram)) => {
                        for point in histogram.data_points() {
                            let bounds: Vec<f64> = point.bounds().collect();
                            found.push((
                                key(&mut point.attributes()),
                                format!("count={} bounds={}", point.count(), bounds.len()),
                            ));
                        }
                    }
                    AggregatedMetrics::U64(MetricData::Sum(sum)) => {
                        for point in sum.data_points() {
                            found.push((key(&mut point.attributes()), point.value().to_string()));
                        }
                    }
                    other => panic!("{name} is not what it should be: {other:?}"),
                }
            }
        }
    }
    found.sort();
    found
}

#[tokio::test]
async fn calls_are_measured_by_tool_and_error_type_and_warnings_by_rule() {
    let exporter = InMemoryMetricExporter::default();
    let provider = SdkMeterProvider::builder().with_reader(PeriodicReader::builder(exporter.clone()).build()).build();
    let catalog = ToolCatalog::builder().add_tool(adder()).build().unwrap();
    let executor = Executor::builder(catalog).meter(&provider.meter("tool-core")).build();
    for (tool, arguments) in [
        ("add", r#"{"a": 1, "b": 2}"#),
        ("add", r#"{"a": "1", "b": "2"}"#),
        ("add", r#"{"a": "x", "b": 2}"#),
        ("made_up_by_the_model", "{}"),
        ("another_invention", "{}"),
    ] {
        executor.execute(ToolCallRequest::new(tool, "1", arguments)).await;
    }
    provider.force_flush().unwrap();
    assert_eq!(
        points(&exporter, "gen_ai.execute_tool.duration"),
        [
            (
                "error.type=invalid_arguments gen_ai.operation.name=execute_tool gen_ai.tool.name=add".to_owned(),
                "count=1 bounds=14".to_owned()
            ),
            // Invented names are one series, not one each.
            (
                "error.type=unknown_tool gen_ai.operation.name=execute_tool gen_ai.tool.name=_OTHER".to_owned(),
                "count=2 bounds=14".to_owned()
            ),
            ("gen_ai.operation.name=execute_tool gen_ai.tool.name=add".to_owned(), "count=2 bounds=14".to_owned()),
        ]
    );
    assert_eq!(
        points(&exporter, "tool_core.argument.warnings"),
        [
            ("gen_ai.tool.name=_OTHER tool_core.warning.rule=tool_definition_missing".to_owned(), "2".to_owned()),
            ("gen_ai.tool.name=add tool_core.warning.rule=string_to_integer".to_owned(), "2".to_owned()),
        ]
    );
}
