#!/usr/bin/env python3
"""What Python's own parser reads from each recorded model answer (issue 27's real-data check).

    python3 tests/python/open_models_reference.py DATA_DIR > DATA_DIR/reference.jsonl

Reads DATA_DIR/answers.jsonl and DATA_DIR/synthetic.jsonl (one answer a line: `key`, `text`)
and writes, for each answer in the same order, one JSON line:

    {"key": .., "python": "calls", "calls": [CALL, ..]}
    {"key": .., "python": "unreadable", "reason": "..", "calls": [CALL, ..]}

"calls" is the answer read the way the BFCL benchmark reads it (backticks, newlines and spaces
around the answer stripped, a missing `[` or `]` added, wrapping single quotes stripped, then
`ast.parse`), each keyword's value read by `ast.literal_eval` of its node. An answer is
"unreadable" when Python cannot read it as a list of calls of literals: a syntax error, a
positional argument, a keyword's value that is not a literal (a bare name such as `true`, an
expression), a keyword given twice (the compiler refuses it), or a value JSON cannot hold (a
set, bytes, a complex number). For an unreadable answer "calls" is still what Python can read
of it, so that a reader that reads more can be checked against it: the calls of the whole text
when it parses, else each call whose text alone parses (found where a name and `(` begin),
and in each call, under "problems", every place Python could not read, with why.

A CALL: {"name": "a.b", "arguments": {..}, "problems": [{"pointer", "reason"}],
"json_literals": [pointer, ..], "tuples": [pointer, ..]} (empty lists left out). A bare `true`, `false` or `null` is
read as the JSON literal it is (listed in "json_literals": Python alone cannot read it, so the
answer is unreadable); a tuple is read as a list (listed in "tuples"). Pointers are JSON
Pointers into the call's arguments.

Only the standard library is used (Python 3.9 or later, for `ast.unparse`); the output depends
on the input alone (no hash order, no error message whose words change between versions).
"""
import ast
import json
import math
import re
import sys

