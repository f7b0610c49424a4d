//! Python calls ("pythonic": Llama 3.2/4, BFCL's prompts, many fine-tunes) read by the
//! declared types: exact arguments objects, warnings and errors, whole and streamed.

use serde_json::json;
use tool_core::open_models::{CallForm, OpenModelEvent, OpenModelParser, OpenModelResponse};
use tool_core::prelude::*;

/// Tell the weather in a city.
#[tool]
fn get_weather(city: String, days: u32) -> String {
    format!("{city}: sunny for {days} days")
}

/// Tell the time in a time zone.
#[tool]
fn get_time(tz: String) -> String {
    format!("noon in {tz}")
}

/// Factor a number.
#[tool]
fn get_prime_factors(number: u64, formatted: bool) -> String {
    format!("{number} {formatted}")
}

fn catalog() -> ToolCatalog {
    ToolCatalog::builder()
        .add_declared::<get_weather>()
        .add_declared::<get_time>()
        .add_declared::<get_prime_factors>()
        .build()
        .unwrap()
}

/// The answer read whole, checked against the same answer streamed in pieces of every size
/// from 1 to 7 bytes (cut anywhere, inside characters too).
fn read(answer: &str) -> OpenModelResponse {
    let parser = OpenModelParser::new(&catalog());
    let whole = parser.parse(answer);
    for size in 1..=7 {
        let mut stream = parser.stream();
        let mut events = Vec::new();
        for chunk in answer.as_bytes().chunks(size) {
            events.extend(stream.feed_bytes(chunk));
        }
        events.extend(stream.finish());
        assert_eq!(OpenModelResponse::from_events(events), whole, "streamed in pieces of {size} bytes");
    }
    whole
}

#[test]
fn a_list_of_calls_after_prose_is_read_with_its_values() {
    let response = read("Let me check: [get_weather(city=\"Paris\", days=3), get_time(tz='CET')]<|eot_id|>");
    assert_eq!(response.form, Some(CallForm::Python));
    assert_eq!(response.text, "Let me check: ");
    assert!(response.warnings.is_empty());
    let [weather, time] = &response.calls[..] else { panic!("two calls: {response:?}") };
    assert_eq!((weather.tool_name.as_str(), weather.call_id.as_str()), ("get_weather", "call_0"));
    assert_eq!(weather.raw_arguments, "get_weather(city=\"Paris\", days=3)");
    assert_eq!(weather.arguments, Some(json!({"city": "Paris", "days": 3})));
    assert!(weather.parse_warnings.is_empty() && weather.parse_error.is_none());
    assert_eq!((time.tool_name.as_str(), time.call_id.as_str()), ("get_time", "call_1"));
    assert_eq!(time.raw_arguments, "get_time(tz='CET')");
    assert_eq!(time.arguments, Some(json!({"tz": "CET"})));
}

/// Each warning as (pointer, rule, expected, received, action).
fn warnings(call: &ToolCallRequest) -> Vec<(&str, &str, &str, &str, &str)> {
    call.parse_warnings.iter().map(|w| (w.pointer(), w.rule(), w.expected(), w.received(), w.action())).collect()
}

/// Each error as (pointer, rule, expected, received).
fn errors(call: &ToolCallRequest) -> Vec<(&str, &str, &str, Option<&str>)> {
    call.parse_error.as_ref().map_or_else(Vec::new, |e| {
        e.errors
            .iter()
            .map(|e| (e.pointer.as_str(), e.rule.as_str(), e.expected.as_str(), e.received.as_deref()))
            .collect()
    })
}

/// The one call of `answer`.
fn one(answer: &str) -> ToolCallRequest {
    let response = read(answer);
    assert_eq!(response.calls.len(), 1, "one call in {answer:?}: {response:#?}");
    response.calls.into_iter().next().unwrap()
}

const LITERAL: &str = "a literal value (a string, a number, True, False, None, a list or a dict)";

#[test]
fn strings_are_read_with_python_escapes_prefixes_and_concatenation() {
    let call = one(concat!(
        r#"[echo(a='it\'s', b="tab\there", c='''two"#,
        "\n",
        r#"lines''', d=r'C:\new\'x', e='a' "b"  'c', f='\x41\u00e9\U0001F600\101\0', g="\a\b\f\v\q", h="""say "hi\"""", i=u'ü')]"#
    ));
    assert_eq!(
        call.arguments,
        Some(json!({
            "a": "it's",
            "b": "tab\there",
            "c": "two\nlines",
            "d": "C:\\new\\'x",
            "e": "abc",
            "f": "Aé😀A\u{0}",
            "g": "\u{7}\u{8}\u{c}\u{b}\\q",
            "h": "say \"hi\"",
            "i": "ü",
        }))
    );
    assert!(call.parse_warnings.is_empty(), "{:?}", call.parse_warnings);
}

