//! The keys judged: each place `#[tool]` goes has its own set of keys (a function or struct,
//! an impl block), a key is given once, and each value has the form its key takes.

use proc_macro2::Span;
use syn::ext::IdentExt as _;
use syn::parse::{ParseStream, Parser as _};
use syn::{token, Expr, ExprLit, Ident, Lit, LitInt, LitStr, Path, Token};

use super::values::{flag, icons, integer, krate, method_name, scopes, string, strings, task_support};
use crate::errors::Errors;
use crate::names::{closest, json_string, literal_json, number_json};
use crate::parse::{Entry, Key, KeyValue};

/// The keys of `#[tool(..)]` on a function, a method or a struct.
pub const TOOL_KEYS: &[&str] = &[
    "name",
    "description",
    "tags",
    "category",
    "version",
    "examples",
    "example",
    "icons",
    "scopes",
    "annotations",
    "timeout_ms",
    "blocking",
    "inline",
    "strict",
    "defer",
    "requires_approval",
    "approval",
    "sequential",
    "task",
    "crate",
];

/// The keys of `#[tool(..)]` on an impl block.
pub const IMPL_KEYS: &[&str] = &[
    "new",
    "create",
    "cleanup",
    "idle_timeout_ms",
    "max_instances",
    "shared_state",
    "schema_version",
    "migrate",
    "crate",
];

pub const PARAM_KEYS: &[&str] = &[
    "rename",
    "description",
    "example",
    "default",
    "range",
    "length",
    "pattern",
    "case_sensitive",
    "strict",
    "header",
];

const ANNOTATION_KEYS: &[&str] = &["read_only", "destructive", "idempotent", "open_world", "title"];

/// Where a tool's `#[tool(..)]` stands (an impl block's keys are read by [`impl_config`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Fn,
    /// A `#[tool]` method of a `#[tool]` impl block.
    Method,
    Struct,
}

/// The keys of a tool (function, method or struct).
#[derive(Default)]
pub struct ToolConfig {
    pub name: Option<LitStr>,
    pub description: Option<LitStr>,
    pub tags: Vec<LitStr>,
    pub category: Option<LitStr>,
    pub version: Option<LitStr>,
    pub examples: Vec<LitStr>,
    /// `icons("https://..")`: where the tool's icons are.
    pub icons: Vec<LitStr>,
    /// `scopes("notes:write")` or `scopes = "notes:read notes:write"`: the OAuth scopes a call
    /// needs, one literal each.
    pub scopes: Vec<String>,
    pub annotations: Option<Annotations>,
    pub timeout_ms: Option<LitInt>,
    /// Set when `blocking` is true; the span is the key's.
    pub blocking: Option<Span>,
    /// Set when `inline` is true: a sync fn that stays on the async worker.
    pub inline: Option<Span>,
    pub strict: bool,
    /// `defer`: left out of requests until a tool search finds it.
    pub defer: bool,
    /// `requires_approval`: every call waits for a person. Kept with its key's span when given
    /// at all (even `= false`), for the error when `approval` is given too.
    pub requires_approval: Option<WithSpan<bool>>,
    /// `approval = "path"`: the predicate deciding per call; the span is the string's.
    pub approval: Option<WithSpan<Path>>,
    /// `sequential`: a call runs alone in its batch.
    pub sequential: bool,
    /// `task` (`Optional`) or `task = "required"`: answered over MCP with a task; the variant's
    /// name in `TaskSupport`.
    pub task: Option<&'static str>,
    /// `task(asks_first)`: the call asks in its request's rounds before it becomes a task.
    pub task_asks_first: bool,
    /// `example(query = "rust", limit = 5)`, once per example.
    pub call_examples: Vec<CallExample>,
    pub krate: Option<Path>,
}

/// One `example(..)`: a whole call's arguments, keyed by wire name.
pub struct CallExample {
    /// The `example` key's span, for a parameter the example leaves out.
    pub span: Span,
    pub fields: Vec<ExampleField>,
}

pub struct ExampleField {
    /// The wire name as written (`r#type` is `type`).
    pub name: String,
    pub span: Span,
    /// The value's JSON text; `None` when the value has an error (reported), so that the key
    /// still counts as given.
    pub json: Option<String>,
}

impl CallExample {
    /// The example as a JSON object text, its keys in the order written.
    pub fn json(&self) -> String {
        let fields: Vec<String> =
            self.fields.iter().filter_map(|f| Some(format!("{}:{}", json_string(&f.name), f.json.as_ref()?))).collect();
        format!("{{{}}}", fields.join(","))
    }
}

