//! Argument extraction: a model's raw arguments text read as a tool's typed parameters, with a
//! warning for everything repaired or converted and an error for everything that cannot be
//! used.
//!
//! Most hosts never call it directly: the [`Executor`](crate::Executor) extracts each call's
//! arguments, and [`DeclaredTool::extract`](crate::DeclaredTool::extract) does it for one
//! declared tool, returning an [`Extraction`] of
//! [`DeclaredTool::Args`](crate::DeclaredTool::Args). This module names the parts of that
//! result: [`WireArgs`], the tuple of a tool's parameter types (with [`Wide`] past 16
//! parameters), each a [`ToolParam`]; [`Findings`], the lists of warnings and errors; and
//! [`untyped`] reads arguments for a tool with no definition.

// How: a tool's wire parameters are a tuple of types (`(String, Option<u32>)`), read by
// [`WireArgs`], which is implemented here for tuples once, so the `#[tool]` macro generates no
// deserializer per tool. The single pass deserializes straight from the raw string, as a
// `#[derive(Deserialize)]` struct would, converting values that arrived in the wrong form as
// it goes (`single_pass/`); the object's frame is read by the object scan (`scan.rs`), and by
// serde_json's map reading only where the scan stops. Only when it cannot settle the call
// does the tree path build a JSON tree, repair and convert it, and report every problem, per
// field, with the value that arrived.

// This module must not execute anything or know about providers.

pub(crate) mod args;
pub(crate) mod compiled;
pub(crate) mod constraints;
pub(crate) mod convert;
mod duplicates;
pub(crate) mod keys;
pub(crate) mod param;
pub(crate) mod policy;
pub(crate) mod repair;
pub(crate) mod scan;
pub(crate) mod single_pass;
pub(crate) mod tree;

pub use crate::model::Findings;
pub use args::{Wide, WireArgs};
pub(crate) use convert::refusal;
pub(crate) use param::missing_required;
pub use param::ToolParam;
use policy::refused_before_reading;
pub(crate) use policy::ExtractionPolicy;
pub(crate) use tree::{read_by_tree, tree_path};

use std::fmt;

use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::extract::repair::{repair_arguments, Repaired};
use crate::extract::scan::{ObjectScan, Stop};
use crate::extract::single_pass::Pass;
use crate::model::rules;
use crate::model::{truncate, ArgumentErrors, Extraction, ParseWarning};
use crate::model::{ToolDefinition, ToolParameter};
use compiled::CompiledSchema;
use keys::{folded_name, Key, KeySeed};

/// The single pass over a deserializer's map: the arguments object read as a derived struct
/// reads its fields. `Ok(None)` when a required parameter is missing.
#[inline]
fn read_map<'de, A: WireArgs, M: MapAccess<'de>>(
    mut map: M,
    names: &[&str],
    defaults: &A::Defaults,
    pass: &Pass<'_>,
) -> Result<Option<A>, M::Error> {
    let mut slots = A::empty();
    let mut expected: Key = 0;
    while let Some(key) = map.next_key_seed(KeySeed { names, pass, expected })? {
        expected = key.wrapping_add(1);
        // Unknown (already noted), or beyond the tuple (`names` too long): skipped.
        if !A::store(&mut slots, key, 0, &mut map, pass)? {
            map.next_value::<IgnoredAny>()?;
        }
    }
    Ok(A::fill(slots, defaults))
}

/// The object scan (`scan.rs`): the object's frame read by hand, each value as the single pass
/// reads it. `Ok(None)` when a required parameter is missing; `Stop::Unread` leaves the text to
/// the single pass.
#[inline]
fn scan_object<A: WireArgs>(
    raw: &str,
    names: &[&str],
    defaults: &A::Defaults,
    pass: &Pass<'_>,
) -> Result<Option<A>, Stop> {
    let mut slots = A::empty();
    let mut scan = ObjectScan::open(raw)?;
    let mut key = scan.first_key(names)?;
    while let Some(k) = key {
        A::scan_value(&mut slots, k, 0, &mut scan, pass)?;
        key = scan.next_key(names, k.wrapping_add(1))?;
    }
    Ok(A::fill(slots, defaults))
}

