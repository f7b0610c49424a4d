#!/usr/bin/env python3
"""Instructions per extraction, counted by callgrind: stable on a loaded machine where
criterion's times are not. Builds `examples/extract_loop.rs` (bench profile), runs each tool and
case for N and 2N calls inside `run`, and prints the difference per call as a markdown table
with ratios to the limit (plain `serde_json::from_str::<Args>` of the clean text).

    python3 benches/instructions.py            # needs valgrind
"""
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from loop_table import BINARY, build, print_table

CASES = ["limit", "clean", "messy", "rmcp"]
CALLS = 1000


def total(tool: str, case: str, calls: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--toggle-collect=extract_loop::run*",
             str(BINARY), tool, case, str(calls)],
            check=True, capture_output=True)
        text = subprocess.run(["callgrind_annotate", str(out)], check=True, capture_output=True, text=True).stdout
    match = re.search(r"^\s*([\d,]+)\s.*PROGRAM TOTALS", text, re.MULTILINE)
    if not match:
        sys.exit("callgrind_annotate printed no total")
    return int(match.group(1).replace(",", ""))


def main() -> None:
    build()
    headers = ["limit: `from_str::<Args>`, clean", "`extract`, clean", "`extract`, messy", "rmcp way"]
    print_table(CASES, headers, lambda tool, case: (total(tool, case, 2 * CALLS) - total(tool, case, CALLS)) / CALLS)


if __name__ == "__main__":
    main()
