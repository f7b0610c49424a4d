//! Typed argument extraction: raw arguments text → the tool's typed parameters.
//!
//! A tool's wire parameters are a tuple of types (`(String, Option<u32>)`), read by
//! [`WireArgs`], which is implemented here for tuples once, so the `#[tool]` macro generates no
//! deserializer per tool. The single pass deserializes straight from the raw string, as a
//! `#[derive(Deserialize)]` struct would, converting values that arrived in the wrong form as
//! it goes (`single_pass.rs`); the object's frame is read by the object scan (`scan.rs`), and by
//! serde_json's map reading only where the scan stops. Only when it cannot settle the call
//! does the tree path build a JSON tree, repair and convert it, and report every problem, per
//! field, with the value that arrived.
//!
//! This module must not execute anything or know about providers.

pub(crate) mod compiled;
pub(crate) mod constraints;
pub(crate) mod convert;
pub(crate) mod repair;
pub(crate) mod scan;
pub(crate) mod single_pass;

use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::extract::repair::{repair_arguments, Repaired, NUMBER_OUT_OF_RANGE};
use crate::extract::scan::{ObjectScan, Stop};
use crate::extract::single_pass::{ParamSeed, Pass};
use crate::model::pointer;
use crate::model::{received_text, truncate, ArgumentError, ArgumentErrors, Extraction, Findings, ParseWarning};
use crate::model::{ToolDefinition, ToolParameter};
use compiled::CompiledSchema;
use convert::UNKNOWN_PARAMETER;

/// A type that can be a tool parameter: deserializable from owned JSON, described by a JSON
/// Schema, and sendable to the task that runs the tool.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "not a tool parameter type",
    note = "a tool parameter must implement `serde::Deserialize` and `schemars::JsonSchema` (derive both), be `Send` and own its data (`String`, not `&str`)",
    note = "values the executor supplies (`&ToolContext`, `&CancellationToken`, `&State<T>`) are taken by reference"
)]
pub trait ToolParam: DeserializeOwned + JsonSchema + Send + 'static {}

// `do_not_recommend`: an unusable type gets the one error above, not one per missing bound.
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema + Send + 'static> ToolParam for T {}

/// The wire parameters of one tool, as a tuple, read in one pass.
///
/// Implemented for tuples of up to 16 [`ToolParam`]s and for [`Wide`], which joins two of
/// them: `#[tool]` declares a tool of more parameters as a tree of `Wide`s over tuples of 16.
/// Its methods are the macro's contract with the runtime, not meant to be called directly.
pub trait WireArgs: Sized + Send + 'static {
    /// Per parameter, the function producing its declared default, if any.
    type Defaults: Copy + Send + Sync + 'static;

    /// How many parameters.
    const WIDTH: usize;

    /// Per parameter, the value read so far (`Option<T>`), while the arguments are read.
    #[doc(hidden)]
    type Slots;

    /// The JSON Schema of each parameter, in order (references land in `generator`).
    fn element_schemas(generator: &mut SchemaGenerator) -> Vec<Schema>;

    /// Per parameter, whether its type accepts being absent (`Option<T>`).
    fn accepts_missing() -> Vec<bool>;

    /// Per parameter, whether a default is declared.
    fn has_default(defaults: &Self::Defaults) -> Vec<bool>;

    /// No parameter read yet.
    #[doc(hidden)]
    fn empty() -> Self::Slots;

    /// The single pass: reads the value of the parameter at `key` (counted from this tuple's
    /// first, which is the tool's parameter `first`) from `map` into its slot. `Ok(false)` when
    /// `key` is beyond this tuple (the value is not read).
    #[doc(hidden)]
    fn store<'de, M: MapAccess<'de>>(
        slots: &mut Self::Slots,
        key: Key,
        first: usize,
        map: &mut M,
        pass: &Pass<'_>,
    ) -> Result<bool, M::Error>;

    /// The object scan (`scan.rs`): reads the value of the parameter at `key` (as in
    /// [`WireArgs::store`]) into its slot; `Stop::Unread` when `key` is beyond this tuple.
    #[doc(hidden)]
    fn scan_value(
        slots: &mut Self::Slots,
        key: Key,
        first: usize,
        scan: &mut ObjectScan<'_>,
        pass: &Pass<'_>,
    ) -> Result<(), Stop>;

    /// The values once every key is read, with the defaults of the parameters not sent; `None`
    /// when a required parameter is missing.
    #[doc(hidden)]
    fn fill(slots: Self::Slots, defaults: &Self::Defaults) -> Option<Self>;

    /// The tree path: reads the parameters (`parameters`, this tuple's first first) from a JSON
    /// object, pushing an error for each that cannot be read; `None` when any could not.
    #[doc(hidden)]
    fn read_object(
        object: &Map<String, Value>,
        parameters: &[ToolParameter],
        defaults: &Self::Defaults,
        errors: &mut Vec<ArgumentError>,
    ) -> Option<Self>;
}