/// The keys of an impl block: how the per-conversation instance is made, kept and dropped.
#[derive(Default)]
pub struct ImplConfig {
    /// Set when `new` is true: the instance is `Self::new()`.
    pub new: Option<Span>,
    /// The async factory's name.
    pub create: Option<syn::Ident>,
    /// The async cleanup method's name.
    pub cleanup: Option<syn::Ident>,
    pub idle_timeout_ms: Option<LitInt>,
    pub max_instances: Option<LitInt>,
    /// Set when `shared_state` is true: the state lives in the executor's store.
    pub shared_state: Option<Span>,
    /// The stored state's schema version (1 when not given).
    pub schema_version: Option<LitInt>,
    /// The function that migrates a state stored by an older schema version.
    pub migrate: Option<syn::Ident>,
    pub krate: Option<Path>,
}

#[derive(Default)]
pub struct Annotations {
    pub title: Option<LitStr>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

/// A key's value with the span of the key, for errors that point at it.
pub struct WithSpan<T> {
    pub value: T,
    pub span: Span,
}

#[derive(Default)]
pub struct ParamConfig {
    pub rename: Option<LitStr>,
    pub description: Option<LitStr>,
    /// JSON text of the example.
    pub example: Option<String>,
    pub default: Option<WithSpan<DefaultValue>>,
    pub range: Option<WithSpan<Vec<(&'static str, String)>>>,
    pub length: Option<WithSpan<Vec<(&'static str, String)>>>,
    pub pattern: Option<WithSpan<LitStr>>,
    pub case_sensitive: bool,
    pub strict: bool,
    /// `header = "Region"`: mirrored into the HTTP header `Mcp-Param-Region` (MCP, SEP-2243).
    pub header: Option<WithSpan<LitStr>>,
}

pub enum DefaultValue {
    /// `default`: `Default::default()`.
    Trait,
    /// `default = expr`, with the JSON text when `expr` is a literal.
    Expr(Box<Expr>, Option<String>),
}

impl ParamConfig {
    /// Schema keywords and their JSON texts.
    pub fn constraints(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(range) = &self.range {
            out.extend(range.value.iter().cloned());
        }
        if let Some(length) = &self.length {
            out.extend(length.value.iter().cloned());
        }
        if let Some(pattern) = &self.pattern {
            out.push(("pattern", json_string(&pattern.value.value())));
        }
        if let Some(header) = &self.header {
            out.push(("x-mcp-header", json_string(&header.value.value())));
        }
        out
    }
}

/// The keys of one list, with bare values and repeated keys reported and left out.
fn keys<'a>(entries: &'a [Entry], list: &str, example: &str, errors: &mut Errors) -> Vec<&'a Key> {
    keys_repeating(entries, list, example, &[], errors)
}

/// [`keys`], where the keys named in `repeatable` may be given more than once.
fn keys_repeating<'a>(
    entries: &'a [Entry],
    list: &str,
    example: &str,
    repeatable: &[&str],
    errors: &mut Errors,
) -> Vec<&'a Key> {
    let mut out: Vec<&Key> = Vec::new();
    for entry in entries {
        let key = match entry {
            Entry::Key(key) => key,
            Entry::Value(value) => {
                errors.push(syn::Error::new_spanned(
                    value,
                    format!("`{list}` takes keys, not a bare value: write `{example}`"),
                ));
                continue;
            }
        };
        let name = key.name();
        if !repeatable.contains(&name.as_str()) && out.iter().any(|k| k.name() == name) {
            errors.push(syn::Error::new(key.span(), format!("repeated `{name}` in `{list}`: give each key once")));
            continue;
        }
        out.push(key);
    }
    out
}

pub fn tool_config(entries: &[Entry], target: Target, errors: &mut Errors) -> ToolConfig {
    let mut config = ToolConfig::default();
    for key in keys_repeating(entries, "#[tool(..)]", "#[tool(name = \"..\")]", &["example"], errors) {
        if let Err(error) = config.read(key, target, errors) {
            errors.push(error);
        }
    }
    config
}

