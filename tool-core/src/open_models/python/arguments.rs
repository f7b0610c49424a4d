//! A Python call's arguments made one JSON object: keyword arguments under their names,
//! positional ones under the declared parameter of their place when that is unambiguous, the
//! notes of the literals' reading made warnings and their refusals errors, each at its pointer.

use serde_json::{Map, Value};

use super::literal::{Arg, Call, Note, Refusal};
use crate::model::rules;
use crate::model::{pointer, truncate, ArgumentError, ParseWarning};
use crate::open_models::reader::Cx;
use crate::open_models::request::insert_argument;

/// Python's reserved words: never an argument's name in Python, yet models write `from=`.
const RESERVED: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

/// The arguments object of `call`; what was converted goes to `warnings`, what cannot be used
/// to `errors`.
pub(super) fn object(
    cx: &Cx,
    call: Call<'_>,
    warnings: &mut Vec<ParseWarning>,
    errors: &mut Vec<ArgumentError>,
) -> Map<String, Value> {
    let Call { name, args, errors: structure } = call;
    errors.extend(structure.into_iter().map(|refusal| error("", refusal)));
    let names = positional_names(cx, name, &args, errors);
    let mut object = Map::with_capacity(args.len());
    let mut place = 0;
    for arg in args {
        let Arg { keyword, text, value, notes, refusals } = arg;
        let key = match keyword {
            Some(keyword) => {
                if RESERVED.contains(&keyword) {
                    // `integral(from=1, to=5)`: Python refuses the call; the name is clear.
                    warnings.push(ParseWarning::new(
                        &pointer::child("", keyword),
                        rules::PYTHON_RESERVED_NAME,
                        "an argument name Python accepts",
                        &format!("`{keyword}`, a Python keyword"),
                        &format!("read as the argument `{keyword}`"),
                    ));
                }
                keyword.to_owned()
            }
            None => {
                let index = place;
                place += 1;
                match names.as_ref().and_then(|names| names.get(index)) {
                    Some(name) => {
                        warnings.push(ParseWarning::new(
                            &pointer::child("", name),
                            rules::PYTHON_POSITIONAL,
                            format!("`{name}=` before the value"),
                            &truncate(text),
                            &format!("read as `{name}`, the tool's parameter number {}", index + 1),
                        ));
                        name.clone()
                    }
                    // Refused in `positional_names`: the value has no name to go under.
                    None => continue,
                }
            }
        };
        let at = pointer::child("", &key);
        warnings.extend(notes.into_iter().map(|note| warning(&at, note)));
        let refused = !refusals.is_empty();
        errors.extend(refusals.into_iter().map(|refusal| error(&at, refusal)));
        match value {
            Some(value) => insert_argument(&mut object, key, value, warnings, errors),
            // Every value left out says why; should one not, the call is still refused.
            None if !refused => errors.push(ArgumentError {
                pointer: at,
                rule: rules::PYTHON_SYNTAX.to_owned(),
                expected: "a literal value".to_owned(),
                received: Some(format!("`{}`", truncate(text))),
                detail: "the value could not be read".to_owned(),
            }),
            None => {}
        }
    }
    object
}

/// The declared parameters the positional arguments stand for, in order; `None`, with an
/// error that says why, when their names cannot be told.
fn positional_names(cx: &Cx, tool: &str, args: &[Arg<'_>], errors: &mut Vec<ArgumentError>) -> Option<Vec<String>> {
    let positional: Vec<&Arg<'_>> = args.iter().filter(|arg| arg.keyword.is_none()).collect();
    let first = positional.first()?;
    let refuse = |errors: &mut Vec<ArgumentError>, expected: String, received: String, detail: String| {
        errors.push(ArgumentError {
            pointer: String::new(),
            rule: rules::PYTHON_POSITIONAL.to_owned(),
            expected,
            received: Some(received),
            detail,
        });
    };
    // `npv(cash_flows=-50000, 10000, 15000)`: Python refuses it, and nothing tells what the
    // model meant (the list it forgot to bracket, or other parameters).
    if let Some(after) = args.iter().position(|arg| arg.keyword.is_some())
        && let Some(late) = args[after..].iter().find(|arg| arg.keyword.is_none())
    {
        let keyword = args[after].keyword.unwrap_or_default();
        refuse(
                errors,
                "every value after a named one given with its name (`name=value`)".to_owned(),
                format!("`{}` after `{keyword}=`", truncate(late.text)),
                "a value without its name follows a named one, which Python refuses; give each value with its parameter's name".to_owned(),
            );
        return None;
    }
    let Some(known) = cx.tool(tool) else {
        refuse(
            errors,
            "each value with its parameter's name (`name=value`)".to_owned(),
            format!("`{}` without a name", truncate(first.text)),
            format!("`{tool}` is not a declared tool, so which parameter a value without its name is for is unknown"),
        );
        return None;
    };
    let declared: Vec<&str> = known.definition.parameters.iter().map(|p| p.name.as_str()).collect();
    if positional.len() > declared.len() {
        refuse(
            errors,
            format!(
                "at most {} values without their names (`{tool}` has {} parameters)",
                declared.len(),
                declared.len()
            ),
            format!("{} values without their names", positional.len()),
            "more values without names than the tool has parameters; give each value with its parameter's name"
                .to_owned(),
        );
        return None;
    }
    let names: Vec<String> = declared[..positional.len()].iter().map(|name| (*name).to_owned()).collect();
    if let Some(name) = names.iter().find(|name| args.iter().any(|arg| arg.keyword == Some(name.as_str()))) {
        refuse(
            errors,
            "each parameter once".to_owned(),
            format!("`{name}` both by its place and by its name"),
            format!("a value without its name stands for `{name}`, which is also given by name; give each value with its parameter's name"),
        );
        return None;
    }
    Some(names)
}

/// A note of the literal's reading, for the argument at `at`.
fn warning(at: &str, note: Note) -> ParseWarning {
    ParseWarning::new(&format!("{at}{}", note.path), note.rule, note.expected, &note.received, &note.action)
}

/// A refusal of the literal's reading, for the argument at `at`.
fn error(at: &str, refusal: Refusal) -> ArgumentError {
    ArgumentError {
        pointer: format!("{at}{}", refusal.path),
        rule: refusal.rule.to_owned(),
        expected: refusal.expected,
        received: Some(refusal.received),
        detail: refusal.detail,
    }
}
