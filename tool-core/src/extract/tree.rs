//! The tree path: when the single pass cannot settle a call, the arguments text is read into
//! a JSON tree, repaired, converted by the compiled schema, read, and every problem reported
//! per field with the value that arrived.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::args::WireArgs;
use super::compiled::CompiledSchema;
use super::convert;
use super::keys::unknown_parameter;
use super::policy::ExtractionPolicy;
use super::repair::{repair_arguments, Repaired};
use crate::model::rules;
use crate::model::{pointer, truncate, ArgumentError, ArgumentErrors, Extraction, Findings, ParseWarning};
use crate::model::{ToolDefinition, ToolParameter};

/// When the single pass could not settle the call: the tree path, out of line.
#[cold]
#[inline(never)]
pub(crate) fn tree_path<'r, A: WireArgs>(
    raw: &'r str,
    definition: &ToolDefinition,
    compiled: &CompiledSchema,
    defaults: &A::Defaults,
    policy: ExtractionPolicy,
) -> Extraction<'r, A> {
    let parameters = &definition.parameters;
    read_by_tree(raw, definition, compiled, policy, |object| {
        let mut errors = Vec::new();
        A::read_object(object, parameters, defaults, &mut errors).ok_or(errors)
    })
}

/// Reads `raw` as a JSON object (repairing what can be repaired), converts it by the declared
/// schema, and hands it to `read`; every repair, conversion and unknown key is a warning.
pub(crate) fn read_by_tree<'r, T>(
    raw: &'r str,
    definition: &ToolDefinition,
    compiled: &CompiledSchema,
    policy: ExtractionPolicy,
    read: impl FnOnce(&Map<String, Value>) -> Result<T, Vec<ArgumentError>>,
) -> Extraction<'r, T> {
    if let Err(error) = policy.check(raw) {
        return super::policy::refused_before_reading(raw, error);
    }
    let mut read = Some(read);
    let mut typed = None;
    let (value, warnings, arguments) = settle_by_tree(raw, definition, compiled, policy, &mut |object| {
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
fn settle_by_tree(
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
                    if error.expected.starts_with("an integer")
                        && (error.rule == rules::INVALID_VALUE || numeric.is_some())
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
                    let places = Places::of(&refused);
                    let rest: Vec<ArgumentError> = errors.into_iter().filter(|e| !places.cover(&e.pointer)).collect();
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
                    let places = Places::of(&errors);
                    let fresh: Vec<ArgumentError> =
                        violations.into_iter().filter(|v| !places.cover(&v.pointer)).collect();
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
    if let (true, Some(repair)) = (strict, repairs.iter().find(|r| r.rule() != rules::NUMBER_OUT_OF_RANGE)) {
        return Err(ArgumentError {
            pointer: String::new(),
            rule: repair.rule().to_owned(),
            expected: "exact JSON: an object".into(),
            received: Some(truncate(raw)),
            detail: format!("refused by the strict policy; lenient extraction would have {}", repair.action()),
        });
    }

    let converted = convert::coerce_arguments(&mut object, &compiled.plan, parameters, strict);
    let (mut warnings, mut refused) = (converted.warnings, converted.refused);
    // The repairs of the raw text come first.
    warnings.splice(0..0, repairs);
    // Arguments that take any key (a runtime-built tool's `additionalProperties`) have none unknown.
    let closed = compiled.closed();
    let unknown = object.keys().filter(|key| closed && !parameters.iter().any(|p| &p.name == *key));
    // Hashed: a refusal is looked up for every unknown key.
    let mut refused_at: HashSet<String> =
        if strict { refused.iter().map(|r| r.pointer.clone()).collect() } else { HashSet::new() };
    for warning in unknown.map(|key| unknown_parameter(key, parameters)) {
        if strict && refused_at.insert(warning.pointer().to_owned()) {
            refused.push(convert::refusal(&warning));
        } else {
            warnings.push(warning);
        }
    }
    Ok((object, warnings, refused))
}

/// The places of some errors, hashed: whether one of them is, or contains, a place is asked
/// for each of any number of other findings.
struct Places<'e>(HashSet<&'e str>);

impl<'e> Places<'e> {
    fn of(errors: &'e [ArgumentError]) -> Self {
        Places(errors.iter().map(|e| e.pointer.as_str()).collect())
    }

    /// Whether one of the places is `inner` or contains it: `inner` or one of its ancestors.
    fn cover(&self, inner: &str) -> bool {
        let mut at = inner;
        loop {
            if self.0.contains(at) {
                return true;
            }
            match at.rfind('/') {
                Some(cut) => at = &at[..cut],
                None => return false,
            }
        }
    }
}
