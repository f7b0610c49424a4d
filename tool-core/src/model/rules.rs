//! The rule ids of [`ParseWarning`](crate::ParseWarning)s and
//! [`ArgumentError`](crate::ArgumentError)s, each defined once.
//!
//! A rule id is part of the records a host keeps and the JSON it sends on, so its text never
//! changes: compare a warning's [`rule()`](crate::ParseWarning::rule) or an error's
//! [`rule`](crate::ArgumentError::rule) with these constants rather than with a copy of the
//! text. Each id is in a table of the guides: `docs/extraction.md` (the arguments' repairs,
//! conversions and errors), `docs/xml.md` (the XML call protocol), `docs/open-models.md` (each
//! open model's form) and `docs/provider-names.md` (values an export sent as JSON text).
//!
//! One family of errors has no constant: a declared constraint that fails is named by its JSON
//! Schema keyword in snake_case (`maximum`, `exclusive_minimum`, `min_length`, `pattern`,
//! `format`, `max_items`, `unique_items`, `enum`, `const`, ...).
//!
//! The ids of every form are here whatever the features: a record read back may hold any of
//! them.
//!
//! ```
//! use tool_core::{rules, ParseWarning};
//!
//! let warning = ParseWarning::new("/limit", "string_to_integer", "an integer", "\"5\"", "converted to 5");
//! assert_eq!(warning.rule(), rules::STRING_TO_INTEGER);
//! ```

// The arguments text as a whole (pointer `""`): repairs, each a warning.

/// The arguments were empty or only whitespace; read as `{}`.
pub const EMPTY_ARGUMENTS: &str = "empty_arguments";
/// A markdown code fence around the arguments (or only after them) was removed.
pub const CODE_FENCE_REMOVED: &str = "code_fence_removed";
/// Special tokens or tags before or after the arguments (`<|call|>`, `</tool_call>`) were removed.
pub const SPECIAL_TOKEN_REMOVED: &str = "special_token_removed";
/// A byte order mark (U+FEFF) before the arguments was removed.
pub const BYTE_ORDER_MARK_REMOVED: &str = "byte_order_mark_removed";
/// The same object sent several times in a row was read once.
pub const IDENTICAL_OBJECTS_MERGED: &str = "identical_objects_merged";
/// The arguments were a JSON string holding the object; the object inside was read.
pub const DOUBLE_ENCODED_ARGUMENTS: &str = "double_encoded_arguments";
/// Python literals (single quotes, `True`, `False`, `None`) were read as JSON.
pub const PYTHON_LITERAL: &str = "python_literal";
/// Trailing commas were dropped.
pub const TRAILING_COMMA_REMOVED: &str = "trailing_comma_removed";
/// Invalid escapes in a string were kept as backslashes.
pub const INVALID_ESCAPE_REPAIRED: &str = "invalid_escape_repaired";
/// A control character written raw inside a string was kept as that character.
pub const RAW_CONTROL_CHARACTER: &str = "raw_control_character";
/// `//` and `/* */` comments were dropped.
pub const COMMENT_REMOVED: &str = "comment_removed";
/// Keys without quotes were read as strings.
pub const UNQUOTED_KEY: &str = "unquoted_key";

// The arguments text as a whole: refusals, each an error.

/// The text ends before the JSON does.
pub const TRUNCATED_JSON: &str = "truncated_json";
/// The text is not JSON that can be read without guessing.
pub const INVALID_JSON: &str = "invalid_json";
/// Different objects were sent one after another.
pub const MULTIPLE_OBJECTS: &str = "multiple_objects";
/// The arguments are valid JSON but not an object (`[1, 2]`, `null`).
pub const NOT_AN_OBJECT: &str = "not_an_object";
/// The arguments text is longer than the catalog's limit.
pub const ARGUMENTS_TOO_LARGE: &str = "arguments_too_large";
/// An object of the arguments has more keys than the catalog's limit.
pub const TOO_MANY_KEYS: &str = "too_many_keys";

// One value, converted by its declared type: warnings.

