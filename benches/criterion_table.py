#!/usr/bin/env python3
"""Prints the medians of the last `cargo bench -p tool-benches` runs as markdown.

Reads `target/criterion/<group>/<bench>/new/{benchmark,estimates}.json` (criterion's own
output), divides by the benchmark's element count (a batch of 8 calls reports per call too),
and adds the ratios the README discusses. Standard library only.

Usage: python3 benches/criterion_table.py [--dir target/criterion]
       python3 benches/criterion_table.py --extraction   # the `--bench extraction` tables
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# (label, numerator id, denominator id): ratios of per-call medians.
RATIOS = [
    ("execute noop / catalog.get", "dispatch/execute noop (sync)", "dispatch/catalog.get"),
    ("execute noop / (catalog.get + Tool::bind)", "dispatch/execute noop (sync)", "dispatch/catalog.get + Tool::bind"),
    (
        "extract / serde_json::from_str, 1 param",
        "dispatch/DeclaredTool::extract",
        "dispatch/serde_json::from_str derived struct",
    ),
    (
        "extract / serde_json::from_str, 5 params",
        "extraction 5 params/DeclaredTool::extract",
        "extraction 5 params/serde_json::from_str derived struct",
    ),
    (
        "Tool::bind / serde_json::from_str, 5 params",
        "extraction 5 params/Tool::bind",
        "extraction 5 params/serde_json::from_str derived struct",
    ),
    (
        "CancellationToken bookkeeping / execute noop",
        "dispatch/CancellationToken bookkeeping as in execute",
        "dispatch/execute noop (sync)",
    ),
    ("execute_batch per call / execute", "dispatch batch/execute_batch 8 x noop", "dispatch/execute noop (sync)"),
]


def fmt_ns(ns: float) -> str:
    if ns >= 10_000:
        return f"{ns / 1000:.1f} µs"
    if ns >= 1000:
        return f"{ns / 1000:.2f} µs"
    return f"{ns:.1f} ns"


def load(directory: Path) -> dict[str, tuple[float, float, float, int]]:
    """full id -> (median ns per iteration, CI low, CI high, elements per iteration)."""
    results = {}
    for bench in sorted(directory.glob("**/new/benchmark.json")):
        meta = json.loads(bench.read_text())
        estimates = json.loads((bench.parent / "estimates.json").read_text())
        median = estimates["median"]
        elements = (meta.get("throughput") or {}).get("Elements") or 1
        ci = median["confidence_interval"]
        results[meta["full_id"]] = (median["point_estimate"], ci["lower_bound"], ci["upper_bound"], elements)
    return results


# `benches/extraction.rs`: one group per tool, these functions in each.
EXTRACTION_GROUPS = ["extract 1 param", "extract 2 params", "extract 5 params", "extract 8 params", "extract 40 params"]
EXTRACTION_COLUMNS = [
    ("extract clean", "`extract`, clean"),
    ("extract messy", "`extract`, messy"),
    ("rmcp way", "rmcp way (`Map` then `from_value`)"),
]


def extraction_table(results: dict[str, tuple[float, float, float, int]]) -> None:
    """Per tool: the limit, then each way of reading as median ns and its ratio to the limit."""
    header = ["tool", "limit: `from_str::<Args>`, clean"] + [label for _, label in EXTRACTION_COLUMNS]
    print("| " + " | ".join(header) + " |")
    print("| --- |" + " ---: |" * (len(header) - 1))
    for group in EXTRACTION_GROUPS:
        limit = results.get(f"{group}/limit")
        if limit is None:
            continue
        cells = [group.removeprefix("extract "), f"{limit[0]:.0f} ns"]
        for function, _ in EXTRACTION_COLUMNS:
            found = results.get(f"{group}/{function}")
            cells.append(f"{found[0]:.0f} ns ({found[0] / limit[0]:.2f}x)" if found else "-")
        print("| " + " | ".join(cells) + " |")


def paired_table(directory: Path) -> None:
    """The paired ratios `benches/extraction.rs` writes: per tool and way, the median and
    quartiles of the block pairs' ratios to the limit (limit and way alternate in blocks inside
    every sample), and the median over the quiet pairs (limit within 10% of its floor)."""
    found = {group: directory / "paired" / f"{group}.json" for group in EXTRACTION_GROUPS}
    if not any(path.exists() for path in found.values()):
        return
    print()
    print("Paired (limit and way alternating in blocks inside every sample): median ratio to the limit")
    print("[quartiles]; then the median over the quiet pairs (limit within 10% of its floor) and how many")
    print()
    header = ["tool"] + [label for _, label in EXTRACTION_COLUMNS]
    print("| " + " | ".join(header) + " |")
    print("| --- |" + " ---: |" * (len(header) - 1))
    for group, path in found.items():
        if not path.exists():
            continue
        ratios = json.loads(path.read_text())
        cells = [group.removeprefix("extract ")]
        for function, _ in EXTRACTION_COLUMNS:
            r = ratios.get(function)
            cells.append(
                f"{r['median']:.2f}x [{r['q1']:.2f}-{r['q3']:.2f}]; quiet {r['quiet_median']:.2f}x"
                f" ({r['quiet_pairs']} of {r['pairs']})"
                if r
                else "-"
            )
        print("| " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, default=ROOT / "target" / "criterion")
    parser.add_argument("--extraction", action="store_true", help="only the extraction benchmark's table")
    args = parser.parse_args()
    results = load(args.dir)
    if not results:
        sys.exit(f"no criterion results under {args.dir}: run the benchmark first")
    if args.extraction:
        extraction_table(results)
        paired_table(args.dir)
        return
    print("| benchmark | median per iteration | 95% CI of the median | median per call |")
    print("| --- | ---: | ---: | ---: |")
    for full_id, (median, low, high, elements) in results.items():
        per_call = fmt_ns(median / elements) if elements > 1 else ""
        print(f"| {full_id} | {fmt_ns(median)} | {fmt_ns(low)} – {fmt_ns(high)} | {per_call} |")
    print()
    print("| ratio (per-call medians) | value |")
    print("| --- | ---: |")
    for label, numerator, denominator in RATIOS:
        if numerator in results and denominator in results:
            n = results[numerator][0] / results[numerator][3]
            d = results[denominator][0] / results[denominator][3]
            print(f"| {label} | {n / d:.2f} |")


if __name__ == "__main__":
    main()