/// Extracts typed arguments from `raw` for the tool `definition` describes.
///
/// One pass over the text reads the typed values and converts what arrived in the wrong form;
/// only what it cannot settle goes through the tree path (which reports every problem). The
/// object's frame is read by the object scan (`SCAN`); without it, by serde_json's map reading
/// alone: the reference the scan must agree with (for tests and the fuzz target).
pub(crate) fn extract<'r, A: WireArgs, const SCAN: bool>(
    raw: &'r str,
    definition: &ToolDefinition,
    compiled: &CompiledSchema,
    names: &[&str],
    defaults: &A::Defaults,
    policy: ExtractionPolicy,
) -> Extraction<'r, A> {
    if let Err(error) = policy.check(raw) {
        return refused_before_reading(raw, error);
    }
    let pass = Pass::new(definition, compiled, policy.strict || definition.strict);
    let scanned = if SCAN { scan_object::<A>(raw, names, defaults, &pass) } else { Err(Stop::Unread) };
    let read = match scanned {
        Ok(read) => read,
        Err(Stop::Failed) => None,
        Err(Stop::Unread) => single_pass_whole::<A>(raw, names, defaults, &pass),
    };
    if let Some(value) = read {
        // The common case: nothing noted, nothing to check, no list to build.
        if pass.noted_nothing() && !compiled.constraints.constrained {
            return Extraction { raw, value: Ok(value), warnings: Findings::new(), arguments: None };
        }
        if let Some((warnings, arguments)) = single_pass_noted(raw, pass, compiled) {
            return Extraction { raw, value: Ok(value), warnings, arguments };
        }
    }
    tree_path(raw, definition, compiled, defaults, policy)
}

/// Whether the unknown keys of `raw` are for the tree path to settle: every key is unknown
/// (the arguments may be wrapped, `{"arguments": {...}}`), one names a declared parameter but
/// for case and separators (`max_bytes` for `maxBytes`), or one came twice (of the `unknown`
/// noted). Only asked when unknown keys came.
fn unknown_keys_need_tree(raw: &str, parameters: &[ToolParameter], unknown: usize) -> bool {
    let Ok(object) = serde_json::from_str::<Map<String, Value>>(raw) else { return true };
    let declared = |key: &str| parameters.iter().any(|p| p.name == key);
    // An unknown key given twice: the tree reports it once, as given twice.
    if !object.keys().any(|key| declared(key)) || object.keys().filter(|key| !declared(key)).count() != unknown {
        return true;
    }
    object.keys().any(|key| !declared(key) && folded_name(key, parameters.iter().map(|p| p.name.as_str())).is_some())
}

/// The warnings (and the arguments tree, when constraints were checked on it) of the single
/// pass's value when it converted something, met unknown keys, or the schema declares
/// constraints; `None` when the tree path must decide instead. Out of line (like
/// [`tree_path`]), so that the common case's frame stays small, and not generic, so that a
/// crate compiles it once, not once per tool.
#[cold]
#[inline(never)]
fn single_pass_noted(
    raw: &str,
    pass: Pass<'_>,
    compiled: &CompiledSchema,
) -> Option<(Findings<ParseWarning>, Option<Value>)> {
    let parameters = pass.parameters();
    let strict = pass.strict();
    let (mut warnings, unknown) = pass.into_warnings();
    // The strict policy refuses unknown keys, which the tree reports.
    if unknown > 0 && (strict || unknown_keys_need_tree(raw, parameters, unknown)) {
        return None;
    }
    // The unknown parameters were noted as they came; the tree reports them after the
    // conversions (an unknown field inside a parameter, where it is met).
    if unknown > 0 {
        warnings.sort_by_key(|w| w.rule() == rules::UNKNOWN_PARAMETER && w.pointer().rfind('/') == Some(0));
    }
    let converted_nothing = warnings.len() == unknown;
    if !compiled.constraints.constrained {
        return Some((warnings.into(), None));
    }
    // The constraints are checked on the converted tree, which only the tree path builds; a
    // violation is also left to it (it may convert what the single pass took as it was).
    if !converted_nothing {
        return None;
    }
    let arguments = serde_json::from_str::<Value>(raw).ok()?;
    let (errors, more) = compiled.constraints.check(&arguments);
    if !errors.is_empty() {
        return None;
    }
    warnings.extend(more);
    Some((warnings.into(), Some(arguments)))
}