/// The wire parameters of a tool with more than 16: the first ones and the rest, each a tuple
/// or another `Wide` (`#[tool]` builds the tree, with tuples of 16 parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Wide<Front, Back>(pub Front, pub Back);

impl<F: WireArgs, B: WireArgs> WireArgs for Wide<F, B> {
    type Defaults = (F::Defaults, B::Defaults);
    const WIDTH: usize = F::WIDTH + B::WIDTH;
    type Slots = (F::Slots, B::Slots);

    fn element_schemas(generator: &mut SchemaGenerator) -> Vec<Schema> {
        let mut schemas = F::element_schemas(generator);
        schemas.extend(B::element_schemas(generator));
        schemas
    }

    fn accepts_missing() -> Vec<bool> {
        let mut accepts = F::accepts_missing();
        accepts.extend(B::accepts_missing());
        accepts
    }

    fn has_default(defaults: &Self::Defaults) -> Vec<bool> {
        let mut has = F::has_default(&defaults.0);
        has.extend(B::has_default(&defaults.1));
        has
    }

    #[inline(always)]
    fn empty() -> Self::Slots {
        (F::empty(), B::empty())
    }

    #[inline(always)]
    fn store<'de, M: MapAccess<'de>>(
        slots: &mut Self::Slots,
        key: Key,
        first: usize,
        map: &mut M,
        pass: &Pass<'_>,
    ) -> Result<bool, M::Error> {
        if key < F::WIDTH {
            F::store(&mut slots.0, key, first, map, pass)
        } else {
            B::store(&mut slots.1, key - F::WIDTH, first + F::WIDTH, map, pass)
        }
    }

    #[inline(always)]
    fn scan_value(
        slots: &mut Self::Slots,
        key: Key,
        first: usize,
        scan: &mut ObjectScan<'_>,
        pass: &Pass<'_>,
    ) -> Result<(), Stop> {
        if key < F::WIDTH {
            F::scan_value(&mut slots.0, key, first, scan, pass)
        } else {
            B::scan_value(&mut slots.1, key - F::WIDTH, first + F::WIDTH, scan, pass)
        }
    }

    #[inline(always)]
    fn fill(slots: Self::Slots, defaults: &Self::Defaults) -> Option<Self> {
        let front = F::fill(slots.0, &defaults.0)?;
        Some(Wide(front, B::fill(slots.1, &defaults.1)?))
    }

    fn read_object(
        object: &Map<String, Value>,
        parameters: &[ToolParameter],
        defaults: &Self::Defaults,
        errors: &mut Vec<ArgumentError>,
    ) -> Option<Self> {
        // Both halves, so that every problem is reported.
        let front = F::read_object(object, parameters, &defaults.0, errors);
        let back = B::read_object(object, parameters.get(F::WIDTH..).unwrap_or_default(), &defaults.1, errors);
        Some(Wide(front?, back?))
    }
}

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
    let pass = Pass::new(definition, compiled, policy.strict || definition.strict);
    let scanned = if SCAN { scan_object::<A>(raw, names, defaults, &pass) } else { Err(Stop::Unread) };
    let read = match scanned {
        Ok(read) => read,
        Err(Stop::Failed) => None,
        Err(Stop::Unread) => single_pass_whole::<A>(raw, names, defaults, &pass),
    };
    if let Some(value) = read {
        // The common case, built in place: a `Vec` put on the stack and copied out in one wider
        // load stalls store forwarding, a measurable part of the call for small tools.
        if pass.noted_nothing() && !compiled.constraints.constrained {
            return Extraction { raw, value: Ok(value), warnings: Findings::new(), arguments: None };
        }
        if let Some((warnings, arguments)) = single_pass_noted(raw, pass, compiled) {
            return Extraction { raw, value: Ok(value), warnings, arguments };
        }
    }
    lenient_path(raw, definition, compiled, defaults, policy)
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
    object
        .keys()
        .any(|key| !declared(key) && convert::folded_name(key, parameters.iter().map(|p| p.name.as_str())).is_some())
}

