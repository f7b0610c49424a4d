//! The forms a key's value takes: a string, a list of strings, a flag, a whole number, a
//! method or crate path, and the values of the keys that take their own (`task`, `icons`,
//! `scopes`), each refused with a message that shows the form.

use syn::{Expr, ExprLit, Lit, LitInt, LitStr, Path};

use crate::parse::{Entry, Key, KeyValue};

/// `key = "text"`.
pub(super) fn string(key: &Key) -> syn::Result<LitStr> {
    let name = key.name();
    match &key.value {
        KeyValue::Assign(Expr::Lit(ExprLit { lit: Lit::Str(lit), .. })) => Ok(lit.clone()),
        KeyValue::Assign(other) => {
            Err(syn::Error::new_spanned(other, format!("`{name}` takes a string literal: `{name} = \"..\"`")))
        }
        _ => Err(syn::Error::new(key.span(), format!("`{name}` takes a string literal: `{name} = \"..\"`"))),
    }
}

/// `key("a", "b")`.
pub(super) fn strings(key: &Key, message: &str) -> syn::Result<Vec<LitStr>> {
    let KeyValue::List(entries) = &key.value else { return Err(syn::Error::new(key.span(), message)) };
    entries
        .iter()
        .map(|entry| match entry {
            Entry::Value(Expr::Lit(ExprLit { lit: Lit::Str(lit), .. })) => Ok(lit.clone()),
            Entry::Value(other) => Err(syn::Error::new_spanned(other, message)),
            Entry::Key(other) => Err(syn::Error::new(other.span(), message)),
        })
        .collect()
}

/// `icons("https://..", "data:image/png;base64,..")`: each an `https://` URL or a
/// `data:image/..` URI, the two a client may load.
pub(super) fn icons(key: &Key) -> syn::Result<Vec<LitStr>> {
    let icons = strings(key, "`icons` takes string literals: `icons(\"https://example.com/search.svg\")`")?;
    for icon in &icons {
        let src = icon.value();
        let lower = src.to_ascii_lowercase();
        let fine =
            (lower.starts_with("https://") && src.len() > "https://".len() && !src.contains(char::is_whitespace))
                || (lower.starts_with("data:image/") && src.contains(','));
        if !fine {
            return Err(syn::Error::new_spanned(
                icon,
                "an icon is an `https://` URL or a `data:image/<type>;base64,<data>` URI, the two a client may load",
            ));
        }
    }
    Ok(icons)
}

/// `scopes("notes:read", "notes:write")` or `scopes = "notes:read notes:write"`: each an OAuth
/// scope token (RFC 6749: printable ASCII without spaces, quotes or backslashes).
pub(super) fn scopes(key: &Key) -> syn::Result<Vec<String>> {
    let message = "`scopes` takes OAuth scopes: `scopes(\"notes:write\")` or `scopes = \"notes:read notes:write\"`";
    let literals = match &key.value {
        KeyValue::Assign(Expr::Lit(ExprLit { lit: Lit::Str(lit), .. })) => vec![lit.clone()],
        KeyValue::List(_) => strings(key, message)?,
        _ => return Err(syn::Error::new(key.span(), message)),
    };
    let mut scopes = Vec::new();
    for literal in &literals {
        let value = literal.value();
        if value.trim().is_empty() {
            return Err(syn::Error::new_spanned(literal, "an empty scope: name at least one, such as `notes:write`"));
        }
        for scope in value.split(' ').filter(|s| !s.is_empty()) {
            if !scope.chars().all(|c| c.is_ascii_graphic() && c != '"' && c != '\\') {
                return Err(syn::Error::new_spanned(
                    literal,
                    format!(
                        "`{scope}` is not an OAuth scope: use printable ASCII without quotes or backslashes (RFC 6749)"
                    ),
                ));
            }
            scopes.push(scope.to_owned());
        }
    }
    Ok(scopes)
}

