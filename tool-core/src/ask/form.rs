//! The form an elicitation asks the user to fill in: a JSON Schema generated from a Rust type,
//! brought to the flat form MCP's `elicitation/create` takes.
//!
//! MCP forms are an object of fields, each a text (with an optional format: `email`, `uri`,
//! `date`, `date-time`), a number, an integer, a boolean, a single choice of texts (`enum`, or
//! `oneOf` of `const` and `title` when the choices have titles) or several choices of texts
//! (an array whose `items` are such a choice). schemars writes some of these another way (a
//! reference to a definition, `Option`'s `null` alternative, a choice's title as its
//! description); they are rewritten here, and anything else is refused, naming the field.

use std::any::type_name;

use schemars::JsonSchema;
use serde_json::{Map, Value};

use crate::extract::compiled::CompiledSchema;
use crate::model::{ToolDefinition, ToolError};
use crate::schema::shape::{is_null_schema, resolve};

/// The string formats MCP forms take.
const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

/// A form made from a Rust type: the schema sent to whoever answers, and the type's whole
/// schema, which the answer is read by (so that what the form leaves out, a pattern or a
/// range, is still checked).
pub(crate) struct Form {
    /// The flat schema MCP's `requestedSchema` takes.
    pub(crate) requested: Value,
    /// The type's schema, as a tool definition, for extraction.
    pub(crate) definition: ToolDefinition,
    pub(crate) compiled: CompiledSchema,
    /// The type's name, for messages.
    pub(crate) name: &'static str,
}

impl Form {
    /// The form of `T`, or an error naming the field that no MCP form can ask for.
    pub(crate) fn of<T: JsonSchema>() -> Result<Form, ToolError> {
        let name = short_type_name::<T>();
        let schema = crate::schema::generator().into_root_schema_for::<T>().to_value();
        let requested = requested_schema(&schema).map_err(|why| {
            ToolError::new(format!("`{name}` cannot be asked as a form: {why}")).with_code("invalid_form")
        })?;
        let definition = ToolDefinition::new(format!("form {name}"), "", schema);
        let compiled = CompiledSchema::compile(&definition.input_schema, &definition.parameters, false);
        Ok(Form { requested, definition, compiled, name })
    }
}

/// The form MCP's `elicitation/create` takes for the type `T`: a flat object of text, number,
/// integer, boolean and choice fields, as [`ToolContext::elicit`](crate::ToolContext::elicit)
/// sends it. An error (code `invalid_form`) names the field no MCP form can ask for.
pub fn form_schema<T: JsonSchema>() -> Result<Value, ToolError> {
    Form::of::<T>().map(|form| form.requested)
}

/// The name of `T` without its module path (`Profile`, `Vec<Choice>`).
fn short_type_name<T>() -> &'static str {
    let full = type_name::<T>();
    let generic = full.find('<').unwrap_or(full.len());
    match full[..generic].rfind("::") {
        Some(at) => &full[at + 2..],
        None => full,
    }
}

/// The flat MCP form of a type's root schema, or why there is none.
pub(crate) fn requested_schema(schema: &Value) -> Result<Value, String> {
    let empty = Map::new();
    let defs = schema.get("$defs").and_then(Value::as_object).unwrap_or(&empty);
    let root = resolve(schema, defs);
    let Some(properties) = root.get("properties").and_then(Value::as_object) else {
        return Err(format!(
            "a form is an object of fields (a struct with named fields), and its schema is {}",
            kind_of(root)
        ));
    };
    if root.get("type").is_some_and(|t| t != "object") {
        return Err(format!("a form is an object of fields, and its schema is {}", kind_of(root)));
    }
    let mut fields = Map::new();
    for (name, property) in properties {
        let field = field_schema(property, defs).map_err(|why| format!("the field `{name}` is {why}"))?;
        fields.insert(name.clone(), field);
    }
    let mut form = Map::new();
    form.insert("type".into(), "object".into());
    if let Some(description) = root.get("description") {
        form.insert("description".into(), description.clone());
    }
    form.insert("properties".into(), Value::Object(fields));
    let required: Vec<Value> = root
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter(|name| name.as_str().is_some_and(|n| properties.contains_key(n))).cloned().collect())
        .unwrap_or_default();
    form.insert("required".into(), Value::Array(required));
    Ok(Value::Object(form))
}

