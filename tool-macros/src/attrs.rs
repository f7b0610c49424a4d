//! Parsing of `#[tool(...)]` and `#[param(...)]`: one setter per key, unknown and repeated keys
//! rejected by name, every error collected (parsing goes on after one).

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;
use syn::{Attribute, Expr, ExprLit, ExprUnary, Lit, LitBool, LitInt, LitStr, Path, Token, UnOp};

use crate::errors::Errors;

pub const TOOL_KEYS: &[&str] = &[
    "name",
    "description",
    "tags",
    "category",
    "version",
    "examples",
    "annotations",
    "timeout_ms",
    "blocking",
    "inline",
    "strict",
    "crate",
    "new",
    "create",
    "cleanup",
    "idle_timeout_ms",
    "max_instances",
];

pub const PARAM_KEYS: &[&str] =
    &["rename", "description", "example", "default", "range", "length", "pattern", "case_sensitive", "strict"];
const ANNOTATION_KEYS: &[&str] = &["read_only", "destructive", "idempotent", "open_world", "title"];

/// A key's value with the span of the key, for errors that point at it.
pub struct WithSpan<T> {
    pub value: T,
    pub span: Span,
}

#[derive(Default)]
pub struct ToolAttrs {
    pub name: Option<LitStr>,
    pub description: Option<LitStr>,
    pub tags: Option<Vec<LitStr>>,
    pub category: Option<LitStr>,
    pub version: Option<LitStr>,
    pub examples: Option<Vec<LitStr>>,
    pub annotations: Option<Annotations>,
    pub timeout_ms: Option<LitInt>,
    pub blocking: Option<Span>,
    /// A sync fn that stays on the async worker instead of the blocking pool.
    pub inline: Option<Span>,
    pub strict: Option<Span>,
    pub krate: Option<Path>,
    /// On an impl block: the instance is `Self::new()`.
    pub new: Option<Span>,
    /// On an impl block: the async factory's name.
    pub create: Option<syn::Ident>,
    /// On an impl block: the async cleanup method's name.
    pub cleanup: Option<syn::Ident>,
    pub idle_timeout_ms: Option<LitInt>,
    pub max_instances: Option<LitInt>,
}

impl ToolAttrs {
    /// The span of the first impl-block key given, if any.
    pub fn impl_key(&self) -> Option<(Span, &'static str)> {
        let keys = [
            (self.new, "new"),
            (self.create.as_ref().map(|i| i.span()), "create"),
            (self.cleanup.as_ref().map(|i| i.span()), "cleanup"),
            (self.idle_timeout_ms.as_ref().map(|l| l.span()), "idle_timeout_ms"),
            (self.max_instances.as_ref().map(|l| l.span()), "max_instances"),
        ];
        keys.into_iter().find_map(|(span, key)| span.map(|span| (span, key)))
    }

    /// The span of the first key that belongs on a tool (not on an impl block), if any.
    pub fn tool_key(&self) -> Option<(Span, &'static str)> {
        let keys = [
            (self.name.as_ref().map(|l| l.span()), "name"),
            (self.description.as_ref().map(|l| l.span()), "description"),
            (self.tags.as_ref().and_then(|t| t.first()).map(|l| l.span()), "tags"),
            (self.category.as_ref().map(|l| l.span()), "category"),
            (self.version.as_ref().map(|l| l.span()), "version"),
            (self.examples.as_ref().and_then(|e| e.first()).map(|l| l.span()), "examples"),
            (self.timeout_ms.as_ref().map(|l| l.span()), "timeout_ms"),
            (self.blocking, "blocking"),
            (self.inline, "inline"),
            (self.strict, "strict"),
        ];
        keys.into_iter().find_map(|(span, key)| span.map(|span| (span, key)))
    }
}

