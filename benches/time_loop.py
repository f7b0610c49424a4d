#!/usr/bin/env python3
"""Wall-clock nanoseconds per extraction, from `examples/extract_loop.rs`: each tool and case
runs CALLS calls in one process, RUNS times; the minimum is printed as a markdown table with
ratios to the limit (plain `serde_json::from_str::<Args>` of the clean text). Steadier than one
criterion run on a shared VM, since the minimum of several runs drops the runs that other work
slowed down.

    python3 benches/time_loop.py            # python3 standard library only
"""
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BINARY = ROOT / "target" / "release" / "examples" / "extract_loop"
TOOLS = {"1": "1 param", "2": "2 params", "5": "5 params", "8": "8 params"}
CASES = ["limit", "clean", "messy"]
CALLS = 1_000_000
RUNS = 5


def per_call(tool: str, case: str) -> float:
    best = float("inf")
    for _ in range(RUNS):
        start = time.perf_counter_ns()
        subprocess.run([str(BINARY), tool, case, str(CALLS)], check=True, capture_output=True)
        best = min(best, (time.perf_counter_ns() - start) / CALLS)
    return best


def main() -> None:
    subprocess.run(["cargo", "build", "-q", "--profile", "bench", "-p", "tool-benches", "--example", "extract_loop"],
                   cwd=ROOT, check=True)
    print("| tool | limit | `extract`, clean | `extract`, messy |")
    print("|---|---:|---:|---:|")
    for tool, label in TOOLS.items():
        ns = {case: per_call(tool, case) for case in CASES}
        cells = [f"{ns['limit']:.0f} ns"] + [f"{ns[c]:.0f} ns ({ns[c] / ns['limit']:.2f}x)" for c in CASES[1:]]
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