/// The warnings (and the arguments tree, when constraints were checked on it) of the single
/// pass's value when it converted something, met unknown keys, or the schema declares
/// constraints; `None` when the tree path must decide instead. Out of line (like
/// [`lenient_path`]), so that the common case's frame stays small, and not generic, so that a
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
        warnings.sort_by_key(|w| w.rule() == UNKNOWN_PARAMETER && w.pointer().rfind('/') == Some(0));
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

/// When the single pass could not settle the call: the tree path, out of line.
#[cold]
#[inline(never)]
pub(crate) fn lenient_path<'r, A: WireArgs>(
    raw: &'r str,
    definition: &ToolDefinition,
    compiled: &CompiledSchema,
    defaults: &A::Defaults,
    policy: ExtractionPolicy,
) -> Extraction<'r, A> {
    let parameters = &definition.parameters;
    slow_path(raw, definition, compiled, policy, |object| {
        let mut errors = Vec::new();
        A::read_object(object, parameters, defaults, &mut errors).ok_or(errors)
    })
}

/// Reads arguments for a tool with no definition: the raw text is repaired as for any tool
/// (no conversions, there are no declared types), with the warning `tool_definition_missing`
/// first.
pub fn extract_untyped(raw: &str) -> Extraction<'_, Map<String, Value>> {
    let action = "read the arguments without a definition: repairs only, no conversions";
    let missing = ParseWarning::new("", "tool_definition_missing", "a declared tool", &truncate(raw), action);
    match repair_arguments(raw) {
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

/// How forgiving extraction is.
///
/// Lenient (the default) repairs the arguments text and converts values by their declared
/// types, with a warning for each change. Strict refuses every repair and conversion as an
/// error instead, for hosts that want exact arguments. A tool (`#[tool(strict)]`) or a parameter
/// (`#[param(strict)]`) can be strict on its own; a catalog (`CatalogBuilder::strict`) makes
/// every tool strict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExtractionPolicy {
    /// Refuse repairs and conversions.
    pub strict: bool,
}

impl ExtractionPolicy {
    /// Repair and convert, with warnings.
    pub const LENIENT: ExtractionPolicy = ExtractionPolicy { strict: false };
    /// Refuse every repair and conversion.
    pub const STRICT: ExtractionPolicy = ExtractionPolicy { strict: true };
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
    // The trailing text is checked before the value moves: moving it straight after the call
    // reads it back while its stores are still in flight (a store-forwarding stall per 16 bytes).
    de.end().ok()?;
    read.ok()?
}

/// Reads `raw` as a JSON object (repairing what can be repaired), converts it by the declared
/// schema, and hands it to `read`; every repair, conversion and unknown key is a warning.
pub(crate) fn slow_path<'r, T>(
    raw: &'r str,
    definition: &ToolDefinition,
    compiled: &CompiledSchema,
    policy: ExtractionPolicy,
    read: impl FnOnce(&Map<String, Value>) -> Result<T, Vec<ArgumentError>>,
) -> Extraction<'r, T> {
    let mut read = Some(read);
    let mut typed = None;
    let (value, warnings, arguments) = settle_slow_path(raw, definition, compiled, policy, &mut |object| {
        let read = read.take().ok_or_else(Vec::new)?;
        typed = Some(read(object)?);
        Ok(())
    });
    // `read` ran and succeeded whenever the call is accepted.
    let value = value.and_then(|()| typed.ok_or_else(|| ArgumentErrors { errors: Findings::new() }));
    Extraction { raw, value, warnings, arguments }
}

/// Reads the typed value from the converted object, keeping it; the errors when it cannot.
type ReadObject<'a> = dyn FnMut(&Map<String, Value>) -> Result<(), Vec<ArgumentError>> + 'a;