impl ToolConfig {
    fn read(&mut self, key: &Key, target: Target, errors: &mut Errors) -> syn::Result<()> {
        let name = key.name();
        match name.as_str() {
            "name" => self.name = Some(string(key)?),
            "description" => self.description = Some(string(key)?),
            "category" => self.category = Some(string(key)?),
            "version" => self.version = Some(string(key)?),
            "tags" => self.tags = strings(key, "`tags` takes string literals: `tags(\"memory\", \"search\")`")?,
            "examples" => {
                self.examples =
                    strings(key, "`examples` takes JSON object texts: `examples(r#\"{\"query\": \"rust\"}\"#)`")?;
            }
            "timeout_ms" => {
                self.timeout_ms =
                    Some(integer(key, "`timeout_ms` takes an integer literal, in milliseconds: `timeout_ms = 5000`")?);
            }
            "blocking" => self.blocking = flag(key)?.then(|| key.span()),
            "inline" => self.inline = flag(key)?.then(|| key.span()),
            "strict" => self.strict = flag(key)?,
            "defer" => self.defer = flag(key)?,
            "sequential" => self.sequential = flag(key)?,
            "task" => (self.task, self.task_asks_first) = task_support(key)?,
            "requires_approval" => {
                let value = flag(key)?;
                if self.approval.is_some() {
                    return Err(approval_twice(key.span()));
                }
                self.requires_approval = Some(WithSpan { value, span: key.span() });
            }
            "approval" => {
                let path = approval_path(key)?;
                if self.requires_approval.is_some() {
                    return Err(approval_twice(key.span()));
                }
                self.approval = Some(path);
            }
            "example" => self.call_examples.push(CallExample::read(key, errors)?),
            "icons" => self.icons = icons(key)?,
            "scopes" => self.scopes = scopes(key)?,
            "crate" => self.krate = Some(krate(key)?),
            "annotations" => self.annotations = Some(Annotations::read(key, errors)?),
            other if IMPL_KEYS.contains(&other) => {
                let message = if target == Target::Method {
                    format!("`{other}` sets up the per-conversation instance: give it in the impl block's `#[tool(..)]`, not in a method's")
                } else {
                    format!("`{other}` applies to `#[tool]` on an impl block of tool methods, where it sets up the per-conversation instance; remove it here")
                };
                return Err(syn::Error::new(key.span(), message));
            }
            _ => return Err(unknown_key(key, "`tool` attribute", "", TOOL_KEYS)),
        }
        Ok(())
    }
}

pub fn impl_config(entries: &[Entry], errors: &mut Errors) -> ImplConfig {
    let mut config = ImplConfig::default();
    let mut stored_keys = Vec::new();
    for key in keys(entries, "#[tool(..)]", "#[tool(create = \"..\")]", errors) {
        if matches!(key.name().as_str(), "schema_version" | "migrate") {
            stored_keys.push(key);
        }
        if let Err(error) = config.read(key) {
            errors.push(error);
        }
    }
    if config.shared_state.is_none() {
        for key in stored_keys {
            errors.push(syn::Error::new(
                key.span(),
                format!(
                    "`{}` applies to a state kept in the store: add `shared_state` to this `#[tool(..)]`, or remove it",
                    key.name()
                ),
            ));
        }
    }
    config
}

impl ImplConfig {
    fn read(&mut self, key: &Key) -> syn::Result<()> {
        let name = key.name();
        match name.as_str() {
            "new" => self.new = flag(key)?.then(|| key.span()),
            "create" => self.create = Some(method_name(key)?),
            "cleanup" => self.cleanup = Some(method_name(key)?),
            "idle_timeout_ms" => {
                self.idle_timeout_ms = Some(integer(
                    key,
                    "`idle_timeout_ms` takes an integer literal, in milliseconds: `idle_timeout_ms = 60000`",
                )?);
            }
            "max_instances" => {
                self.max_instances =
                    Some(integer(key, "`max_instances` takes an integer literal: `max_instances = 100`")?);
            }
            "shared_state" => self.shared_state = flag(key)?.then(|| key.span()),
            "schema_version" => {
                let message = "`schema_version` takes an integer literal from 1, the version of the stored state's shape: `schema_version = 2`";
                let version = integer(key, message)?;
                if !version.base10_parse::<u32>().is_ok_and(|v| v >= 1) {
                    return Err(syn::Error::new(version.span(), message));
                }
                self.schema_version = Some(version);
            }
            "migrate" => self.migrate = Some(method_name(key)?),
            "crate" => self.krate = Some(krate(key)?),
            other if TOOL_KEYS.contains(&other) => {
                return Err(syn::Error::new(key.span(), format!("`{other}` belongs to a tool: on an impl block, `#[tool]` takes `new`, `create`, `cleanup`, `idle_timeout_ms`, `max_instances`, `shared_state`, `schema_version`, `migrate` and `crate`; put `{other}` in the method's `#[tool(..)]`")));
            }
            _ => return Err(unknown_key(key, "`tool` attribute", " on an impl block", IMPL_KEYS)),
        }
        Ok(())
    }
}

