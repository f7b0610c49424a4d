#!/usr/bin/env python3
"""Compile-time cost of `#[tool]` against the same tools written by hand.

Generates, under `<workspace>/target/compile-time/`, a standalone cargo workspace (its own
`[workspace]`, lock file and target directory, so it never locks the main one) with three
crates, all depending on `tool-core` (by path), serde, schemars, serde_json and tokio:

- `macro_tools`: N tools declared with `#[tool]` (2-5 parameters of String, Option<u32>,
  Vec<String>, bool, f64 and a few shared `#[derive(Deserialize, JsonSchema)]` types; doc
  comments on the fn and on each parameter; async and sync; some taking `ctx: &ToolContext`);
- `manual_tools`: the same N tools as a user writes them without the macro (rmcp/rig style): per
  tool a `#[derive(Deserialize, JsonSchema)]` args struct with the same fields and docs, the
  same body taking the struct, a definition fn returning (name, description,
  `schemars::schema_for!(Args)` as JSON) and a dispatch fn `serde_json::from_str::<Args>(raw)`
  then the call; plus one `definitions()` list and one `dispatch(name, ..)` match;
- `macro_wide` and `manual_wide`: the same two ways for a few tools of 40 parameters each
  (`--wide-tools`, default 10; every type drawn from the pools above, so each tool has its own
  list of parameter types), the width of a real search endpoint with many filters;
- `baseline_tools`: only the shared types, to subtract what every crate costs (rustc start-up,
  cargo's own work, the shared types).

It builds the workspace once (dependencies), then, per run and crate, touches the crate's
`src/lib.rs` and times `cargo build -p CRATE` (dev profile). Runs alternate between the crates
so that load from other users of the machine hits them alike. By default the crate is compiled
without incremental caches (CARGO_INCREMENTAL=0: a full compile of that one crate, as in CI or
after a real edit of most of it); `--incremental` instead times the touch-rebuild with
incremental caches, where mostly macro expansion and hashing are redone.

Usage: python3 benches/compile_time/measure.py [--runs 3] [--tools 200] [--wide-tools 10] [--check] [--incremental]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

SCRIPT = Path(__file__).resolve()
ROOT = SCRIPT.parents[2]  # benches/compile_time/measure.py -> the main workspace
TOOL_CORE = ROOT / "tool-core"
OUT = ROOT / "target" / "compile-time"

CRATES = ("macro_tools", "manual_tools", "macro_wide", "manual_wide", "baseline_tools")
# Each macro crate and the hand-written crate it is compared with.
PAIRS = {"macro_tools": "manual_tools", "macro_wide": "manual_wide"}
WIDE = 40  # parameters of each tool of the wide crates
MAX_ATTEMPTS = 5  # per timed build, when something besides the crate got rebuilt

# (type, [(name, doc)]) — parameter pools; names are unique across pools.
STRING_PARAMS = [
    ("query", "Keywords to look for."),
    ("path", "Path of the file, relative to the workspace root."),
    ("title", "Title to give the new entry."),
    ("text", "The text to store or send."),
    ("url", "Address of the page to read."),
    ("language", "Language code such as `en` or `fr`."),
]
OTHER_PARAMS = [
    ("Option<u32>", [
        ("limit", "Maximum number of results to return."),
        ("page", "Page of results to return, starting at 1."),
        ("max_depth", "How deep to descend into sub-folders."),
        ("timeout_secs", "Give up after this many seconds."),
    ]),
    ("Vec<String>", [
        ("tags", "Only entries carrying all of these tags."),
        ("ids", "Identifiers of the entries to act on."),
        ("fields", "Fields to include in the answer."),
        ("recipients", "Who receives the message."),
    ]),
    ("bool", [
        ("exact", "Match the keywords exactly instead of loosely."),
        ("recursive", "Also act on everything below."),
        ("dry_run", "Only report what would be done."),
        ("include_archived", "Also consider archived entries."),
    ]),
    ("f64", [
        ("threshold", "Minimum relevance score, between 0 and 1."),
        ("temperature", "Sampling temperature for generated text."),
        ("weight", "Relative weight of this entry."),
        ("min_score", "Drop results scoring below this."),
    ]),
]
SHARED_PARAMS = [
    ("Priority", ("priority", "How urgent the request is.")),
    ("Filter", ("filter", "A field filter to narrow the results.")),
]
VERBS = ["search", "list", "create", "update", "delete", "fetch", "summarize", "send", "archive", "tag"]
NOUNS = ["notes", "files", "issues", "messages", "events", "contacts", "pages", "tickets", "reports", "tasks"]

SHARED_TYPES = '''\
/// How urgent something is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Whenever there is time.
    Low,
    /// Today.
    Normal,
    /// Right now.
    High,
}

/// A filter on one field.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
pub struct Filter {
    /// The field to look at.
    pub field: String,
    /// The value it must have.
    pub value: String,
}
'''


@dataclass
class ToolSpec:
    name: str
    params: list[tuple[str, str, str]]  # (name, type, doc)
    doc: list[str]
    is_async: bool
    takes_ctx: bool
    returns_result: bool
    camel: str = field(init=False)

    def __post_init__(self) -> None:
        self.camel = "".join(part.capitalize() for part in self.name.split("_"))

    def body(self) -> str:
        """The same expression in both crates."""
        parts = " ".join(f"{name}={{{name}:?}}" for name, _, _ in self.params)
        if self.takes_ctx:
            text = f'format!("{self.name} [{{}}] {parts}", ctx.call_id())'
        else:
            text = f'format!("{self.name} {parts}")'
        return f"Ok({text})" if self.returns_result else text

    def return_type(self) -> str:
        return "Result<String, ToolError>" if self.returns_result else "String"


def draw_params(rng: random.Random) -> list[tuple[str, str, str]]:
    """2-5 parameters (name, doc, type): a String first, then any of the five basic types (a
    type may repeat under another name), and now and then one shared derived type."""
    arity = rng.choice([2, 3, 3, 4, 4, 5])
    pools = {"String": STRING_PARAMS, **dict(OTHER_PARAMS)}
    used: set[str] = set()

    def take(ty: str) -> tuple[str, str, str] | None:
        free = [(n, d) for n, d in pools[ty] if n not in used]
        if not free:
            return None
        name, doc = rng.choice(free)
        used.add(name)
        return (name, doc, ty)

    params = [take("String")]
    shared = rng.choice(SHARED_PARAMS) if rng.random() < 0.12 else None
    while len(params) < arity - (1 if shared else 0):
        param = take(rng.choice(list(pools)))
        if param:
            params.append(param)
    if shared:
        ty, (name, doc) = shared
        params.insert(rng.randrange(1, len(params) + 1), (name, doc, ty))
    return [p for p in params if p]


def tool_specs(count: int, unique_signatures: bool = False, seed: int = 7) -> list[ToolSpec]:
    """The tools, the same on every run. With `unique_signatures`, no two tools share their
    list of parameter types (so no two share a `WireArgs` tuple instantiation)."""
    rng = random.Random(seed)
    specs = []
    seen: set[tuple[str, ...]] = set()
    for i in range(count):
        verb, noun = VERBS[i % len(VERBS)], NOUNS[(i // len(VERBS)) % len(NOUNS)]
        name = f"{verb}_{noun}_{i:03d}"
        for _ in range(10_000):
            params = draw_params(rng)
            signature = tuple(ty for _, _, ty in params)
            if not unique_signatures or signature not in seen:
                break
        else:
            sys.exit(f"could not draw {count} distinct parameter-type lists")
        seen.add(signature)
        doc = [f"{verb.capitalize()} {noun} (tool {i})."]
        if rng.random() < 0.6:
            doc += ["", f"Works on the {noun} store and returns a one-line summary of what it did."]
        specs.append(
            ToolSpec(
                name=name,
                params=[(n, t, d) for n, d, t in params],
                doc=doc,
                is_async=rng.random() < 0.5,
                takes_ctx=rng.random() < 0.3,
                returns_result=rng.random() < 0.2,
            )
        )
    return specs


def wide_specs(count: int, seed: int = 11) -> list[ToolSpec]:
    """`count` tools of `WIDE` parameters: a String first, then any basic type, each parameter
    named after its pool entry and position (`limit_7`), documented like the others."""
    rng = random.Random(seed)
    pools = [("String", STRING_PARAMS), *OTHER_PARAMS]
    specs = []
    for i in range(count):
        params = []
        for k in range(WIDE):
            ty, pool = pools[0] if k == 0 else rng.choice(pools)
            name, doc = rng.choice(pool)
            params.append((f"{name}_{k}", ty, doc))
        specs.append(
            ToolSpec(
                name=f"search_everything_{i:02d}",
                params=params,
                doc=[f"Search everything with {WIDE} filters (tool {i})."],
                is_async=i % 2 == 0,
                takes_ctx=False,
                returns_result=False,
            )
        )
    return specs


def describe(specs: list[ToolSpec]) -> str:
    signatures = {tuple(t for _, t, _ in s.params) for s in specs}
    count = len(specs)
    return (
        f"{count} tools: {sum(s.is_async for s in specs)} async, {sum(s.takes_ctx for s in specs)} take `&ToolContext`, "
        f"{sum(s.returns_result for s in specs)} return `Result`, "
        f"{sum(any(t in ('Priority', 'Filter') for _, t, _ in s.params) for s in specs)} take a shared derived type, "
        f"{sum(len(s.params) for s in specs) / max(count, 1):.1f} parameters on average, "
        f"{len(signatures)} distinct parameter-type lists"
    )


def doc_lines(lines: list[str], indent: str = "") -> str:
    return "".join(f"{indent}///{' ' + line if line else ''}\n" for line in lines)


def header(kind: str, count: int) -> str:
    return (
        f"//! Generated by benches/compile_time/measure.py: {count} tools, {kind}.\n"
        "#![allow(dead_code, clippy::all)]\n\n"
        "use schemars::JsonSchema;\n"
        "use serde::Deserialize;\n"
        "use tool_core::prelude::*;\n\n"
        f"{SHARED_TYPES}\n"
    )


def macro_crate(specs: list[ToolSpec]) -> str:
    out = [header("declared with #[tool]", len(specs))]
    for s in specs:
        out.append(doc_lines(s.doc))
        out.append("#[tool]\n")
        asyncness = "async " if s.is_async else ""
        out.append(f"pub {asyncness}fn {s.name}(\n")
        for name, ty, doc in s.params:
            out.append(doc_lines([doc], "    "))
            out.append(f"    {name}: {ty},\n")
        if s.takes_ctx:
            out.append("    ctx: &ToolContext,\n")
        out.append(f") -> {s.return_type()} {{\n    {s.body()}\n}}\n\n")
    return "".join(out)


def rust_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def manual_crate(specs: list[ToolSpec]) -> str:
    out = [header("written by hand (args struct, definition fn, dispatch fn)", len(specs))]
    out.append(
        "/// A boxed dispatch future.\n"
        "pub type DispatchFuture<'a> =\n"
        "    std::pin::Pin<Box<dyn std::future::Future<Output = Result<String, String>> + Send + 'a>>;\n\n"
    )
    for s in specs:
        args = f"{s.camel}Args"
        out.append(f"/// Arguments of `{s.name}`.\n#[derive(Deserialize, JsonSchema)]\npub struct {args} {{\n")
        for name, ty, doc in s.params:
            out.append(doc_lines([doc], "    "))
            out.append(f"    pub {name}: {ty},\n")
        out.append("}\n\n")
        asyncness = "async " if s.is_async else ""
        ctx = ", ctx: &ToolContext" if s.takes_ctx else ""
        fields = ", ".join(name for name, _, _ in s.params)
        out.append(doc_lines(s.doc))
        out.append(f"pub {asyncness}fn {s.name}(args: {args}{ctx}) -> {s.return_type()} {{\n")
        out.append(f"    let {args} {{ {fields} }} = args;\n    {s.body()}\n}}\n\n")
        description = "\n".join(s.doc)
        out.append(
            f"/// The definition of `{s.name}`: name, description, input schema.\n"
            f"pub fn {s.name}_definition() -> (&'static str, &'static str, serde_json::Value) {{\n"
            f"    ({rust_str(s.name)}, {rust_str(description)}, schemars::schema_for!({args}).to_value())\n}}\n\n"
        )
        call_ctx = ", ctx" if s.takes_ctx else ""
        call = f"{s.name}(args{call_ctx})" + (".await" if s.is_async else "")
        result = f"{call}.map_err(|e| e.to_string())" if s.returns_result else f"Ok({call})"
        ctx_param = "ctx: &ToolContext" if s.takes_ctx else "_ctx: &ToolContext"
        out.append(
            f"/// Runs `{s.name}` on raw arguments.\n"
            f"pub {asyncness}fn {s.name}_dispatch(raw: &str, {ctx_param}) -> Result<String, String> {{\n"
            f"    let args: {args} = serde_json::from_str(raw).map_err(|e| e.to_string())?;\n"
            f"    {result}\n}}\n\n"
        )
    out.append("/// Every tool's definition.\npub fn definitions() -> Vec<(&'static str, &'static str, serde_json::Value)> {\n    vec![\n")
    out.extend(f"        {s.name}_definition(),\n" for s in specs)
    out.append("    ]\n}\n\n")
    out.append(
        "/// Runs the tool called `name`; `None` when there is none.\n"
        "pub fn dispatch<'a>(name: &str, raw: &'a str, ctx: &'a ToolContext) -> Option<DispatchFuture<'a>> {\n"
        "    Some(match name {\n"
    )
    for s in specs:
        if s.is_async:
            out.append(f"        {rust_str(s.name)} => Box::pin({s.name}_dispatch(raw, ctx)),\n")
        else:
            out.append(f"        {rust_str(s.name)} => Box::pin(std::future::ready({s.name}_dispatch(raw, ctx))),\n")
    out.append("        _ => return None,\n    })\n}\n")
    return "".join(out)


def baseline_crate() -> str:
    return header("none (baseline: the shared types only)", 0) + (
        "/// Keeps every dependency in use.\n"
        "pub fn touch(ctx: &ToolContext) -> String {\n"
        "    let _ = (std::any::type_name::<Priority>(), std::any::type_name::<Filter>());\n"
        "    ctx.call_id().to_owned()\n}\n"
    )


def cargo_toml(name: str) -> str:
    return f'''[package]
name = "{name}"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
tool-core = {{ path = "{TOOL_CORE.as_posix()}" }}
serde = {{ version = "1", features = ["derive"] }}
schemars = "1"
serde_json = "1"
tokio = {{ version = "1", features = ["rt", "macros"] }}
'''


def write_if_changed(path: Path, text: str) -> None:
    """Writes only on change, so a rerun with the same settings reuses the previous build."""
    if path.exists() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def generate(count: int, unique_signatures: bool, wide: int) -> str:
    specs = tool_specs(count, unique_signatures)
    wide_tools = wide_specs(wide)
    write_if_changed(
        OUT / "Cargo.toml",
        "# Generated by benches/compile_time/measure.py; a workspace of its own.\n"
        "[workspace]\n"
        'resolver = "2"\n'
        f"members = [{', '.join(repr(c).replace(chr(39), chr(34)) for c in CRATES)}]\n",
    )
    lock = OUT / "Cargo.lock"
    if not lock.exists() and (ROOT / "Cargo.lock").exists():
        shutil.copy(ROOT / "Cargo.lock", lock)  # the same dependency versions as the main workspace
    sources = {
        "macro_tools": macro_crate(specs),
        "manual_tools": manual_crate(specs),
        "macro_wide": macro_crate(wide_tools),
        "manual_wide": manual_crate(wide_tools),
        "baseline_tools": baseline_crate(),
    }
    for crate in CRATES:
        write_if_changed(OUT / crate / "Cargo.toml", cargo_toml(crate))
        write_if_changed(OUT / crate / "src" / "lib.rs", sources[crate])
    return f"{describe(specs)}; and {len(wide_tools)} tools of {WIDE} parameters"


def cargo(args: list[str], env: dict[str, str], what: str) -> tuple[float, set[str]]:
    """Runs cargo in the generated workspace; returns the wall time and the packages it compiled
    (`Compiling NAME v..` lines); exits on failure, printing cargo's stderr."""
    started = time.perf_counter()
    try:
        proc = subprocess.run(["cargo", *args], cwd=OUT, env=env, capture_output=True, text=True, timeout=3600)
    except subprocess.TimeoutExpired:
        sys.exit(f"`cargo {' '.join(args)}` ({what}) did not finish within an hour")
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        sys.stderr.write(f"\n`cargo {' '.join(args)}` ({what}) failed with exit code {proc.returncode}:\n")
        sys.stderr.write(proc.stderr[-20000:])
        sys.exit(1)
    if "warning:" in proc.stderr and what.startswith("prebuild"):
        sys.stderr.write(f"note: cargo reported warnings during {what}:\n{proc.stderr[-4000:]}\n")
    compiled = set()
    for line in proc.stderr.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] in ("Compiling", "Checking"):
            compiled.add(words[1])
    return elapsed, compiled


