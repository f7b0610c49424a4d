#!/usr/bin/env python3
"""A plain BM25 baseline for the tool-search recall set (issue 28).

    python3 tests/python/tool_search_baseline.py [DATA_DIR]

DATA_DIR defaults to tests/tests/data/tool_search (tools.jsonl, requests.jsonl, written by
tool_search_dataset.py). Every request is ranked against the whole catalog.

BM25 with k1 = 1.2, b = 0.75, idf = ln(1 + (N - df + 0.5) / (df + 0.5)). One document per
tool: its name, description, and every parameter's name and description (nested ones too).
Tokens: lowercase runs of letters and digits (Unicode), split at anything else, `_`, `.`
and camelCase boundaries; no stemming, no stop words. Ties are broken by catalog order.

A request is a hit at k when any of its expected tools is among the first k. The `base`
columns also count as a hit a tool with the same BFCL name as an expected one (the dataset
gives same-named functions with different descriptions the names `x__2`, `x__3`, ...).
"""

import heapq
import json
import math
import os
import re
import sys

K1 = 1.2
B = 0.75
KS = (1, 5, 10)

WORD = re.compile(r"[^\W_]+")


def split_camel(word):
    """`getUserName` -> get, User, Name; `HTTPServer` -> HTTP, Server (any script)."""
    parts, start = [], 0
    for i in range(1, len(word)):
        prev, cur = word[i - 1], word[i]
        nxt = word[i + 1] if i + 1 < len(word) else ""
        if cur.isupper() and (prev.islower() or (prev.isupper() and nxt.islower())):
            parts.append(word[start:i])
            start = i
    parts.append(word[start:])
    return parts


def tokens(text):
    return [p.lower() for word in WORD.findall(text) for p in split_camel(word)]


def param_text(schema, out):
    if not isinstance(schema, dict):
        return
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, sub in props.items():
            out.append(name)
            if isinstance(sub, dict):
                if isinstance(sub.get("description"), str):
                    out.append(sub["description"])
                param_text(sub, out)
    items = schema.get("items")
    if isinstance(items, dict):
        param_text(items, out)


def document(tool):
    parts = [tool["name"], tool.get("description") or ""]
    param_text(tool.get("parameters"), parts)
    return tokens(" ".join(parts))


def base_name(name):
    head, sep, tail = name.rpartition("__")
    return head if sep and tail.isdigit() else name


class BM25:
    def __init__(self, docs):
        self.n = len(docs)
        self.tf = []
        self.len = []
        df = {}
        for doc in docs:
            counts = {}
            for t in doc:
                counts[t] = counts.get(t, 0) + 1
            self.tf.append(counts)
            self.len.append(len(doc))
            for t in counts:
                df[t] = df.get(t, 0) + 1
        self.avg = sum(self.len) / max(self.n, 1)
        self.idf = {t: math.log(1 + (self.n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        self.postings = {}
        for i, counts in enumerate(self.tf):
            for t in counts:
                self.postings.setdefault(t, []).append(i)

    def rank(self, query, top):
        scores = {}
        for t in set(tokens(query)):
            idf = self.idf.get(t)
            if idf is None:
                continue
            for i in self.postings[t]:
                f = self.tf[i][t]
                norm = K1 * (1 - B + B * self.len[i] / self.avg)
                scores[i] = scores.get(i, 0.0) + idf * f * (K1 + 1) / (f + norm)
        return heapq.nsmallest(top, scores, key=lambda i: (-scores[i], i))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "tests", "data", "tool_search")
    with open(os.path.join(data, "tools.jsonl"), encoding="utf-8") as f:
        tools = [json.loads(line) for line in f if line.strip()]
    with open(os.path.join(data, "requests.jsonl"), encoding="utf-8") as f:
        requests = [json.loads(line) for line in f if line.strip()]

    index = BM25([document(t) for t in tools])
    names = [t["name"] for t in tools]
    top = max(KS)

    rows = {}  # category -> [count, strict hits per k, base-name hits per k]

    def add(cat, strict, loose):
        row = rows.setdefault(cat, [0, [0] * len(KS), [0] * len(KS)])
        row[0] += 1
        for j in range(len(KS)):
            row[1][j] += strict[j]
            row[2][j] += loose[j]

    for r in requests:
        ranked = [names[i] for i in index.rank(r["query"], top)]
        expected = set(r["expected"])
        expected_base = {base_name(e) for e in expected}
        strict = [any(n in expected for n in ranked[:k]) for k in KS]
        loose = [any(base_name(n) in expected_base for n in ranked[:k]) for k in KS]
        add(r["category"], strict, loose)
        add("ALL", strict, loose)

    print(f"plain BM25 (k1={K1}, b={B}): {len(requests)} requests, {len(tools)} tools")
    head = "| category | requests | " + " | ".join(f"R@{k}" for k in KS) + " | " + " | ".join(
        f"base R@{k}" for k in KS
    ) + " |"
    print(head)
    print("|" + "---|" * (2 + 2 * len(KS)))
    order = sorted((c for c in rows if c != "ALL"), key=lambda c: -rows[c][0]) + ["ALL"]
    for cat in order:
        n, strict, loose = rows[cat]
        cells = [f"{100 * h / n:.1f}" for h in strict] + [f"{100 * h / n:.1f}" for h in loose]
        label = f"**{cat}**" if cat == "ALL" else cat
        print(f"| {label} | {n} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