fn approval_twice(span: Span) -> syn::Error {
    syn::Error::new(
        span,
        "`requires_approval` asks a person before every call and `approval = \"..\"` asks when its function says so: use one",
    )
}

/// `approval = "needs_approval"`: the predicate's path, at the string's span.
fn approval_path(key: &Key) -> syn::Result<WithSpan<Path>> {
    let message = "`approval` takes the path of a function as a string, which decides per call whether a person must approve it: `approval = \"needs_approval\"`";
    let lit = match &key.value {
        KeyValue::Assign(Expr::Lit(ExprLit { lit: Lit::Str(lit), .. })) => lit,
        KeyValue::Assign(other) => return Err(syn::Error::new_spanned(other, message)),
        _ => return Err(syn::Error::new(key.span(), message)),
    };
    let value = lit.parse::<Path>().map_err(|_| {
        syn::Error::new(
            lit.span(),
            format!("`{}` is not the path of a function: write `approval = \"needs_approval\"`", lit.value()),
        )
    })?;
    Ok(WithSpan { value, span: lit.span() })
}

impl CallExample {
    /// `example(query = "rust", limit = 5)`. A value that is not JSON-like is reported and its
    /// field left out; the example is kept, so its other fields are still checked.
    fn read(key: &Key, errors: &mut Errors) -> syn::Result<CallExample> {
        let message =
            "`example` takes a whole call's arguments, by parameter name: `example(query = \"rust\", limit = 5)`";
        let KeyValue::List(entries) = &key.value else { return Err(syn::Error::new(key.span(), message)) };
        let mut fields: Vec<ExampleField> = Vec::new();
        for entry in entries {
            let (name, span, value) = match entry {
                Entry::Key(field) => {
                    let name =
                        field.name.segments.iter().map(|s| s.ident.unraw().to_string()).collect::<Vec<_>>().join("::");
                    let value = match &field.value {
                        KeyValue::Assign(value) => Some(value),
                        _ => {
                            errors.push(syn::Error::new(field.span(), format!("give `{name}` a value: `{name} = ..`")));
                            None
                        }
                    };
                    (name, field.span(), value)
                }
                // `"max-results" = 10`: a wire name that is no Rust identifier.
                Entry::Value(Expr::Assign(assign)) => match &*assign.left {
                    Expr::Lit(ExprLit { lit: Lit::Str(lit), .. }) => (lit.value(), lit.span(), Some(&*assign.right)),
                    other => {
                        errors.push(syn::Error::new_spanned(other, message));
                        continue;
                    }
                },
                Entry::Value(other) => {
                    errors.push(syn::Error::new_spanned(other, message));
                    continue;
                }
            };
            if fields.iter().any(|f| f.name == name) {
                errors.push(syn::Error::new(
                    span,
                    format!("repeated `{name}` in `example(..)`: give each parameter once"),
                ));
                continue;
            }
            let json = value.and_then(|value| example_json(value).map_err(|error| errors.push(error)).ok());
            fields.push(ExampleField { name, span, json });
        }
        Ok(CallExample { span: key.span(), fields })
    }
}

const EXAMPLE_VALUE: &str = "an example value is a literal (`\"rust\"`, `5`, `-1.5`, `true`), an array of them (`[1, 2]`), or `json!({..})` for an object";

/// The JSON text of an example's value: a literal, an array, or `json!(..)`.
fn example_json(expr: &Expr) -> syn::Result<String> {
    match expr {
        Expr::Array(array) => {
            let items = array.elems.iter().map(example_json).collect::<syn::Result<Vec<_>>>()?;
            Ok(format!("[{}]", items.join(",")))
        }
        Expr::Macro(mac) if mac.mac.path.segments.last().is_some_and(|s| s.ident == "json") => {
            json_tokens.parse2(mac.mac.tokens.clone())
        }
        Expr::Group(group) => example_json(&group.expr),
        Expr::Paren(paren) => example_json(&paren.expr),
        other => literal_json(other).ok_or_else(|| syn::Error::new_spanned(other, EXAMPLE_VALUE)),
    }
}

/// `json!`'s tokens as JSON text: objects (`{"key": value}` or `{key: value}`), arrays,
/// literals, negative numbers and `null`.
fn json_tokens(input: ParseStream) -> syn::Result<String> {
    let value = json_value(input)?;
    if !input.is_empty() {
        return Err(input.error("expected the end of the `json!` value"));
    }
    Ok(value)
}

