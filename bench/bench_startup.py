"""Start-up: ``crosspost --version`` and ``crosspost --help`` against ``python -c pass``.

    python bench/bench_startup.py              # 25 runs of each, medians
    python bench/bench_startup.py --repeat 3   # a smoke run

A cron job that wakes every minute pays start-up every time, so the CLI must import only
what a command needs. Besides the medians, the script runs ``crosspost --help`` under
``python -X importtime`` and names every heavy library that was imported anyway, with the
crosspost module that pulled it in (the line to make lazy), and the slowest imports.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: Libraries that must not load for --version/--help (top-level package names).
HEAVY = (
    "premailer",
    "lxml",
    "cssutils",
    "PIL",
    "requests",
    "urllib3",
    "werkzeug",
    "yaml",
    "jinja2",
    "markdown_it",
    "mdit_py_plugins",
    "pygments",
    "bs4",
    "markdownify",
    "tenacity",
    "filelock",
    "sqlite3",
    "apprise",
    "playwright",
)
TARGET_MS = 150.0


def crosspost_command() -> list[str]:
    """The installed ``crosspost`` script beside this Python, else ``python -m crosspost``."""
    script = Path(sys.executable).parent / "crosspost"
    if script.is_file():
        return [str(script)]
    found = shutil.which("crosspost")
    return [found] if found else [sys.executable, "-m", "crosspost"]


def median_ms(command: Sequence[str], repeat: int) -> float:
    """Median wall time of ``command`` in milliseconds (output thrown away)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CROSSPOST_")}
    walls = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        walls.append((time.perf_counter() - started) * 1000)
    return statistics.median(walls)


@dataclass(frozen=True)
class Import:
    """One line of ``-X importtime``: a module, its own and cumulative microseconds, depth."""

    name: str
    self_us: int
    cumulative_us: int
    depth: int


def import_times(argv: Sequence[str]) -> list[Import]:
    """The imports of ``python -X importtime -m crosspost ARGV``, in the order printed."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "crosspost", *argv],
        capture_output=True,
        text=True,
    )
    found = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, cumulative, name = line[len("import time:") :].split("|")
        depth = (len(name) - len(name.lstrip(" "))) // 2
        found.append(Import(name.strip(), int(own), int(cumulative), depth))
    return found


def importer_of(imports: Sequence[Import], index: int) -> str:
    """Who imported ``imports[index]``: importtime prints a parent after its children."""
    depth = imports[index].depth
    for later in imports[index + 1 :]:
        if later.depth < depth:
            return later.name
    return "(run time: a function, not a module top)"


def leaks(imports: Sequence[Import]) -> list[tuple[str, str, str]]:
    """Heavy libraries that were imported: (library, ms, the module that imported it first)."""
    rows = []
    for index, item in enumerate(imports):
        top = item.name.split(".")[0]
        if item.name in HEAVY or (top in HEAVY and "." not in item.name):
            chain = [importer_of(imports, index)]
            while not chain[-1].startswith("crosspost") and not chain[-1].startswith("("):
                position = next(i for i, m in enumerate(imports) if m.name == chain[-1])
                chain.append(importer_of(imports, position))
            rows.append((item.name, f"{item.cumulative_us / 1000:.1f}", " ← ".join(chain)))
    return rows


def report(repeat: int) -> str:
    """The start-up section as Markdown."""
    command = crosspost_command()
    bare = median_ms([sys.executable, "-c", "pass"], repeat)
    version = median_ms([*command, "--version"], repeat)
    help_ms = median_ms([*command, "--help"], repeat)
    lines = [
        f"### Start-up: median of {repeat} runs (`{' '.join(Path(c).name for c in command)}`)",
        "",
        "| command | wall (ms) | over bare Python (ms) | target ≤ +150 ms |",
        "|---|---:|---:|---|",
        f"| `python -c pass` | {bare:.0f} | 0 | |",
    ]
    summary: list[str] = []
    for name, ms in (("crosspost --version", version), ("crosspost --help", help_ms)):
        verdict = "met" if ms - bare <= TARGET_MS else "missed"
        lines.append(f"| `{name}` | {ms:.0f} | {ms - bare:.0f} | {verdict} |")
        summary.append(
            f"SUMMARY: `{name}` over `python -c pass` | ≤ +150 ms | +{ms - bare:.0f} ms | {verdict}"
        )
    imports = import_times(["--help"])
    leaked = leaks(imports)
    lines += ["", "Heavy libraries imported by `crosspost --help`:", ""]
    if leaked:
        lines += ["| library | cumulative ms | imported by |", "|---|---:|---|"]
        lines += [f"| {name} | {ms} | {chain} |" for name, ms, chain in leaked]
    else:
        lines.append("none of " + ", ".join(HEAVY) + ".")
    slowest = sorted(imports, key=lambda i: i.self_us, reverse=True)[:8]
    lines += [
        "",
        "Slowest imports of `crosspost --help` (own time, one run):",
        "",
        "| module | own ms | cumulative ms | imported by |",
        "|---|---:|---:|---|",
    ]
    for item in slowest:
        who = importer_of(imports, imports.index(item))
        lines.append(
            f"| {item.name} | {item.self_us / 1000:.1f} | {item.cumulative_us / 1000:.1f} | {who} |"
        )
    return "\n".join([*lines, *summary])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=25, help="runs per command (25)")
    args = parser.parse_args(argv)
    print(report(max(1, args.repeat)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
