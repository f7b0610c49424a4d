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

from loop_table import BINARY, build, print_table

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
    build()
    print_table(CASES, ["limit", "`extract`, clean", "`extract`, messy"], per_call, unit=" ns")


if __name__ == "__main__":
    main()