JSON_LITERALS = {"true": True, "false": False, "null": None}
# Where a call's text can begin: a dotted name, then `(`.
CALL_START = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*\s*\(")
MAX_ENDS = 400  # bounds the ends tried for one call's text


def pointer(parent, key):
    return parent + "/" + str(key).replace("~", "~0").replace("/", "~1")


class Call:
    def __init__(self, name):
        self.name = name
        self.arguments = {}
        self.problems = []
        self.json_literals = []
        self.tuples = []

    def problem(self, at, reason):
        self.problems.append({"pointer": at, "reason": reason})

    def out(self):
        out = {"name": self.name, "arguments": self.arguments}
        # Empty lists are left out to keep the checked-in file small.
        for field in ("problems", "json_literals", "tuples"):
            if getattr(self, field):
                out[field] = getattr(self, field)
        return out


def dotted(func):
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    parts.append(func.id)
    return ".".join(reversed(parts))


class NotRead(Exception):
    pass


def value(node, at, call):
    """The node's value as JSON, by `ast.literal_eval`, with the JSON literals and tuples noted."""
    if isinstance(node, ast.Name) and node.id in JSON_LITERALS:
        call.json_literals.append(at)
        return JSON_LITERALS[node.id]
    if isinstance(node, (ast.List, ast.Tuple)):
        if isinstance(node, ast.Tuple):
            call.tuples.append(at)
        return [value(e, pointer(at, i), call) for i, e in enumerate(node.elts)]
    if isinstance(node, ast.Dict):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                raise NotRead("a `**` inside a dict")
            try:
                key = ast.literal_eval(k)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as e:
                raise NotRead(f"a dict key that is not a literal ({type(k).__name__})") from e
            if not isinstance(key, str):
                raise NotRead(f"a dict key that is not a string ({type(key).__name__})")
            # A key given twice keeps its last value, as Python's dict display does.
            out.pop(key, None)
            out[key] = value(v, pointer(at, key), call)
        return out
    try:
        literal = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as e:
        if isinstance(node, ast.Name):
            raise NotRead(f"a name, not a literal (`{node.id}`)") from e
        raise NotRead(f"not a literal ({type(node).__name__})") from e
    return json_value(literal)


def json_value(v):
    if v is None or isinstance(v, (bool, str)):
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError as e:
                raise NotRead("a string with a lone surrogate") from e
        return v
    if isinstance(v, int):
        if not -(2**63) <= v < 2**64:
            raise NotRead("an integer beyond 64 bits")
        return v
    if isinstance(v, float):
        if not math.isfinite(v):
            raise NotRead("a float that is not finite")
        return v
    raise NotRead(f"a value JSON cannot hold ({type(v).__name__})")


def read_call(node):
    """A call node read: its name, its keywords' values, and what Python cannot read of it."""
    name = dotted(node.func)
    call = Call(name if name is not None else ast.unparse(node.func))
    if name is None:
        call.problem("", f"the function is not a dotted name ({type(node.func).__name__})")
    for i, arg in enumerate(node.args):
        call.problem("", f"positional argument {i + 1} (`{ast.unparse(arg)[:60]}`)")
    seen = {}
    for kw in node.keywords:
        if kw.arg is None:
            call.problem("", "a `**` argument")
            continue
        at = pointer("", kw.arg)
        try:
            v = value(kw.value, at, call)
        except NotRead as e:
            call.problem(at, str(e))
            call.arguments.pop(kw.arg, None)
            seen[kw.arg] = None
            continue
        if kw.arg in seen:
            same = seen[kw.arg] is not None and seen[kw.arg] == [v]
            call.problem(at, "keyword given twice" + (" with the same value" if same else " with different values"))
            if not same:
                call.arguments.pop(kw.arg, None)
                seen[kw.arg] = None
            continue
        seen[kw.arg] = [v]
        call.arguments[kw.arg] = v
    return call


def unreadable(call):
    """Why Python alone cannot read the call (None when it can)."""
    if call.problems:
        return call.problems[0]["reason"]
    if call.json_literals:
        return f"a JSON literal, a name to Python (at `{call.json_literals[0]}`)"
    return None


def bfcl_text(text):
    """The answer as BFCL's decoder hands it to `ast.parse`."""
    text = text.strip("`\n ")
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    return text.strip().strip("'")


def whole(text):
    """The whole answer read as BFCL reads it: (calls, None) or (calls or None, why not)."""
    try:
        tree = ast.parse(bfcl_text(text), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as e:
        # Not the message: its words change between Python versions, and the file is compared.
        return None, "syntax error"
    body = tree.body
    nodes = [body] if isinstance(body, ast.Call) else getattr(body, "elts", None)
    if nodes is None:
        return None, f"not a list of calls ({type(body).__name__})"
    if not all(isinstance(n, ast.Call) for n in nodes):
        kind = next(type(n).__name__ for n in nodes if not isinstance(n, ast.Call))
        return None, f"not a list of calls (an element is {kind})"
    calls = [read_call(n) for n in nodes]
    why = next((w for w in map(unreadable, calls) if w), None)
    return calls, why


def fragments(text):
    """Each call whose own text Python parses, where a dotted name and `(` begin."""
    calls = []
    pos = 0
    closes = [i for i, c in enumerate(text) if c == ")"]
    while True:
        m = CALL_START.search(text, pos)
        if not m:
            return calls
        start = m.start()
        found = None
        tried = 0
        for end in closes:
            if end < m.end() - 1:
                continue
            tried += 1
            if tried > MAX_ENDS:
                break
            try:
                tree = ast.parse(text[start : end + 1], mode="eval")
            except (SyntaxError, ValueError, MemoryError, RecursionError):
                continue
            if isinstance(tree.body, ast.Call):
                found = (tree.body, end + 1)
                break
        if found is None:
            pos = m.end()
            continue
        calls.append(read_call(found[0]))
        pos = found[1]


def reference(key, text):
    calls, why = whole(text)
    if why is None:
        return {"key": key, "python": "calls", "calls": [c.out() for c in calls]}
    if calls is None:
        calls = fragments(text)
    return {"key": key, "python": "unreadable", "reason": why, "calls": [c.out() for c in calls]}


def main():
    data = sys.argv[1]
    out = sys.stdout
    for name in ("answers.jsonl", "synthetic.jsonl"):
        with open(f"{data}/{name}", encoding="utf-8") as f:
            for line in f:
                answer = json.loads(line)
                row = reference(answer["key"], answer["text"])
                out.write(json.dumps(row, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    main()
