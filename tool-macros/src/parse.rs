//! Stage 1, parse: tokens into syntax, judging nothing yet.
//!
//! The keys of `#[tool(..)]` and `#[param(..)]` become a tree of [`Entry`]s whose meaning the
//! validation gives them, knowing which item they sit on. The item is cut into its parts; every
//! function body stays the tokens the user wrote, never parsed: the body is the compiler's
//! business, and the declaration needs only the signature.

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::ext::IdentExt as _;
use syn::parse::discouraged::Speculative as _;
use syn::parse::{ParseStream, Parser as _};
use syn::spanned::Spanned as _;
use syn::{
    token, Attribute, Expr, Generics, Ident, ImplItem, ItemImpl, ItemStruct, Lit, Path, Signature, Token, Type,
    Visibility,
};

use crate::errors::Errors;

/// One entry of a parenthesized list of keys.
pub enum Entry {
    /// `key`, `key = value` or `key(..)`.
    Key(Key),
    /// A value standing alone: `"memory"` in `tags("memory")`.
    Value(Expr),
}

pub struct Key {
    pub name: Path,
    pub value: KeyValue,
}

pub enum KeyValue {
    /// `key`.
    Flag,
    /// `key = value`.
    Assign(Expr),
    /// `key(..)`.
    List(Vec<Entry>),
}

impl Key {
    /// The key as written (`a::b` for a path, which no list knows).
    pub fn name(&self) -> String {
        self.name.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::")
    }

    pub fn span(&self) -> Span {
        self.name.span()
    }
}

/// The entries of `#[tool(..)]`'s tokens. A malformed entry is reported and skipped up to the
/// next `,`, so that every other entry is still read and judged.
pub fn entries(tokens: TokenStream, errors: &mut Errors) -> Vec<Entry> {
    let parser = |input: ParseStream| Ok(entry_list(input, &mut *errors));
    match parser.parse2(tokens) {
        Ok(list) => list,
        Err(error) => {
            errors.push(error);
            Vec::new()
        }
    }
}

/// The entries of every `#[param(..)]` among `attrs`, in order.
pub fn param_entries(attrs: &[Attribute], errors: &mut Errors) -> Vec<Entry> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("param")) {
        match &attr.meta {
            syn::Meta::List(list) => out.extend(entries(list.tokens.clone(), errors)),
            other => errors.push(syn::Error::new_spanned(
                other,
                "`#[param]` takes a list of keys: `#[param(description = \"..\", default)]`",
            )),
        }
    }
    out
}

fn entry_list(input: ParseStream, errors: &mut Errors) -> Vec<Entry> {
    let mut out = Vec::new();
    while !input.is_empty() {
        match entry(input, errors) {
            Ok(entry) => out.push(entry),
            Err(error) => {
                errors.push(error);
                skip_to_comma(input);
            }
        }
        if input.is_empty() {
            break;
        }
        if input.parse::<Token![,]>().is_err() {
            errors.push(input.error("expected `,` between two keys"));
            skip_to_comma(input);
            let _ = input.parse::<Option<Token![,]>>();
        }
    }
    out
}

fn entry(input: ParseStream, errors: &mut Errors) -> syn::Result<Entry> {
    if input.peek(Lit) || input.peek(Token![-]) || !input.peek(Ident::peek_any) {
        return Ok(Entry::Value(input.parse()?));
    }
    let name = Path::parse_mod_style(input)?;
    let value = if input.peek(Token![=]) {
        input.parse::<Token![=]>()?;
        KeyValue::Assign(input.parse()?)
    } else if input.peek(token::Paren) {
        let content;
        syn::parenthesized!(content in input);
        KeyValue::List(entry_list(&content, errors))
    } else {
        KeyValue::Flag
    };
    Ok(Entry::Key(Key { name, value }))
}

/// Consumes the rest of a malformed entry, up to the next `,`.
fn skip_to_comma(input: ParseStream) {
    let _ = input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tree, next)) = rest.token_tree() {
            if matches!(&tree, TokenTree::Punct(p) if p.as_char() == ',') {
                break;
            }
            rest = next;
        }
        Ok(((), rest))
    });
}

/// The item under `#[tool]`.
pub enum Item {
    Fn(ItemFn),
    Struct(ItemStruct),
    Impl(ToolImpl),
    /// Anything else, kept as written, with the span of its keyword for the error.
    Other {
        tokens: TokenStream,
        keyword: Span,
    },
}

/// A function (or method) whose body is kept as the tokens the user wrote.
#[derive(Clone)]
pub struct ItemFn {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub defaultness: Option<Token![default]>,
    pub sig: Signature,
    pub body: Group,
}

