//! Typed argument extraction: raw arguments text → the tool's typed parameters.
//!
//! A tool's wire parameters are a tuple of types (`(String, Option<u32>)`), read by
//! [`WireArgs`], which is implemented here for tuples once, so the `#[tool]` macro generates no
//! deserializer per tool. The single pass deserializes straight from the raw string, as a
//! `#[derive(Deserialize)]` struct would, converting values that arrived in the wrong form as
//! it goes (`lenient.rs`); the object's frame is read by the object scan (`scan.rs`), and by
//! serde_json's map reading only where the scan stops. Only when it cannot settle the call
//! does the tree path build a JSON tree, repair and convert it, and report every problem, per
//! field, with the value that arrived.
//!
//! This module must not execute anything or know about providers.

use std::fmt;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::call::{
    pointer_segment, received_text, truncate, ArgumentError, ArgumentErrors, Extraction, Findings, ParseWarning,
};
use crate::coerce::{self, UNKNOWN_PARAMETER};
use crate::lenient::{ParamSeed, Pass};
use crate::model::{ToolDefinition, ToolParameter};
use crate::repair::{repair_arguments, Repaired};
use crate::scan::{ObjectScan, Stop};
use crate::validate::Checks;

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
pub trait WireArgs: Sized + Send + 'static {
    /// Per parameter, the function producing its declared default, if any.
    type Defaults: Copy + Send + Sync + 'static;

    /// The JSON Schema of each parameter, in order (references land in `generator`).
    fn element_schemas(generator: &mut SchemaGenerator) -> Vec<Schema>;

    /// Per parameter, whether its type accepts being absent (`Option<T>`).
    fn accepts_missing() -> Vec<bool>;

    /// Per parameter, whether a default is declared.
    fn has_default(defaults: &Self::Defaults) -> Vec<bool>;

    /// The single pass: reads the arguments object straight from a deserializer, converting
    /// what arrived in the wrong form as it goes. `Ok(None)` when a required parameter is missing.
    fn visit_map<'de, A: MapAccess<'de>>(
        map: A,
        names: &[&str],
        defaults: &Self::Defaults,
        pass: &Pass<'_>,
    ) -> Result<Option<Self>, A::Error>;

    /// The object scan (`scan.rs`): the object's frame read by hand, each value as the single
    /// pass reads it. `Ok(None)` when a required parameter is missing; `Stop::Unread` leaves
    /// the text to [`WireArgs::visit_map`].
    fn scan(raw: &str, names: &[&str], defaults: &Self::Defaults, pass: &Pass<'_>) -> Result<Option<Self>, Stop>;

    /// Slow path: reads the parameters from a JSON object, reporting every problem.
    fn from_object(
        object: &Map<String, Value>,
        parameters: &[ToolParameter],
        defaults: &Self::Defaults,
    ) -> Result<Self, Vec<ArgumentError>>;
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
    names: &[&str],
    defaults: &A::Defaults,
    policy: ExtractionPolicy,
) -> Extraction<'r, A> {
    let checks = definition.checks();
    let pass = Pass::new(definition, checks, policy.strict || definition.strict);
    let scanned = if SCAN { A::scan(raw, names, defaults, &pass) } else { Err(Stop::Unread) };
    let read = match scanned {
        Ok(read) => read,
        Err(Stop::Failed) => None,
        Err(Stop::Unread) => single_pass_whole::<A>(raw, names, defaults, &pass),
    };
    if let Some(value) = read {
        // The common case, built in place: a `Vec` put on the stack and copied out in one wider
        // load stalls store forwarding, a measurable part of the call for small tools.
        if pass.noted_nothing() && !checks.constrained {
            return Extraction { raw, value: Ok(value), warnings: Findings::new(), arguments: None };
        }
        if let Some(done) = single_pass_noted(raw, value, pass, checks) {
            return done;
        }
    }
    lenient_path(raw, definition, defaults, policy)
}