#[test]
fn escapes_python_would_not_read_as_json_expects_are_kept_with_a_warning() {
    let call = one(r#"[echo(a="\N{BULLET} x", b="\ud83d\ude00", c="\udc00!", d="\xZZ")]"#);
    assert_eq!(call.arguments, Some(json!({"a": "\\N{BULLET} x", "b": "😀", "c": "\u{fffd}!", "d": "\\xZZ"})));
    assert_eq!(
        warnings(&call),
        vec![
            (
                "/a",
                "python_named_escape",
                "the character itself, or its `\\u` escape",
                "\\N{BULLET}",
                "kept the escape as written"
            ),
            (
                "/b",
                "python_surrogate_pair",
                "one `\\U` escape for a character beyond U+FFFF",
                "\\ud83d\\ude00",
                "joined the two halves into one character"
            ),
            (
                "/c",
                "python_lone_surrogate",
                "a character",
                "\\udc00",
                "read as U+FFFD, the replacement character: half a character is none"
            ),
            (
                "/d",
                "python_bad_escape",
                "a complete `\\x`, `\\u` or `\\U` escape",
                "\\x",
                "kept the backslash and the letter as written"
            ),
        ]
    );
}

#[test]
fn numbers_are_read_with_underscores_bases_signs_and_exponents() {
    let call = one("[echo(a=1_000, b=0xFF, c=0o17, d=0b101, e=-3, f=1e-9, g=12.57e-7, h=-0.5, i=.5, j=1., k=+7, l=- 2, m=0, n=18446744073709551615, o=-9223372036854775808, p=1E3)]");
    assert_eq!(
        call.arguments,
        Some(json!({
            "a": 1000, "b": 255, "c": 15, "d": 5, "e": -3, "f": 1e-9, "g": 12.57e-7, "h": -0.5, "i": 0.5, "j": 1.0,
            "k": 7, "l": -2, "m": 0, "n": 18446744073709551615u64, "o": -9223372036854775808i64, "p": 1000.0,
        }))
    );
    assert!(call.parse_warnings.is_empty(), "{:?}", call.parse_warnings);
}

#[test]
fn numbers_json_cannot_hold_are_kept_as_their_text_with_a_warning() {
    let call = one("[echo(n=123_456_789_012_345_678_901_234_567_890, m=-9223372036854775809, f=1e400, zip=02139)]");
    assert_eq!(
        call.arguments,
        Some(json!({"n": "123456789012345678901234567890", "m": "-9223372036854775809", "f": "1e400", "zip": "02139"}))
    );
    let big = "a number JSON holds (an integer within 64 bits, a finite float)";
    assert_eq!(
        warnings(&call),
        vec![
            (
                "/n",
                "python_big_number",
                big,
                "123456789012345678901234567890",
                "kept the number as the text \"123456789012345678901234567890\""
            ),
            (
                "/m",
                "python_big_number",
                big,
                "-9223372036854775809",
                "kept the number as the text \"-9223372036854775809\""
            ),
            ("/f", "python_big_number", big, "1e400", "kept the number as the text \"1e400\""),
            (
                "/zip",
                "python_leading_zero",
                "a number without leading zeros",
                "02139",
                "kept the digits as the text \"02139\""
            ),
        ]
    );
}

#[test]
fn python_constants_are_read_and_json_literals_are_read_with_a_warning_at_their_place() {
    let call = one("[echo(a=True, b=False, c=None, d=true, e={'x': [null, false]})]");
    assert_eq!(call.arguments, Some(json!({"a": true, "b": false, "c": null, "d": true, "e": {"x": [null, false]}})));
    assert_eq!(
        warnings(&call),
        vec![
            ("/d", "python_json_literal", "`True`", "true", "read as true"),
            ("/e/x/0", "python_json_literal", "`None`", "null", "read as null"),
            ("/e/x/1", "python_json_literal", "`False`", "false", "read as false"),
        ]
    );
}

#[test]
fn tuples_sets_and_keys_that_are_not_text_are_read_as_json_holds_them() {
    let call = one(
        "[calculate_distance(coord1=(33.4484, -112.0740), coord2=(34.0522,), one=(5), empty=(), tags={'a', 'b', 'a'}, ids={1: 'x', True: 'y', None: 'z'}, d={})]",
    );
    assert_eq!(
        call.arguments,
        Some(json!({
            "coord1": [33.4484, -112.074], "coord2": [34.0522], "one": 5, "empty": [], "tags": ["a", "b"],
            "ids": {"1": "x", "true": "y", "null": "z"}, "d": {},
        }))
    );
    assert_eq!(
        warnings(&call),
        vec![
            ("/coord1", "python_tuple", "a list", "(33.4484, -112.0740)", "read the tuple as a list"),
            ("/coord2", "python_tuple", "a list", "(34.0522,)", "read the tuple as a list"),
            ("/empty", "python_tuple", "a list", "()", "read the tuple as a list"),
            ("/tags", "python_set", "a list", "{'a', 'b', 'a'}", "read the set as a list of its distinct elements"),
            ("/ids/1", "python_dict_key", "a text key", "1", "used the key as the text \"1\", as json.dumps does"),
            (
                "/ids/true",
                "python_dict_key",
                "a text key",
                "true",
                "used the key as the text \"true\", as json.dumps does"
            ),
            (
                "/ids/null",
                "python_dict_key",
                "a text key",
                "null",
                "used the key as the text \"null\", as json.dumps does"
            ),
        ]
    );
}

#[test]
fn a_dict_key_given_twice_keeps_one_value_or_is_refused_naming_both() {
    let call = one("[echo(same={'a': 1, 'a': 1}, other={'b': 1, 'b': 2})]");
    assert_eq!(
        warnings(&call),
        vec![("/same/a", "python_duplicate_key", "each key once", "`a` twice, with the same value", "kept the value")]
    );
    assert_eq!(errors(&call), vec![("/other/b", "python_duplicate_key", "each key once", Some("`1` and `2`"))]);
}

#[test]
fn values_nest_to_any_depth_up_to_the_bound_and_deeper_is_an_error_not_a_crash() {
    let deep = |levels: usize| format!("[echo(v={}1{})]", "[".repeat(levels), "]".repeat(levels));
    let call = one(&deep(128));
    let mut expected = json!(1);
    for _ in 0..128 {
        expected = json!([expected]);
    }
    assert_eq!(call.arguments, Some(json!({ "v": expected })));
    let call = one(&deep(100_000));
    assert_eq!(call.arguments, Some(json!({})));
    let [(pointer, rule, expected, received)] = errors(&call)[..] else { panic!("{:?}", call.parse_error) };
    assert_eq!(
        (rule, expected, received),
        ("python_too_deep", "values nested at most 128 levels deep", Some("a deeper value"))
    );
    assert_eq!(pointer, format!("/v{}", "/0".repeat(128)));
}

#[test]
fn dotted_names_are_the_tools_name_as_written() {
    let response = read("[uber.ride(loc=\"Berkeley\", type=\"plus\", time=10), math.factorial(number=5)]");
    let names: Vec<&str> = response.calls.iter().map(|c| c.tool_name.as_str()).collect();
    assert_eq!(names, ["uber.ride", "math.factorial"]);
    assert_eq!(response.calls[0].arguments, Some(json!({"loc": "Berkeley", "type": "plus", "time": 10})));
    assert_eq!(response.calls[1].raw_arguments, "math.factorial(number=5)");
}

#[test]
fn a_keyword_given_twice_with_the_same_value_is_read_with_a_warning() {
    let call = one("[get_weather(city='Paris', days=3, city=\"Paris\")]");
    assert_eq!(call.arguments, Some(json!({"city": "Paris", "days": 3})));
    assert_eq!(
        warnings(&call),
        vec![(
            "/city",
            "duplicate_argument",
            "each argument once",
            "`city` twice, with the same value",
            "kept the value"
        )]
    );
    assert!(call.parse_error.is_none());
}

#[test]
fn a_python_keyword_as_an_argument_name_is_read_with_a_warning() {
    let call = one("[integral(value=\"x^3\", from=1, to=5, class='Business')]");
    assert_eq!(call.arguments, Some(json!({"value": "x^3", "from": 1, "to": 5, "class": "Business"})));
    let expected = "an argument name Python accepts";
    assert_eq!(
        warnings(&call),
        vec![
            ("/from", "python_reserved_name", expected, "`from`, a Python keyword", "read as the argument `from`"),
            ("/class", "python_reserved_name", expected, "`class`, a Python keyword", "read as the argument `class`"),
        ]
    );
}

#[test]
fn a_keyword_given_twice_with_different_values_is_refused_naming_both() {
    let call = one("[get_weather(city='Paris', days=3, city='Lyon')]");
    assert_eq!(
        errors(&call),
        vec![("/city", "conflicting_argument", "each argument once", Some("`\"Paris\"` and `\"Lyon\"`"))]
    );
}

#[test]
fn positional_arguments_are_mapped_by_the_declared_order_with_a_warning() {
    let call = one("[get_weather('Paris', days=3)]");
    assert_eq!(call.arguments, Some(json!({"city": "Paris", "days": 3})));
    assert_eq!(
        warnings(&call),
        vec![(
            "/city",
            "python_positional",
            "`city=` before the value",
            "'Paris'",
            "read as `city`, the tool's parameter number 1"
        )]
    );
    let call = one("[get_weather(\"Paris\", 3)]");
    assert_eq!(call.arguments, Some(json!({"city": "Paris", "days": 3})));
    assert_eq!(call.parse_warnings.len(), 2);
    assert!(call.parse_error.is_none());
}

#[test]
fn positional_arguments_that_cannot_be_named_are_refused_saying_why() {
    // After a keyword, as BFCL's npv answer: Python refuses it, and the list was meant.
    let call = one("[finance_calculator.npv(cash_flows=-50000, 10000, 15000, discount_rate=0.08, years=[])]");
    assert_eq!(call.arguments, Some(json!({"cash_flows": -50000, "discount_rate": 0.08, "years": []})));
    assert_eq!(
        errors(&call),
        vec![(
            "",
            "python_positional",
            "every value after a named one given with its name (`name=value`)",
            Some("`10000` after `cash_flows=`")
        )]
    );
    // An undeclared tool: nothing tells the parameter.
    let response = read("[lookup(q='x'), lookup('y')]");
    assert_eq!(
        errors(&response.calls[1]),
        vec![(
            "",
            "python_positional",
            "each value with its parameter's name (`name=value`)",
            Some("`'y'` without a name")
        )]
    );
    // More than the declared parameters.
    let call = one("[get_weather('Paris', 3, 'metric')]");
    assert_eq!(
        errors(&call),
        vec![(
            "",
            "python_positional",
            "at most 2 values without their names (`get_weather` has 2 parameters)",
            Some("3 values without their names")
        )]
    );
    // The same parameter by its place and by its name.
    let call = one("[get_weather('Paris', city='Lyon')]");
    assert_eq!(
        errors(&call),
        vec![("", "python_positional", "each parameter once", Some("`city` both by its place and by its name"))]
    );
}

#[test]
fn values_that_are_not_literals_are_refused_naming_the_argument_and_what_arrived() {
    let call = one("[random_forest.train(n_estimators=100, data=my_data, seed=random.seed(1), n=1 + 2, label=f\"{x}\", xs=[i for i in r], ys=[1, other], raw=b'x', z=3j, lam=lambda: 1)]");
    assert_eq!(call.arguments, Some(json!({"n_estimators": 100})));
    assert_eq!(
        errors(&call),
        vec![
            ("/data", "python_not_literal", LITERAL, Some("`my_data`, a variable name, not a value")),
            ("/seed", "python_not_literal", LITERAL, Some("`random.seed(1)`, a call, computed when run")),
            ("/n", "python_not_literal", LITERAL, Some("`1 + 2`, an expression, not a value")),
            ("/label", "python_not_literal", LITERAL, Some("`f\"{x}\"`, an f-string, computed when run")),
            ("/xs/0", "python_not_literal", LITERAL, Some("`i for i in r`, a comprehension, computed when run")),
            ("/ys/1", "python_not_literal", LITERAL, Some("`other`, a variable name, not a value")),
            ("/raw", "python_not_literal", LITERAL, Some("`b'x'`, bytes, not text")),
            ("/z", "python_not_literal", LITERAL, Some("`3j`, a complex number, which JSON cannot hold")),
            ("/lam", "python_not_literal", LITERAL, Some("`lambda: 1`, a function, not a value")),
        ]
    );
}

#[test]
fn links_prose_lists_and_comprehensions_stay_text() {
    for answer in [
        "See [the forecast](https://example.com/paris) for more.",
        "The length is [len(s)] characters.",
        "Use [x(1) for x in y] to build it.",
        "[get_weather] is a tool; call get_weather(city) yourself.",
        "Compare [a(b == c)] here.",
    ] {
        let response = read(answer);
        assert_eq!(response.calls, vec![], "{answer}");
        assert_eq!(response.text, answer);
        assert_eq!(response.form, None);
    }
}

#[test]
fn unknown_tools_in_the_form_of_a_call_are_read_as_calls() {
    let response = read("[book_flight(to=\"Lyon\")]");
    assert_eq!(response.calls[0].tool_name, "book_flight");
    assert_eq!(response.calls[0].arguments, Some(json!({"to": "Lyon"})));
    let response = read("[ping()]");
    assert_eq!(response.calls[0].arguments, Some(json!({})));
}

#[test]
fn a_call_without_brackets_at_a_line_start_is_read_with_a_warning() {
    let response = read("<|python_tag|>get_weather(city=\"Paris\", days=3)<|eom_id|>");
    assert_eq!(response.text, "");
    let [call] = &response.calls[..] else { panic!("{response:?}") };
    assert_eq!(call.arguments, Some(json!({"city": "Paris", "days": 3})));
    assert_eq!(
        warnings(call),
        vec![(
            "",
            "python_no_brackets",
            "a list of calls in brackets: `[name(..)]`",
            "get_weather(city=\"Paris\", days=3)",
            "read the call"
        )]
    );
    // One call a line; two on one line; a name that is not declared stays text.
    let response =
        read("I'll check.\nget_weather(city='Paris', days=1)\nget_time(tz='CET'), get_time(tz='UTC')\nprint(x=1)\n");
    let names: Vec<&str> = response.calls.iter().map(|c| c.tool_name.as_str()).collect();
    assert_eq!(names, ["get_weather", "get_time", "get_time"]);
    assert_eq!(response.text, "I'll check.\n\n\nprint(x=1)\n");
    assert!(response.calls.iter().all(|c| c.parse_warnings[0].rule() == "python_no_brackets"));
    // Mid-line, a declared name is words.
    assert!(read("You could call get_weather(city='Paris', days=1) later.").calls.is_empty());
}

#[test]
fn several_lists_are_read_with_a_warning() {
    let response = read("[get_weather(city='Paris', days=1)]\n[get_time(tz='CET')]");
    assert_eq!(response.calls.len(), 2);
    assert_eq!(response.text, "\n");
    let [warning] = &response.warnings[..] else { panic!("{:?}", response.warnings) };
    assert_eq!(
        (warning.pointer(), warning.rule(), warning.expected(), warning.received(), warning.action()),
        (
            "",
            "python_several_lists",
            "one list of calls: `[a(..), b(..)]`",
            "list number 2",
            "read the calls of every list"
        )
    );
}

#[test]
fn calls_without_a_comma_between_them_are_read_with_a_warning() {
    let response = read("[get_weather(city='Paris', days=1)\n get_time(tz='CET')]");
    assert_eq!(response.calls.len(), 2);
    let [warning] = &response.warnings[..] else { panic!("{:?}", response.warnings) };
    assert_eq!((warning.rule(), warning.received()), ("python_missing_comma", "`get_time(`"));
}

#[test]
fn a_markdown_fence_around_the_calls_is_dropped_with_them() {
    let response = read("Here you go:\n```python\n[get_weather(city='Paris', days=2)]\n```\nDone.");
    assert_eq!(response.text, "Here you go:\n\nDone.");
    assert_eq!(response.calls[0].arguments, Some(json!({"city": "Paris", "days": 2})));
    assert!(response.warnings.is_empty());
    // Gemma's `tool_code` fence, calls without brackets, one a line.
    let response = read("```tool_code\nget_weather(city='Paris', days=2)\nget_time(tz='CET')\n```");
    assert_eq!(response.text, "");
    assert_eq!(response.calls.len(), 2);
    assert_eq!(response.calls[1].parse_warnings[0].rule(), "python_no_brackets");
    // BFCL's tags, when its prompt asks for them.
    let response = read("<TOOLCALL>[get_weather(city='Paris', days=2), get_time(tz='CET')]</TOOLCALL><|eot_id|>");
    assert_eq!((response.text.as_str(), response.calls.len()), ("", 2));
    assert!(response.warnings.is_empty());
    let response = read("<TOOLCALL>[get_time(tz='CET')] done</TOOLCALL> Bye.");
    assert_eq!((response.text.as_str(), response.calls.len()), ("done Bye.", 1));
    // A fence of other code stays text.
    let code = "```python\nprint(len(s))\n```";
    assert_eq!(read(code).text, code);
}

#[test]
fn a_call_cut_by_the_end_of_the_answer_is_refused_and_the_calls_before_it_are_read() {
    let response = read("[get_weather(city=\"Paris\", days=3), get_time(tz='CE<|eot_id|>");
    let [weather, time] = &response.calls[..] else { panic!("{response:?}") };
    assert!(weather.parse_error.is_none());
    assert_eq!(weather.arguments, Some(json!({"city": "Paris", "days": 3})));
    assert_eq!(time.tool_name, "get_time");
    assert_eq!(time.raw_arguments, "get_time(tz='CE");
    assert_eq!(time.arguments, None);
    assert_eq!(
        errors(time),
        vec![(
            "",
            "truncated_call",
            "the whole call, with the string's closing quote and `)`",
            Some("the end of the answer")
        )]
    );
    let call = one("[get_weather(city=\"Paris\", days=[3");
    assert_eq!(errors(&call)[0].2, "the whole call, with `)`");
}

#[test]
fn a_list_missing_only_its_bracket_is_read_with_a_warning() {
    let response = read("[get_weather(city=\"Paris\", days=3), get_time(tz='CET')");
    assert_eq!(response.calls.len(), 2);
    assert!(response.calls.iter().all(|c| c.parse_error.is_none()));
    let [warning] = &response.warnings[..] else { panic!("{:?}", response.warnings) };
    assert_eq!(
        (warning.rule(), warning.expected(), warning.received(), warning.action()),
        (
            "python_unclosed_list",
            "`]` to close the list of calls",
            "the end of the answer",
            "read the calls before it and ended the list"
        )
    );
    // Followed by an end-of-turn token or by words.
    let response = read("[get_time(tz='CET')<|eot_id|>");
    assert_eq!((response.calls.len(), response.warnings[0].received()), (1, "`<|eot_id|>`"));
    let response = read("[get_time(tz='CET') and then I will answer.");
    assert_eq!(response.text, " and then I will answer.");
}

#[test]
fn comments_and_line_breaks_inside_a_call_are_read_as_python_reads_them() {
    let call = one("[get_weather(\n    city='Paris',  # the capital\n    days=3,\n)]");
    assert_eq!(call.arguments, Some(json!({"city": "Paris", "days": 3})));
    assert_eq!(call.raw_arguments, "get_weather(\n    city='Paris',  # the capital\n    days=3,\n)");
}

#[test]
fn brackets_and_quotes_inside_strings_do_not_end_the_call() {
    let call = one(r#"[echo(q="a) ] } (", r='''it's "x")''', s='# not a comment')]"#);
    assert_eq!(call.arguments, Some(json!({"q": "a) ] } (", "r": "it's \"x\")", "s": "# not a comment"})));
}

#[tokio::test]
async fn an_executor_run_gives_the_typed_values() {
    let executor = Executor::new(catalog());
    let response = read("<|python_start|>[get_weather(city=\"Paris\", days=\"3\"), get_prime_factors(number=450, formatted=true)]<|python_end|><|eot|>");
    let records = executor.execute_batch(response.calls).await;
    let all = |i: usize| -> Vec<(String, String, String, String, String)> {
        records[i]
            .warnings()
            .iter()
            .map(|w| (w.pointer().into(), w.rule().into(), w.expected().into(), w.received().into(), w.action().into()))
            .collect()
    };
    assert_eq!(records[0].content.text, "Paris: sunny for 3 days");
    assert_eq!(
        all(0),
        vec![(
            "/days".into(),
            "string_to_integer".into(),
            "an integer".into(),
            "\"3\"".into(),
            "converted to 3".into()
        )]
    );
    assert_eq!(records[1].content.text, "450 true");
    assert_eq!(
        all(1),
        vec![(
            "/formatted".into(),
            "python_json_literal".into(),
            "`True`".into(),
            "true".into(),
            "read as true".into()
        )]
    );
}

#[tokio::test]
async fn an_executor_refuses_a_call_with_a_variable_and_tells_the_model_why() {
    let executor = Executor::new(catalog());
    let call = one("[get_weather(city=my_city, days=2)]");
    let record = executor.execute(call).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(
        record.content.text,
        format!("The arguments for `get_weather` were not accepted:\n- `city`: expected {LITERAL}; got `my_city`, a variable name, not a value.\nSend the corrected arguments to `get_weather` again.")
    );
}

/// A call as (name, arguments, its warnings' rules at their pointers, its errors' rules).
type Expected = (&'static str, serde_json::Value, Vec<(&'static str, &'static str)>, Vec<&'static str>);

fn data(file: &str) -> OpenModelResponse {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/open_models/python").join(file);
    read(&std::fs::read_to_string(path).unwrap())
}

fn check(file: &str, text: &str, structure: &[&str], expected: Vec<Expected>) {
    let response = data(file);
    assert_eq!(response.form, Some(CallForm::Python), "{file}");
    assert_eq!(response.text, text, "{file}");
    assert_eq!(response.warnings.iter().map(|w| w.rule()).collect::<Vec<_>>(), structure, "{file}");
    type Owned = (String, serde_json::Value, Vec<(String, String)>, Vec<String>);
    let calls: Vec<Owned> = response
        .calls
        .iter()
        .map(|c| {
            let w = c.parse_warnings.iter().map(|w| (w.pointer().to_owned(), w.rule().to_owned())).collect();
            let e = errors(c).into_iter().map(|e| e.1.to_owned()).collect();
            (c.tool_name.clone(), c.arguments.clone().unwrap_or(serde_json::Value::Null), w, e)
        })
        .collect();
    let expected: Vec<Owned> = expected
        .into_iter()
        .map(|(name, arguments, w, e)| {
            let w = w.into_iter().map(|(p, r)| (p.to_owned(), r.to_owned())).collect();
            (name.to_owned(), arguments, w, e.into_iter().map(str::to_owned).collect())
        })
        .collect();
    assert_eq!(calls, expected, "{file}");
}

#[test]
fn the_answers_in_the_data_folder_read_as_expected() {
    check(
        "llama32_python_tag.txt",
        "",
        &[],
        vec![
            ("get_weather", json!({"city": "São Paulo", "days": 3}), vec![], vec![]),
            ("get_time", json!({"tz": "America/Sao_Paulo"}), vec![], vec![]),
        ],
    );
    check(
        "llama4_python_start.txt",
        "",
        &[],
        vec![
            ("get_weather", json!({"city": "東京", "days": "3"}), vec![], vec![]),
            ("get_time", json!({"tz": "Asia/Tokyo"}), vec![], vec![]),
        ],
    );
    check(
        "bfcl_json_literals_tuples.txt",
        "",
        &[],
        vec![
            (
                "get_prime_factors",
                json!({"number": 450, "formatted": true}),
                vec![("/formatted", "python_json_literal")],
                vec![],
            ),
            (
                "calculate_distance",
                json!({"coord1": [33.4484, -112.074], "coord2": [34.0522, -118.2437], "unit": "miles"}),
                vec![("/coord1", "python_tuple"), ("/coord2", "python_tuple")],
                vec![],
            ),
            (
                "search_hotels",
                json!({"filters": {"stars": [4, 5], "pool": true, "near": null}, "note": "Café \"Ÿ\" – é\n"}),
                vec![("/filters/near", "python_json_literal")],
                vec![],
            ),
        ],
    );
    check(
        "prose_then_list.txt",
        "Je vais vérifier la météo à Zürich : \nUn instant… 🌦\u{fe0f}",
        &[],
        vec![("get_weather", json!({"city": "Zürich", "days": 2}), vec![], vec![])],
    );
    check(
        "cut_inside_string.txt",
        "",
        &[],
        vec![
            ("get_weather", json!({"city": "Paris", "days": 3}), vec![], vec![]),
            ("get_time", serde_json::Value::Null, vec![], vec!["truncated_call"]),
        ],
    );
    check(
        "cut_inside_list.txt",
        "",
        &[],
        vec![("get_weather", serde_json::Value::Null, vec![], vec!["truncated_call"])],
    );
    check(
        "markdown_fence.txt",
        "Here are the calls:\n\n",
        &[],
        vec![
            ("get_weather", json!({"city": "Reykjavík", "days": 1}), vec![], vec![]),
            ("get_time", json!({"tz": "Atlantic/Reykjavik"}), vec![], vec![]),
        ],
    );
    check(
        "several_lists_refusals.txt",
        "\n\n",
        &["python_several_lists", "python_several_lists"],
        vec![
            ("get_weather", json!({"city": "Lyon", "days": 1}), vec![], vec![]),
            ("get_time", json!({"tz": "CET"}), vec![], vec![]),
            ("random_forest.train", json!({"n_estimators": 100}), vec![], vec!["python_not_literal"]),
            (
                "finance_calculator.npv",
                json!({"cash_flows": -50000, "discount_rate": 0.08}),
                vec![],
                vec!["python_positional"],
            ),
        ],
    );
    check(
        "bfcl_toolcall_tags.txt",
        "I will look both up.\n",
        &[],
        vec![
            ("get_weather", json!({"city": "Montréal", "days": 2}), vec![], vec![]),
            ("get_time", json!({"tz": "America/Toronto"}), vec![], vec![]),
        ],
    );
    check(
        "bare_calls_per_line.txt",
        "\n",
        &[],
        vec![
            ("get_weather", json!({"city": "Αθήνα", "days": 4}), vec![("", "python_no_brackets")], vec![]),
            ("get_time", json!({"tz": "Europe/Athens"}), vec![("", "python_no_brackets")], vec![]),
        ],
    );
}

#[test]
fn a_long_call_streamed_in_small_chunks_is_scanned_once() {
    // Quadratic rescanning would read 16,000 chunks times a megabyte here.
    let text = "é".repeat(500_000);
    let answer = format!("[get_time(tz='{text}'), get_time(tz=\"\"\"{text}\"\"\")]");
    let parser = OpenModelParser::new(&catalog());
    let mut stream = parser.stream();
    let mut events = Vec::new();
    for chunk in answer.as_bytes().chunks(64) {
        events.extend(stream.feed_bytes(chunk));
    }
    events.extend(stream.finish());
    let response = OpenModelResponse::from_events(events);
    assert_eq!(response.calls.len(), 2);
    assert_eq!(response.calls[1].arguments, Some(json!({ "tz": text })));
    // A long word at a line start, and a long blank after `[`, waiting for their end.
    let answer = format!("{}\n[{}get_time(tz='x')]", "w".repeat(1 << 20), " ".repeat(1 << 20));
    let mut stream = parser.stream();
    let mut events = Vec::new();
    for chunk in answer.as_bytes().chunks(64) {
        events.extend(stream.feed_bytes(chunk));
    }
    events.extend(stream.finish());
    assert_eq!(OpenModelResponse::from_events(events).text, answer);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    const PIECES: &[&str] = &[
        "[",
        "]",
        "(",
        ")",
        "{",
        "}",
        ",",
        ":",
        "=",
        "get_weather(",
        "get_time(",
        "echo(",
        "city=",
        "days=",
        "tz=",
        "x",
        "\"",
        "'",
        "'''",
        "\"\"\"",
        "\\",
        "\\u00e9",
        "\\x4",
        "r'",
        "f'",
        "b'",
        "#",
        "\n",
        " ",
        "1_0",
        "0x1F",
        "-",
        "1e-9",
        "True",
        "true",
        "null",
        "None",
        "é",
        "😀",
        "<|python_tag|>",
        "<|eot_id|>",
        "```python\n",
        "```",
        "math.",
        "my_data",
        "[get_weather(city='Paris', days=3)]",
        "lambda",
        " for ",
        "(1,)",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Any text made of the form's pieces reads without a panic, and streamed in pieces of any
        /// size it reads as it does whole.
        #[test]
        fn any_text_reads_the_same_whole_and_streamed(
            pieces in prop::collection::vec(prop::sample::select(PIECES), 0..40),
            size in 1usize..9,
        ) {
            let answer: String = pieces.concat();
            let parser = OpenModelParser::new(&catalog());
            let whole = parser.parse(&answer);
            let mut stream = parser.stream();
            let mut events = Vec::new();
            for chunk in answer.as_bytes().chunks(size) {
                events.extend(stream.feed_bytes(chunk));
            }
            events.extend(stream.finish());
            prop_assert_eq!(OpenModelResponse::from_events(events), whole);
        }

        /// Any text at all (pieces of the form between arbitrary characters) reads without a
        /// panic, the same whole and streamed.
        #[test]
        fn arbitrary_text_reads_the_same_whole_and_streamed(
            parts in prop::collection::vec(("\\PC{0,6}", prop::sample::select(PIECES)), 0..20),
            size in 1usize..9,
        ) {
            let answer: String = parts.iter().map(|(noise, piece)| format!("{noise}{piece}")).collect();
            let parser = OpenModelParser::new(&catalog());
            let whole = parser.parse(&answer);
            let mut stream = parser.stream();
            let mut events = Vec::new();
            for chunk in answer.as_bytes().chunks(size) {
                events.extend(stream.feed_bytes(chunk));
            }
            events.extend(stream.finish());
            prop_assert_eq!(OpenModelResponse::from_events(events), whole);
        }
    }
}

#[test]
fn brackets_that_do_not_match_are_refused_as_broken_python() {
    let call = one("[echo(a=[1, 2), b=2)]");
    assert_eq!(errors(&call)[0], ("/a", "python_syntax", "`]` to close the value", Some("`)`")));
    assert!(call.parse_error.is_some());
    let call = one("[echo(a={'k': 1)]");
    assert_eq!(
        errors(&call),
        vec![
            ("", "python_syntax", "`)` to close the call", Some("`]`")),
            ("/a", "python_syntax", "`}` to close the value", Some("`)`")),
        ]
    );
}

#[tokio::test]
async fn an_unknown_tool_is_refused_with_the_closest_names_and_its_arguments_kept() {
    let executor = Executor::new(catalog());
    let record = executor.execute(one("[get_wether(city='Paris', days=2)]")).await;
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(
        record.content.text,
        "There is no tool named `get_wether`. The closest existing tools are: `get_weather`, `get_time`, `get_prime_factors`. Call one of them instead."
    );
    assert_eq!(record.request.arguments, Some(json!({"city": "Paris", "days": 2})));
    assert!(record.request.parse_error.is_none());
    assert_eq!(record.request.raw_arguments, "get_wether(city='Paris', days=2)");
}

#[test]
fn a_streamed_call_comes_out_as_soon_as_its_closing_bracket_arrives() {
    let parser = OpenModelParser::new(&catalog());
    let mut stream = parser.stream();
    let calls = |events: &[OpenModelEvent]| events.iter().filter(|e| matches!(e, OpenModelEvent::Call(_))).count();
    let events = stream.feed("Checking. [get_weather(city='Paris', days=3");
    assert_eq!(events, vec![OpenModelEvent::Text("Checking. ".into()), OpenModelEvent::Form(CallForm::Python)]);
    assert_eq!(calls(&stream.feed(")")), 1);
    assert_eq!(calls(&stream.feed(", get_time(tz='a)b'")), 0);
    assert_eq!(calls(&stream.feed(")")), 1);
    assert_eq!(stream.feed("]"), vec![]);
    assert_eq!(stream.finish(), vec![]);
}

#[test]
fn the_form_is_detected_by_its_shape_and_can_be_named() {
    use tool_core::open_models::detect;
    assert_eq!(detect("[get_weather(city='Paris', days=3)]<|eot_id|>"), vec![CallForm::Python]);
    assert_eq!(detect("Sure: [ping()]"), vec![CallForm::Python]);
    // Without tools, a call needs its brackets and a named argument (or none).
    assert!(detect("get_weather(city='Paris')").is_empty());
    assert!(detect("[get_weather('Paris')]").is_empty());
    assert_eq!(CallForm::from_name("python"), Some(CallForm::Python));
    assert_eq!(CallForm::Python.to_string(), "python");
    // Named, the form alone is read: another form's text is words.
    let parser = OpenModelParser::new(&catalog()).form(CallForm::Python);
    let kimi = "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>";
    let response = parser.parse(&format!("{kimi}[get_time(tz='CET')]"));
    assert_eq!(response.text, kimi);
    assert_eq!(response.calls.len(), 1);
}