/// The slow path but for the typed value, which `read` keeps: not generic, so that a crate
/// compiles it once, not once per tool.
fn settle_slow_path(
    raw: &str,
    definition: &ToolDefinition,
    compiled: &CompiledSchema,
    policy: ExtractionPolicy,
    read: &mut ReadObject<'_>,
) -> (Result<(), ArgumentErrors>, Findings<ParseWarning>, Option<Value>) {
    match parse_object(raw, definition, compiled, policy.strict || definition.strict) {
        Ok((object, mut warnings, refused)) => {
            let typed = read(&object).map_err(|mut errors| {
                for error in &mut errors {
                    if let Some(expected) = expected_at(&definition.input_schema, &error.pointer) {
                        error.expected = expected;
                    }
                    // A number is echoed as it was sent, not as the float it was read into
                    // (`18446744073709551616`, not `1.8446744073709552e+19`).
                    let sent = error.received.as_ref().and_then(|_| number_sent_at(raw, &error.pointer));
                    if let Some(sent) = sent {
                        error.received = Some(truncate(sent));
                    }
                    // A number out of range for the Rust type (`300` or `"1e30"` for a `u8`): say
                    // the range.
                    let numeric = error.received.as_deref().and_then(numeric_value);
                    if error.expected.starts_with("an integer") && (error.rule == "invalid_value" || numeric.is_some())
                    {
                        if let Some(range) = range_at(&definition.input_schema, &error.pointer) {
                            error.expected = error.expected.replacen("an integer", &format!("an integer {range}"), 1);
                        }
                    } else if error.expected.starts_with("a number") && numeric.is_some_and(f64::is_infinite) {
                        error.expected = "a number within ±1.7976931348623157e308".into();
                    }
                }
                errors
            });
            let arguments = Value::Object(object);
            let (violations, more) = compiled.constraints.check(&arguments);
            warnings.extend(more);
            // A refused conversion explains the typed read's error at the same place better.
            let typed = match typed {
                Err(errors) if !refused.is_empty() => {
                    let rest: Vec<ArgumentError> = errors
                        .into_iter()
                        .filter(|e| !refused.iter().any(|r| covers(&r.pointer, &e.pointer)))
                        .collect();
                    Err(refused.into_iter().chain(rest).collect())
                }
                Ok(_) if !refused.is_empty() => Err(refused),
                other => other,
            };
            let value = match typed {
                Ok(value) if violations.is_empty() => Ok(value),
                Ok(_) => Err(ArgumentErrors { errors: violations.into() }),
                Err(mut errors) => {
                    // A constraint broken inside a value the typed read already refused is noise.
                    let fresh: Vec<ArgumentError> = violations
                        .into_iter()
                        .filter(|v| !errors.iter().any(|e| covers(&e.pointer, &v.pointer)))
                        .collect();
                    errors.extend(fresh);
                    Err(ArgumentErrors { errors: errors.into() })
                }
            };
            (value, warnings.into(), Some(arguments))
        }
        Err(error) => (Err(ArgumentErrors::single(error)), Findings::new(), None),
    }
}

/// The number literal the model wrote for the value at `pointer`, as it wrote it, when the raw
/// text is JSON that far (a repaired text keeps the value's own reading).
fn number_sent_at<'r>(raw: &'r str, pointer: &str) -> Option<&'r str> {
    use serde_json::value::RawValue;
    let mut text = raw;
    for segment in pointer.split('/').skip(1) {
        let segment = pointer::unescape(segment);
        let inner: &'r RawValue = match text.trim_start().as_bytes().first() {
            Some(b'{') => serde_json::from_str::<std::collections::HashMap<String, &'r RawValue>>(text)
                .ok()?
                .remove(segment.as_ref())?,
            Some(b'[') => {
                let index: usize = segment.parse().ok()?;
                let mut items = serde_json::from_str::<Vec<&'r RawValue>>(text).ok()?;
                (index < items.len()).then(|| items.swap_remove(index))?
            }
            _ => return None,
        };
        text = inner.get();
    }
    let text = text.trim();
    text.starts_with(|c: char| c == '-' || c.is_ascii_digit()).then_some(text)
}

/// The number a received value's text says, whether a number or a string holding one
/// (`1e30`, `"1e30"`); `1e400` reads as infinite.
fn numeric_value(received: &str) -> Option<f64> {
    let text = received.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(received).trim();
    let numeric = text.trim_start_matches(['-', '+']).starts_with(|c: char| c.is_ascii_digit() || c == '.');
    numeric.then(|| text.parse::<f64>().ok()).flatten()
}

/// What the schema expects at a pointer inside a parameter (`/items/0/qty`), in the model's
/// words; `None` at the top level (the parameter's own description is right there) or when the
/// schema does not say.
fn expected_at(input_schema: &Value, pointer: &str) -> Option<String> {
    let (schema, defs, nested) = schema_at(input_schema, pointer)?;
    if !nested {
        return None;
    }
    let shape = crate::schema::shape::shape_of(schema, defs);
    let parameter = ToolParameter {
        name: String::new(),
        value_kind: shape.kind,
        cardinality: shape.cardinality,
        required: true,
        description: String::new(),
        enum_constraint: shape
            .allowed_values
            .map(|allowed_values| crate::EnumConstraint { allowed_values, case_sensitive: false }),
        example: None,
        default: None,
        strict: false,
    };
    Some(parameter.expected())
}