/// A string read as the boolean a boolean parameter declares (`"true"`).
pub const STRING_TO_BOOLEAN: &str = "string_to_boolean";
/// `1` or `0` read as the boolean a boolean parameter declares.
pub const NUMBER_TO_BOOLEAN: &str = "number_to_boolean";
/// A string read as the integer an integer parameter declares (`"42"`).
pub const STRING_TO_INTEGER: &str = "string_to_integer";
/// A float without a fraction read as an integer (`3.0`).
pub const FLOAT_TO_INTEGER: &str = "float_to_integer";
/// A float with a fraction truncated to the integer a parameter declares (`3.7` → `3`).
pub const FLOAT_TRUNCATED: &str = "float_truncated";
/// A string read as the number a number parameter declares (`"2.5"`).
pub const STRING_TO_NUMBER: &str = "string_to_number";
/// A boolean or number kept as its text where a string is declared.
pub const LITERAL_TO_STRING: &str = "literal_to_string";
/// A list or object sent as JSON text inside a string was decoded.
pub const JSON_STRING_DECODED: &str = "json_string_decoded";
/// A scalar or object where a list is declared was wrapped in a one-element list.
pub const SCALAR_WRAPPED: &str = "scalar_wrapped";
/// A null word (`"None"`, `"null"`, `""`) for an optional value was read as absent.
pub const NULL_LITERAL: &str = "null_literal";
/// `null` for an optional parameter that is no `Option` was read as absent: its default applies.
pub const NULL_AS_ABSENT: &str = "null_as_absent";
/// An enum token in another case was read as the one token it matches.
pub const ENUM_CASE_NORMALIZED: &str = "enum_case_normalized";
/// An enum token sent as a string for a number, or the reverse, was read as the token.
pub const ENUM_TOKEN_RETYPED: &str = "enum_token_retyped";
/// A wrapper object around the arguments (`{"arguments": {..}}`) was unwrapped.
pub const WRAPPER_UNWRAPPED: &str = "wrapper_unwrapped";
/// A number no 64-bit float holds (`1e400`) was kept as its text.
pub const NUMBER_OUT_OF_RANGE: &str = "number_out_of_range";
/// A `format: uri` value that is not an absolute URI was kept as it is.
pub const URI_NOT_ABSOLUTE: &str = "uri_not_absolute";

// Keys: warnings.

/// A key naming a parameter (field) but for case and separators was read as that parameter.
pub const PARAMETER_NAME_NORMALIZED: &str = "parameter_name_normalized";
/// A key no parameter (field) declares was dropped.
pub const UNKNOWN_PARAMETER: &str = "unknown_parameter";
/// A parameter was sent twice; the last value was kept.
pub const DUPLICATE_PARAMETER: &str = "duplicate_parameter";
/// A key inside a parameter's object was sent twice; the last value was kept.
pub const DUPLICATE_KEY: &str = "duplicate_key";

// The call as a whole: warnings.

/// The call names a tool the catalog does not have; its arguments were read without types.
pub const TOOL_DEFINITION_MISSING: &str = "tool_definition_missing";
/// A value an export sent as JSON text came back as text that is no JSON; kept as it came.
pub const JSON_TEXT_UNDECODED: &str = "json_text_undecoded";

// One value: errors.

/// A required parameter (field) is missing.
pub const MISSING_REQUIRED: &str = "missing_required";
/// A value of another type than the declared one.
pub const INVALID_TYPE: &str = "invalid_type";
/// A value of the declared type that the type still refuses (out of its range).
pub const INVALID_VALUE: &str = "invalid_value";
/// A list or tuple of the wrong length.
pub const INVALID_LENGTH: &str = "invalid_length";
/// A token (an enum variant) the declared type does not have.
pub const NOT_ALLOWED: &str = "not_allowed";

// Calls read from a model's text (the XML protocol and open models' forms): errors.

/// The end of the answer cut the call; it is refused, never run.
pub const TRUNCATED_CALL: &str = "truncated_call";
/// An argument given twice with different values.
pub const CONFLICTING_ARGUMENT: &str = "conflicting_argument";
/// An argument given twice with the same value; the value was kept (a warning).
pub const DUPLICATE_ARGUMENT: &str = "duplicate_argument";

// The XML call protocol: warnings.

/// An `<invoke>` outside a `<function_calls>` block was read as a call.
pub const XML_NO_WRAPPER: &str = "xml_no_wrapper";
/// A name in single quotes or none (`name='x'`, `name=x`) was read.
pub const XML_ATTRIBUTE_QUOTES: &str = "xml_attribute_quotes";
/// Qwen's `<tool_call><function=name>..</function></tool_call>` was read as an invoke.
pub const XML_QWEN_FORM: &str = "xml_qwen_form";
/// Hermes' `<tool_call>{"name": .., "arguments": {..}}</tool_call>` was read as a call.
pub const XML_JSON_TOOL_CALL: &str = "xml_json_tool_call";
/// An `<invoke>` or a `<parameter>` without a name.
pub const XML_MISSING_NAME: &str = "xml_missing_name";
/// A value not closed by `</parameter>` was ended where the next tag begins.
pub const XML_UNCLOSED_PARAMETER: &str = "xml_unclosed_parameter";
/// A call not closed by `</invoke>` was ended where the next call or the block's end begins.
pub const XML_UNCLOSED_INVOKE: &str = "xml_unclosed_invoke";
/// A closing tag followed by more of the value was kept in the value.
pub const XML_CLOSE_TAG_IN_VALUE: &str = "xml_close_tag_in_value";
/// Text between an invoke's parameters was left out of the arguments.
pub const XML_TEXT_IN_INVOKE: &str = "xml_text_in_invoke";
/// A tag where it does not belong was kept as text or ignored.
pub const XML_UNEXPECTED_TAG: &str = "xml_unexpected_tag";
/// `<![CDATA[` without `]]>` was read as text.
pub const XML_UNCLOSED_CDATA: &str = "xml_unclosed_cdata";
/// A `<function_calls>` inside a block was ignored.
pub const XML_NESTED_BLOCK: &str = "xml_nested_block";
/// The answer ended inside a block; its calls were read.
pub const XML_UNCLOSED_BLOCK: &str = "xml_unclosed_block";