/// What the form cannot ask for, for messages: `an object`, `a list of objects`.
const FIELD_KINDS: &str = "a form's fields are texts, numbers, integers, booleans, a choice of texts (an enum of \
                           unit variants) or several choices of texts (a list of such an enum)";

/// The schema a property stands for: references followed (its own keywords kept beside the
/// target's), a single `allOf` merged, and `Option`'s `null` alternative dropped.
fn flattened(property: &Value, defs: &Map<String, Value>) -> Map<String, Value> {
    let mut merged = Map::new();
    let mut current = property.clone();
    for _ in 0..16 {
        let Value::Object(mut object) = current else { break };
        let target = match object.remove("$ref") {
            Some(Value::String(reference)) => {
                let name = reference.strip_prefix("#/$defs/").map(crate::model::pointer::unescape);
                name.and_then(|name| defs.get(name.as_ref())).cloned()
            }
            _ => None,
        };
        let single = match object.remove("allOf") {
            Some(Value::Array(mut all)) if all.len() == 1 => all.pop(),
            Some(other) => {
                object.insert("allOf".into(), other);
                None
            }
            None => None,
        };
        let nullable = strip_null(&mut object, defs);
        // The outer keywords win over the target's (a field's description over its type's).
        for (key, value) in object {
            merged.entry(key).or_insert(value);
        }
        match target.or(single).or(nullable) {
            Some(next) => current = next,
            None => break,
        }
    }
    merged
}

/// Removes `Option`'s `null` alternative from `object`: `type: [T, "null"]` becomes `type: T`;
/// `anyOf`/`oneOf` of one schema and `null` is removed and that schema returned, to merge.
fn strip_null(object: &mut Map<String, Value>, defs: &Map<String, Value>) -> Option<Value> {
    if let Some(Value::Array(types)) = object.get("type") {
        let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if kept.len() == 1 {
            object.insert("type".into(), kept[0].clone());
        }
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = object.get(key) else { continue };
        let non_null: Vec<&Value> = branches.iter().filter(|b| !is_null_schema(resolve(b, defs))).collect();
        if non_null.len() == 1 && branches.len() == 2 {
            let kept = non_null[0].clone();
            object.remove(key);
            return Some(kept);
        }
    }
    None
}

/// The values a choice offers, each with its title when it has one.
type Options = Vec<(String, Option<String>)>;

/// The choices of a single-choice schema, and whether any has a title, when it is one: `enum`
/// of texts, a lone `const`, or `oneOf`/`anyOf` of such (schemars writes a unit variant with a
/// doc comment as `{const, description}`, one with `#[schemars(title = ..)]` as
/// `{const, title}`). `Err` when it is a choice of values not all texts; `null` (an `Option`'s)
/// is no choice of its own.
fn choices(schema: &Map<String, Value>, defs: &Map<String, Value>) -> Result<Option<(Options, bool)>, String> {
    let texts = |values: &[Value]| -> Result<Options, String> {
        values
            .iter()
            .filter(|v| !v.is_null())
            .map(|v| match v {
                Value::String(s) => Ok((s.clone(), None)),
                other => Err(format!("a choice among values that are not all texts ({other}); MCP choices are texts")),
            })
            .collect()
    };
    if let Some(Value::Array(values)) = schema.get("enum") {
        return Ok(Some((texts(values)?, false)));
    }
    if let Some(value) = schema.get("const") {
        return Ok(Some((texts(std::slice::from_ref(value))?, false)));
    }
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(branches)) = schema.get(key) else { continue };
        let mut all = Vec::new();
        for branch in branches {
            let branch = flattened(branch, defs);
            let values = match (branch.get("const"), branch.get("enum")) {
                (Some(value), _) => texts(std::slice::from_ref(value))?,
                (None, Some(Value::Array(values))) => texts(values)?,
                _ => return Ok(None),
            };
            let title = branch.get("title").or_else(|| branch.get("description")).and_then(Value::as_str);
            for (value, _) in values {
                all.push((value, title.map(str::to_owned)));
            }
        }
        let titled = all.iter().any(|(_, title)| title.is_some());
        return Ok(Some((all, titled)));
    }
    Ok(None)
}