#[derive(Default)]
pub struct Annotations {
    pub title: Option<LitStr>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

#[derive(Default)]
pub struct ParamAttrs {
    pub rename: Option<LitStr>,
    pub description: Option<LitStr>,
    /// JSON text of the example.
    pub example: Option<String>,
    pub default: Option<WithSpan<DefaultValue>>,
    pub range: Option<WithSpan<Vec<(&'static str, String)>>>,
    pub length: Option<WithSpan<Vec<(&'static str, String)>>>,
    pub pattern: Option<WithSpan<LitStr>>,
    pub case_sensitive: Option<Span>,
    pub strict: Option<Span>,
}

pub enum DefaultValue {
    /// `default`: `Default::default()`.
    Trait,
    /// `default = expr`, with the JSON text when `expr` is a literal.
    Expr(Box<Expr>, Option<String>),
}

/// Fails with "repeated key" when `slot` is already set.
fn set<T>(slot: &mut Option<T>, value: T, meta: &ParseNestedMeta, attr: &str) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error(format!("repeated `{}` in `#[{attr}(...)]`: give each key once", path_name(&meta.path))));
    }
    *slot = Some(value);
    Ok(())
}

fn path_name(path: &Path) -> String {
    path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::")
}

/// Consumes what is left of a key that failed (its value, or the rest of a bad value), up to
/// the next `,`, so parsing goes on with the next key and reports nothing more about this one.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    meta.input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tree, next)) = rest.token_tree() {
            if matches!(&tree, proc_macro2::TokenTree::Punct(p) if p.as_char() == ',') {
                break;
            }
            rest = next;
        }
        Ok(((), rest))
    })
}

/// Parses a parenthesized list of keys with `parse_key`, going on after an error so that every
/// bad key is reported, each once.
fn nested_keys(
    meta: &ParseNestedMeta,
    mut parse_key: impl FnMut(&ParseNestedMeta) -> syn::Result<()>,
) -> syn::Result<()> {
    let mut errors: Option<syn::Error> = None;
    meta.parse_nested_meta(|inner| {
        if let Err(e) = parse_key(&inner) {
            match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            }
            skip_value(&inner)?;
        }
        Ok(())
    })?;
    errors.map_or(Ok(()), Err)
}

fn unknown_key(meta: &ParseNestedMeta, attr: &str, known: &[&str]) -> syn::Error {
    let name = path_name(&meta.path);
    let expected = known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    let hint = match closest(&name, known) {
        Some(best) => format!(" (did you mean `{best}`?)"),
        None => String::new(),
    };
    meta.error(format!("unknown `{attr}` attribute `{name}`{hint}; expected one of {expected}"))
}

