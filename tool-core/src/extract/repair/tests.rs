//! The repairs, each with the exact value read and the exact warnings or error.

use serde_json::{json, Value};

use super::arguments::EXPECTED;
use super::parser::{parse_tolerant, Tolerance, Tolerant, TolerantError, MAX_DEPTH};
use super::{repair_arguments, Repaired};
use crate::model::{truncate, ArgumentError, ParseWarning};

/// The value read and (pointer, rule) of each warning.
type Read = (Value, Vec<(String, String)>);
/// (pointer, rule, received) of the error.
type Refused = (String, String, Option<String>);

fn outcome(raw: &str) -> Result<Read, Refused> {
    match repair_arguments(raw) {
        Ok(Repaired { value, warnings }) => Ok((
            Value::Object(value),
            warnings.into_iter().map(|w| (w.pointer().to_owned(), w.rule().to_owned())).collect(),
        )),
        Err(e) => {
            assert_eq!((e.pointer.as_str(), e.expected.as_str()), ("", EXPECTED), "{raw}");
            Err((e.pointer, e.rule, e.received))
        }
    }
}

fn whole(rules: &[&str]) -> Vec<(String, String)> {
    rules.iter().map(|rule| (String::new(), (*rule).to_owned())).collect()
}

/// Each input, the exact value read, and the exact warnings (all at the pointer `""`).
fn check_repairs(cases: &[(&str, Value, &[&str])]) {
    for (raw, value, rules) in cases {
        assert_eq!(outcome(raw), Ok((value.clone(), whole(rules))), "{raw}");
    }
}

/// Each input, and the exact error rule; `received` is always the raw text, cut.
fn check_errors(cases: &[(&str, &str)]) {
    for (raw, rule) in cases {
        assert_eq!(outcome(raw), Err((String::new(), (*rule).to_owned(), Some(truncate(raw)))), "{raw}");
    }
}