/// The range of an integer the schema declares at `pointer`, in words (`from 0 to 255`): its
/// `minimum`/`maximum`, else the bounds its Rust type has (schemars' `uint8`, `int32`...).
fn range_at(input_schema: &Value, pointer: &str) -> Option<String> {
    let (schema, defs, _) = schema_at(input_schema, pointer)?;
    let schema = crate::schema::shape::without_null(crate::schema::shape::resolve(schema, defs), defs);
    let natural = schema.get("format").and_then(Value::as_str).and_then(crate::schema::shape::integer_format_bounds);
    let natural = (natural.map(|(low, _)| low), natural.map(|(_, high)| high));
    let bound = |keyword: &str, natural: Option<i128>| {
        schema.get(keyword).and_then(Value::as_f64).map(|b| b.to_string()).or(natural.map(|n| n.to_string()))
    };
    match (bound("minimum", natural.0), bound("maximum", natural.1)) {
        (Some(low), Some(high)) => Some(format!("from {low} to {high}")),
        (Some(low), None) => Some(format!("≥ {low}")),
        (None, Some(high)) => Some(format!("≤ {high}")),
        (None, None) => None,
    }
}

/// The schema node at a pointer into the arguments, with the `$defs` it resolves against, and
/// whether it is below a parameter.
fn schema_at<'s>(input_schema: &'s Value, at: &str) -> Option<(&'s Value, &'s Map<String, Value>, bool)> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    let defs = input_schema.get("$defs").and_then(Value::as_object).unwrap_or_else(|| EMPTY.get_or_init(Map::new));
    let mut segments = pointer::segments(at);
    let mut schema = input_schema.get("properties")?.get(segments.next()?.as_ref())?;
    let mut nested = false;
    for segment in segments {
        nested = true;
        let resolved = crate::schema::shape::without_null(crate::schema::shape::resolve(schema, defs), defs);
        let element = segment
            .parse::<usize>()
            .ok()
            .and_then(|i| resolved.get("prefixItems").and_then(|p| p.get(i)).or_else(|| resolved.get("items")));
        schema = match element {
            Some(element) => element,
            None => field_schema(resolved, &segment).or_else(|| variant_field_schema(resolved, &segment, defs))?,
        };
    }
    Some((schema, defs, nested))
}

/// The schema of an object's field `key`: a declared property, else the first pattern the name
/// matches (maps with integer keys), else the schema of any other field.
fn field_schema<'s>(object: &'s Value, key: &str) -> Option<&'s Value> {
    object
        .get("properties")
        .and_then(|p| p.get(key))
        .or_else(|| {
            let patterns = object.get("patternProperties")?.as_object()?;
            // A pattern that does not compile is ignored (this is only asked on an error).
            patterns
                .iter()
                .find(|(pattern, _)| regex::Regex::new(pattern).is_ok_and(|r| r.is_match(key)))
                .map(|(_, s)| s)
        })
        .or_else(|| object.get("additionalProperties").filter(|a| a.is_object()))
}

/// The schema of the field `key` of an enum with data (a `oneOf`), when exactly one variant
/// declares that field: an externally tagged variant's name, or a field only one variant has.
fn variant_field_schema<'s>(schema: &'s Value, key: &str, defs: &'s Map<String, Value>) -> Option<&'s Value> {
    let mut declaring = schema.get("oneOf")?.as_array()?.iter().filter_map(|branch| {
        let own = if branch.get("properties").is_some() { branch } else { crate::schema::shape::resolve(branch, defs) };
        own.get("properties")?.get(key)
    });
    match (declaring.next(), declaring.next()) {
        (Some(field), None) => Some(field),
        _ => None,
    }
}

/// The type-independent half of the slow path (compiled once, not per tool): the arguments
/// object and the warnings about its keys, or why there is no object.
#[allow(clippy::type_complexity)]
fn parse_object(
    raw: &str,
    definition: &ToolDefinition,
    compiled: &CompiledSchema,
    strict: bool,
) -> Result<(Map<String, Value>, Vec<ParseWarning>, Vec<ArgumentError>), ArgumentError> {
    let parameters = &definition.parameters;
    let Repaired { value: mut object, warnings: repairs } = repair_arguments(raw)?;
    // A number out of range is one field's problem: the typed read refuses it there.
    if let (true, Some(repair)) = (strict, repairs.iter().find(|r| r.rule() != NUMBER_OUT_OF_RANGE)) {
        return Err(ArgumentError {
            pointer: String::new(),
            rule: repair.rule().to_owned(),
            expected: "exact JSON: an object".into(),
            received: Some(truncate(raw)),
            detail: format!("refused by the strict policy; lenient extraction would have: {}", repair.action()),
        });
    }

    let converted = convert::coerce_arguments(&mut object, &compiled.plan, parameters, strict);
    let (mut warnings, mut refused) = (converted.warnings, converted.refused);
    // The repairs of the raw text come first.
    warnings.splice(0..0, repairs);
    // Arguments that take any key (a runtime-built tool's `additionalProperties`) have none unknown.
    let closed = compiled.closed();
    let unknown = object.keys().filter(|key| closed && !parameters.iter().any(|p| &p.name == *key));
    for warning in unknown.map(|key| unknown_parameter(key, parameters)) {
        if strict && !refused.iter().any(|r| r.pointer == warning.pointer()) {
            refused.push(convert::refusal(&warning));
        } else {
            warnings.push(warning);
        }
    }
    Ok((object, warnings, refused))
}

