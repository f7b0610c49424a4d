"""Our provider output against the official Python SDKs (pinned in requirements.txt).

Run by tests/tests/provider_sdks.rs, which asserts on the JSON report printed on stdout:

    compare_sdks.py schemas EXPORTS.json
        EXPORTS: {dialect: {our tool name: the tool in that dialect's wire form}}, as the test
        writes it. Checks:
        - openai_chat_strict / openai_responses_strict: each tool equals what openai-python's
          `pydantic_function_tool` / `pydantic_responses_function_tool` (which call
          `openai.lib._pydantic.to_strict_json_schema`) make of the equivalent pydantic model
          in OPENAI_MODELS, after `title` and `default` are dropped from both. Any other
          difference must be one of DIFFERENCES, recognised at its place and listed in the
          report; anything else fails. Both tools also round-trip through the SDK's request
          types.
        - gemini / gemini_json_schema: each declaration validates as google-genai's
          `types.FunctionDeclaration` and its `parameters` as `types.Schema` (both forbid
          unknown fields) without warnings, and dumps back to what we sent (the SDK writes
          `type` in upper case, the REST enum names; we send lower case, also accepted).
        - anthropic / anthropic_strict: each tool validates as the anthropic SDK's `ToolParam`
          (a TypedDict, through `pydantic.TypeAdapter`) and dumps back unchanged.

    compare_sdks.py generated EXPORTS.json
        EXPORTS as for `schemas`, holding the generated set (tests/src/generated.rs): every tool
        of every dialect is checked, and the report counts them per dialect.
        - gemini / gemini_json_schema, anthropic / anthropic_strict: as for `schemas`.
        - openai_chat_strict / openai_responses_strict: the tool round-trips through the SDK's
          request type; its `parameters` are a fixpoint of openai-python's strict helper
          (`openai.lib._pydantic._ensure_strict_json_schema`: nothing left for it to close,
          require or inline); and they keep the documented strict rules the helper does not
          enforce (OPENAI_STRICT_KEYWORDS, OPENAI_STRICT_FORMATS, a declared kind of value on
          every node, `$ref` only into the root's `$defs` and without siblings).

    compare_sdks.py calls FIXTURE.json...
        Each recorded response read by its SDK's own response model (chosen by the file name's
        prefix): its tool calls as [{name, id, arguments (parsed), provider_data?}], where
        provider_data holds what must go back with the result (the Responses item id, Gemini's
        thoughtSignature); its text; its stop reason.

    compare_sdks.py search SEARCH.json FIXTURE...
        SEARCH: {"anthropic": {label: tools array}, "openai_responses": {label: tools array},
        "anthropic_results": [tool_result blocks], "openai_outputs": [tool_search_output input
        items]}, as tests/tests/tool_search_providers.rs's SDK test writes them. Every tool of
        every array validates as the SDK's union of request tools (`anthropic.types.ToolUnionParam`,
        `openai.types.responses.ToolParam`) and round-trips unchanged through its own type
        (`ToolParam`, `ToolSearchToolRegex20251119Param`, `ToolSearchToolBm25_20251119Param`;
        `FunctionToolParam`, `NamespaceToolParam`, `ToolSearchToolParam`); each result block
        through `ToolResultBlockParam`, each output item through
        `ResponseToolSearchOutputItemParamParam`. The report lists each tool's label, index and
        type. Each FIXTURE (a whole response, or a stream: `.sse` / `.jsonl`) is read by the
        SDK's response model or stream event union, and the report gives its tool-search steps
        and function calls as the SDK reads them.

On anything unexpected: a message naming the tool, dialect and JSON pointer on stderr, exit 1.
"""

from __future__ import annotations

import base64
import json
import sys
import warnings
from enum import Enum
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Optional

import pydantic
from pydantic import BaseModel, Field, NonNegativeInt

DISTRIBUTIONS = ("openai", "anthropic", "google-genai", "pydantic", "mcp")


class Mismatch(Exception):
    """A result the comparison does not accept; the message says where."""


# --- The pydantic twins of the well-formed Rust tools in provider_sdks.rs. ---
# Written as a Python user would write them: docstrings for descriptions, `Field(description=)`
# for parameters, `NonNegativeInt` for Rust's unsigned integers, `= None` for `Option`.


class Units(str, Enum):
    """Temperature scale."""

    celsius = "celsius"
    fahrenheit = "fahrenheit"