/// Whether the unknown keys of `raw` are for the tree path to settle: every key is unknown
/// (the arguments may be wrapped, `{"arguments": {...}}`), or one names a declared parameter
/// but for case and separators (`max_bytes` for `maxBytes`). Only asked when unknown keys came.
fn unknown_keys_need_tree(raw: &str, parameters: &[ToolParameter]) -> bool {
    let Ok(object) = serde_json::from_str::<Map<String, Value>>(raw) else { return true };
    let declared = |key: &str| parameters.iter().any(|p| p.name == key);
    if !object.keys().any(|key| declared(key)) {
        return true;
    }
    object
        .keys()
        .any(|key| !declared(key) && coerce::folded_name(key, parameters.iter().map(|p| p.name.as_str())).is_some())
}

/// The single pass's value when it converted something, met unknown keys, or the schema
/// declares constraints; `None` when the tree path must decide instead. Out of line (like
/// [`lenient_path`]), so that the common case's frame stays small.
#[cold]
#[inline(never)]
fn single_pass_noted<'r, A>(raw: &'r str, value: A, pass: Pass<'_>, checks: &Checks) -> Option<Extraction<'r, A>> {
    let parameters = pass.parameters();
    let strict = pass.strict();
    let (mut warnings, unknown) = pass.into_warnings();
    // The strict policy refuses unknown keys, which the tree reports.
    if unknown > 0 && (strict || unknown_keys_need_tree(raw, parameters)) {
        return None;
    }
    // The unknown parameters were noted as they came; the tree reports them after the
    // conversions (an unknown field inside a parameter, where it is met).
    if unknown > 0 {
        warnings.sort_by_key(|w| w.rule() == UNKNOWN_PARAMETER && w.pointer().rfind('/') == Some(0));
    }
    let converted_nothing = warnings.len() == unknown;
    if !checks.constrained {
        return Some(Extraction { raw, value: Ok(value), warnings: warnings.into(), arguments: None });
    }
    // The constraints are checked on the converted tree, which only the tree path builds; a
    // violation is also left to it (it may convert what the single pass took as it was).
    if !converted_nothing {
        return None;
    }
    let arguments = serde_json::from_str::<Value>(raw).ok()?;
    let (errors, more) = checks.check(&arguments);
    if !errors.is_empty() {
        return None;
    }
    warnings.extend(more);
    Some(Extraction { raw, value: Ok(value), warnings: warnings.into(), arguments: Some(arguments) })
}

/// When the single pass could not settle the call: the tree path, out of line.
#[cold]
#[inline(never)]
pub(crate) fn lenient_path<'r, A: WireArgs>(
    raw: &'r str,
    definition: &ToolDefinition,
    defaults: &A::Defaults,
    policy: ExtractionPolicy,
) -> Extraction<'r, A> {
    let parameters = &definition.parameters;
    slow_path(raw, definition, policy, |object| A::from_object(object, parameters, defaults))
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
    policy: ExtractionPolicy,
    read: impl FnOnce(&Map<String, Value>) -> Result<T, Vec<ArgumentError>>,
) -> Extraction<'r, T> {
    match parse_object(raw, definition, policy.strict || definition.strict) {
        Ok((object, mut warnings, refused)) => {
            let typed = read(&object).map_err(|mut errors| {
                for error in &mut errors {
                    if let Some(expected) = expected_at(&definition.input_schema, &error.pointer) {
                        error.expected = expected;
                    }
                    // Out of range for the Rust type (`300` for a `u8`): say the range.
                    if error.rule == "invalid_value" && error.expected.starts_with("an integer") {
                        if let Some(range) = range_at(&definition.input_schema, &error.pointer) {
                            error.expected = error.expected.replacen("an integer", &format!("an integer {range}"), 1);
                        }
                    }
                }
                errors
            });
            let arguments = Value::Object(object);
            let (violations, more) = definition.checks().check(&arguments);
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
            Extraction { raw, value, warnings: warnings.into(), arguments: Some(arguments) }
        }
        Err(error) => {
            Extraction { raw, value: Err(ArgumentErrors::single(error)), warnings: Findings::new(), arguments: None }
        }
    }
}