/// The known key closest to `name`, if it is close enough to be a typo.
pub fn closest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (edit_distance(name, k), *k))
        .filter(|(d, k)| *d <= (k.len().max(name.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Edit distance counting a swap of two neighbours as one edit (`nmae` → `name`).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    d[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

fn string_list(meta: &ParseNestedMeta) -> syn::Result<Vec<LitStr>> {
    let content;
    syn::parenthesized!(content in meta.input);
    let items = content.parse_terminated(|input| input.parse::<LitStr>(), Token![,]);
    if items.is_err() {
        // Consume the rest, or syn reports the leftover tokens as a second error.
        content.parse::<TokenStream>()?;
    }
    Ok(items?.into_iter().collect())
}

/// `key = "text"`, with an error that shows the form.
fn string_value(meta: &ParseNestedMeta) -> syn::Result<LitStr> {
    let value = meta.value()?;
    value.parse::<LitStr>().map_err(|e| {
        let key = path_name(&meta.path);
        syn::Error::new(e.span(), format!("`{key}` takes a string literal: `{key} = \"..\"`"))
    })
}

/// `flag` or `flag = true|false`.
fn flag_value(meta: &ParseNestedMeta) -> syn::Result<bool> {
    if meta.input.peek(Token![=]) {
        let key = path_name(&meta.path);
        let lit = meta.value()?.parse::<LitBool>().map_err(|e| {
            syn::Error::new(
                e.span(),
                format!("`{key}` takes `true` or `false`, or no value at all (`{key}` means `{key} = true`)"),
            )
        })?;
        Ok(lit.value)
    } else {
        Ok(true)
    }
}

impl ToolAttrs {
    pub fn parse(tokens: TokenStream, errors: &mut Errors) -> ToolAttrs {
        let mut attrs = ToolAttrs::default();
        let parser = syn::meta::parser(|meta| {
            if let Err(e) = attrs.parse_key(&meta) {
                errors.push(e);
                skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = syn::parse::Parser::parse2(parser, tokens) {
            errors.push(e);
        }
        attrs
    }

    fn parse_key(&mut self, meta: &ParseNestedMeta) -> syn::Result<()> {
        let key = path_name(&meta.path);
        match key.as_str() {
            "name" => {
                let lit = string_value(meta)?;
                set(&mut self.name, lit, meta, "tool")
            }
            "description" => {
                let lit = string_value(meta)?;
                set(&mut self.description, lit, meta, "tool")
            }
            "category" => {
                let lit = string_value(meta)?;
                set(&mut self.category, lit, meta, "tool")
            }
            "version" => {
                let lit = string_value(meta)?;
                set(&mut self.version, lit, meta, "tool")
            }
            "tags" => {
                let tags = string_list(meta).map_err(|e| {
                    syn::Error::new(e.span(), "`tags` takes string literals: `tags(\"memory\", \"search\")`")
                })?;
                set(&mut self.tags, tags, meta, "tool")
            }
            "examples" => {
                let examples = string_list(meta).map_err(|e| {
                    syn::Error::new(
                        e.span(),
                        "`examples` takes JSON object texts: `examples(r#\"{\"query\": \"rust\"}\"#)`",
                    )
                })?;
                set(&mut self.examples, examples, meta, "tool")
            }
            "timeout_ms" => {
                let lit: LitInt = meta.value()?.parse().map_err(|e: syn::Error| {
                    syn::Error::new(
                        e.span(),
                        "`timeout_ms` takes an integer literal, in milliseconds: `timeout_ms = 5000`",
                    )
                })?;
                lit.base10_parse::<u64>()?;
                set(&mut self.timeout_ms, lit, meta, "tool")
            }
            "blocking" => set(&mut self.blocking, meta.path.span(), meta, "tool"),
            "inline" => set(&mut self.inline, meta.path.span(), meta, "tool"),
            "new" => set(&mut self.new, meta.path.span(), meta, "tool"),
            "create" | "cleanup" => {
                let lit = string_value(meta)?;
                let ident: syn::Ident = lit.parse().map_err(|_| {
                    syn::Error::new(lit.span(), format!("`{key}` names a method of the type: `{key} = \"connect\"`"))
                })?;
                let slot = if key == "create" { &mut self.create } else { &mut self.cleanup };
                set(slot, ident, meta, "tool")
            }
            "idle_timeout_ms" | "max_instances" => {
                let lit: LitInt = meta.value()?.parse().map_err(|e: syn::Error| {
                    syn::Error::new(e.span(), format!("`{key}` takes an integer literal: `{key} = 100`"))
                })?;
                lit.base10_parse::<u64>()?;
                let slot = if key == "idle_timeout_ms" { &mut self.idle_timeout_ms } else { &mut self.max_instances };
                set(slot, lit, meta, "tool")
            }
            "strict" => set(&mut self.strict, meta.path.span(), meta, "tool"),
            "crate" => {
                let lit = string_value(meta)?;
                let path: Path = lit.parse()?;
                set(&mut self.krate, path, meta, "tool")
            }
            "annotations" => {
                let mut annotations = Annotations::default();
                nested_keys(meta, |inner| annotations.parse_key(inner))?;
                set(&mut self.annotations, annotations, meta, "tool")
            }
            _ => Err(unknown_key(meta, "tool", TOOL_KEYS)),
        }
    }
}

impl Annotations {
    fn parse_key(&mut self, meta: &ParseNestedMeta) -> syn::Result<()> {
        let key = path_name(&meta.path);
        match key.as_str() {
            "read_only" => set(&mut self.read_only, flag_value(meta)?, meta, "annotations"),
            "destructive" => set(&mut self.destructive, flag_value(meta)?, meta, "annotations"),
            "idempotent" => set(&mut self.idempotent, flag_value(meta)?, meta, "annotations"),
            "open_world" => set(&mut self.open_world, flag_value(meta)?, meta, "annotations"),
            "title" => {
                let lit = string_value(meta)?;
                set(&mut self.title, lit, meta, "annotations")
            }
            _ => Err(unknown_key(meta, "annotations", ANNOTATION_KEYS)),
        }
    }

    pub fn tokens(&self, krate: &Path) -> TokenStream {
        let opt_bool = |v: Option<bool>| match v {
            Some(b) => quote!(::core::option::Option::Some(#b)),
            None => quote!(::core::option::Option::None),
        };
        let title = match &self.title {
            Some(t) => quote!(::core::option::Option::Some(#t)),
            None => quote!(::core::option::Option::None),
        };
        let (read_only, destructive, idempotent, open_world) = (
            opt_bool(self.read_only),
            opt_bool(self.destructive),
            opt_bool(self.idempotent),
            opt_bool(self.open_world),
        );
        quote! {
            #krate::__private::AnnotationsDeclaration {
                title: #title, read_only: #read_only, destructive: #destructive, idempotent: #idempotent, open_world: #open_world,
            }
        }
    }
}

impl ParamAttrs {
    /// Parses every `#[param(...)]` among `attrs`.
    pub fn parse(attrs: &[Attribute], errors: &mut Errors) -> ParamAttrs {
        let mut out = ParamAttrs::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("param")) {
            let result = attr.parse_nested_meta(|meta| {
                if let Err(e) = out.parse_key(&meta) {
                    errors.push(e);
                    skip_value(&meta)?;
                }
                Ok(())
            });
            if let Err(e) = result {
                errors.push(e);
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.rename.is_none()
            && self.description.is_none()
            && self.example.is_none()
            && self.default.is_none()
            && self.range.is_none()
            && self.length.is_none()
            && self.pattern.is_none()
            && self.case_sensitive.is_none()
            && self.strict.is_none()
    }

    fn parse_key(&mut self, meta: &ParseNestedMeta) -> syn::Result<()> {
        let key = path_name(&meta.path);
        let span = meta.path.span();
        match key.as_str() {
            "rename" => {
                let lit = string_value(meta)?;
                set(&mut self.rename, lit, meta, "param")
            }
            "description" => {
                let lit = string_value(meta)?;
                set(&mut self.description, lit, meta, "param")
            }
            "example" => {
                let expr: Expr = meta.value()?.parse()?;
                let json = literal_json(&expr).ok_or_else(|| {
                    syn::Error::new_spanned(&expr, "`example` takes a literal: a string, number or boolean")
                })?;
                set(&mut self.example, json, meta, "param")
            }
            "default" => {
                let value = if meta.input.peek(Token![=]) {
                    let expr: Expr = meta.value()?.parse()?;
                    let json = literal_json(&expr);
                    DefaultValue::Expr(Box::new(expr), json)
                } else {
                    DefaultValue::Trait
                };
                set(&mut self.default, WithSpan { value, span }, meta, "param")
            }
            "range" => {
                let bounds = bounds(
                    meta,
                    &[
                        ("min", "minimum"),
                        ("max", "maximum"),
                        ("exclusive_min", "exclusiveMinimum"),
                        ("exclusive_max", "exclusiveMaximum"),
                    ],
                    false,
                )?;
                set(&mut self.range, WithSpan { value: bounds, span }, meta, "param")
            }
            "length" => {
                let bounds = bounds(meta, &[("min", "minLength"), ("max", "maxLength")], true)?;
                set(&mut self.length, WithSpan { value: bounds, span }, meta, "param")
            }
            "pattern" => {
                let lit = string_value(meta)?;
                set(&mut self.pattern, WithSpan { value: lit, span }, meta, "param")
            }
            "case_sensitive" => set(&mut self.case_sensitive, span, meta, "param"),
            "strict" => set(&mut self.strict, span, meta, "param"),
            _ => Err(unknown_key(meta, "param", PARAM_KEYS)),
        }
    }

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
        out
    }
}

/// Parses `(min = 1, max = 50)` into schema keywords with JSON-number texts.
fn bounds(
    meta: &ParseNestedMeta,
    keys: &[(&'static str, &'static str)],
    whole: bool,
) -> syn::Result<Vec<(&'static str, String)>> {
    let mut out: Vec<(&'static str, String)> = Vec::new();
    let names: Vec<&str> = keys.iter().map(|(k, _)| *k).collect();
    nested_keys(meta, |inner| {
        let name = path_name(&inner.path);
        let Some((_, keyword)) = keys.iter().find(|(k, _)| *k == name) else {
            if let Some((key, keyword)) = keys.iter().find(|(_, keyword)| keyword.eq_ignore_ascii_case(&name)) {
                return Err(inner.error(format!(
                    "unknown `{}` bound `{name}`: write `{key}` (it becomes the schema's `{keyword}`)",
                    path_name(&meta.path)
                )));
            }
            return Err(unknown_key(inner, &path_name(&meta.path), &names));
        };
        if out.iter().any(|(k, _)| k == keyword) {
            return Err(inner.error(format!("repeated `{name}`: give each bound once")));
        }
        let expr: Expr = inner.value()?.parse()?;
        let json = number_json(&expr, whole).ok_or_else(|| {
            let what = if whole { "a non-negative integer literal" } else { "a number literal" };
            syn::Error::new_spanned(
                &expr,
                format!("`{name}` takes {what}, such as `{}({name} = 10)`", path_name(&meta.path)),
            )
        })?;
        out.push((keyword, json));
        Ok(())
    })?;
    if out.is_empty() {
        return Err(meta.error(format!("give at least one bound: `{}({} = ..)`", path_name(&meta.path), names[0])));
    }
    Ok(out)
}

fn number_json(expr: &Expr, whole: bool) -> Option<String> {
    match expr {
        Expr::Lit(ExprLit { lit: Lit::Int(i), .. }) => Some(i.base10_digits().to_owned()),
        Expr::Lit(ExprLit { lit: Lit::Float(f), .. }) if !whole => float_json(f.base10_digits()),
        Expr::Unary(ExprUnary { op: UnOp::Neg(_), expr, .. }) if !whole => {
            number_json(expr, false).map(|n| format!("-{n}"))
        }
        _ => None,
    }
}

fn float_json(digits: &str) -> Option<String> {
    let text = if digits.ends_with('.') { format!("{digits}0") } else { digits.to_owned() };
    Some(text)
}

/// The JSON text of a literal expression: strings, numbers (also negative), booleans.
pub fn literal_json(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Some(json_string(&s.value())),
        Expr::Lit(ExprLit { lit: Lit::Bool(b), .. }) => Some(b.value.to_string()),
        Expr::Lit(ExprLit { lit: Lit::Int(_) | Lit::Float(_), .. }) | Expr::Unary(_) => number_json(expr, false),
        _ => None,
    }
}

/// A JSON string literal for `text`.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_get_the_closest_key() {
        assert_eq!(closest("nmae", TOOL_KEYS), Some("name"));
        assert_eq!(closest("tag", TOOL_KEYS), Some("tags"));
        assert_eq!(closest("zzzzzzzz", TOOL_KEYS), None);
    }

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
    }
}
