//! Keys sent twice in one object: the parsed value keeps the last, and a warning tells the
//! model the first was dropped. Found for JSON that `serde_json` reads as it is (the tolerant
//! parser finds its own as it goes).

use std::collections::HashSet;

use crate::model::pointer;
use crate::model::rules;
use crate::model::{truncate, ParseWarning};

/// A warning for each key that appears twice in one object of `text` (at any depth): the
/// parsed value keeps the last one, and the model should know the first was dropped.
pub(crate) fn duplicate_key_warnings(text: &str) -> Vec<ParseWarning> {
    let mut found = Vec::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let _ = serde::de::DeserializeSeed::deserialize(KeyWalk { path: &mut String::new(), found: &mut found }, &mut de);
    found
}

/// The warning for a key met twice in one object at `pointer`: the last value is kept.
pub(crate) fn duplicate_warning(pointer: String, key: &str, top_level: bool) -> ParseWarning {
    let (rule, expected) = if top_level {
        (rules::DUPLICATE_PARAMETER, "each parameter once")
    } else {
        (rules::DUPLICATE_KEY, "each key once")
    };
    ParseWarning::new(&pointer, rule, expected, &format!("`{}` more than once", truncate(key)), "kept the last value")
}

/// Walks a JSON text, recording duplicate keys with their pointers.
struct KeyWalk<'a> {
    path: &'a mut String,
    found: &'a mut Vec<ParseWarning>,
}

impl<'de> serde::de::DeserializeSeed<'de> for KeyWalk<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeyWalk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        // Hashed: an object of any number of keys is read in one pass.
        let mut seen: HashSet<String> = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let before = self.path.len();
            pointer::push(&mut *self.path, &key);
            if seen.contains(&key) {
                self.found.push(duplicate_warning(pointer::cut(self.path).into_owned(), &key, before == 0));
            } else {
                seen.insert(key);
            }
            map.next_value_seed(KeyWalk { path: self.path, found: self.found })?;
            self.path.truncate(before);
        }
        Ok(())
    }

    fn visit_seq<S: serde::de::SeqAccess<'de>>(self, mut seq: S) -> Result<(), S::Error> {
        let mut index = 0usize;
        loop {
            let before = self.path.len();
            self.path.push('/');
            self.path.push_str(itoa::Buffer::new().format(index));
            let more = seq.next_element_seed(KeyWalk { path: self.path, found: self.found })?;
            self.path.truncate(before);
            if more.is_none() {
                return Ok(());
            }
            index += 1;
        }
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::duplicate_key_warnings;
    use crate::extract::repair::repair_arguments;

    #[test]
    fn duplicate_keys_are_reported_at_any_depth() {
        let warnings = duplicate_key_warnings(
            r#"{"limit": 2, "limit": "3", "origin": {"x": 1, "x": 2, "y": 0}, "list": [{"a": 1, "a": 1}]}"#,
        );
        let found: Vec<(&str, &str)> = warnings.iter().map(|w| (w.pointer(), w.rule())).collect();
        assert_eq!(
            found,
            vec![("/limit", "duplicate_parameter"), ("/origin/x", "duplicate_key"), ("/list/0/a", "duplicate_key")]
        );
        assert!(duplicate_key_warnings(r#"{"a": {"a": 1}, "b": [1, 2]}"#).is_empty());
    }

    #[test]
    fn a_long_key_above_duplicates_is_cut_in_their_pointers() {
        let key = "k".repeat(5_000);
        let cut = format!("/{}…", "k".repeat(1_023));
        for raw in [format!(r#"{{"{key}": {{"a": 1, "a": 2}}}}"#), format!(r#"{{'{key}': {{'a': 1, 'a': 2}}}}"#)] {
            let Ok(repaired) = repair_arguments(&raw) else { panic!("not repaired") };
            let duplicate = repaired.warnings.iter().find(|w| w.rule() == "duplicate_key").expect("a duplicate");
            assert_eq!(duplicate.pointer(), cut);
        }
    }

    #[test]
    fn duplicate_keys_are_reported_in_text_only_the_tolerant_parser_reads() {
        let found = |raw: &str| -> Vec<(String, String)> {
            let Ok(repaired) = repair_arguments(raw) else { panic!("not repaired: {raw}") };
            repaired.warnings.iter().map(|w| (w.pointer().to_owned(), w.rule().to_owned())).collect()
        };
        assert_eq!(
            found("{'limit': 2, 'limit': 3, 'origin': {'x': 1, 'x': 2}, 'list': [{'a': True, 'a': False}]}"),
            vec![
                ("/limit".to_owned(), "duplicate_parameter".to_owned()),
                ("/origin/x".to_owned(), "duplicate_key".to_owned()),
                ("/list/0/a".to_owned(), "duplicate_key".to_owned()),
                (String::new(), "python_literal".to_owned()),
            ]
        );
        // Identical objects sent twice: the first copy's duplicates, once.
        assert_eq!(
            found("{'a': 1, 'a': 1}{'a': 1, 'a': 1}"),
            vec![
                (String::new(), "identical_objects_merged".to_owned()),
                ("/a".to_owned(), "duplicate_parameter".to_owned()),
                (String::new(), "python_literal".to_owned()),
            ]
        );
    }
}
