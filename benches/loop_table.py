"""Shared by `instructions.py` and `time_loop.py`: builds `examples/extract_loop.rs` (bench
profile) and prints one markdown row per tool, a measure per case, with ratios to the limit
(plain `serde_json::from_str::<Args>` of the clean text, the first case)."""
import subprocess
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
BINARY = ROOT / "target" / "release" / "examples" / "extract_loop"
TOOLS = {"1": "1 param", "2": "2 params", "5": "5 params", "8": "8 params", "40": "40 params"}


def build() -> None:
    subprocess.run(["cargo", "build", "-q", "--profile", "bench", "-p", "tool-benches", "--example", "extract_loop"],
                   cwd=ROOT, check=True)


def print_table(cases: list[str], headers: list[str], measure: Callable[[str, str], float], unit: str = "") -> None:
    """`measure(tool, case)` for every tool and case; `cases[0]` is the limit."""
    print("| tool | " + " | ".join(headers) + " |")
    print("|---|" + "---:|" * len(headers))
    for tool, label in TOOLS.items():
        value = {case: measure(tool, case) for case in cases}
        limit = value[cases[0]]
        cells = [f"{limit:.0f}{unit}"] + [f"{value[c]:.0f}{unit} ({value[c] / limit:.2f}x)" for c in cases[1:]]
        print(f"| {label} | " + " | ".join(cells) + " |")
