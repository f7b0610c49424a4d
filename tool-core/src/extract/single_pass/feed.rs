//! What is handed to the type's visitor: a scalar as it arrived, a converted scalar, a
//! converted value, or the error that leaves the call to the tree path.

use serde::de::{self, Deserializer, Visitor};
use serde_json::Value;

use crate::extract::convert::{Scalar, Token};

/// Hands a scalar that arrived to the type's visitor, as serde_json would have.
pub(super) fn feed_token<'de, V: Visitor<'de>, E: de::Error>(token: Token<'_>, v: V) -> Result<V::Value, E> {
    match token {
        Token::Bool(b) => v.visit_bool(b),
        Token::Number(n) => n.deserialize_any(v).map_err(E::custom),
        Token::Text(text) => v.visit_str(text),
    }
}

/// Hands a converted scalar to the type's visitor, as a `serde_json::Value` of it would.
pub(super) fn feed_scalar<'de, V: Visitor<'de>, E: de::Error>(scalar: Scalar<'_>, v: V) -> Result<V::Value, E> {
    match scalar {
        Scalar::Null => v.visit_unit(),
        Scalar::Bool(b) => feed_token(Token::Bool(b), v),
        Scalar::Number(n) => feed_token(Token::Number(n), v),
        // The text moves to the type instead of being copied.
        Scalar::Text(text) => v.visit_string(text),
        Scalar::Token(token) => match Token::of(token) {
            Some(token) => feed_token(token, v),
            None => token.clone().deserialize_any(v).map_err(E::custom),
        },
    }
}

/// The error that hands the call over to the tree path (its text is never shown).
pub(super) fn give_up<E: de::Error>() -> E {
    E::custom("left to the tree path")
}

/// Hands a converted value to the type's visitor. A `serde_json::Value` deserializes the same
/// way whatever the type asked for (it ignores names, field lists and lengths), so the value
/// says which visitor method it calls.
pub(super) fn feed<'de, V: Visitor<'de>, E: de::Error>(value: Value, v: V) -> Result<V::Value, E> {
    value.deserialize_any(v).map_err(E::custom)
}