class SdkWeather(BaseModel):
    """Forecast for a city."""

    city: str = Field(description="City name.")
    days: Optional[NonNegativeInt] = Field(default=None, description="Days ahead.")
    units: Units = Field(description="Temperature scale to answer in.")
    hourly: bool = Field(description="Hour-by-hour detail.")


class Customer(BaseModel):
    """A customer."""

    name: str = Field(description="Full name.")
    email: Optional[str] = Field(default=None, description="Where to send the receipt.")


class Line(BaseModel):
    """One order line."""

    sku: str = Field(description="Stock-keeping unit.")
    quantity: NonNegativeInt = Field(description="How many.")
    unit_price: float = Field(description="Price of one, in euros.")


class Priority(str, Enum):
    """How urgent."""

    low = "low"
    high = "high"


class SdkOrder(BaseModel):
    """Places an order."""

    customer: Customer = Field(description="Who orders.")
    lines: list[Line] = Field(description="What is ordered.")
    gift_for: Optional[Customer] = Field(default=None, description="Who receives it as a gift.")
    express: bool = Field(description="Next-day delivery.")
    discount: Optional[float] = Field(default=None, description="Discount rate, 0 to 1.")
    priority: Optional[Priority] = Field(default=None, description="How urgent, if it matters.")


class SdkRound(BaseModel):
    """Rounds a measurement."""

    value: float = Field(description="The amount.")
    places: NonNegativeInt = Field(default=2, description="Decimal places.")


class SdkNow(BaseModel):
    """The current time."""


# Our tool name -> its pydantic twin.
OPENAI_MODELS: dict[str, type[BaseModel]] = {
    "sdk_weather": SdkWeather,
    "sdk_order": SdkOrder,
    "sdk_round": SdkRound,
    "sdk.now": SdkNow,
}

# The differences the OpenAI comparison accepts, each recognised where it occurs.
DIFFERENCES = {
    "nullable_type_list": 'ours `"type": [T, "null"]` (schemars), theirs `anyOf: [{"type": T}, {"type": "null"}]`',
    "unreferenced_def_kept": "theirs keeps a `$defs` entry nothing refers to once its `$ref` was inlined",
    "description_repeated_at_root": "theirs repeats the model docstring as the parameters' description",
    "optional_with_default_nullable": "ours accepts null for a field with a default (O5); theirs makes it required",
    "default_in_description": "ours says the default in the description, `(default: V)`",
}

# Where a schema keyword holds schemas.
SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
SCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")
SCHEMA_SINGLE = ("items", "additionalProperties", "not", "contains")