impl ToTokens for ItemFn {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let ItemFn { attrs, vis, defaultness, sig, body } = self;
        tokens.extend(quote!(#(#attrs)* #vis #defaultness #sig #body));
    }
}

/// An impl block: its header (in `header`, whose `items` stay empty) and its members in order.
pub struct ToolImpl {
    pub header: ItemImpl,
    pub members: Vec<Member>,
}

pub enum Member {
    Fn(Box<ItemFn>),
    /// Constants, types, macros, and functions without a body.
    Other(Box<ImplItem>),
}

pub fn item(tokens: TokenStream) -> syn::Result<Item> {
    parse_item.parse2(tokens)
}

fn parse_item(input: ParseStream) -> syn::Result<Item> {
    let ahead = input.fork();
    ahead.call(Attribute::parse_outer)?;
    ahead.parse::<Visibility>()?;
    if ahead.peek(Token![struct]) {
        return Ok(Item::Struct(input.parse()?));
    }
    if ahead.peek(Token![impl]) || (ahead.peek(Token![unsafe]) && ahead.peek2(Token![impl])) {
        return Ok(Item::Impl(parse_impl(input)?));
    }
    if starts_fn(&ahead) {
        return Ok(Item::Fn(parse_fn(input)?));
    }
    let keyword = ahead.cursor().token_tree().map_or_else(|| input.span(), |(tree, _)| tree.span());
    Ok(Item::Other { tokens: input.parse()?, keyword })
}

/// Whether `input` is at a function's qualifiers (`const async unsafe extern "C"`) or `fn`.
fn starts_fn(input: ParseStream) -> bool {
    let ahead = input.fork();
    let _ = ahead.parse::<Option<Token![const]>>();
    let _ = ahead.parse::<Option<Token![async]>>();
    let _ = ahead.parse::<Option<Token![unsafe]>>();
    if ahead.parse::<Option<Token![extern]>>().is_ok_and(|e| e.is_some()) {
        let _ = ahead.parse::<Option<syn::LitStr>>();
    }
    ahead.peek(Token![fn])
}

fn parse_fn(input: ParseStream) -> syn::Result<ItemFn> {
    let attrs = input.call(Attribute::parse_outer)?;
    let vis = input.parse()?;
    let defaultness = input.parse()?;
    let sig = input.parse()?;
    let body: Group = input.parse()?;
    if body.delimiter() != Delimiter::Brace {
        return Err(syn::Error::new(body.span(), "expected the function's body in braces"));
    }
    Ok(ItemFn { attrs, vis, defaultness, sig, body })
}

fn parse_impl(input: ParseStream) -> syn::Result<ToolImpl> {
    let mut attrs = input.call(Attribute::parse_outer)?;
    let unsafety = input.parse()?;
    let impl_token = input.parse()?;
    let mut generics: Generics = input.parse()?;
    let first: Type = input.parse()?;
    let (trait_, self_ty) = if input.peek(Token![for]) {
        let for_token: Token![for] = input.parse()?;
        let Type::Path(syn::TypePath { qself: None, path }) = first else {
            return Err(syn::Error::new_spanned(first, "expected a trait path before `for`"));
        };
        (Some((None, path, for_token)), input.parse::<Type>()?)
    } else {
        (None, first)
    };
    generics.where_clause = input.parse()?;
    let content;
    let brace_token = syn::braced!(content in input);
    attrs.extend(content.call(Attribute::parse_inner)?);
    let mut members = Vec::new();
    while !content.is_empty() {
        let ahead = content.fork();
        match parse_fn(&ahead) {
            Ok(func) => {
                content.advance_to(&ahead);
                members.push(Member::Fn(Box::new(func)));
            }
            Err(_) => members.push(Member::Other(Box::new(content.parse()?))),
        }
    }
    let header = ItemImpl {
        attrs,
        defaultness: None,
        unsafety,
        impl_token,
        generics,
        trait_,
        self_ty: Box::new(self_ty),
        brace_token,
        items: Vec::new(),
    };
    Ok(ToolImpl { header, members })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_stay_tokens() {
        // A body syn could not parse as statements: only the compiler judges it.
        let tokens = quote!(
            /// Doc.
            pub async fn f(a: u32) -> u32 { a @@ not rust }
        );
        let Ok(Item::Fn(func)) = item(tokens) else { panic!("expected a function") };
        assert_eq!(func.sig.ident, "f");
        assert_eq!(func.body.stream().to_string(), "a @ @ not rust");
    }

    #[test]
    fn impl_members_keep_their_order_and_bodies() {
        let tokens = quote!(
            impl Counter {
                const STEP: u64 = 1;
                #[tool]
                fn add(&mut self) -> u64 { ?? }
            }
        );
        let Ok(Item::Impl(block)) = item(tokens) else { panic!("expected an impl block") };
        assert!(matches!(&block.members[0], Member::Other(item) if matches!(**item, ImplItem::Const(_))));
        let Member::Fn(add) = &block.members[1] else { panic!("expected a method") };
        assert_eq!(add.sig.ident, "add");
        assert_eq!(add.body.stream().to_string(), "? ?");
    }

    #[test]
    fn a_bad_entry_is_reported_and_the_next_one_read() {
        let mut errors = Errors::default();
        let list = entries(quote!(name = , strict = false, tags("a")), &mut errors);
        assert!(!errors.is_empty());
        let names: Vec<String> = list
            .iter()
            .filter_map(|e| match e {
                Entry::Key(k) => Some(k.name()),
                Entry::Value(_) => None,
            })
            .collect();
        assert_eq!(names, ["strict", "tags"]);
    }
}