/// Whether the place `outer` is, or contains, the place `inner`.
fn covers(outer: &str, inner: &str) -> bool {
    inner == outer || inner.strip_prefix(outer).is_some_and(|rest| rest.starts_with('/'))
}

/// The warning for a key no parameter declares, naming the closest declared one.
pub(crate) fn unknown_parameter(key: &str, parameters: &[ToolParameter]) -> ParseWarning {
    let declared: Vec<&str> = parameters.iter().map(|p| p.name.as_str()).collect();
    convert::unknown_key(&pointer::child("", key), key, &declared, "parameters")
}

/// Reads one parameter from the object (slow path), pushing an error when it cannot.
pub fn read_element<T: ToolParam>(
    object: &Map<String, Value>,
    parameter: &ToolParameter,
    default: Option<fn() -> T>,
    errors: &mut Vec<ArgumentError>,
) -> Option<T> {
    let pointer = pointer::child("", &parameter.name);
    match object.get(&parameter.name) {
        None => match default {
            Some(make) => Some(make()),
            None => match T::deserialize(MissingField) {
                Ok(value) => Some(value),
                Err(_) => {
                    errors.push(ArgumentError {
                        pointer,
                        rule: "missing_required".into(),
                        expected: parameter.expected(),
                        received: None,
                        detail: format!("missing field `{}`", parameter.name),
                    });
                    None
                }
            },
        },
        Some(value) => match serde_path_to_error::deserialize::<_, T>(value) {
            Ok(typed) => Some(typed),
            Err(e) => {
                // Point at the element that failed, not the whole parameter.
                let inner = inner_pointer(e.path(), value);
                let received = value.pointer(&inner).unwrap_or(value);
                let detail = e.into_inner().to_string();
                // A field missing inside an object: point at the field (`/items/0/qty`).
                if let Some(field) = missing_field(&detail) {
                    errors.push(ArgumentError {
                        pointer: format!("{pointer}{inner}/{}", pointer::escape(field)),
                        rule: "missing_required".into(),
                        expected: parameter.expected(),
                        received: None,
                        detail,
                    });
                    return None;
                }
                errors.push(ArgumentError {
                    pointer: pointer + &inner,
                    rule: serde_rule(&detail).into(),
                    expected: parameter.expected(),
                    received: Some(received_text(received)),
                    detail,
                });
                None
            }
        },
    }
}

/// The JSON pointer (relative to the parameter `value`) of a deserialization error's path. An
/// enum variant is a step only where it is a key of the value (`{"within": {...}}`), not where
/// the variant is a token (`"asap"`).
fn inner_pointer(path: &serde_path_to_error::Path, value: &Value) -> String {
    let mut pointer = String::new();
    for segment in path.iter() {
        match segment {
            serde_path_to_error::Segment::Seq { index } => pointer.push_str(&format!("/{index}")),
            serde_path_to_error::Segment::Map { key } => pointer::push(&mut pointer, key),
            serde_path_to_error::Segment::Enum { variant } => {
                if value.pointer(&pointer).is_some_and(|v| v.get(variant).is_some()) {
                    pointer::push(&mut pointer, variant);
                }
            }
            serde_path_to_error::Segment::Unknown => {}
        }
    }
    pointer
}

/// The field serde's error says is missing (``missing field `qty` ``).
fn missing_field(detail: &str) -> Option<&str> {
    detail.strip_prefix("missing field `")?.split_once('`').map(|(field, _)| field)
}

/// Maps serde's error wording onto our rule ids.
fn serde_rule(detail: &str) -> &'static str {
    if detail.starts_with("invalid type") {
        "invalid_type"
    } else if detail.starts_with("unknown variant") {
        "not_allowed"
    } else if detail.starts_with("invalid length") {
        "invalid_length"
    } else {
        "invalid_value"
    }
}

/// Whether `T` accepts being absent, asked the way serde asks: through `deserialize_option`.
pub fn accepts_missing<T: ToolParam>() -> bool {
    T::deserialize(MissingField).is_ok()
}