def pointer_segment(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def compact(value: Any) -> str:
    """JSON as serde_json writes it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def children(schema: Any, at: str):
    """(pointer, subschema) of each schema directly inside `schema`."""
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        here = f"{at}/{pointer_segment(key)}"
        if key in SCHEMA_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                yield f"{here}/{pointer_segment(name)}", sub
        elif key in SCHEMA_LISTS and isinstance(value, list):
            for i, sub in enumerate(value):
                yield f"{here}/{i}", sub
        elif key in SCHEMA_SINGLE and isinstance(value, dict):
            yield here, value


def strip_keywords(schema: Any, at: str, dropped: dict[str, Any]) -> Any:
    """A copy without the `title` and `default` keywords (never property names), each counted
    (`title`) or kept by pointer (`default`)."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        here = f"{at}/{pointer_segment(key)}"
        if key == "title":
            dropped["title"] += 1
        elif key == "default":
            dropped["default"][at] = value
        elif key in SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {n: strip_keywords(s, f"{here}/{pointer_segment(n)}", dropped) for n, s in value.items()}
        elif key in SCHEMA_LISTS and isinstance(value, list):
            out[key] = [strip_keywords(s, f"{here}/{i}", dropped) for i, s in enumerate(value)]
        elif key in SCHEMA_SINGLE and isinstance(value, dict):
            out[key] = strip_keywords(value, here, dropped)
        else:
            out[key] = value
    return out


def refs(schema: Any) -> set[str]:
    if isinstance(schema, dict):
        found = {schema["$ref"]} if isinstance(schema.get("$ref"), str) else set()
        for value in schema.values():
            found |= refs(value)
        return found
    if isinstance(schema, list):
        return set().union(*(refs(v) for v in schema)) if schema else set()
    return set()


def is_null(schema: Any) -> bool:
    return schema == {"type": "null"}


class SchemaComparison:
    """Walks our schema and theirs side by side; each difference is one of DIFFERENCES at a
    pointer, or a Mismatch."""

    def __init__(self, where: str, theirs_root: dict, theirs_defaults: dict[str, Any], description: str):
        self.where = where
        self.theirs_root = theirs_root
        self.theirs_defaults = theirs_defaults
        self.description = description
        self.differences: list[list[str]] = []

    def fail(self, at: str, ours: Any, theirs: Any) -> None:
        raise Mismatch(
            f"{self.where}: unexplained difference at `{at or '/'}`: ours {compact(ours)} vs openai {compact(theirs)}"
        )

    def named(self, name: str, at: str) -> None:
        self.differences.append([name, at])

    def schema(self, ours: Any, theirs: Any, at: str) -> None:
        if ours == theirs:
            return
        if not (isinstance(ours, dict) and isinstance(theirs, dict)):
            self.fail(at, ours, theirs)
        for name, recognise in self.RECOGNISERS:
            rewritten = recognise(self, ours, theirs, at)
            if rewritten is not None:
                self.named(name, at)
                self.schema(rewritten, theirs, at)
                return
        for key in list(ours) + [k for k in theirs if k not in ours]:
            here = f"{at}/{pointer_segment(key)}"
            if key not in ours:
                self.only_theirs(key, theirs[key], at)
            elif key not in theirs:
                self.fail(here, ours[key], "(absent)")
            else:
                self.keyword(key, ours[key], theirs[key], at)

    def keyword(self, key: str, ours: Any, theirs: Any, at: str) -> None:
        here = f"{at}/{pointer_segment(key)}"
        if ours == theirs:
            return
        if key in SCHEMA_MAPS and isinstance(ours, dict) and isinstance(theirs, dict):
            for name in list(ours) + [n for n in theirs if n not in ours]:
                there = f"{here}/{pointer_segment(name)}"
                if name not in ours and key == "$defs" and at == "":
                    self.unreferenced_def(name)
                elif name not in ours or name not in theirs:
                    self.fail(there, ours.get(name, "(absent)"), theirs.get(name, "(absent)"))
                else:
                    self.schema(ours[name], theirs[name], there)
        elif key in SCHEMA_LISTS and isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
            for i, (o, t) in enumerate(zip(ours, theirs)):
                self.schema(o, t, f"{here}/{i}")
        elif key in SCHEMA_SINGLE and isinstance(ours, dict) and isinstance(theirs, dict):
            self.schema(ours, theirs, here)
        elif key == "description" and self.default_in_description(ours, theirs, at):
            self.named("default_in_description", at)
        else:
            self.fail(here, ours, theirs)

    def only_theirs(self, key: str, value: Any, at: str) -> None:
        if at == "" and key == "$defs" and isinstance(value, dict):
            for name in value:
                self.unreferenced_def(name)
        elif at == "" and key == "description" and value == self.description:
            self.named("description_repeated_at_root", at)
        else:
            self.fail(f"{at}/{pointer_segment(key)}", "(absent)", value)

    def unreferenced_def(self, name: str) -> None:
        here = f"/$defs/{pointer_segment(name)}"
        others = {k: v for k, v in self.theirs_root.items() if k != "$defs"}
        others["$defs"] = {k: v for k, v in self.theirs_root["$defs"].items() if k != name}
        if f"#{here}" in refs(others):
            self.fail(here, "(absent)", self.theirs_root["$defs"][name])
        self.named("unreferenced_def_kept", here)

    def default_in_description(self, ours: Any, theirs: Any, at: str) -> bool:
        if at not in self.theirs_defaults or not isinstance(ours, str) or not isinstance(theirs, str):
            return False
        return ours == f"{theirs} (default: {compact(self.theirs_defaults[at])})"

    # Recognisers: given a node where ours and theirs differ, ours rewritten the way theirs
    # says the same thing (then compared again), or None.

    def nullable_type_list(self, ours: dict, theirs: dict, at: str) -> Optional[dict]:
        types = ours.get("type")
        if not (isinstance(types, list) and len(types) == 2 and types[1] == "null" and "anyOf" not in ours):
            return None
        branches = theirs.get("anyOf")
        if "type" in theirs or not (isinstance(branches, list) and len(branches) == 2 and is_null(branches[1])):
            return None
        branch = {k: v for k, v in ours.items() if k != "description"}
        branch["type"] = types[0]
        rewritten: dict[str, Any] = {"anyOf": [branch, {"type": "null"}]}
        if "description" in ours:
            rewritten["description"] = ours["description"]
        return rewritten

    def optional_with_default_nullable(self, ours: dict, theirs: dict, at: str) -> Optional[dict]:
        branches = ours.get("anyOf")
        if at not in self.theirs_defaults or "anyOf" in theirs:
            return None
        if not (isinstance(branches, list) and len(branches) == 2 and is_null(branches[1])):
            return None
        rewritten = dict(branches[0])
        rewritten.update({k: v for k, v in ours.items() if k != "anyOf"})
        return rewritten

    RECOGNISERS: list[tuple[str, Callable[..., Optional[dict]]]] = [
        ("nullable_type_list", nullable_type_list),
        ("optional_with_default_nullable", optional_with_default_nullable),
    ]


def round_trip(adapter: pydantic.TypeAdapter, value: dict, where: str, type_name: str) -> None:
    """`value` validates as the SDK type and dumps back unchanged (so no key was unknown)."""
    try:
        validated = adapter.validate_python(value)
    except Exception as error:  # the SDKs' validators raise more than ValidationError
        raise Mismatch(f"{where}: not a valid {type_name}: {type(error).__name__}: {error}") from None
    dumped = adapter.dump_python(validated, mode="json", exclude_none=False)
    if dumped != value:
        at, ours, theirs = first_difference(value, dumped, "")
        raise Mismatch(f"{where}: {type_name} changed it at `{at or '/'}`: sent {compact(ours)}, got {compact(theirs)}")


def first_difference(a: Any, b: Any, at: str) -> tuple[str, Any, Any]:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if a.get(key, "(absent)") != b.get(key, "(absent)"):
                return first_difference(a.get(key, "(absent)"), b.get(key, "(absent)"), f"{at}/{pointer_segment(key)}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_difference(x, y, f"{at}/{i}")
    return at, a, b


def compare_openai(exports: dict) -> list[dict]:
    from openai import pydantic_function_tool
    from openai.lib._tools import pydantic_responses_function_tool
    from openai.types.chat import ChatCompletionFunctionToolParam
    from openai.types.responses import FunctionToolParam

    helpers = {
        "openai_chat_strict": (pydantic_function_tool, ChatCompletionFunctionToolParam),
        "openai_responses_strict": (pydantic_responses_function_tool, FunctionToolParam),
    }
    report = []
    for dialect, (helper, request_type) in helpers.items():
        tools = exports[dialect]
        if set(tools) != set(OPENAI_MODELS):
            raise Mismatch(f"{dialect}: tools {sorted(tools)} but pydantic twins for {sorted(OPENAI_MODELS)}")
        adapter = pydantic.TypeAdapter(request_type)
        for name, ours in tools.items():
            where = f"{name} ({dialect})"
            round_trip(adapter, ours, where, request_type.__name__)
            function = ours.get("function", ours)
            theirs_tool = dict(helper(OPENAI_MODELS[name], name=function["name"]))
            theirs_function = dict(theirs_tool.get("function", theirs_tool))
            ours_envelope = {k: v for k, v in function.items() if k != "parameters"}
            theirs_envelope = {k: v for k, v in theirs_function.items() if k != "parameters"}
            if ours_envelope != theirs_envelope or ours.get("type") != theirs_tool.get("type"):
                raise Mismatch(f"{where}: tool {compact(ours_envelope)} vs openai {compact(theirs_envelope)}")
            dropped_ours: dict[str, Any] = {"title": 0, "default": {}}
            dropped_theirs: dict[str, Any] = {"title": 0, "default": {}}
            ours_schema = strip_keywords(function["parameters"], "", dropped_ours)
            theirs_schema = strip_keywords(theirs_function["parameters"], "", dropped_theirs)
            if dropped_ours != {"title": 0, "default": {}}:
                raise Mismatch(f"{where}: ours carries keywords strict mode drops: {compact(dropped_ours)}")
            comparison = SchemaComparison(where, theirs_schema, dropped_theirs["default"], function["description"])
            comparison.schema(ours_schema, theirs_schema, "")
            report.append(
                {
                    "tool": name,
                    "dialect": dialect,
                    "dropped_from_theirs": dropped_theirs,
                    "differences": comparison.differences,
                }
            )
    return report


def gemini_types_upper(schema: Any) -> Any:
    """The schema as google-genai dumps it: `type` as the REST enum name."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if isinstance(out.get("type"), str):
        out["type"] = out["type"].upper()
    for key in SCHEMA_MAPS:
        if isinstance(out.get(key), dict):
            out[key] = {n: gemini_types_upper(s) for n, s in out[key].items()}
    for key in SCHEMA_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [gemini_types_upper(s) for s in out[key]]
    for key in SCHEMA_SINGLE:
        if isinstance(out.get(key), dict):
            out[key] = gemini_types_upper(out[key])
    return out


def count_nodes(schema: Any) -> int:
    return 1 + sum(count_nodes(sub) for _, sub in children(schema, ""))


def gemini_dump(model: pydantic.BaseModel) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def compare_gemini(exports: dict) -> list[dict]:
    from google.genai import types

    try:
        types.Schema.model_validate({"type": "object", "$schema": "https://json-schema.org/draft/2020-12/schema"})
    except pydantic.ValidationError:
        pass
    else:
        raise Mismatch("google-genai's Schema accepts unknown fields: validating against it would prove nothing")
    report = []
    for dialect in ("gemini", "gemini_json_schema"):
        for name, ours in exports[dialect].items():
            where = f"{name} ({dialect})"
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    declaration = types.FunctionDeclaration.model_validate(ours)
                    schema = types.Schema.model_validate(ours["parameters"]) if "parameters" in ours else None
                except Exception as error:  # a type list gets an AttributeError, not a ValidationError
                    raise Mismatch(f"{where}: rejected by google-genai: {type(error).__name__}: {error}") from None
            if caught:
                raise Mismatch(f"{where}: google-genai warned: {'; '.join(str(w.message) for w in caught)}")
            expected = dict(ours)
            entry: dict[str, Any] = {"tool": name, "dialect": dialect}
            if schema is not None:
                expected["parameters"] = gemini_types_upper(ours["parameters"])
                if gemini_dump(schema) != expected["parameters"]:
                    at, sent, got = first_difference(expected["parameters"], gemini_dump(schema), "")
                    raise Mismatch(f"{where}: Schema changed `{at or '/'}`: sent {compact(sent)}, got {compact(got)}")
                entry["schema_nodes"] = count_nodes(gemini_dump(schema))
            if gemini_dump(declaration) != expected:
                at, sent, got = first_difference(expected, gemini_dump(declaration), "")
                raise Mismatch(f"{where}: FunctionDeclaration changed `{at}`: sent {compact(sent)}, got {compact(got)}")
            report.append(entry)
    return report


def compare_anthropic(exports: dict) -> dict:
    from anthropic.types import ToolParam

    adapter = pydantic.TypeAdapter(ToolParam)
    tools = []
    for dialect in ("anthropic", "anthropic_strict"):
        for name, ours in exports[dialect].items():
            round_trip(adapter, ours, f"{name} ({dialect})", "ToolParam")
            tools.append({"tool": name, "dialect": dialect, "strict": ours.get("strict")})
    sample = next(iter(exports["anthropic"].values()))
    unknown = adapter.dump_python(adapter.validate_python({**sample, "not_a_field": 1}), mode="json")
    if "not_a_field" in unknown:
        raise Mismatch("ToolParam keeps unknown keys: the round trip would prove nothing")
    try:
        adapter.validate_python({**sample, "strict": None})
        null_rejected = False
    except pydantic.ValidationError:
        null_rejected = True
    annotation = ToolParam.__annotations__["strict"]
    strict = {
        "annotation": getattr(annotation, "__forward_arg__", str(annotation)),
        "required": "strict" in ToolParam.__required_keys__,
        "null_rejected": null_rejected,
    }
    return {"tools": tools, "strict_field": strict}


# OpenAI's documented strict-mode rules (PROVIDERS.md O4-O7), beyond what its helper enforces.
OPENAI_STRICT_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const",
    "$defs", "$ref", "description", "pattern", "format", "multipleOf", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems",
}  # fmt: skip
OPENAI_STRICT_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
KIND_KEYWORDS = ("type", "anyOf", "$ref", "enum", "const")


def openai_strict_rules(schema: Any, at: str, where: str) -> int:
    """Raises on the first broken rule; returns how many schema nodes were checked."""
    if not isinstance(schema, dict):
        raise Mismatch(f"{where}: `{at}` is {compact(schema)}, not a schema object")
    unknown = sorted(set(schema) - OPENAI_STRICT_KEYWORDS)
    if unknown:
        raise Mismatch(f"{where}: `{at}` has keywords strict mode does not support: {unknown}")
    if not any(key in schema for key in KIND_KEYWORDS):
        raise Mismatch(f"{where}: `{at}` declares no kind of value: {compact(schema)}")
    if "format" in schema and schema["format"] not in OPENAI_STRICT_FORMATS:
        raise Mismatch(f"{where}: `{at}/format` {schema['format']!r} is not a strict-mode format")
    if "$ref" in schema:
        if len(schema) != 1 or not (schema["$ref"] == "#" or schema["$ref"].startswith("#/$defs/")):
            raise Mismatch(f"{where}: `{at}` is a `$ref` with siblings or outside the root `$defs`")
    if "$defs" in schema and at != "":
        raise Mismatch(f"{where}: `{at}/$defs`: definitions only at the root")
    types = schema.get("type")
    if types == "object" or (isinstance(types, list) and "object" in types) or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            raise Mismatch(f"{where}: `{at}` is an object without `additionalProperties: false`")
        if sorted(schema.get("required", [])) != sorted(schema.get("properties", {})):
            raise Mismatch(f"{where}: `{at}/required` does not list every property")
    return 1 + sum(openai_strict_rules(sub, sub_at, where) for sub_at, sub in children(schema, at))


def check_openai_generated(exports: dict) -> list[dict]:
    import copy

    from openai.lib._pydantic import _ensure_strict_json_schema
    from openai.types.chat import ChatCompletionFunctionToolParam
    from openai.types.responses import FunctionToolParam

    request_types = {
        "openai_chat_strict": ChatCompletionFunctionToolParam,
        "openai_responses_strict": FunctionToolParam,
    }
    report = []
    for dialect, request_type in request_types.items():
        adapter = pydantic.TypeAdapter(request_type)
        for name, ours in exports[dialect].items():
            where = f"{name} ({dialect})"
            round_trip(adapter, ours, where, request_type.__name__)
            function = ours.get("function", ours)
            if function.get("strict") is not True:
                raise Mismatch(f"{where}: not sent with `strict: true`")
            parameters = function["parameters"]
            theirs = copy.deepcopy(parameters)
            theirs = _ensure_strict_json_schema(theirs, path=(), root=theirs)
            if theirs != parameters:
                at, sent, got = first_difference(parameters, theirs, "")
                raise Mismatch(f"{where}: openai's strict helper changes `{at}`: {compact(sent)} -> {compact(got)}")
            nodes = openai_strict_rules(parameters, "", where)
            report.append({"tool": name, "dialect": dialect, "schema_nodes": nodes})
    return report


def generated(path: str) -> dict:
    exports = json.loads(Path(path).read_text())
    openai = check_openai_generated(exports)
    gemini = compare_gemini(exports)
    anthropic = compare_anthropic(exports)["tools"]
    validated: dict[str, int] = {dialect: 0 for dialect in exports}
    for entry in openai + gemini + anthropic:
        validated[entry["dialect"]] += 1
    return {
        "versions": {name: metadata.version(name) for name in DISTRIBUTIONS},
        "validated": validated,
        "schema_nodes": {
            "openai": sum(entry["schema_nodes"] for entry in openai),
            "gemini": sum(entry.get("schema_nodes", 0) for entry in gemini),
        },
    }


def schemas(path: str) -> dict:
    exports = json.loads(Path(path).read_text())
    return {
        "versions": {name: metadata.version(name) for name in DISTRIBUTIONS},
        "openai": compare_openai(exports),
        "named_differences": DIFFERENCES,
        "gemini": compare_gemini(exports),
        "anthropic": compare_anthropic(exports),
    }


# --- Responses. ---


def openai_chat_calls(body: dict) -> dict:
    from openai.types.chat import ChatCompletion

    choice = ChatCompletion.model_validate(body).choices[0]
    return {
        "calls": [
            {"name": c.function.name, "id": c.id, "arguments": json.loads(c.function.arguments)}
            for c in choice.message.tool_calls or []
        ],
        "text": choice.message.content or "",
        "stop_reason": choice.finish_reason,
    }


def openai_responses_calls(body: dict) -> dict:
    from openai.types.responses import Response

    response = Response.model_validate(body)
    incomplete = response.incomplete_details.reason if response.incomplete_details else None
    return {
        # The result goes back under `call_id`; the item `id` is what must be sent back with it.
        "calls": [
            {
                "name": item.name,
                "id": item.call_id,
                "arguments": json.loads(item.arguments),
                "provider_data": {"id": item.id},
            }
            for item in response.output
            if item.type == "function_call"
        ],
        "text": response.output_text,
        "stop_reason": incomplete or response.status,
    }


def anthropic_calls(body: dict) -> dict:
    from anthropic.types import Message

    message = Message.model_validate(body)
    return {
        "calls": [{"name": b.name, "id": b.id, "arguments": b.input} for b in message.content if b.type == "tool_use"],
        "text": "".join(b.text for b in message.content if b.type == "text"),
        "stop_reason": message.stop_reason,
    }


def gemini_calls(body: dict) -> dict:
    from google.genai import types

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        response = types.GenerateContentResponse.model_validate(body)
    if caught:
        raise Mismatch(f"google-genai warned: {'; '.join(str(w.message) for w in caught)}")
    candidate = response.candidates[0]
    calls = []
    for part in candidate.content.parts:
        if part.function_call is None:
            continue
        call = part.function_call
        entry: dict[str, Any] = {"name": call.name, "id": call.id, "arguments": call.args}
        if part.thought_signature is not None:
            # The SDK decodes the signature; the wire (and our provider_data) has it in base64.
            entry["provider_data"] = {"thoughtSignature": base64.b64encode(part.thought_signature).decode()}
        calls.append(entry)
    text = "".join(p.text for p in candidate.content.parts if p.text is not None and not p.thought)
    return {"calls": calls, "text": text, "stop_reason": candidate.finish_reason.value}


PARSERS = {
    "openai_chat_": openai_chat_calls,
    "openai_responses_": openai_responses_calls,
    "anthropic_": anthropic_calls,
    "gemini_": gemini_calls,
}


def calls(paths: list[str]) -> dict:
    out = {}
    for path in paths:
        name = Path(path).name
        parser = next((p for prefix, p in PARSERS.items() if name.startswith(prefix)), None)
        if parser is None:
            raise Mismatch(f"{name}: no SDK for this file (prefixes: {', '.join(PARSERS)})")
        try:
            out[name] = parser(json.loads(Path(path).read_text()))
        except Exception as error:
            raise Mismatch(f"{name}: the SDK's response model rejects it: {type(error).__name__}: {error}") from None
    return {"versions": {name: metadata.version(name) for name in DISTRIBUTIONS}, "calls": out}


# --- Tool search: request tools, answers, and the documented responses. ---


def anthropic_tool_type(tool: dict):
    from anthropic.types import ToolParam, ToolSearchToolBm25_20251119Param, ToolSearchToolRegex20251119Param

    kind = tool.get("type", "custom")
    if kind.startswith("tool_search_tool_regex"):
        return ToolSearchToolRegex20251119Param
    if kind.startswith("tool_search_tool_bm25"):
        return ToolSearchToolBm25_20251119Param
    return ToolParam


def openai_tool_type(tool: dict):
    from openai.types.responses import FunctionToolParam, NamespaceToolParam, ToolSearchToolParam

    return {"function": FunctionToolParam, "namespace": NamespaceToolParam, "tool_search": ToolSearchToolParam}[tool["type"]]


def check_tools(arrays: dict, union: Any, own_type: Callable[[dict], Any], dialect: str) -> list[dict]:
    union_adapter = pydantic.TypeAdapter(union)
    report = []
    for label, tools in arrays.items():
        for i, tool in enumerate(tools):
            where = f"{dialect} {label} /{i}"
            try:
                union_adapter.validate_python(tool)
            except Exception as error:
                raise Mismatch(f"{where}: not in the SDK's union of tools: {type(error).__name__}: {error}") from None
            kind = own_type(tool)
            round_trip(pydantic.TypeAdapter(kind), tool, where, kind.__name__)
            report.append({"request": label, "index": i, "type": kind.__name__})
    return report


def sdk_search_steps(name: str, body: Any) -> dict:
    """What the SDK reads of one documented response: its tool-search steps and calls."""
    if name.startswith("anthropic_"):
        from anthropic.types import Message

        message = Message.model_validate(body)
        steps = []
        for block in message.content:
            if block.type == "server_tool_use":
                steps.append({"type": block.type, "id": block.id, "name": block.name, "input": block.input})
            elif block.type == "tool_search_tool_result":
                content = block.content
                if content.type == "tool_search_tool_search_result":
                    found = {"tools": [r.tool_name for r in content.tool_references]}
                else:
                    found = {"error_code": content.error_code, "error_message": content.error_message}
                steps.append({"type": block.type, "tool_use_id": block.tool_use_id, **found})
            elif block.type == "tool_use":
                steps.append({"type": block.type, "id": block.id, "name": block.name, "input": block.input})
        return {"steps": steps}
    from openai.types.responses import Response

    response = Response.model_validate(body)
    steps = []
    for item in response.output:
        if item.type == "tool_search_call":
            steps.append({"type": item.type, "id": item.id, "call_id": item.call_id, "execution": item.execution,
                          "arguments": item.arguments})
        elif item.type == "tool_search_output":
            names = []
            for tool in item.tools:
                if tool.type == "namespace":
                    names.extend(f"{tool.name}/{inner.name}" for inner in tool.tools)
                elif tool.type == "function":
                    names.append(tool.name)
            # The output's own item id is left out: nothing is sent back under it (ours keeps the call's).
            steps.append({"type": item.type, "call_id": item.call_id, "execution": item.execution, "tools": names})
        elif item.type == "function_call":
            steps.append({"type": item.type, "name": item.name, "namespace": item.namespace, "call_id": item.call_id,
                          "arguments": json.loads(item.arguments)})
    return {"steps": steps}


def sdk_stream(name: str, text: str) -> dict:
    """Every event of a documented stream validates as the SDK's event union; the final
    response (Responses) or the blocks started (Anthropic) as the SDK holds them."""
    if name.endswith(".sse"):
        from anthropic.types import RawMessageStreamEvent

        adapter = pydantic.TypeAdapter(RawMessageStreamEvent)
        events = [json.loads(line[len("data: "):]) for line in text.splitlines() if line.startswith("data: ")]
        started = []
        for event in events:
            parsed = adapter.validate_python(event)
            if parsed.type == "content_block_start":
                started.append(parsed.content_block.type)
        return {"events": len(events), "blocks_started": started}
    from openai.types.responses import ResponseStreamEvent

    adapter = pydantic.TypeAdapter(ResponseStreamEvent)
    events = [json.loads(line) for line in text.splitlines() if line.strip()]
    final = None
    items = []
    for event in events:
        parsed = adapter.validate_python(event)
        if parsed.type == "response.output_item.done":
            items.append(parsed.item.type)
        if parsed.type == "response.completed":
            final = parsed.response.model_dump(mode="json", exclude_none=False)
    steps = sdk_search_steps("openai_", final)["steps"] if final is not None else []
    return {"events": len(events), "items_done": items, "steps": steps}


def search(path: str, fixtures: list[str]) -> dict:
    from anthropic.types import ToolResultBlockParam, ToolUnionParam
    from openai.types.responses import ResponseToolSearchOutputItemParamParam, ToolParam as ResponsesToolParam

    given = json.loads(Path(path).read_text())
    results = pydantic.TypeAdapter(ToolResultBlockParam)
    for i, block in enumerate(given["anthropic_results"]):
        round_trip(results, block, f"anthropic_results /{i}", "ToolResultBlockParam")
    outputs = pydantic.TypeAdapter(ResponseToolSearchOutputItemParamParam)
    for i, item in enumerate(given["openai_outputs"]):
        round_trip(outputs, item, f"openai_outputs /{i}", "ResponseToolSearchOutputItemParamParam")
    read = {}
    for fixture in fixtures:
        name = Path(fixture).name
        text = Path(fixture).read_text()
        try:
            if name.endswith((".sse", ".jsonl")):
                read[name] = sdk_stream(name, text)
            else:
                read[name] = sdk_search_steps(name, json.loads(text))
        except Mismatch:
            raise
        except Exception as error:
            raise Mismatch(f"{name}: the SDK rejects it: {type(error).__name__}: {error}") from None
    return {
        "versions": {name: metadata.version(name) for name in DISTRIBUTIONS},
        "anthropic": check_tools(given["anthropic"], ToolUnionParam, anthropic_tool_type, "anthropic"),
        "openai_responses": check_tools(given["openai_responses"], ResponsesToolParam, openai_tool_type, "openai_responses"),
        "anthropic_results": len(given["anthropic_results"]),
        "openai_outputs": len(given["openai_outputs"]),
        "fixtures": read,
    }


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "schemas":
        run = lambda: schemas(argv[1])  # noqa: E731
    elif len(argv) == 2 and argv[0] == "generated":
        run = lambda: generated(argv[1])  # noqa: E731
    elif len(argv) >= 2 and argv[0] == "calls":
        run = lambda: calls(argv[1:])  # noqa: E731
    elif len(argv) >= 2 and argv[0] == "search":
        run = lambda: search(argv[1], argv[2:])  # noqa: E731
    else:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        report = run()
    except Mismatch as error:
        print(f"compare_sdks.py: {error}", file=sys.stderr)
        return 1
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
