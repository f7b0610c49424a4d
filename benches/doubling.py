#!/usr/bin/env python3
"""Prints, for each criterion group whose benchmarks are sizes (`<group>/<n>`), the median time
at each size and the ratio to the size before it: linear work doubles (ratio about 2) when the
size doubles. Reads `target/criterion/<group>/<n>/new/estimates.json`. Standard library only.

Usage: python3 benches/doubling.py [PREFIX] [--dir target/criterion]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def show(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("prefix", nargs="?", default="")
    parser.add_argument("--dir", default=str(ROOT / "target" / "criterion"))
    args = parser.parse_args()
    for group in sorted(Path(args.dir).iterdir()):
        if not group.is_dir() or not group.name.startswith(args.prefix.replace(" ", "_")):
            continue
        sizes = []
        for bench in group.iterdir():
            estimates = bench / "new" / "estimates.json"
            if bench.name.isdigit() and estimates.exists():
                median = json.loads(estimates.read_text())["median"]["point_estimate"]
                sizes.append((int(bench.name), median))
        if not sizes:
            continue
        sizes.sort()
        cells = [f"{n:,}: {show(t)}" + (f" ({t / sizes[i - 1][1]:.2f}x)" if i else "") for i, (n, t) in enumerate(sizes)]
        worst = max((t / sizes[i - 1][1] for i, (_, t) in enumerate(sizes) if i), default=0.0)
        print(f"| {group.name.replace('_', ' ')} | " + " | ".join(cells) + f" | {worst:.2f}x |")


if __name__ == "__main__":
    main()