/// Reads arguments for a tool with no definition: the raw text is repaired as for any tool
/// (no conversions, there are no declared types), with the warning `tool_definition_missing`
/// first. Arguments over the default limits ([`ExtractionPolicy::LENIENT`]) are refused.
///
/// ```
/// let read = tool_core::extract::untyped("{'city': 'Oslo'}");
/// assert_eq!(read.value.unwrap()["city"], "Oslo");
/// let rules: Vec<&str> = read.warnings.iter().map(|w| w.rule()).collect();
/// assert_eq!(rules, ["tool_definition_missing", "python_literal"]);
/// ```
pub fn untyped(raw: &str) -> Extraction<'_, Map<String, Value>> {
    untyped_with(raw, ExtractionPolicy::LENIENT)
}

/// [`untyped`] under the limits of `policy`.
pub(crate) fn untyped_with(raw: &str, policy: ExtractionPolicy) -> Extraction<'_, Map<String, Value>> {
    let action = "read the arguments without a definition: repairs only, no conversions";
    let missing = ParseWarning::new("", rules::TOOL_DEFINITION_MISSING, "a declared tool", &truncate(raw), action);
    let repaired = policy.check(raw).and_then(|()| repair_arguments(raw));
    match repaired {
        Ok(Repaired { value: object, warnings }) => Extraction {
            raw,
            value: Ok(object.clone()),
            warnings: std::iter::once(missing).chain(warnings).collect(),
            arguments: Some(Value::Object(object)),
        },
        Err(error) => Extraction {
            raw,
            value: Err(ArgumentErrors::single(error)),
            warnings: vec![missing].into(),
            arguments: None,
        },
    }
}

/// The single pass over text the object scan does not read; what the scan noted before it
/// stopped is forgotten (the single pass notes it again). Out of line: rare, and large.
#[cold]
#[inline(never)]
fn single_pass_whole<A: WireArgs>(raw: &str, names: &[&str], defaults: &A::Defaults, pass: &Pass<'_>) -> Option<A> {
    pass.forget();
    single_pass::<A>(raw, names, defaults, pass)
}

fn single_pass<A: WireArgs>(raw: &str, names: &[&str], defaults: &A::Defaults, pass: &Pass<'_>) -> Option<A> {
    let mut de = serde_json::Deserializer::from_str(raw);
    let read = de::Deserializer::deserialize_map(&mut de, ArgsVisitor::<A> { names, defaults, pass });
    // The trailing text is checked before the value moves, so that the value is not read back
    // while it is still being written.
    de.end().ok()?;
    read.ok()?
}

struct ArgsVisitor<'a, 'c, A: WireArgs> {
    names: &'a [&'a str],
    defaults: &'a A::Defaults,
    pass: &'a Pass<'c>,
}

impl<'de, A: WireArgs> Visitor<'de> for ArgsVisitor<'_, '_, A> {
    type Value = Option<A>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an arguments object")
    }

    #[inline]
    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
        read_map::<A, M>(map, self.names, self.defaults, self.pass)
    }
}

impl<T> Extraction<'_, T> {
    /// The typed value, dropping the warnings.
    pub fn into_result(self) -> Result<T, ArgumentErrors> {
        self.value
    }
}