/// `key`, `key = true` or `key = false`.
pub(super) fn flag(key: &Key) -> syn::Result<bool> {
    let name = key.name();
    let message = format!("`{name}` takes `true` or `false`, or no value at all (`{name}` means `{name} = true`)");
    match &key.value {
        KeyValue::Flag => Ok(true),
        KeyValue::Assign(Expr::Lit(ExprLit { lit: Lit::Bool(lit), .. })) => Ok(lit.value),
        KeyValue::Assign(other) => Err(syn::Error::new_spanned(other, message)),
        KeyValue::List(_) => Err(syn::Error::new(key.span(), message)),
    }
}

/// `task`, `task = true`, `task = false`, `task = "optional"`, `task = "required"`, or a list
/// of `optional` or `required` and `asks_first`: the `TaskSupport` variant (`None` for never),
/// and whether the call asks in rounds before it becomes a task.
pub(super) fn task_support(key: &Key) -> syn::Result<(Option<&'static str>, bool)> {
    let message = "`task` takes no value (`task` means `task = \"optional\"`), `true`, `false`, `\"optional\"`, \
                   `\"required\"`, or a list: `task(required, asks_first)`";
    let mode = |lit: &LitStr| match lit.value().as_str() {
        "optional" => Ok(Some("Optional")),
        "required" => Ok(Some("Required")),
        _ => Err(syn::Error::new_spanned(lit, message)),
    };
    match &key.value {
        KeyValue::Flag => Ok((Some("Optional"), false)),
        KeyValue::Assign(Expr::Lit(ExprLit { lit: Lit::Bool(lit), .. })) => {
            Ok((lit.value.then_some("Optional"), false))
        }
        KeyValue::Assign(Expr::Lit(ExprLit { lit: Lit::Str(lit), .. })) => Ok((mode(lit)?, false)),
        KeyValue::Assign(other) => Err(syn::Error::new_spanned(other, message)),
        KeyValue::List(entries) => {
            let (mut support, mut asks_first) = (Some("Optional"), false);
            for entry in entries {
                let inner = match entry {
                    Entry::Key(inner) => inner,
                    Entry::Value(value) => return Err(syn::Error::new_spanned(value, message)),
                };
                match (inner.name().as_str(), &inner.value) {
                    ("optional", KeyValue::Flag) => support = Some("Optional"),
                    ("required", KeyValue::Flag) => support = Some("Required"),
                    ("asks_first", KeyValue::Flag) => asks_first = true,
                    _ => return Err(syn::Error::new(inner.span(), message)),
                }
            }
            Ok((support, asks_first))
        }
    }
}

/// `key = 100`, a whole number that fits in a `u64`.
pub(super) fn integer(key: &Key, message: &str) -> syn::Result<LitInt> {
    match &key.value {
        KeyValue::Assign(Expr::Lit(ExprLit { lit: Lit::Int(lit), .. })) => {
            lit.base10_parse::<u64>()?;
            Ok(lit.clone())
        }
        KeyValue::Assign(other) => Err(syn::Error::new_spanned(other, message)),
        _ => Err(syn::Error::new(key.span(), message)),
    }
}

/// `create = "connect"`: a method of the impl block's type.
pub(super) fn method_name(key: &Key) -> syn::Result<syn::Ident> {
    let lit = string(key)?;
    let name = key.name();
    lit.parse().map_err(|_| {
        syn::Error::new(lit.span(), format!("`{name}` names a method of the type: `{name} = \"connect\"`"))
    })
}

/// `crate = "::my_reexport::tool_core"`.
pub(super) fn krate(key: &Key) -> syn::Result<Path> {
    let lit = string(key)?;
    lit.parse().map_err(|_| {
        syn::Error::new(
            lit.span(),
            "`crate` takes the path of `tool_core` as a string: `crate = \"::my_reexport::tool_core\"`",
        )
    })
}
