//! A call's metrics through OpenTelemetry (feature `otel`), by the GenAI semantic conventions
//! where they exist: `gen_ai.execute_tool.duration`, and ours where they do not:
//! `tool_core.argument.warnings`.

use opentelemetry::metrics::{Counter, Histogram, Meter};
use opentelemetry::KeyValue;

use super::ExecutionRecord;
use crate::catalog::ToolCatalog;

/// The boundaries, in seconds, the GenAI conventions give operation durations.
const DURATION_BUCKETS: [f64; 14] =
    [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/// The value for a tool the catalog does not have: a model's invented names would otherwise
/// make a series each (the conventions' `_OTHER`).
const OTHER: &str = "_OTHER";

/// The instruments of an executor's calls.
#[derive(Clone, Debug)]
pub(super) struct CallMetrics {
    duration: Histogram<f64>,
    warnings: Counter<u64>,
}

impl CallMetrics {
    pub(super) fn new(meter: &Meter) -> CallMetrics {
        CallMetrics {
            duration: meter
                .f64_histogram("gen_ai.execute_tool.duration")
                .with_unit("s")
                .with_description("How long tool calls take, from the call's arrival to its record.")
                .with_boundaries(DURATION_BUCKETS.to_vec())
                .build(),
            warnings: meter
                .u64_counter("tool_core.argument.warnings")
                .with_unit("{warning}")
                .with_description("Conversions and repairs made to calls' arguments, by rule.")
                .build(),
        }
    }

    /// Records a call that ended with `record`.
    pub(super) fn record(&self, record: &ExecutionRecord, catalog: &ToolCatalog) {
        let request = &record.request;
        let known = catalog.definition(&request.tool_name).is_some();
        let tool = KeyValue::new("gen_ai.tool.name", if known { request.tool_name.clone() } else { OTHER.to_owned() });
        let mut attributes = vec![KeyValue::new("gen_ai.operation.name", "execute_tool"), tool.clone()];
        if let Some(failure) = &record.failure {
            attributes.push(KeyValue::new("error.type", failure.kind()));
        }
        self.duration.record(record.duration.as_secs_f64(), &attributes);
        // Counted by rule first: a call may carry thousands of warnings of a few rules (a closed
        // set, one series per rule and tool).
        let mut by_rule: Vec<(&str, u64)> = Vec::new();
        for warning in &request.parse_warnings {
            match by_rule.iter_mut().find(|(rule, _)| *rule == warning.rule()) {
                Some((_, count)) => *count += 1,
                None => by_rule.push((warning.rule(), 1)),
            }
        }
        for (rule, count) in by_rule {
            self.warnings.add(count, &[tool.clone(), KeyValue::new("tool_core.warning.rule", rule.to_owned())]);
        }
    }
}
