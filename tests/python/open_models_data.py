#!/usr/bin/env python3
"""Builds tests/tests/data/open_models/bfcl/ from BFCL's recorded answers (issue 27's check).

Not run by the tests: it records how the vendored files were made. Inputs: a clone of
ShishirPatil/gorilla holding the pinned commits below, and the unpacked `bfcl-eval` wheel.

    python3 tests/python/open_models_data.py GORILLA_GIT_DIR WHEEL_DIR OUT_DIR

Output (JSON Lines): answers.jsonl (one real answer a line), functions.jsonl (the BFCL function
schemas, deduplicated, descriptions dropped), synthetic.jsonl (real answers wrapped in the
special tokens and fences the raw output carries, or cut short: labelled synthetic).
"""
import hashlib
import json
import random
import re
import subprocess
import sys

RESULT = "berkeley-function-call-leaderboard/result"

# (model, commit, path under RESULT, BFCL set, how answers are keyed)
SOURCES = []
AIREV = ("AIREV-Agent-0.8B", "41bbf803f27b548957b5f0b79d0e95b8987e57da", "airev-ai/AIREV-Agent-0.8B/BFCL_v4_{}_result.json")
GEMMA = ("roshangrewal/gemma4-e4b-toolcall-v02", "cb35ef30ca0f45afa1964120f44248fa36706fe9", "roshangrewal_gemma4-e4b-toolcall-v02/{}/BFCL_v4_{}_result.json")
AYA = ("AYA Pipeline", "ce92ea60a56582a6cc4ee0ab4b4fcdf38eb6b69d", "AYA Pipeline/AYA Pipeline_result_{}.jsonl")
NON_LIVE = ["simple_python", "parallel", "multiple", "parallel_multiple"]
LIVE = ["live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"]
for s in NON_LIVE + LIVE + ["irrelevance", "live_irrelevance"]:
    SOURCES.append((AIREV[0], AIREV[1], AIREV[2].format(s), s, "id"))
for s in NON_LIVE + LIVE:
    SOURCES.append((GEMMA[0], GEMMA[1], GEMMA[2].format("live" if s.startswith("live") else "non_live", s), s, "id"))
# AYA's files use BFCL v1-v3 names and carry no ids, and their lines are not in the tests'
# order: an answer is paired with the one test of its set whose functions hold every name it
# calls (an answer that names no function, or fits several tests, is left out).
for s in NON_LIVE + LIVE:
    SOURCES.append((AYA[0], AYA[1], AYA[2].format("simple" if s == "simple_python" else s), s, "line"))

SHORT = {AIREV[0]: "airev", GEMMA[0]: "gemma4", AYA[0]: "aya"}


def git_show(repo, commit, path):
    return subprocess.run(["git", "-C", repo, "show", f"{commit}:{path}"], check=True, capture_output=True, text=True).stdout


def strip_descriptions(value):
    if isinstance(value, dict):
        return {k: strip_descriptions(v) for k, v in value.items() if k != "description"}
    if isinstance(value, list):
        return [strip_descriptions(v) for v in value]
    return value


def main():
    repo, wheel, out = sys.argv[1:4]
    questions = {}
    for s in NON_LIVE + LIVE + ["irrelevance", "live_irrelevance"]:
        with open(f"{wheel}/bfcl_eval/data/BFCL_v4_{s}.json") as f:
            questions[s] = [json.loads(line) for line in f if line.strip()]
    functions = {}
    answers = []
    for model, commit, path, s, keyed in SOURCES:
        by_id = {q["id"]: q for q in questions[s]}
        for i, line in enumerate(git_show(repo, commit, f"{RESULT}/{path}").splitlines()):
            if not line.strip():
                continue
            row = json.loads(line)
            if keyed == "id":
                qid, text = row["id"], row["result"]
            else:
                if not row or not isinstance(row[0], str):  # the pipeline gave no answer
                    continue
                text = row[0]
                called = set(re.findall(r"([A-Za-z_][\w.]*)\(", text))
                fits = [q for q in questions[s] if called and called <= {f["name"] for f in q["function"]}]
                if len(fits) != 1:
                    continue
                qid = fits[0]["id"]
            if not isinstance(text, str):
                continue
            fs = strip_descriptions(by_id[qid]["function"])
            blob = json.dumps(fs, sort_keys=True, ensure_ascii=False)
            ref = "f" + hashlib.sha256(blob.encode()).hexdigest()[:10]
            functions.setdefault(ref, fs)
            answers.append({"key": f"{SHORT[model]}/{qid}", "functions": ref, "text": text})
    with open(f"{out}/answers.jsonl", "w") as f:
        for a in answers:
            f.write(json.dumps(a, ensure_ascii=False, separators=(",", ":")) + "\n")
    with open(f"{out}/functions.jsonl", "w") as f:
        for ref, fs in sorted(functions.items()):
            f.write(json.dumps({"ref": ref, "functions": fs}, ensure_ascii=False, separators=(",", ":")) + "\n")
    write_synthetic(answers, f"{out}/synthetic.jsonl")


def write_synthetic(answers, path):
    """Real answers as the raw model output looks before the benchmark's handler stripped it,
    and real answers cut at a random place (a stream the server stopped)."""
    rng = random.Random(27)
    calls = [a for a in answers if a["text"].lstrip().startswith("[") and "(" in a["text"]]
    wraps = [
        ("python_tag+eot", lambda t: "<|python_tag|>" + t + "<|eot_id|>"),
        ("python_tag", lambda t: "<|python_tag|>" + t),
        ("eom", lambda t: t + "<|eom_id|>"),
        ("fence_python", lambda t: "```python\n" + t + "\n```"),
        ("fence", lambda t: "```\n" + t + "\n```"),
        ("end_of_turn", lambda t: t + "<end_of_turn>"),
        ("words_before", lambda t: "I'll call the tool for that.\n" + t),
        ("no_brackets_lines", lambda t: t.strip()[1:-1] if t.strip().endswith("]") else t),
    ]
    out = []
    for a in rng.sample(calls, 800):
        name, wrap = rng.choice(wraps)
        out.append(dict(a, key=f"synthetic/{name}/{a['key']}", text=wrap(a["text"])))
    for a in rng.sample(calls, 400):
        t = a["text"]
        cut = rng.randrange(1, len(t)) if len(t) > 1 else 1
        out.append(dict(a, key=f"synthetic/cut/{a['key']}", text=t[:cut]))
    with open(path, "w") as f:
        for a in out:
            f.write(json.dumps(a, ensure_ascii=False, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