#[test]
fn strict_json_objects_are_read_without_warnings() {
    check_repairs(&[
        (r#"{"a":1}"#, json!({"a": 1}), &[]),
        (
            " {\"a\": [1, 2.5, -3e2, true, null, \"\\u00e9\\ud83d\\ude00\"]} \n",
            json!({"a": [1, 2.5, -300.0, true, null, "é😀"]}),
            &[],
        ),
        ("{}", json!({}), &[]),
    ]);
}

#[test]
fn object_key_order_is_kept() {
    let Ok((value, _)) = outcome("{'z': 1, 'a': 2, 'm': 3,}") else { panic!("not repaired") };
    let keys: Vec<&String> = value.as_object().map(|o| o.keys().collect()).unwrap_or_default();
    assert_eq!(keys, ["z", "a", "m"]);
}

#[test]
fn empty_arguments_are_an_empty_object() {
    check_repairs(&[("", json!({}), &["empty_arguments"]), (" \n\t ", json!({}), &["empty_arguments"])]);
    let Ok(repaired) = repair_arguments("") else { panic!("not repaired") };
    assert_eq!(
        repaired.warnings,
        vec![ParseWarning::new("", "empty_arguments", "a JSON object", "", "read as an empty object `{}`")]
    );
}

#[test]
fn a_markdown_code_fence_is_removed() {
    check_repairs(&[
        ("```json\n{\"shop_name\": \"B\"}\n```", json!({"shop_name": "B"}), &["code_fence_removed"]),
        ("```\n{\"a\": 1}\n```", json!({"a": 1}), &["code_fence_removed"]),
        ("  \n```JSON {\"a\": 1}```\n ", json!({"a": 1}), &["code_fence_removed"]),
        (
            "```json\n{\"md\": \"```py\\nx = 1\\n```\"}\n```",
            json!({"md": "```py\nx = 1\n```"}),
            &["code_fence_removed"],
        ),
        ("```json\n{\"a\": 1}\n", json!({"a": 1}), &["code_fence_removed"]),
    ]);
    check_errors(&[
        ("Here you go:\n```json\n{\"a\": 1}\n```", "invalid_json"),
        ("```json\n{\"a\": 1}\n```\nDone.", "invalid_json"),
        ("```json\n{\"a\": 1}\n``````", "invalid_json"),
        ("```json\n{\"a\": \n```", "invalid_json"),
        ("```json\n{\"a\": ", "truncated_json"),
    ]);
}

#[test]
fn trailing_special_tokens_and_closing_tags_are_removed() {
    check_repairs(&[
        (r#"{"a":1}<|call|>"#, json!({"a": 1}), &["special_token_removed"]),
        ("{\"a\":1}\n<|im_end|>", json!({"a": 1}), &["special_token_removed"]),
        (r#"{"a":1}</tool_call>"#, json!({"a": 1}), &["special_token_removed"]),
        (r#"{"a":1} <|end|><|start|> </function> </s>"#, json!({"a": 1}), &["special_token_removed"]),
        ("{\"a\":1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>", json!({"a": 1}), &["special_token_removed"]),
        ("```json\n{\"a\":1}\n```<|call|>", json!({"a": 1}), &["code_fence_removed", "special_token_removed"]),
    ]);
    let Ok(repaired) = repair_arguments(r#"{"a":1}<|call|>"#) else { panic!("not repaired") };
    assert_eq!(repaired.warnings[0].action(), "removed `<|call|>` after the arguments");
    assert_eq!(repaired.warnings[0].received(), r#"{"a":1}<|call|>"#);
    check_errors(&[
        (r#"{"a":1}<|call"#, "invalid_json"),
        (r#"{"a":1}<||>"#, "invalid_json"),
        (r#"{"a":1}<| call |>"#, "invalid_json"),
        (r#"{"a":1}</>"#, "invalid_json"),
        (r#"{"a":1}</tool call>"#, "invalid_json"),
        (r#"{"a":1}<tool_call>"#, "invalid_json"),
        (r#"{"a":1}<|call|> and more"#, "invalid_json"),
        ("<|call|>", "truncated_json"),
    ]);
}

#[test]
fn leading_tokens_a_byte_order_mark_and_a_lone_closing_fence_are_removed() {
    check_repairs(&[
        ("<tool_call>{\"a\": 1}</tool_call>", json!({"a": 1}), &["special_token_removed"]),
        ("<|python_tag|>{\"a\": 1}", json!({"a": 1}), &["special_token_removed"]),
        ("<function=search>{\"a\": 1}</function>", json!({"a": 1}), &["special_token_removed"]),
        ("<|tool_call|> <tool_call>\n{\"a\": 1}", json!({"a": 1}), &["special_token_removed"]),
        (
            "```json\n<tool_call>{\"a\": 1}</tool_call>\n```",
            json!({"a": 1}),
            &["code_fence_removed", "special_token_removed"],
        ),
        ("\u{feff}{\"a\": 1}", json!({"a": 1}), &["byte_order_mark_removed"]),
        ("{\"a\": 1}\n```", json!({"a": 1}), &["code_fence_removed"]),
    ]);
    let action = |raw: &str| repair_arguments(raw).map(|r| r.warnings[0].action().to_owned());
    assert_eq!(
        action("<tool_call>{}</tool_call>").as_deref(),
        Ok("removed `<tool_call>` before and `</tool_call>` after the arguments")
    );
    assert_eq!(action("<|python_tag|>{}").as_deref(), Ok("removed `<|python_tag|>` before the arguments"));
    assert_eq!(action("\u{feff}{}").as_deref(), Ok("removed the byte order mark (U+FEFF) before the arguments"));
    check_errors(&[
        ("<tool call>{\"a\": 1}", "invalid_json"),
        ("<>{\"a\": 1}", "invalid_json"),
        ("<1>{\"a\": 1}", "invalid_json"),
        ("Here: <tool_call>{\"a\": 1}", "invalid_json"),
        ("<tool_call>", "truncated_json"),
        ("{\"a\": 1}\n```\n```", "invalid_json"),
        ("\u{feff}\u{feff}{}", "invalid_json"),
    ]);
}

#[test]
fn raw_control_characters_comments_and_unquoted_keys_are_read() {
    check_repairs(&[
        (
            "{\"code\": \"def f():\n\treturn 1\n\"}",
            json!({"code": "def f():\n\treturn 1\n"}),
            &["raw_control_character"],
        ),
        ("{'a': 'x\ry'}", json!({"a": "x\ry"}), &["python_literal", "raw_control_character"]),
        ("{\"a\": 1, // the count\n \"b\": 2}", json!({"a": 1, "b": 2}), &["comment_removed"]),
        ("/* args */ {\"a\": [1, /* two */ 2]}", json!({"a": [1, 2]}), &["comment_removed"]),
        ("{\"url\": \"http://x/*y*/\"} // done", json!({"url": "http://x/*y*/"}), &["comment_removed"]),
        (
            "{path: \"a\", max_bytes : 5, $ref: null}",
            json!({"path": "a", "max_bytes": 5, "$ref": null}),
            &["unquoted_key"],
        ),
        (
            "{query: 'x', limit: 3,}",
            json!({"query": "x", "limit": 3}),
            &["unquoted_key", "python_literal", "trailing_comma_removed"],
        ),
    ]);
    let Ok(repaired) = repair_arguments("{\"a\": \"x\ny\"}") else { panic!("not repaired") };
    assert_eq!(
        repaired.warnings[0].action(),
        "read the line breaks, tabs and other control characters written raw inside strings as themselves"
    );
    check_errors(&[
        ("{1a: 2}", "invalid_json"),
        ("{a b: 1}", "invalid_json"),
        ("{a-b: 1}", "invalid_json"),
        ("{a}", "invalid_json"),
        ("{a", "invalid_json"),
        ("{\"a\": 1 /* open", "truncated_json"),
        ("{\"a\": 1} / 2", "invalid_json"),
        ("{\"a\": \"x\n", "truncated_json"),
    ]);
}

#[test]
fn identical_objects_are_merged_and_different_ones_refused() {
    check_repairs(&[
        (r#"{"a":1}{"a":1}"#, json!({"a": 1}), &["identical_objects_merged"]),
        ("{\"f\":\"a.ts\"}\n{\"f\":\"a.ts\"}\n {\"f\": \"a.ts\"}", json!({"f": "a.ts"}), &["identical_objects_merged"]),
        (r#"{"a":1}{'a':1}"#, json!({"a": 1}), &["identical_objects_merged", "python_literal"]),
    ]);
    let Ok(repaired) = repair_arguments("{}{}{}") else { panic!("not repaired") };
    assert_eq!(repaired.warnings[0].action(), "read the first of 3 identical objects sent one after another");
    check_errors(&[
        (r#"{"f":"a.ts"}{"f":"b.ts"}"#, "multiple_objects"),
        ("{\"f\":\"a.ts\"}\n{\"f\":\"a.ts\"}\n{\"g\":1}", "multiple_objects"),
        (r#"{"a":1}{"a":"#, "truncated_json"),
        (r#"{"a":1},{"a":1}"#, "invalid_json"),
        (r#"{"a":1}[1]"#, "invalid_json"),
        ("[1][1]", "invalid_json"),
    ]);
}

#[test]
fn arguments_encoded_twice_are_decoded() {
    check_repairs(&[
        (r#""{\"shop_name\": \"A店\"}""#, json!({"shop_name": "A店"}), &["double_encoded_arguments"]),
        (r#"" {\"a\": [1]} ""#, json!({"a": [1]}), &["double_encoded_arguments"]),
        (
            r#""{'a': True,}""#,
            json!({"a": true}),
            &["double_encoded_arguments", "python_literal", "trailing_comma_removed"],
        ),
        ("```json\n\"{\\\"a\\\": 1}\"\n```", json!({"a": 1}), &["code_fence_removed", "double_encoded_arguments"]),
    ]);
    check_errors(&[(r#""{\"a\": ""#, "truncated_json"), (r#""{\"a\"}""#, "invalid_json")]);
    let Err(e) = repair_arguments(r#""{\"a\": ""#) else { panic!("repaired") };
    assert!(
        e.detail.starts_with("the arguments are a JSON string holding an object that cannot be read: "),
        "{}",
        e.detail
    );
}

#[test]
fn python_literals_are_read() {
    check_repairs(&[
        (
            "{'tags': ['python','tutorial'], 'theme': 'dark', 'verbose': True}",
            json!({"tags": ["python", "tutorial"], "theme": "dark", "verbose": true}),
            &["python_literal"],
        ),
        ("{'a': {'b': None, 'c': False}}", json!({"a": {"b": null, "c": false}}), &["python_literal"]),
        (r#"{"a": None}"#, json!({"a": null}), &["python_literal"]),
        (r#"{'msg': "it's"}"#, json!({"msg": "it's"}), &["python_literal"]),
        (r#"{"msg": 'say "hi"'}"#, json!({"msg": "say \"hi\""}), &["python_literal"]),
        (r"{'msg': 'it\'s'}", json!({"msg": "it's"}), &["python_literal"]),
        (r"{'e': '\u00e9 \ud83d\ude00 \n\t\\'}", json!({"e": "é 😀 \n\t\\"}), &["python_literal"]),
    ]);
    let Ok(repaired) = repair_arguments("{'a': True}") else { panic!("not repaired") };
    assert_eq!(
        repaired.warnings[0].action(),
        "read single-quoted strings as JSON strings; read Python's True, False and None as true, false and null"
    );
    check_errors(&[
        ("{'a': true", "truncated_json"),
        ("{'a': 'b}", "truncated_json"),
        ("{'a': Tru", "truncated_json"),
        ("{'a': TRUE}", "invalid_json"),
        ("{'a': none}", "invalid_json"),
        ("{'a': Nonesuch}", "invalid_json"),
        ("{'a': (1, 2)}", "invalid_json"),
        ("{'a': u'x'}", "invalid_json"),
    ]);
}

#[test]
fn trailing_commas_are_removed() {
    check_repairs(&[
        (r#"{"a":[1,2,],}"#, json!({"a": [1, 2]}), &["trailing_comma_removed"]),
        ("{\"a\": {\"b\": [ {} , ] , } ,\n}", json!({"a": {"b": [{}]}}), &["trailing_comma_removed"]),
    ]);
    check_errors(&[
        (r#"{"a":1,,}"#, "invalid_json"),
        (r#"{,}"#, "invalid_json"),
        (r#"{"a":[,]}"#, "invalid_json"),
        (r#"{"a":[1,,2]}"#, "invalid_json"),
        (r#"{"a":1,"#, "truncated_json"),
    ]);
}

#[test]
fn invalid_escapes_keep_their_backslash() {
    check_repairs(&[
        (r#"{"files": "E:\Chat gpt\a.md"}"#, json!({"files": r"E:\Chat gpt\a.md"}), &["invalid_escape_repaired"]),
        (
            r#"{"p": "C:\users\me", "q": "\x41\0"}"#,
            json!({"p": r"C:\users\me", "q": r"\x41\0"}),
            &["invalid_escape_repaired"],
        ),
        (
            r#"{"e": "\u00e9\ud83d\ude00", "w": "D:\data"}"#,
            json!({"e": "é😀", "w": r"D:\data"}),
            &["invalid_escape_repaired"],
        ),
        (
            r#"{"lone": "\ud800x", "low": "\udc00"}"#,
            json!({"lone": r"\ud800x", "low": r"\udc00"}),
            &["invalid_escape_repaired"],
        ),
        (r#"{"msg": "it\'s"}"#, json!({"msg": "it's"}), &["invalid_escape_repaired"]),
        (r#"{"m": "\'\q"}"#, json!({"m": r"'\q"}), &["invalid_escape_repaired"]),
    ]);
    let Ok(repaired) = repair_arguments(r#"{"m": "\'\q"}"#) else { panic!("not repaired") };
    assert_eq!(
        repaired.warnings[0].action(),
        "read the escape `\\'` as a single quote; kept each backslash that starts no valid JSON escape as a literal backslash"
    );
    check_errors(&[
        (r#"{"a": "x\"#, "truncated_json"),
        (r#"{"a": "\u00e"#, "truncated_json"),
        (r#"{"a": "\ud83d"#, "truncated_json"),
        (r#"{"a": "\ud83d\"#, "truncated_json"),
        (r#"{"a": "\ud83d\ude0"#, "truncated_json"),
    ]);
}

#[test]
fn what_cannot_be_read_without_guessing_is_an_error() {
    check_errors(&[
        (r#"{"a":"b",c":"d"}"#, "invalid_json"),
        (r#"{"command":["bash","-lc","find"#, "truncated_json"),
        ("Sure! I will open the shop now.", "invalid_json"),
        (r#"{"a": 1} thanks"#, "invalid_json"),
        (r#"{"a": NaN}"#, "invalid_json"),
        (r#"{"a": 01}"#, "invalid_json"),
        (r#"{"a": .5}"#, "invalid_json"),
        (r#"{"a": +1}"#, "invalid_json"),
        (r#"{"a" 1}"#, "invalid_json"),
        (r#"{"a": 1 "b": 2}"#, "invalid_json"),
        (r#"{"a": -"#, "truncated_json"),
        (r#"{"a": 1."#, "truncated_json"),
        (r#"{"a": 1e+"#, "truncated_json"),
        (r#"{"a""#, "truncated_json"),
        (r#"{"a":"#, "truncated_json"),
        ("{", "truncated_json"),
    ]);
    let Err(e) = repair_arguments(r#"{"a":"b",c":"d"}"#) else { panic!("repaired") };
    assert_eq!(e.detail, "expected a quoted key, found `c` at line 1 column 10");
    // A well-formed number no float holds is one field's problem: kept as its text.
    let Ok(repaired) = repair_arguments(r#"{"a": 1e999, "b": [-1e400]}"#) else { panic!("not repaired") };
    let rules: Vec<(&str, &str)> = repaired.warnings.iter().map(|w| (w.pointer(), w.rule())).collect();
    assert_eq!(rules, vec![("/a", "number_out_of_range"), ("/b/0", "number_out_of_range")]);
    assert_eq!(Value::Object(repaired.value), json!({"a": "1e999", "b": ["-1e400"]}));
    let Err(e) = repair_arguments("{\"command\":[\"bash\",\n\"find") else { panic!("repaired") };
    assert_eq!(e.detail, "the text ends inside a string at line 2 column 6");
}

#[test]
fn valid_json_that_is_not_an_object_is_refused() {
    for (raw, received, detail) in [
        ("[1,2,3]", "[1,2,3]", "the arguments are an array, not an object"),
        ("null", "null", "the arguments are null, not an object"),
        ("42", "42", "the arguments are a number, not an object"),
        (r#""just text""#, r#""just text""#, "the arguments are a string, not an object"),
        (r#""""#, r#""""#, "the arguments are a string, not an object"),
        (r#""[1]""#, r#""[1]""#, "the arguments are a string, not an object"),
        ("[1,2,]", "[1,2]", "the arguments are an array, not an object"),
        ("None", "null", "the arguments are null, not an object"),
    ] {
        assert_eq!(
            repair_arguments(raw).map(|r| Value::Object(r.value)),
            Err(ArgumentError {
                pointer: String::new(),
                rule: "not_an_object".into(),
                expected: "a JSON object".into(),
                received: Some(received.into()),
                detail: detail.into(),
            }),
            "{raw}"
        );
    }
}

#[test]
fn several_repairs_give_one_warning_each_outermost_first() {
    check_repairs(&[(
        "```json\n{'a': [1,], 'p': 'C:\\dir'}\n```\n<|call|>",
        json!({"a": [1], "p": r"C:\dir"}),
        &[
            "code_fence_removed",
            "special_token_removed",
            "python_literal",
            "trailing_comma_removed",
            "invalid_escape_repaired",
        ],
    )]);
}

#[test]
fn parse_tolerant_lists_each_tolerance_once_in_first_seen_order() {
    let tolerant = parse_tolerant(r#"{"a": [True, 'x', 'y',], "b": "\q\q", "c": False, 'd': 1,}"#);
    let Ok(Tolerant { value, tolerances, duplicates }) = tolerant else { panic!("{tolerant:?}") };
    assert_eq!(value, json!({"a": [true, "x", "y"], "b": r"\q\q", "c": false, "d": 1}));
    assert_eq!(
        tolerances,
        [Tolerance::PythonLiteral, Tolerance::SingleQuotes, Tolerance::TrailingComma, Tolerance::InvalidEscape]
    );
    assert_eq!(duplicates, vec![]);
    assert!(matches!(parse_tolerant(r#"{"a":"b",c":"d"}"#), Err(TolerantError::Syntax { .. })));
    assert!(matches!(parse_tolerant(r#"{"a": ["#), Err(TolerantError::Truncated { .. })));
    assert!(matches!(parse_tolerant(""), Err(TolerantError::Truncated { .. })));
    assert!(matches!(parse_tolerant("1 2"), Err(TolerantError::Syntax { .. })));
    assert!(matches!(parse_tolerant(" 1 "), Ok(Tolerant { value: Value::Number(_), .. })));
}

#[test]
fn every_leniency_names_its_rule() {
    let rules: Vec<&str> = [
        Tolerance::SingleQuotes,
        Tolerance::PythonLiteral,
        Tolerance::TrailingComma,
        Tolerance::InvalidEscape,
        Tolerance::EscapedSingleQuote,
        Tolerance::RawControlCharacter,
        Tolerance::UnquotedKey,
        Tolerance::Comment,
    ]
    .into_iter()
    .map(Tolerance::rule)
    .collect();
    assert_eq!(
        rules,
        [
            "python_literal",
            "python_literal",
            "trailing_comma_removed",
            "invalid_escape_repaired",
            "invalid_escape_repaired",
            "raw_control_character",
            "unquoted_key",
            "comment_removed"
        ]
    );
}

#[test]
fn nesting_is_capped_at_128_levels() {
    let nested = |levels: usize| format!("{{'a': {}{}}}", "[".repeat(levels - 1), "]".repeat(levels - 1));
    let Ok((_, rules)) = outcome(&nested(MAX_DEPTH)) else { panic!("128 levels refused") };
    assert_eq!(rules, whole(&["python_literal"]));
    check_errors(&[(&nested(MAX_DEPTH + 1), "invalid_json")]);
    let Err(e) = repair_arguments(&nested(MAX_DEPTH + 1)) else { panic!("129 levels read") };
    assert_eq!(e.detail, "nesting deeper than 128 levels at line 1 column 134");
    check_errors(&[(&"[".repeat(1_000_000), "invalid_json"), (&"{\"a\":".repeat(100_000), "invalid_json")]);
}

/// Every prefix and many mutations of tricky inputs: errors, never a panic.
#[test]
fn no_input_panics() {
    let corpus = [
        "```json\n{'a': [1,], \"p\": \"C:\\dir\\u00e9\\ud83d\\ude00\"}\n```\n<|call|></tool_call>",
        "\"{\\\"shop_name\\\": \\\"A店\\\"}\"",
        "{\"a\":1}{\"a\":1}<｜end▁of▁sentence｜>",
        "{'a': {'b': None, 'c': False, 'd': -1.5e-3, 'e': [True, null, \"\\'\"]}}",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let alphabet: Vec<char> = "{}[]\"',:\\u0Ee+-.tTfFnN <|>/`\n\u{e9}店".chars().collect();
    for text in corpus {
        for (cut, _) in text.char_indices() {
            let _ = repair_arguments(&text[..cut]);
            let _ = parse_tolerant(&text[cut..]);
        }
        for _ in 0..2000 {
            let mut chars: Vec<char> = text.chars().collect();
            for _ in 0..1 + next() % 4 {
                let at = (next() as usize) % chars.len();
                let c = alphabet[(next() as usize) % alphabet.len()];
                match next() % 3 {
                    0 => chars[at] = c,
                    1 => chars.insert(at, c),
                    _ => {
                        chars.remove(at);
                    }
                }
            }
            let mutated: String = chars.into_iter().collect();
            let _ = repair_arguments(&mutated);
        }
    }
}

/// A megabyte of arguments needing every repair is read, or refused, with a result (its time
/// is measured by the `repair` benchmark, not here).
#[test]
fn a_megabyte_needing_every_repair_is_read_or_refused() {
    let item = r"{'path': 'C:\dir\file.txt', 'ok': True, 'n': [1, 2.5, -3,],},";
    let body = item.repeat(1_000_000 / item.len());
    let inputs = [
        format!("```json\n{{'items': [{body}]}}\n```<|call|>"),
        format!("{{\"s\": \"{}\"}}", "\\q".repeat(500_000)),
        format!("{{\"a\":1}}{}", "<|call|>".repeat(125_000)),
        "{\"a\":1}".repeat(140_000),
        format!("{{\"a\":1}}<|{}", "x".repeat(1_000_000)),
        format!("{{'a': '{}", "é".repeat(500_000)),
    ];
    let outcomes: Vec<bool> = inputs.iter().map(|input| repair_arguments(input).is_ok()).collect();
    assert_eq!(outcomes, [true, true, true, true, false, false]);
    let Ok(repaired) = repair_arguments(&inputs[0]) else { panic!("not repaired") };
    assert_eq!(repaired.value["items"].as_array().map(Vec::len), Some(body.len() / item.len()));
}
