#!/usr/bin/env python3
"""Builds the tool-search recall set (issue 28) from the bfcl-eval wheel.

    python3 tests/python/tool_search_dataset.py PATH [OUT_DIR]

PATH is the unpacked wheel (the folder holding bfcl_eval/, or bfcl_eval/ itself, or
its data/ folder), or the .whl file itself. OUT_DIR defaults to
tests/tests/data/tool_search beside this script's tests/ folder.

Writes:
  tools.jsonl     the catalog: every distinct function declared anywhere in BFCL v4
                  ({"name", "description", "parameters", "source"}), deduplicated by
                  name + description; a name that comes with several descriptions keeps it
                  for the first one met and gets `__2`, `__3`, ... for the others.
                  BFCL's types ("dict", "float", "tuple", "any", "String", ...) are mapped to
                  JSON Schema's.
  requests.jsonl  {"id", "query", "expected", "category"}: every BFCL request whose ground
                  truth calls a function (the first turn for multi-turn), with the catalog
                  names of the functions that ground truth calls; the name is resolved
                  against the function docs of that request's own function list.

Deterministic: same wheel, same bytes. Standard library only.
"""

import json
import os
import re
import sys
import zipfile

# Categories with requests and ground truth, in the order they are read (this order decides
# which version of a name keeps the plain name).
SINGLE_TURN = [
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
]
MULTI_TURN = [
    "multi_turn_base",
    "multi_turn_long_context",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
]
# Retired executable categories, still shipped under data/unused_datasets with questions,
# function docs and ground-truth calls.
EXEC = ["exec_simple", "exec_multiple", "exec_parallel", "exec_parallel_multiple"]
# Function docs only: no request has a function call as its ground truth.
CATALOG_ONLY = ["irrelevance", "live_irrelevance", "live_relevance"]

# data/multi_turn_func_doc files per class (bfcl_eval/constants/executable_backend_config.py).
CLASS_DOC = {
    "GorillaFileSystem": "gorilla_file_system.json",
    "MathAPI": "math_api.json",
    "MessageAPI": "message_api.json",
    "TwitterAPI": "posting_api.json",
    "TicketAPI": "ticket_api.json",
    "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json",
    "VehicleControlAPI": "vehicle_control.json",
    "WebSearchAPI": "web_search.json",
    "MemoryAPI_kv": "memory_kv.json",
    "MemoryAPI_vector": "memory_vector.json",
    "MemoryAPI_rec_sum": "memory_rec_sum.json",
}
MULTI_TURN_CLASSES = [
    "GorillaFileSystem",
    "MathAPI",
    "MessageAPI",
    "TwitterAPI",
    "TicketAPI",
    "TradingBot",
    "TravelAPI",
    "VehicleControlAPI",
]
OTHER_CLASSES = [  # memory and web_search categories: their answers are text, not calls
    ("WebSearchAPI", "web_search"),
    ("MemoryAPI_kv", "memory"),
    ("MemoryAPI_vector", "memory"),
    ("MemoryAPI_rec_sum", "memory"),
]

TYPE_MAP = {
    "dict": "object",
    "object": "object",
    "hashmap": "object",
    "map": "object",
    "float": "number",
    "double": "number",
    "number": "number",
    "integer": "integer",
    "int": "integer",
    "long": "integer",
    "short": "integer",
    "byte": "integer",
    "string": "string",
    "str": "string",
    "char": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "arraylist": "array",
    "tuple": "array",
    "set": "array",
    "null": "null",
}


class Source:
    """Reads data files from an unpacked wheel folder or from the .whl itself."""

    def __init__(self, path):
        self.zip = None
        if os.path.isfile(path) and path.endswith(".whl"):
            self.zip = zipfile.ZipFile(path)
            self.base = "bfcl_eval/data/"
            return
        for cand in (os.path.join(path, "bfcl_eval", "data"), os.path.join(path, "data"), path):
            if os.path.isfile(os.path.join(cand, "BFCL_v4_simple_python.json")):
                self.base = cand
                return
        sys.exit(f"no BFCL_v4_simple_python.json under {path}")

    def exists(self, rel):
        if self.zip:
            try:
                self.zip.getinfo(self.base + rel)
                return True
            except KeyError:
                return False
        return os.path.isfile(os.path.join(self.base, rel))

    def lines(self, rel):
        if self.zip:
            text = self.zip.read(self.base + rel).decode("utf-8")
        else:
            with open(os.path.join(self.base, rel), encoding="utf-8") as f:
                text = f.read()
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def convert_schema(schema):
    """BFCL's parameter schema as valid JSON Schema (types mapped, nothing else dropped)."""
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "type":
            mapped = map_type(value)
            if mapped is not None:
                out["type"] = mapped
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: convert_schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = convert_schema(value)
        elif key in ("items", "anyOf", "oneOf", "allOf", "prefixItems") and isinstance(value, list):
            out[key] = [convert_schema(sub) for sub in value]
        else:
            out[key] = value
    return out


def map_type(value):
    if isinstance(value, list):
        mapped = [map_type(v) for v in value]
        mapped = [m for m in mapped if m is not None]
        return mapped or None
    if not isinstance(value, str):
        return None
    key = value.strip().lower()
    if key in ("", "any"):
        return None  # no "type": any value
    if key in TYPE_MAP:
        return TYPE_MAP[key]
    if key.endswith("[]"):
        return "array"
    return "string"  # unknown names (never met in v4): keep a valid schema