/// One field of the form, or what it is that a form cannot ask for.
fn field_schema(property: &Value, defs: &Map<String, Value>) -> Result<Value, String> {
    let schema = flattened(property, defs);
    let mut field = Map::new();
    let copy = |field: &mut Map<String, Value>, keys: &[&str]| {
        for key in keys {
            if let Some(value) = schema.get(*key) {
                field.insert((*key).to_owned(), value.clone());
            }
        }
    };
    if let Some((options, titled)) = choices(&schema, defs)? {
        field.insert("type".into(), "string".into());
        copy(&mut field, &["title", "description"]);
        put_choices(&mut field, options, titled, "oneOf");
        copy(&mut field, &["enumNames", "default"]);
        return Ok(Value::Object(field));
    }
    let kind = schema.get("type").and_then(Value::as_str);
    match kind {
        Some("string") => {
            field.insert("type".into(), "string".into());
            copy(&mut field, &["title", "description", "minLength", "maxLength"]);
            if let Some(format) = schema.get("format").filter(|f| f.as_str().is_some_and(|f| FORMATS.contains(&f))) {
                field.insert("format".into(), format.clone());
            }
            copy(&mut field, &["default"]);
        }
        Some(number @ ("integer" | "number")) => {
            field.insert("type".into(), number.into());
            copy(&mut field, &["title", "description", "minimum", "maximum", "default"]);
        }
        Some("boolean") => {
            field.insert("type".into(), "boolean".into());
            copy(&mut field, &["title", "description", "default"]);
        }
        Some("array") => {
            let items = schema.get("items").map(|items| flattened(items, defs)).unwrap_or_default();
            let Some((options, titled)) = choices(&items, defs)? else {
                let items = kind_of(&Value::Object(items));
                return Err(format!("a list whose items are not choices (each is {items}); {FIELD_KINDS}"));
            };
            field.insert("type".into(), "array".into());
            copy(&mut field, &["title", "description", "minItems", "maxItems"]);
            let mut item = Map::new();
            if !titled {
                item.insert("type".into(), "string".into());
            }
            put_choices(&mut item, options, titled, "anyOf");
            field.insert("items".into(), Value::Object(item));
            copy(&mut field, &["default"]);
        }
        _ => return Err(format!("{}; {FIELD_KINDS}", kind_of(&Value::Object(schema)))),
    }
    Ok(Value::Object(field))
}

/// Writes choices as MCP has them: `enum` when none has a title, else `key` (`oneOf` for a
/// single choice, `anyOf` for the items of several) of `{const, title}`, a choice without a
/// title titled by its value.
fn put_choices(field: &mut Map<String, Value>, options: Options, titled: bool, key: &str) {
    if titled {
        let options = options
            .into_iter()
            .map(|(value, title)| {
                let title = title.unwrap_or_else(|| value.clone());
                Value::Object(Map::from_iter([("const".to_owned(), value.into()), ("title".to_owned(), title.into())]))
            })
            .collect();
        field.insert(key.to_owned(), Value::Array(options));
    } else {
        field.insert("enum".into(), Value::Array(options.into_iter().map(|(value, _)| value.into()).collect()));
    }
}

/// What a schema describes, in words, for messages.
fn kind_of(schema: &Value) -> String {
    match schema.get("type") {
        Some(Value::String(kind)) => match kind.as_str() {
            "object" => "an object".to_owned(),
            "array" => "a list".to_owned(),
            "null" => "always null".to_owned(),
            "string" => "a text".to_owned(),
            other => format!("of type `{other}`"),
        },
        Some(Value::Array(kinds)) => format!("one of several types ({})", Value::Array(kinds.clone())),
        _ if schema.get("oneOf").is_some() || schema.get("anyOf").is_some() => {
            "one of several shapes (an enum with data, or an untagged union)".to_owned()
        }
        _ if schema.as_object().is_some_and(Map::is_empty) => "any JSON value".to_owned(),
        _ => format!("the schema {}", crate::model::truncate(&schema.to_string())),
    }
}