/// A deserializer for a key that is not there: `Option<T>` reads it as `None`, anything else
/// fails, just as `#[derive(Deserialize)]` treats a missing field.
pub(crate) struct MissingField;

impl<'de> de::Deserializer<'de> for MissingField {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("missing field"))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
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

/// The position of the declared parameter a key names, or [`UNKNOWN_KEY`]. A `usize`, so that a
/// tool may have any number of parameters; reading a key still returns in registers, as serde's
/// derived field identifiers do.
#[doc(hidden)]
pub type Key = usize;

/// The [`Key`] of a name no parameter declares (its warning goes to the [`Pass`]).
#[doc(hidden)]
pub const UNKNOWN_KEY: Key = Key::MAX;

/// Reads a key without allocating when it names a declared parameter; an unknown name is
/// noted as a warning.
///
/// Not generic: one copy of serde_json's per-key code serves every tool of a crate. (A copy per
/// tuple, inlined into each map loop, made the single pass a little faster, but it only reads
/// what the object scan leaves to it, and the copies were a large part of each tool's compile
/// time.)
pub(crate) struct KeySeed<'a> {
    /// The declared wire names, in parameter order.
    pub names: &'a [&'a str],
    /// Where unknown names are noted.
    pub pass: &'a Pass<'a>,
    /// The parameter this key most likely names: the one after the previous key's.
    pub expected: Key,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Key;

    #[inline]
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a parameter name")
    }

    #[inline]
    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        match parameter_named(self.names, key.as_bytes(), self.expected) {
            Some(param) => Ok(param),
            None => Ok(note_unknown(self.pass, key)),
        }
    }
}

/// The position among `names` of the parameter `key` names, trying `expected` first: models
/// mostly send the parameters in declaration order (wire names are unique, `#[tool]` refuses
/// duplicates, so this finds what the search would). Inlined into each key reader, as the
/// comparison it makes is.
#[inline(always)]
pub(crate) fn parameter_named(names: &[&str], key: &[u8], expected: Key) -> Option<Key> {
    if names.get(expected).is_some_and(|name| same_name(name.as_bytes(), key)) {
        return Some(expected);
    }
    names.iter().position(|name| same_name(name.as_bytes(), key))
}

/// Notes an unknown key; out of line, so that reading a declared key stays small enough to inline.
#[cold]
#[inline(never)]
fn note_unknown(pass: &Pass<'_>, key: &str) -> Key {
    pass.note_unknown(unknown_parameter(key, pass.parameters()));
    UNKNOWN_KEY
}

/// Whether `key` is `name`, compared inline: parameter names are short, and a `memcmp` call per
/// candidate costs more than the comparison itself.
#[inline]
fn same_name(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    // Two overlapping loads cover every byte of a name of 1 to 16 bytes.
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, n - 4) == word::<4>(b, n - 4),
        8..=16 => word::<8>(a, 0) == word::<8>(b, 0) && word::<8>(a, n - 8) == word::<8>(b, n - 8),
        _ => a == b,
    }
}

/// `N` bytes of `bytes` from `at`, as one comparable value.
#[inline]
fn word<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    let mut word = [0; N];
    word.copy_from_slice(&bytes[at..at + N]);
    word
}

/// Fills a parameter the single pass did not see: its default, `None` for options, or nothing.
#[doc(hidden)]
pub fn fill_missing<T: ToolParam>(seen: Option<T>, default: Option<fn() -> T>) -> Option<T> {
    match seen {
        Some(value) => Some(value),
        None => match default {
            Some(make) => Some(make()),
            None => T::deserialize(MissingField).ok(),
        },
    }
}

/// Stores a value read by the single pass. A key given twice is left to the tree path, which
/// reports it where it finds it, with the repairs.
#[doc(hidden)]
#[inline]
pub fn store<'de, T: ToolParam, M: MapAccess<'de>>(
    slot: &mut Option<T>,
    map: &mut M,
    index: usize,
    pass: &Pass<'_>,
) -> Result<(), M::Error> {
    if slot.is_some() {
        return Err(given_twice());
    }
    *slot = Some(map.next_value_seed(ParamSeed::new(index, pass))?);
    Ok(())
}

/// The error that leaves a key given twice to the tree path; out of line, so that `store`
/// stays small enough to inline.
#[cold]
#[inline(never)]
fn given_twice<E: de::Error>() -> E {
    E::custom("a parameter given twice")
}