/// What the schema expects at a pointer inside a parameter (`/items/0/qty`), in the model's
/// words; `None` at the top level (the parameter's own description is right there) or when the
/// schema does not say.
fn expected_at(input_schema: &Value, pointer: &str) -> Option<String> {
    let (schema, defs, nested) = schema_at(input_schema, pointer)?;
    if !nested {
        return None;
    }
    let shape = crate::shape::shape_of(schema, defs);
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
    let schema = crate::shape::without_null(crate::shape::resolve(schema, defs), defs);
    let natural = schema.get("format").and_then(Value::as_str).and_then(crate::shape::integer_format_bounds);
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
fn schema_at<'s>(input_schema: &'s Value, pointer: &str) -> Option<(&'s Value, &'s Map<String, Value>, bool)> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    let defs = input_schema.get("$defs").and_then(Value::as_object).unwrap_or_else(|| EMPTY.get_or_init(Map::new));
    let mut segments = pointer.split('/').skip(1).map(|s| s.replace("~1", "/").replace("~0", "~"));
    let mut schema = input_schema.get("properties")?.get(segments.next()?)?;
    let mut nested = false;
    for segment in segments {
        nested = true;
        let resolved = crate::shape::without_null(crate::shape::resolve(schema, defs), defs);
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
        let own = if branch.get("properties").is_some() { branch } else { crate::shape::resolve(branch, defs) };
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
    strict: bool,
) -> Result<(Map<String, Value>, Vec<ParseWarning>, Vec<ArgumentError>), ArgumentError> {
    let parameters = &definition.parameters;
    let Repaired { value: mut object, warnings: repairs } = repair_arguments(raw)?;
    if let (true, Some(repair)) = (strict, repairs.first()) {
        return Err(ArgumentError {
            pointer: String::new(),
            rule: repair.rule().to_owned(),
            expected: "exact JSON: an object".into(),
            received: Some(truncate(raw)),
            detail: format!("refused by the strict policy; lenient extraction would have: {}", repair.action()),
        });
    }

    let converted = coerce::coerce_arguments(&mut object, &definition.checks().plan, parameters, strict);
    let (mut warnings, mut refused) = (converted.warnings, converted.refused);
    // The repairs of the raw text come first.
    warnings.splice(0..0, repairs);
    // Arguments that take any key (a runtime-built tool's `additionalProperties`) have none unknown.
    let closed = definition.checks().plan.node(crate::plan::Plan::ROOT).closed();
    let unknown = object.keys().filter(|key| closed && !parameters.iter().any(|p| &p.name == *key));
    for warning in unknown.map(|key| unknown_parameter(key, parameters)) {
        if strict && !refused.iter().any(|r| r.pointer == warning.pointer()) {
            refused.push(coerce::refusal(&warning));
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
    coerce::unknown_key(&format!("/{}", pointer_segment(key)), key, &declared, "parameters")
}

/// Reads one parameter from the object (slow path), pushing an error when it cannot.
pub fn read_element<T: ToolParam>(
    object: &Map<String, Value>,
    parameter: &ToolParameter,
    default: Option<fn() -> T>,
    errors: &mut Vec<ArgumentError>,
) -> Option<T> {
    let pointer = format!("/{}", pointer_segment(&parameter.name));
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
                        pointer: format!("{pointer}{inner}/{}", pointer_segment(field)),
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
            serde_path_to_error::Segment::Map { key } => pointer.push_str(&format!("/{}", pointer_segment(key))),
            serde_path_to_error::Segment::Enum { variant } => {
                if value.pointer(&pointer).is_some_and(|v| v.get(variant).is_some()) {
                    pointer.push_str(&format!("/{}", pointer_segment(variant)));
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
        A::visit_map(map, self.names, self.defaults, self.pass)
    }
}

/// The position of the declared parameter a key names, or [`UNKNOWN_KEY`]. One byte, so that
/// reading a key returns in registers, as serde's derived field identifiers do.
#[doc(hidden)]
pub type Key = u8;

/// The [`Key`] of a name no parameter declares (its warning goes to the [`Pass`]).
#[doc(hidden)]
pub const UNKNOWN_KEY: Key = Key::MAX;

// Every parameter position fits in a `Key`, with `UNKNOWN_KEY` to spare.
const _: () = assert!(MAX_PARAMETERS < UNKNOWN_KEY as usize);

/// Reads a key without allocating when it names a declared parameter; an unknown name is
/// noted as a warning.
///
/// Generic over the tuple `A` it reads keys for, although the code does not depend on it: each
/// tuple then gets its own copy of serde_json's per-key code with a single caller, which LLVM
/// inlines into the map loop (as it does for a derived struct's field identifier); one copy
/// shared by every tuple stays an out-of-line call per key.
#[doc(hidden)]
pub struct KeySeed<'a, A> {
    /// The declared wire names, in parameter order.
    pub names: &'a [&'a str],
    /// Where unknown names are noted.
    pub pass: &'a Pass<'a>,
    /// The parameter this key most likely names: the one after the previous key's.
    pub expected: Key,
    /// The tuple the keys are read for.
    pub tuple: PhantomData<fn() -> A>,
}

impl<'de, A> DeserializeSeed<'de> for KeySeed<'_, A> {
    type Value = Key;

    #[inline]
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de, A> Visitor<'de> for KeySeed<'_, A> {
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
    if names.get(usize::from(expected)).is_some_and(|name| same_name(name.as_bytes(), key)) {
        return Some(expected);
    }
    // `names` has at most `MAX_PARAMETERS` entries.
    names.iter().position(|name| same_name(name.as_bytes(), key)).map(|i| i as Key)
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

            fn element_schemas(_generator: &mut SchemaGenerator) -> Vec<Schema> {
                vec![$(_generator.subschema_for::<$T>()),*]
            }

            fn accepts_missing() -> Vec<bool> {
                vec![$(accepts_missing::<$T>()),*]
            }

            fn has_default(_defaults: &Self::Defaults) -> Vec<bool> {
                vec![$(_defaults.$idx.is_some()),*]
            }

            #[allow(unused_mut)]
            #[inline]
            fn visit_map<'de, M: MapAccess<'de>>(
                mut map: M,
                _names: &[&str],
                _defaults: &Self::Defaults,
                _pass: &Pass<'_>,
            ) -> Result<Option<Self>, M::Error> {
                $(let mut $v: Option<$T> = None;)*
                let mut expected: Key = 0;
                while let Some(key) = map.next_key_seed(KeySeed::<Self> { names: _names, pass: _pass, expected, tuple: PhantomData })? {
                    expected = key.wrapping_add(1);
                    match key {
                        $($idx => store(&mut $v, &mut map, $idx, _pass)?,)*
                        // Unknown (already noted), or beyond the tuple (`names` too long).
                        _ => { map.next_value::<IgnoredAny>()?; }
                    }
                }
                $(let Some($v) = fill_missing($v, _defaults.$idx) else { return Ok(None) };)*
                Ok(Some(($($v,)*)))
            }

            #[allow(unused_mut, unreachable_code)]
            #[inline]
            fn scan(
                raw: &str,
                _names: &[&str],
                _defaults: &Self::Defaults,
                _pass: &Pass<'_>,
            ) -> Result<Option<Self>, Stop> {
                $(let mut $v: Option<$T> = None;)*
                let mut scan = ObjectScan::open(raw)?;
                let mut key = scan.first_key(_names)?;
                while let Some(k) = key {
                    match k {
                        $($idx => scan.value(&mut $v, $idx, _pass)?,)*
                        // Beyond the tuple (`names` too long): the single pass skips it.
                        _ => return Err(Stop::Unread),
                    }
                    key = scan.next_key(_names, k.wrapping_add(1))?;
                }
                $(let Some($v) = fill_missing($v, _defaults.$idx) else { return Ok(None) };)*
                Ok(Some(($($v,)*)))
            }

            #[allow(unused_mut)]
            fn from_object(
                _object: &Map<String, Value>,
                _parameters: &[ToolParameter],
                _defaults: &Self::Defaults,
            ) -> Result<Self, Vec<ArgumentError>> {
                let mut errors = Vec::new();
                $(let $v = read_element::<$T>(_object, &_parameters[$idx], _defaults.$idx, &mut errors);)*
                match ($($v,)*) {
                    ($(Some($v),)*) => Ok(($($v,)*)),
                    #[allow(unreachable_patterns)]
                    _ => Err(errors),
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

/// The most parameters one tool may declare (the arity `WireArgs` is implemented for).
pub const MAX_PARAMETERS: usize = 16;

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