// Pythonic calls (`[get_weather(city="Paris")]`): warnings.

/// A call written without `[..]` was read.
pub const PYTHON_NO_BRACKETS: &str = "python_no_brackets";
/// A second list of calls in the answer was read.
pub const PYTHON_SEVERAL_LISTS: &str = "python_several_lists";
/// Two calls in a list with no `,` between them were both read.
pub const PYTHON_MISSING_COMMA: &str = "python_missing_comma";
/// A list of calls without its `]` was read up to where it stops.
pub const PYTHON_UNCLOSED_LIST: &str = "python_unclosed_list";
/// `true`, `false` or `null` written for `True`, `False`, `None` was read as the JSON value.
pub const PYTHON_JSON_LITERAL: &str = "python_json_literal";
/// A tuple was read as a list.
pub const PYTHON_TUPLE: &str = "python_tuple";
/// A set was read as the list of its distinct elements.
pub const PYTHON_SET: &str = "python_set";
/// A dict key that is a number or a constant was used as text; as an error, a key that is a
/// list, tuple or dict.
pub const PYTHON_DICT_KEY: &str = "python_dict_key";
/// An integer beyond 64 bits or a float beyond the float range was kept as its text.
pub const PYTHON_BIG_NUMBER: &str = "python_big_number";
/// An integer written with leading zeros was kept as its text.
pub const PYTHON_LEADING_ZERO: &str = "python_leading_zero";
/// A value without its name was read by the declared order; as an error, one that cannot be.
pub const PYTHON_POSITIONAL: &str = "python_positional";
/// A Python keyword as an argument's name was read as that argument.
pub const PYTHON_RESERVED_NAME: &str = "python_reserved_name";
/// A line break inside a one-line string was kept in the text.
pub const PYTHON_NEWLINE_IN_STRING: &str = "python_newline_in_string";
/// A surrogate pair written as two escapes was joined into one character.
pub const PYTHON_SURROGATE_PAIR: &str = "python_surrogate_pair";
/// Half a surrogate pair was read as U+FFFD.
pub const PYTHON_LONE_SURROGATE: &str = "python_lone_surrogate";
/// A `\N{name}` escape was kept as written.
pub const PYTHON_NAMED_ESCAPE: &str = "python_named_escape";
/// An incomplete `\x`, `\u` or `\U` escape was kept as written.
pub const PYTHON_BAD_ESCAPE: &str = "python_bad_escape";
/// A dict key given twice with the same value; as an error, with different values.
pub const PYTHON_DUPLICATE_KEY: &str = "python_duplicate_key";

// Pythonic calls: errors.

/// A value that is not a literal (a variable, a call, arithmetic).
pub const PYTHON_NOT_LITERAL: &str = "python_not_literal";
/// Values nested more than 128 levels.
pub const PYTHON_TOO_DEEP: &str = "python_too_deep";
/// The call's or a value's own structure is broken.
pub const PYTHON_SYNTAX: &str = "python_syntax";

// Llama's JSON calls: warnings.

/// The calls came as a JSON list.
pub const LLAMA_JSON_LIST: &str = "llama_json_list";
/// Calls separated by `,` instead of `;`.
pub const LLAMA_COMMA_SEPARATOR: &str = "llama_comma_separator";
/// The calls were inside a markdown code fence, which was removed.
pub const LLAMA_CODE_FENCE: &str = "llama_code_fence";
/// `"parameters"` was a JSON string; the JSON text inside was read.
pub const LLAMA_ARGUMENTS_STRING: &str = "llama_arguments_string";
/// A declared tool's name without `"parameters"`; the object's other keys were read as the arguments.
pub const LLAMA_NO_ARGUMENTS_KEY: &str = "llama_no_arguments_key";
/// A key a call does not have was ignored.
pub const LLAMA_UNKNOWN_KEY: &str = "llama_unknown_key";
/// `"name"` was no string; its text was read as the name.
pub const LLAMA_NAME_NOT_STRING: &str = "llama_name_not_string";
/// Keys or the name in single quotes were read.
pub const LLAMA_SINGLE_QUOTES: &str = "llama_single_quotes";