def measure(mode: str, runs: int, incremental: bool, jobs: int | None) -> dict[str, list[float]]:
    env = dict(os.environ)
    env["CARGO_INCREMENTAL"] = "1" if incremental else "0"
    env["CARGO_TARGET_DIR"] = str(OUT / ("target-incremental" if incremental else "target"))
    env["CARGO_TERM_COLOR"] = "never"
    env.pop("RUSTFLAGS", None)
    base = [mode]
    if jobs:
        base += ["--jobs", str(jobs)]
    print(f"[{mode}] prebuilding dependencies and all crates once...", file=sys.stderr, flush=True)
    t, _ = cargo(base + ["--workspace"], env, f"prebuild ({mode})")
    print(f"[{mode}] prebuild took {t:.1f} s", file=sys.stderr, flush=True)
    times: dict[str, list[float]] = {c: [] for c in CRATES}
    for run in range(runs):
        for crate in CRATES:
            lib = OUT / crate / "src" / "lib.rs"
            for attempt in range(1, MAX_ATTEMPTS + 1):
                os.utime(lib, None)  # now: newer than the last build's outputs
                t, compiled = cargo(base + ["-p", crate], env, f"{mode} {crate}")
                if compiled == {crate}:
                    break
                # Something else was rebuilt too (tool-core or tool-macros edited meanwhile, as
                # happens in a shared work tree): the time is not the crate's alone. Retry.
                others = ", ".join(sorted(compiled - {crate})) or "nothing"
                print(
                    f"[{mode}] run {run + 1} {crate}: discarded {t:.2f} s (compiled {others}; attempt {attempt})",
                    file=sys.stderr,
                    flush=True,
                )
            else:
                sys.exit(f"{crate}: dependencies kept changing during {MAX_ATTEMPTS} attempts; try again later")
            times[crate].append(t)
            print(f"[{mode}] run {run + 1}/{runs} {crate}: {t:.2f} s", file=sys.stderr, flush=True)
    return times