fn json_value(input: ParseStream) -> syn::Result<String> {
    if input.peek(token::Brace) {
        let content;
        syn::braced!(content in input);
        let mut fields = Vec::new();
        while !content.is_empty() {
            let key = if content.peek(LitStr) {
                content.parse::<LitStr>()?.value()
            } else if content.peek(Ident::peek_any) {
                Ident::parse_any(&content)?.unraw().to_string()
            } else {
                return Err(content.error("expected a key: `\"name\"` or `name`"));
            };
            content.parse::<Token![:]>()?;
            fields.push(format!("{}:{}", json_string(&key), json_value(&content)?));
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        return Ok(format!("{{{}}}", fields.join(",")));
    }
    if input.peek(token::Bracket) {
        let content;
        syn::bracketed!(content in input);
        let mut items = Vec::new();
        while !content.is_empty() {
            items.push(json_value(&content)?);
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        return Ok(format!("[{}]", items.join(",")));
    }
    if input.peek(Ident) && !input.peek(syn::LitBool) {
        let ident: Ident = input.parse()?;
        return if ident == "null" { Ok("null".to_owned()) } else { Err(syn::Error::new(ident.span(), EXAMPLE_VALUE)) };
    }
    let expr = if input.peek(Token![-]) {
        let minus: Token![-] = input.parse()?;
        let lit: Lit = input.parse()?;
        Expr::Unary(syn::ExprUnary {
            attrs: Vec::new(),
            op: syn::UnOp::Neg(minus),
            expr: Box::new(Expr::Lit(ExprLit { attrs: Vec::new(), lit })),
        })
    } else {
        Expr::Lit(ExprLit { attrs: Vec::new(), lit: input.parse()? })
    };
    literal_json(&expr).ok_or_else(|| syn::Error::new_spanned(&expr, EXAMPLE_VALUE))
}

impl Annotations {
    fn read(key: &Key, errors: &mut Errors) -> syn::Result<Annotations> {
        let KeyValue::List(entries) = &key.value else {
            return Err(syn::Error::new(
                key.span(),
                "`annotations` takes a list of hints: `annotations(read_only, destructive = false, title = \"..\")`",
            ));
        };
        let mut out = Annotations::default();
        for key in keys(entries, "annotations(..)", "annotations(read_only)", errors) {
            if let Err(error) = out.read_key(key) {
                errors.push(error);
            }
        }
        Ok(out)
    }

    fn read_key(&mut self, key: &Key) -> syn::Result<()> {
        match key.name().as_str() {
            "read_only" => self.read_only = Some(flag(key)?),
            "destructive" => self.destructive = Some(flag(key)?),
            "idempotent" => self.idempotent = Some(flag(key)?),
            "open_world" => self.open_world = Some(flag(key)?),
            "title" => self.title = Some(string(key)?),
            _ => return Err(unknown_key(key, "`annotations` attribute", "", ANNOTATION_KEYS)),
        }
        Ok(())
    }
}

pub fn param_config(entries: &[Entry], errors: &mut Errors) -> ParamConfig {
    let mut config = ParamConfig::default();
    for key in keys(entries, "#[param(..)]", "#[param(description = \"..\")]", errors) {
        if let Err(error) = config.read(key, errors) {
            errors.push(error);
        }
    }
    config
}

impl ParamConfig {
    fn read(&mut self, key: &Key, errors: &mut Errors) -> syn::Result<()> {
        let span = key.span();
        match key.name().as_str() {
            "rename" => self.rename = Some(string(key)?),
            "description" => self.description = Some(string(key)?),
            "example" => {
                let message = "`example` takes a literal: a string, number or boolean";
                let KeyValue::Assign(expr) = &key.value else { return Err(syn::Error::new(span, message)) };
                self.example = Some(literal_json(expr).ok_or_else(|| syn::Error::new_spanned(expr, message))?);
            }
            "default" => {
                let value = match &key.value {
                    KeyValue::Flag => DefaultValue::Trait,
                    KeyValue::Assign(expr) => DefaultValue::Expr(Box::new(expr.clone()), literal_json(expr)),
                    KeyValue::List(_) => return Err(syn::Error::new(
                        span,
                        "`default` takes no value (absent means `Default::default()`) or an expression: `default = 10`",
                    )),
                };
                self.default = Some(WithSpan { value, span });
            }
            "range" => {
                let keys = [
                    ("min", "minimum"),
                    ("max", "maximum"),
                    ("exclusive_min", "exclusiveMinimum"),
                    ("exclusive_max", "exclusiveMaximum"),
                ];
                self.range = bounds(key, &keys, false, errors).map(|value| WithSpan { value, span });
            }
            "length" => {
                let keys = [("min", "minLength"), ("max", "maxLength")];
                self.length = bounds(key, &keys, true, errors).map(|value| WithSpan { value, span });
            }
            "pattern" => self.pattern = Some(WithSpan { value: string(key)?, span }),
            "case_sensitive" => self.case_sensitive = flag(key)?,
            "strict" => self.strict = flag(key)?,
            "header" => {
                let name = string(key)?;
                let value = name.value();
                if value.is_empty() || !value.chars().all(is_header_token_char) {
                    return Err(syn::Error::new_spanned(
                        &name,
                        format!(
                            "`header` names the HTTP header `Mcp-Param-<name>`, so the name must be an HTTP token \
                             (letters, digits and !#$%&'*+-.^_`|~), like `header = \"Region\"`; {value:?} is not"
                        ),
                    ));
                }
                self.header = Some(WithSpan { value: name, span });
            }
            _ => return Err(unknown_key(key, "`param` attribute", "", PARAM_KEYS)),
        }
        Ok(())
    }
}

/// A character of an HTTP token (RFC 9110 §5.6.2), what a header name is made of.
fn is_header_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// `range(min = 1, max = 50)` into schema keywords with JSON-number texts; `None` when it has
/// errors, which are in `errors`.
fn bounds(
    key: &Key,
    keys_known: &[(&'static str, &'static str)],
    whole: bool,
    errors: &mut Errors,
) -> Option<Vec<(&'static str, String)>> {
    let outer = key.name();
    let names: Vec<&str> = keys_known.iter().map(|(k, _)| *k).collect();
    let KeyValue::List(entries) = &key.value else {
        errors.push(syn::Error::new(key.span(), format!("`{outer}` takes bounds: `{outer}({} = ..)`", names[0])));
        return None;
    };
    let mut out: Vec<(&'static str, String)> = Vec::new();
    let mut failed = false;
    let example = format!("{outer}({} = ..)", names[0]);
    let given = keys(entries, &format!("{outer}(..)"), &example, errors);
    failed |= given.len() < entries.len();
    for bound in given {
        match bound_value(bound, &outer, keys_known, &names, whole) {
            Ok(value) => out.push(value),
            Err(error) => {
                errors.push(error);
                failed = true;
            }
        }
    }
    if failed {
        return None;
    }
    if out.is_empty() {
        errors.push(syn::Error::new(key.span(), format!("give at least one bound: `{example}`")));
        return None;
    }
    Some(out)
}

fn bound_value(
    bound: &Key,
    outer: &str,
    keys_known: &[(&'static str, &'static str)],
    names: &[&str],
    whole: bool,
) -> syn::Result<(&'static str, String)> {
    let name = bound.name();
    let Some((_, keyword)) = keys_known.iter().find(|(k, _)| *k == name) else {
        if let Some((k, keyword)) = keys_known.iter().find(|(_, keyword)| keyword.eq_ignore_ascii_case(&name)) {
            return Err(syn::Error::new(
                bound.span(),
                format!("unknown `{outer}` bound `{name}`: write `{k}` (it becomes the schema's `{keyword}`)"),
            ));
        }
        return Err(unknown_key(bound, &format!("`{outer}` attribute"), "", names));
    };
    let what = if whole { "a non-negative integer literal" } else { "a number literal" };
    let message = format!("`{name}` takes {what}, such as `{outer}({name} = 10)`");
    let KeyValue::Assign(expr) = &bound.value else { return Err(syn::Error::new(bound.span(), message)) };
    let json = number_json(expr, whole).ok_or_else(|| syn::Error::new_spanned(expr, message))?;
    Ok((keyword, json))
}

/// "unknown `what` `name` `place` (did you mean ..?); expected one of ..".
fn unknown_key(key: &Key, what: &str, place: &str, known: &[&str]) -> syn::Error {
    let name = key.name();
    let expected = known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    let hint = match closest(&name, known) {
        Some(best) => format!(" (did you mean `{best}`?)"),
        None => String::new(),
    };
    syn::Error::new(key.span(), format!("unknown {what} `{name}`{place}{hint}; expected one of {expected}"))
}

#[cfg(test)]
mod tests {
    use proc_macro2::TokenStream;
    use quote::{quote, ToTokens as _};

    use super::*;
    use crate::parse::entries;

    fn read_tool(tokens: TokenStream, target: Target) -> (ToolConfig, Vec<String>) {
        let mut errors = Errors::default();
        let list = entries(tokens, &mut errors);
        let config = tool_config(&list, target, &mut errors);
        (config, errors.messages())
    }

    fn read_impl(tokens: TokenStream) -> (ImplConfig, Vec<String>) {
        let mut errors = Errors::default();
        let list = entries(tokens, &mut errors);
        let config = impl_config(&list, &mut errors);
        (config, errors.messages())
    }

    const FN_LIST: &str = "`name`, `description`, `tags`, `category`, `version`, `examples`, `example`, `icons`, `scopes`, `annotations`, `timeout_ms`, `blocking`, `inline`, `strict`, `defer`, `requires_approval`, `approval`, `sequential`, `task`, `crate`";

    #[test]
    fn flags_take_true_and_false() {
        let (config, errors) = read_tool(quote!(strict = false, blocking, inline = true), Target::Fn);
        assert_eq!(errors, Vec::<String>::new());
        assert!(!config.strict);
        assert!(config.blocking.is_some());
        assert!(config.inline.is_some());
        let (config, errors) = read_tool(quote!(strict = true, blocking = false), Target::Fn);
        assert_eq!(errors, Vec::<String>::new());
        assert!(config.strict);
        assert!(config.blocking.is_none());
        let (config, errors) = read_impl(quote!(new = false));
        assert_eq!(errors, Vec::<String>::new());
        assert!(config.new.is_none());
    }

    #[test]
    fn every_error_of_a_list_is_collected() {
        let (config, errors) =
            read_tool(quote!(strict = 3, creat = "x", name = "a", name = "b", cleanup = "c", tags("t")), Target::Fn);
        assert_eq!(
            errors,
            [
                "repeated `name` in `#[tool(..)]`: give each key once".to_owned(),
                "`strict` takes `true` or `false`, or no value at all (`strict` means `strict = true`)".to_owned(),
                format!("unknown `tool` attribute `creat`; expected one of {FN_LIST}"),
                "`cleanup` applies to `#[tool]` on an impl block of tool methods, where it sets up the per-conversation instance; remove it here".to_owned(),
            ]
        );
        // The keys without errors are still read.
        assert_eq!(config.name.map(|n| n.value()).as_deref(), Some("a"));
        assert_eq!(config.tags.len(), 1);
    }

    #[test]
    fn policy_keys_are_read() {
        let (config, errors) = read_tool(quote!(requires_approval, sequential = true), Target::Fn);
        assert_eq!(errors, Vec::<String>::new());
        assert!(config.requires_approval.is_some_and(|r| r.value));
        assert!(config.sequential);
        let (config, errors) = read_tool(quote!(approval = "crate::checks::large", sequential = false), Target::Fn);
        assert_eq!(errors, Vec::<String>::new());
        assert_eq!(
            config.approval.map(|a| a.value.to_token_stream().to_string()).as_deref(),
            Some("crate :: checks :: large")
        );
        assert!(!config.sequential);
    }

    #[test]
    fn task_takes_a_flag_or_a_mode() {
        for (tokens, expected) in [
            (quote!(task), Some("Optional")),
            (quote!(task = true), Some("Optional")),
            (quote!(task = false), None),
            (quote!(task = "optional"), Some("Optional")),
            (quote!(task = "required"), Some("Required")),
        ] {
            let (config, errors) = read_tool(tokens, Target::Fn);
            assert_eq!(errors, Vec::<String>::new());
            assert_eq!(config.task, expected);
            assert!(!config.task_asks_first);
        }
        for (tokens, expected) in [
            (quote!(task(asks_first)), Some("Optional")),
            (quote!(task(required, asks_first)), Some("Required")),
            (quote!(task(asks_first, optional)), Some("Optional")),
        ] {
            let (config, errors) = read_tool(tokens, Target::Fn);
            assert_eq!(errors, Vec::<String>::new());
            assert_eq!(config.task, expected);
            assert!(config.task_asks_first);
        }
        let expected = "`task` takes no value (`task` means `task = \"optional\"`), `true`, `false`, `\"optional\"`, `\"required\"`, or a list: `task(required, asks_first)`";
        for tokens in
            [quote!(task = "always"), quote!(task(always)), quote!(task("required")), quote!(task(asks_first = 1))]
        {
            let (_, errors) = read_tool(tokens, Target::Fn);
            assert_eq!(errors, [expected]);
        }
    }

    #[test]
    fn approval_takes_one_form_and_a_path() {
        let (_, errors) = read_tool(quote!(approval = "large", requires_approval = false), Target::Fn);
        assert_eq!(errors, ["`requires_approval` asks a person before every call and `approval = \"..\"` asks when its function says so: use one"]);
        let (config, errors) = read_tool(quote!(approval = large, approval = "a b"), Target::Fn);
        assert_eq!(
            errors,
            [
                "repeated `approval` in `#[tool(..)]`: give each key once",
                "`approval` takes the path of a function as a string, which decides per call whether a person must approve it: `approval = \"needs_approval\"`",
            ]
        );
        assert!(config.approval.is_none());
        let (_, errors) = read_tool(quote!(approval = "a b"), Target::Fn);
        assert_eq!(errors, ["`a b` is not the path of a function: write `approval = \"needs_approval\"`"]);
    }

    #[test]
    fn examples_repeat_and_become_json() {
        let (config, errors) = read_tool(
            quote!(
                example(query = "a \"b\"", limit = 5, r#type = -2.5, "max-results" = [1, -1], on = true),
                example(filter = json!({"a": [null, {b: false}], "c": -1}), empty = json!([]))
            ),
            Target::Fn,
        );
        assert_eq!(errors, Vec::<String>::new());
        let json: Vec<String> = config.call_examples.iter().map(CallExample::json).collect();
        assert_eq!(
            json,
            [
                r#"{"query":"a \"b\"","limit":5,"type":-2.5,"max-results":[1,-1],"on":true}"#,
                r#"{"filter":{"a":[null,{"b":false}],"c":-1},"empty":[]}"#,
            ]
        );
    }

    #[test]
    fn example_values_report_each_mistake() {
        let (config, errors) = read_tool(
            quote!(example(a = x, b, c = 1, c = 2, d = json!({"k" 1}), e = json!(nothing)), example = 3),
            Target::Fn,
        );
        assert_eq!(
            errors,
            [
                "an example value is a literal (`\"rust\"`, `5`, `-1.5`, `true`), an array of them (`[1, 2]`), or `json!({..})` for an object",
                "give `b` a value: `b = ..`",
                "repeated `c` in `example(..)`: give each parameter once",
                "expected `:`",
                "an example value is a literal (`\"rust\"`, `5`, `-1.5`, `true`), an array of them (`[1, 2]`), or `json!({..})` for an object",
                "`example` takes a whole call's arguments, by parameter name: `example(query = \"rust\", limit = 5)`",
            ]
        );
        // The fields are kept, so that the parameters are still checked; those without errors
        // have their JSON.
        assert_eq!(config.call_examples.len(), 1);
        let names: Vec<&str> = config.call_examples[0].fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "d", "e"]);
        assert_eq!(config.call_examples[0].json(), r#"{"c":1}"#);
    }

    #[test]
    fn a_method_is_told_where_an_impl_key_goes() {
        let (_, errors) = read_tool(quote!(new), Target::Method);
        assert_eq!(
            errors,
            ["`new` sets up the per-conversation instance: give it in the impl block's `#[tool(..)]`, not in a method's"]
        );
    }

    #[test]
    fn an_impl_block_has_its_own_keys() {
        let (config, errors) = read_impl(quote!(max_instance = 3, timeout = 5, name = "x", idle_timeout_ms = 10));
        assert_eq!(
            errors,
            [
                "unknown `tool` attribute `max_instance` on an impl block (did you mean `max_instances`?); expected one of `new`, `create`, `cleanup`, `idle_timeout_ms`, `max_instances`, `shared_state`, `schema_version`, `migrate`, `crate`",
                "unknown `tool` attribute `timeout` on an impl block; expected one of `new`, `create`, `cleanup`, `idle_timeout_ms`, `max_instances`, `shared_state`, `schema_version`, `migrate`, `crate`",
                "`name` belongs to a tool: on an impl block, `#[tool]` takes `new`, `create`, `cleanup`, `idle_timeout_ms`, `max_instances`, `shared_state`, `schema_version`, `migrate` and `crate`; put `name` in the method's `#[tool(..)]`",
            ]
        );
        assert_eq!(config.idle_timeout_ms.map(|l| l.base10_digits().to_owned()).as_deref(), Some("10"));
    }

    #[test]
    fn param_bounds_report_each_mistake() {
        let mut errors = Errors::default();
        let list = entries(quote!(range(minimum = 1, max = "a"), length(), case_sensitive = false), &mut errors);
        let config = param_config(&list, &mut errors);
        assert_eq!(
            errors.messages(),
            [
                "unknown `range` bound `minimum`: write `min` (it becomes the schema's `minimum`)",
                "`max` takes a number literal, such as `range(max = 10)`",
                "give at least one bound: `length(min = ..)`",
            ]
        );
        assert!(config.range.is_none());
        assert!(!config.case_sensitive);
    }
}