// Mistral's `[TOOL_CALLS]`: warnings.

/// A name followed by its arguments without `[ARGS]`.
pub const MISTRAL_NO_ARGS_TOKEN: &str = "mistral_no_args_token";
/// One call object after `[TOOL_CALLS]` without its list.
pub const MISTRAL_NO_LIST: &str = "mistral_no_list";
/// A name without `[ARGS]` and arguments was read without arguments.
pub const MISTRAL_NO_ARGUMENTS: &str = "mistral_no_arguments";
/// The call's keys or name in single quotes were read.
pub const MISTRAL_SINGLE_QUOTES: &str = "mistral_single_quotes";
/// `"arguments"` was a JSON string; the JSON text inside was read.
pub const MISTRAL_ARGUMENTS_STRING: &str = "mistral_arguments_string";
/// A key a call does not have was ignored.
pub const MISTRAL_UNKNOWN_KEY: &str = "mistral_unknown_key";
/// A call object without `"arguments"`; its other keys were read as the arguments.
pub const MISTRAL_NO_ARGUMENTS_KEY: &str = "mistral_no_arguments_key";
/// `"name"` was no string; its text was read as the name.
pub const MISTRAL_NAME_NOT_STRING: &str = "mistral_name_not_string";

// DeepSeek: warnings.

/// A call without the section token before it was read.
pub const DEEPSEEK_NO_SECTION: &str = "deepseek_no_section";
/// A call without its end token was ended where the next call or the section's end begins.
pub const DEEPSEEK_UNCLOSED_CALL: &str = "deepseek_unclosed_call";
/// A call without its separator token; the name was read up to the arguments.
pub const DEEPSEEK_NO_SEP: &str = "deepseek_no_sep";
/// V3's arguments without their fence were read as they are.
pub const DEEPSEEK_NO_FENCE: &str = "deepseek_no_fence";

// gpt-oss harmony: warnings.

/// A recipient without `functions.` called the tool named as written.
pub const HARMONY_BARE_RECIPIENT: &str = "harmony_bare_recipient";
/// A function call on another channel than `commentary` was read.
pub const HARMONY_CALL_CHANNEL: &str = "harmony_call_channel";
/// A content type written without `<|constrain|>`; the arguments were read as JSON.
pub const HARMONY_CONTENT_TYPE: &str = "harmony_content_type";
/// A call ended by `<|end|>` or `<|return|>` was read.
pub const HARMONY_CALL_END: &str = "harmony_call_end";
/// A message without its end token was ended before the next header.
pub const HARMONY_UNCLOSED_MESSAGE: &str = "harmony_unclosed_message";
/// A header not followed by `<|message|>`; the opening token was dropped.
pub const HARMONY_NO_MESSAGE: &str = "harmony_no_message";
/// A message of another role than `assistant` was left out.
pub const HARMONY_OTHER_ROLE: &str = "harmony_other_role";
/// The answer ended after a call's whole arguments without `<|call|>`; the call was read.
pub const HARMONY_NO_CALL_TOKEN: &str = "harmony_no_call_token";

// Kimi K2: warnings.

/// The singular section token some versions write was read.
pub const KIMI_SECTION_TOKEN: &str = "kimi_section_token";
/// A call without a section around it was read.
pub const KIMI_NO_SECTION: &str = "kimi_no_section";
/// An id without `functions.`; the name was read from the id.
pub const KIMI_ID_FORM: &str = "kimi_id_form";
/// No arguments token after the id; the call was read without arguments.
pub const KIMI_NO_ARGUMENTS_TOKEN: &str = "kimi_no_arguments_token";
/// A call without its end token was ended where the next call or the section's end begins.
pub const KIMI_UNCLOSED_CALL: &str = "kimi_unclosed_call";

// GLM: warnings.

/// `</arg_value>` missing; the value was ended before the next key or the call's end.
pub const GLM_UNCLOSED_VALUE: &str = "glm_unclosed_value";
/// `</arg_key>` missing before `<arg_value>`; the key was ended.
pub const GLM_UNCLOSED_KEY: &str = "glm_unclosed_key";
/// A key without `<arg_value>` after it was left out of the arguments.
pub const GLM_MISSING_VALUE: &str = "glm_missing_value";
/// Text between the pairs that is no pair was ignored.
pub const GLM_STRAY_TEXT: &str = "glm_stray_text";
/// `</tool_call>` missing before the next `<tool_call>`; the call was ended before it.
pub const GLM_UNCLOSED_CALL: &str = "glm_unclosed_call";