def table(mode: str, times: dict[str, list[float]], counts: dict[str, int]) -> str:
    med = {c: statistics.median(v) for c, v in times.items()}
    base = med["baseline_tools"]
    rows = [
        f"`cargo {mode} -p CRATE` after touching its lib.rs ({len(times['macro_tools'])} runs)",
        "",
        "| crate | tools | median s | min s | max s | per tool ms | per tool ms over baseline | ratio macro/manual (medians) "
        "| ratio over baseline | ratio, median of per-run pairs |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    manual_of = {**PAIRS, **{manual: manual for manual in PAIRS.values()}}
    for crate in CRATES:
        values = times[crate]
        count = counts.get(crate, 0)
        if crate == "baseline_tools":
            per_tool = over = ratio = ratio_over = pair = "-"
        else:
            manual = manual_of[crate]
            manual_inc = med[manual] - base
            per_tool = f"{med[crate] / count * 1000:.2f}"
            over = f"{(med[crate] - base) / count * 1000:.2f}"
            ratio = f"{med[crate] / med[manual]:.2f}"
            ratio_over = f"{(med[crate] - base) / manual_inc:.2f}" if manual_inc > 0 else "n/a"
            # Runs alternate between the crates, so run i of each saw about the same machine
            # load: the median of the per-run ratios is less sensitive to load drifting.
            paired = statistics.median(m / n for m, n in zip(times[crate], times[manual]))
            pair = f"{paired:.2f}"
        rows.append(
            f"| {crate} | {count} | {med[crate]:.2f} | {min(values):.2f} | {max(values):.2f} | {per_tool} | {over} "
            f"| {ratio} | {ratio_over} | {pair} |"
        )
    rows.append("")
    rows.append("raw seconds: " + "; ".join(f"{c} {', '.join(f'{t:.2f}' for t in times[c])}" for c in CRATES))
    return "\n".join(rows) + "\n"


def source_version() -> str:
    """The commit tool-core and tool-macros were measured at, and whether they had local edits."""
    git = ["git", "-C", str(ROOT)]
    paths = ["--", "tool-core", "tool-macros"]
    head = subprocess.run(git + ["log", "-1", "--format=%h", *paths], capture_output=True, text=True)
    if head.returncode != 0:
        return "tool-core version unknown (not a git checkout)"
    dirty = subprocess.run(git + ["status", "--porcelain", *paths], capture_output=True, text=True).stdout.strip()
    return f"tool-core/tool-macros at {head.stdout.strip()}" + (" plus uncommitted edits" if dirty else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="timed builds per crate (default 3)")
    parser.add_argument("--tools", type=int, default=200, help="tools per crate (default 200)")
    parser.add_argument("--check", action="store_true", help="also time `cargo check` (front end only)")
    parser.add_argument(
        "--incremental", action="store_true", help="time touch-rebuilds with incremental caches instead"
    )
    parser.add_argument(
        "--unique-signatures",
        action="store_true",
        help="give every tool a distinct list of parameter types (the macro's worst case)",
    )
    parser.add_argument(
        "--wide-tools", type=int, default=10, help=f"tools of {WIDE} parameters in the wide crates (default 10)"
    )
    parser.add_argument("--jobs", type=int, default=None, help="cargo --jobs")
    parser.add_argument("--generate-only", action="store_true", help="write the crates and stop")
    args = parser.parse_args()
    if args.runs < 1 or args.tools < 1 or args.wide_tools < 1:
        parser.error("--runs, --tools and --wide-tools must be at least 1")
    if not (TOOL_CORE / "Cargo.toml").exists():
        sys.exit(f"tool-core not found at {TOOL_CORE}")
    if shutil.which("cargo") is None:
        sys.exit("cargo is not on PATH")

    description = generate(args.tools, args.unique_signatures, args.wide_tools)
    print(f"generated under {OUT}: {description}", file=sys.stderr)
    if args.generate_only:
        return
    modes = ["build"] + (["check"] if args.check else [])
    reports = []
    for mode in modes:
        times = measure(mode, args.runs, args.incremental, args.jobs)
        counts = {"macro_tools": args.tools, "manual_tools": args.tools}
        counts.update({"macro_wide": args.wide_tools, "manual_wide": args.wide_tools})
        reports.append(table(mode, times, counts))
    cache = "incremental caches on" if args.incremental else "CARGO_INCREMENTAL=0"
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    text = (
        f"{description}\n\ndev profile, {cache}, {rustc}, {os.cpu_count()} CPUs, {source_version()}\n\n"
        + "\n".join(reports)
    )
    (OUT / "results.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