macro_rules! wire_args {
    ($(($idx:tt, $T:ident, $v:ident)),*) => {
        impl<$($T: ToolParam),*> WireArgs for ($($T,)*) {
            type Defaults = ($(Option<fn() -> $T>,)*);
            const WIDTH: usize = {
                let indices: &[usize] = &[$($idx),*];
                indices.len()
            };
            type Slots = ($(Option<$T>,)*);

            fn element_schemas(_generator: &mut SchemaGenerator) -> Vec<Schema> {
                vec![$(_generator.subschema_for::<$T>()),*]
            }

            fn accepts_missing() -> Vec<bool> {
                vec![$(accepts_missing::<$T>()),*]
            }

            fn has_default(_defaults: &Self::Defaults) -> Vec<bool> {
                vec![$(_defaults.$idx.is_some()),*]
            }

            #[inline(always)]
            #[allow(clippy::unused_unit)]
            fn empty() -> Self::Slots {
                ($(None::<$T>,)*)
            }

            #[inline(always)]
            fn store<'de, M: MapAccess<'de>>(
                _slots: &mut Self::Slots,
                key: Key,
                _first: usize,
                _map: &mut M,
                _pass: &Pass<'_>,
            ) -> Result<bool, M::Error> {
                match key {
                    $($idx => store(&mut _slots.$idx, _map, _first + $idx, _pass).map(|()| true),)*
                    _ => Ok(false),
                }
            }

            #[inline(always)]
            fn scan_value(
                _slots: &mut Self::Slots,
                key: Key,
                _first: usize,
                _scan: &mut ObjectScan<'_>,
                _pass: &Pass<'_>,
            ) -> Result<(), Stop> {
                match key {
                    $($idx => _scan.value(&mut _slots.$idx, _first + $idx, _pass),)*
                    // Beyond the tuple (`names` too long): the single pass skips it.
                    _ => Err(Stop::Unread),
                }
            }

            #[inline(always)]
            fn fill(slots: Self::Slots, _defaults: &Self::Defaults) -> Option<Self> {
                let ($($v,)*) = slots;
                // One match at the end, not a `?` per parameter: each early return would drop
                // the values before it, code growing with the square of the width.
                match ($(fill_missing($v, _defaults.$idx),)*) {
                    ($(Some($v),)*) => Some(($($v,)*)),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }

            fn read_object(
                _object: &Map<String, Value>,
                _parameters: &[ToolParameter],
                _defaults: &Self::Defaults,
                _errors: &mut Vec<ArgumentError>,
            ) -> Option<Self> {
                $(let $v = read_element::<$T>(_object, &_parameters[$idx], _defaults.$idx, _errors);)*
                // One match, not a `?` per parameter (see `fill`).
                match ($($v,)*) {
                    ($(Some($v),)*) => Some(($($v,)*)),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
        }
    };
}

/// Implements `WireArgs` for every prefix of the list: `()`, `(A0,)`, `(A0, A1)`, ...
macro_rules! wire_args_upto {
    ([$($done:tt),*]) => { wire_args!($($done),*); };
    ([$($done:tt),*] $next:tt $(, $rest:tt)*) => {
        wire_args!($($done),*);
        wire_args_upto!([$($done,)* $next] $($rest),*);
    };
}

wire_args_upto!(
    [](0, A0, a0),
    (1, A1, a1),
    (2, A2, a2),
    (3, A3, a3),
    (4, A4, a4),
    (5, A5, a5),
    (6, A6, a6),
    (7, A7, a7),
    (8, A8, a8),
    (9, A9, a9),
    (10, A10, a10),
    (11, A11, a11),
    (12, A12, a12),
    (13, A13, a13),
    (14, A14, a14),
    (15, A15, a15)
);

impl<T> Extraction<'_, T> {
    /// The typed value, dropping the warnings.
    pub fn into_result(self) -> Result<T, ArgumentErrors> {
        self.value
    }
}

#[cfg(test)]
mod tests {
    use super::same_name;

    #[test]
    fn same_name_agrees_with_string_equality_at_every_length_and_position() {
        for n in 0..=40usize {
            let name: String = (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            let same = |a: &str, b: &str| same_name(a.as_bytes(), b.as_bytes());
            assert!(same(&name, &name), "{name}");
            assert!(!same(&name, &format!("{name}x")), "{name}");
            assert!(n == 0 || !same(&name, &name[..n - 1]), "{name}");
            // One byte different, at each position.
            for at in 0..n {
                let mut other = name.clone().into_bytes();
                other[at] = b'_';
                let other = String::from_utf8(other).unwrap();
                assert!(!same(&name, &other), "{name} vs {other}");
            }
        }
    }
}
