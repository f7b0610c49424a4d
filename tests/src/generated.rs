//! A generated set of varied tools, the same on every run: what schemars writes for Rust types
//! (formats, type lists and `anyOf` for options, `$defs` and `$ref`, tagged unions as `oneOf`
//! with `const`, tuples as `prefixItems`, maps, values of any type, recursive types) plus the
//! constraint keywords `#[param]` adds and property names some providers refuse, mixed by a
//! seeded generator. Used by `provider_generated.rs` (every dialect, the rule checker) and
//! `provider_sdks.rs` (the official SDKs).

use serde_json::{json, Map, Value};
use tool_core::prelude::*;

use crate::dynamic;

/// A small seeded generator (xorshift), so the set is the same on every run.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const FORMATS: [&str; 8] = ["uint8", "uint16", "uint32", "uint64", "int8", "int32", "int64", "uint"];
const STRING_FORMATS: [&str; 6] = ["date-time", "date", "uri", "email", "uuid", "hostname"];

/// A scalar the way schemars writes it, with constraints `#[param]` may add.
fn scalar(rng: &mut Seeded) -> Value {
    match rng.below(6) {
        0 => {
            let mut s = json!({"type": "string"});
            if rng.chance(30) {
                s["minLength"] = json!(1 + rng.below(3));
                s["maxLength"] = json!(10 + rng.below(50));
            }
            if rng.chance(20) {
                s["pattern"] = json!("^[a-z0-9-]+$");
            }
            if rng.chance(20) {
                s["format"] = json!(STRING_FORMATS[rng.below(STRING_FORMATS.len())]);
            }
            s
        }
        1 => {
            let format = FORMATS[rng.below(FORMATS.len())];
            let mut s = json!({"type": "integer", "format": format});
            if format.starts_with('u') {
                s["minimum"] = json!(0);
            }
            if rng.chance(30) {
                s["minimum"] = json!(1);
                s["maximum"] = json!(100);
            }
            if rng.chance(15) {
                s["exclusiveMinimum"] = json!(0);
            }
            if rng.chance(10) {
                s["multipleOf"] = json!(5);
            }
            s
        }
        2 => {
            let mut s = json!({"type": "number", "format": if rng.chance(50) { "double" } else { "float" }});
            if rng.chance(30) {
                s["minimum"] = json!(0.0);
                s["maximum"] = json!(1.0);
            }
            s
        }
        3 => json!({"type": "boolean"}),
        4 => json!({"type": "string", "enum": ["low", "medium", "high"]}),
        _ => json!({"type": "string", "description": "Free text."}),
    }
}

/// The `i`th property name of an object: mostly `{plain}_{i}`, sometimes one Anthropic or
/// Gemini refuses (accents, `-`, `.`, a digit first), unique within the object once mapped.
fn property_name(rng: &mut Seeded, plain: &str, i: usize) -> String {
    if !rng.chance(20) {
        return format!("{plain}_{i}");
    }
    match rng.below(4) {
        0 => format!("año_{i}"),
        1 => format!("Content-Type-{i}"),
        2 => format!("naïve.{i}"),
        _ => format!("{i}st"),
    }
}

/// A value schema: a scalar, a list, a map, a tuple, an option, or a reference to a struct,
/// union or recursive type in `defs`.
fn value(rng: &mut Seeded, defs: &mut Map<String, Value>, depth: usize) -> Value {
    let pick = if depth > 2 { rng.below(2) } else { rng.below(12) };
    match pick {
        0 | 1 => scalar(rng),
        2 => {
            let mut list = json!({"type": "array", "items": value(rng, defs, depth + 1)});
            if rng.chance(20) {
                list["minItems"] = json!(1 + rng.below(3));
                list["uniqueItems"] = json!(true);
            }
            list
        }
        3 => json!({"type": "object", "additionalProperties": value(rng, defs, depth + 1)}),
        4 => json!({"type": "array", "prefixItems": [scalar(rng), scalar(rng)], "minItems": 2, "maxItems": 2}),
        5 => {
            // An option: a type list for scalars, `anyOf` with null otherwise.
            let inner = value(rng, defs, depth + 1);
            match inner.get("type").and_then(Value::as_str) {
                Some(t) if t != "object" && t != "array" && inner.get("enum").is_none() => {
                    let mut option = inner.clone();
                    option["type"] = json!([t, "null"]);
                    option
                }
                _ => json!({"anyOf": [inner, {"type": "null"}]}),
            }
        }
        6 | 7 => {
            let name = format!("Struct{}", defs.len());
            defs.insert(name.clone(), Value::Null);
            let fields = 1 + rng.below(4);
            let mut properties = Map::new();
            let mut required = Vec::new();
            for i in 0..fields {
                let field = property_name(rng, "field", i);
                properties.insert(field.clone(), value(rng, defs, depth + 1));
                if rng.chance(70) {
                    required.push(json!(field));
                }
            }
            defs.insert(
                name.clone(),
                json!({"type": "object", "description": "A nested struct.", "properties": properties, "required": required}),
            );
            json!({"$ref": format!("#/$defs/{name}")})
        }
        8 => {
            let name = format!("Union{}", defs.len());
            defs.insert(
                name.clone(),
                json!({"description": "A tagged union.", "oneOf": [
                    {"type": "object", "properties": {"kind": {"type": "string", "const": "a"}, "x": scalar(rng)}, "required": ["kind", "x"]},
                    {"type": "object", "properties": {"kind": {"type": "string", "const": "b"}, "y": scalar(rng)}, "required": ["kind", "y"]},
                ]}),
            );
            json!({"$ref": format!("#/$defs/{name}")})
        }
        10 => {
            // A value of any type (`serde_json::Value`), with or without a description.
            if rng.chance(50) {
                json!({"description": "Anything."})
            } else {
                json!({})
            }
        }
        11 => json!({"type": "object", "additionalProperties": true}),
        _ => {
            let name = format!("Tree{}", defs.len());
            defs.insert(
                name.clone(),
                json!({"type": "object", "description": "A recursive node.", "properties": {
                    "label": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": format!("#/$defs/{name}")}},
                }, "required": ["label", "children"]}),
            );
            json!({"$ref": format!("#/$defs/{name}"), "description": "A tree."})
        }
    }
}

/// The set: `count` tools, the same on every run.
pub fn generated_tools(count: usize) -> Vec<DynamicTool> {
    let mut rng = Seeded(0x5eed_1234_abcd_ef01);
    (0..count)
        .map(|i| {
            let mut defs = Map::new();
            let mut properties = Map::new();
            let mut required = Vec::new();
            for p in 0..rng.below(6) {
                let name = property_name(&mut rng, "param", p);
                let mut schema = value(&mut rng, &mut defs, 0);
                if rng.chance(50) {
                    schema["description"] = json!(format!("Parameter {p}."));
                }
                if rng.chance(60) {
                    required.push(json!(name));
                } else if rng.chance(30) && schema.get("type") == Some(&json!("string")) {
                    schema["default"] = json!("x");
                }
                properties.insert(name, schema);
            }
            let mut schema = json!({"type": "object", "properties": properties, "required": required});
            if !defs.is_empty() {
                schema["$defs"] = Value::Object(defs);
            }
            let name = if i % 3 == 0 { format!("generated.tool_{i}") } else { format!("generated_tool_{i}") };
            dynamic(name, format!("Generated tool number {i}."), schema)
        })
        .collect()
}