class Catalog:
    def __init__(self):
        self.tools = []  # output rows, in order of first appearance
        self.by_key = {}  # (bfcl name, description) -> catalog name
        self.count_by_name = {}

    def add(self, fn, source):
        name = fn["name"]
        desc = fn.get("description", "") or ""
        key = (name, desc)
        if key in self.by_key:
            return self.by_key[key]
        n = self.count_by_name.get(name, 0) + 1
        self.count_by_name[name] = n
        unique = name if n == 1 else f"{name}__{n}"
        while unique in self.by_key.values() and n > 1:  # never clash with a real name
            n += 1
            self.count_by_name[name] = n
            unique = f"{name}__{n}"
        self.by_key[key] = unique
        params = fn.get("parameters")
        if params is None:
            params = {"type": "object", "properties": {}}
        self.tools.append(
            {
                "name": unique,
                "description": desc,
                "parameters": convert_schema(params),
                "source": source,
            }
        )
        return unique


CALL_NAME = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*\(")


def call_name(text):
    m = CALL_NAME.match(text)
    if not m:
        raise ValueError(f"not a call: {text[:80]!r}")
    return m.group(1)


def user_text(turn):
    return "\n".join(
        m["content"] for m in turn if m.get("role") == "user" and isinstance(m.get("content"), str)
    ).strip()


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    src = Source(sys.argv[1])
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "..", "tests", "data", "tool_search")
    os.makedirs(out_dir, exist_ok=True)

    catalog = Catalog()
    requests = []
    seen = set()
    stats = {"duplicate_requests": 0, "unresolved_calls": 0, "no_call": 0}

    def emit(rid, query, expected, category):
        if not query or not expected:
            stats["no_call"] += 1
            return
        key = (query, tuple(sorted(expected)))
        if key in seen:
            stats["duplicate_requests"] += 1
            return
        seen.add(key)
        requests.append({"id": rid, "query": query, "expected": expected, "category": category})

    def resolve(names, own, category, rid):
        """Catalog names for the called BFCL names, resolved in the request's own list."""
        out = []
        for name in names:
            fn = own.get(name)
            if fn is None:
                stats["unresolved_calls"] += 1
                print(f"warning: {rid}: {name} is not among its functions", file=sys.stderr)
                continue
            unique = catalog.add(fn, category)
            if unique not in out:
                out.append(unique)
        return out

    # Single-turn categories and the retired executable ones.
    for category in SINGLE_TURN + EXEC:
        prefix = "unused_datasets/" if category in EXEC else ""
        qfile = f"{prefix}question/BFCL_v4_{category}.json" if prefix else f"BFCL_v4_{category}.json"
        afile = f"{prefix}possible_answer/BFCL_v4_{category}.json"
        if not src.exists(qfile) or not src.exists(afile):
            print(f"warning: {category} not found, skipped", file=sys.stderr)
            continue
        answers = {a["id"]: a["ground_truth"] for a in src.lines(afile)}
        for row in src.lines(qfile):
            own = {}
            for fn in row["function"]:
                catalog.add(fn, category)
                own.setdefault(fn["name"], fn)
            truth = answers.get(row["id"])
            if not truth:
                stats["no_call"] += 1
                continue
            names = []
            for call in truth:
                names.extend([call_name(call)] if isinstance(call, str) else list(call.keys()))
            question = row["question"]
            turn = question[0] if question and isinstance(question[0], list) else question
            emit(row["id"], user_text(turn), resolve(names, own, category, row["id"]), category)

    # Multi-turn: the first user message and the calls of the first turn's ground truth.
    docs = {cls: src.lines(f"multi_turn_func_doc/{CLASS_DOC[cls]}") for cls in CLASS_DOC}
    for cls in MULTI_TURN_CLASSES:
        for fn in docs[cls]:
            catalog.add(fn, "multi_turn")
    for cls, source in OTHER_CLASSES:
        for fn in docs[cls]:
            catalog.add(fn, source)
    for category in MULTI_TURN:
        answers = {a["id"]: a["ground_truth"] for a in src.lines(f"possible_answer/BFCL_v4_{category}.json")}
        for row in src.lines(f"BFCL_v4_{category}.json"):
            excluded = set(row.get("excluded_function") or [])
            missed = set((row.get("missed_function") or {}).get("0", []))
            own = {}
            for cls in row["involved_classes"]:
                for fn in docs[cls]:
                    if fn["name"] not in excluded and fn["name"] not in missed:
                        own.setdefault(fn["name"], fn)
            truth = answers.get(row["id"]) or []
            first = truth[0] if truth else []
            names = [call_name(c) for c in first]
            emit(row["id"], user_text(row["question"][0]), resolve(names, own, "multi_turn", row["id"]), category)

    # Function docs of the categories without ground-truth calls.
    for category in CATALOG_ONLY:
        for row in src.lines(f"BFCL_v4_{category}.json"):
            for fn in row["function"]:
                catalog.add(fn, category)

    def dump(path, rows):
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")

    dump(os.path.join(out_dir, "tools.jsonl"), catalog.tools)
    dump(os.path.join(out_dir, "requests.jsonl"), requests)

    by_cat = {}
    for r in requests:
        by_cat[r["category"]] = by_cat.get(r["category"], 0) + 1
    renamed = sum(1 for t in catalog.tools if t["name"] not in catalog.count_by_name)
    print(f"tools: {len(catalog.tools)} ({renamed} renamed with __N)")
    print(f"requests: {len(requests)}")
    for cat, n in by_cat.items():
        print(f"  {cat}: {n}")
    for k, v in stats.items():
        print(f"{k}: {v}")


if __name__ == "__main__":
    main()
