//! The compiled per-tool schema: what extraction reads a tool's input schema into, once.
//!
//! It lives beside a tool (declared or built at run time), not inside the plain
//! [`ToolDefinition`](crate::ToolDefinition), and is compiled on the tool's first call.

use serde_json::Value;

use super::constraints::Constraints;
use crate::model::{pointer, ToolParameter};
use crate::schema::plan::{NodeId, Plan};

/// A tool's input schema compiled for extraction: the conversion plan, where each declared
/// parameter sits in it, and the constraint checks.
pub(crate) struct CompiledSchema {
    /// The schema compiled for conversion.
    pub(crate) plan: Plan,
    /// Per declared parameter, in order: where its values convert.
    pub(crate) places: Vec<ParameterPlace>,
    pub(crate) constraints: Constraints,
}

/// Where a top-level parameter's values convert: its node in the plan (`None` when the schema
/// does not declare it) and its JSON pointer.
pub(crate) struct ParameterPlace {
    pub node: Option<NodeId>,
    pub pointer: String,
}

impl CompiledSchema {
    /// Compiles `input_schema`, whose parameters are `parameters`; `untyped` when no Rust type
    /// reads the arguments (see [`Constraints::compile`]).
    pub(crate) fn compile(input_schema: &Value, parameters: &[ToolParameter], untyped: bool) -> CompiledSchema {
        let plan = Plan::compile(input_schema);
        let places = parameters
            .iter()
            .map(|parameter| ParameterPlace {
                node: plan.parameter(&parameter.name),
                pointer: pointer::child("", &parameter.name),
            })
            .collect();
        CompiledSchema { plan, places, constraints: Constraints::compile(input_schema, untyped) }
    }

    /// Whether the arguments object takes no key but the declared ones.
    pub(crate) fn closed(&self) -> bool {
        self.plan.node(Plan::ROOT).closed()
    }
}
