"""Start-up: ``crosspost --version``, ``--help``, ``check`` and ``render`` against bare Python.

    python bench/bench_startup.py              # 25 runs of each, medians
    python bench/bench_startup.py --repeat 3   # a smoke run

A cron job that wakes every minute pays start-up every time, so the CLI must import only
what a command needs. Besides the medians, the script runs ``crosspost --help`` under
``python -X importtime`` and names every heavy library that was imported anyway, with the
crosspost module that pulled it in (the line to make lazy), and the slowest imports.

``check`` and ``render`` of the example issue are what an editor runs between edits: the
target is at most 200 ms over bare Python, for imports and work together. Their imports
are listed the same way (``-X importtime``), with the libraries they load without using.
The runs of all commands alternate, so a change in the machine's load touches each alike;
the load average is printed, and no verdict is given when it exceeds the cores. The CPU
time over bare Python is printed beside the wall time: on a busy machine it still tells
what the command costs.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: Libraries that must not load for --version/--help (top-level package names).
HEAVY = (
    "css_inline",
    "lxml",
    "tinycss2",
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
#: ``check`` and ``render`` of the example: imports and work, over bare Python.
EDIT_TARGET_MS = 200.0
#: Libraries ``check`` and ``render`` load only when an issue needs them (a remote image).
#: Not the encoding detectors (chardet, charset_normalizer): BeautifulSoup, which lint
#: uses, tries to import one as it loads, and ``-X importtime`` lists a failed attempt
#: like an import, so whether they appear depends on what else the venv holds.
UNUSED_BY_CHECK = ("requests", "urllib3", "soupsieve")
REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "ai-systems-48" / "issue.md"


def crosspost_command() -> list[str]:
    """The installed ``crosspost`` script beside this Python, else ``python -m crosspost``."""
    script = Path(sys.executable).parent / "crosspost"
    if script.is_file():
        return [str(script)]
    found = shutil.which("crosspost")
    return [found] if found else [sys.executable, "-m", "crosspost"]


def _env() -> dict[str, str]:
    """The environment the commands run in: no crosspost settings, and bytecode written.

    An installed crosspost has the compiled form of every module (pip writes it). A shell
    with ``PYTHONDONTWRITEBYTECODE`` set would make every run of a checkout compile each
    module changed since its last compile from source again, ~1 ms per module, and count
    that as start-up."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("CROSSPOST_") and k != "PYTHONDONTWRITEBYTECODE"
    }


def medians_ms(commands: Sequence[Sequence[str]], repeat: int) -> list[float]:
    """Median wall time of each command in milliseconds (output thrown away), the
    commands run in turn ``repeat`` times so that the machine's load touches each alike."""
    return [wall for wall, _ in timed_ms(commands, repeat)]


def timed_ms(commands: Sequence[Sequence[str]], repeat: int) -> list[tuple[float, float]]:
    """(median wall time, median CPU time) of each command in milliseconds, run in turn.

    The CPU time (user + system of the child) is what the command itself spent: on a
    busy machine the wall time also counts the waits for a core, the CPU time hardly."""
    env = _env()
    walls: list[list[float]] = [[] for _ in commands]
    cpus: list[list[float]] = [[] for _ in commands]
    for command in commands:  # untimed: writes the bytecode, warms the file cache
        subprocess.run(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=REPO
        )
    for _ in range(repeat):
        for command, times, cpu in zip(commands, walls, cpus, strict=True):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=REPO
            )
            times.append((time.perf_counter() - started) * 1000)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            spent = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            cpu.append(spent * 1000)
    return [
        (statistics.median(times), statistics.median(cpu))
        for times, cpu in zip(walls, cpus, strict=True)
    ]


def median_ms(command: Sequence[str], repeat: int) -> float:
    """Median wall time of ``command`` in milliseconds (output thrown away)."""
    return medians_ms([command], repeat)[0]


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
        env=_env(),
        cwd=REPO,
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
    example = str(EXAMPLE.relative_to(REPO))
    with tempfile.TemporaryDirectory(prefix="crosspost-bench-startup-") as out:
        runs = (
            ("crosspost --version", [*command, "--version"], TARGET_MS),
            ("crosspost --help", [*command, "--help"], TARGET_MS),
            ("crosspost check <example>", [*command, "check", example], EDIT_TARGET_MS),
            (
                "crosspost render <example>",
                [*command, "render", example, "-o", out],
                EDIT_TARGET_MS,
            ),
        )
        (bare, bare_cpu), *timed = timed_ms(
            [[sys.executable, "-c", "pass"]] + [r[1] for r in runs], repeat
        )
    load = os.getloadavg()[0]
    cores = os.cpu_count() or 1
    lines = [
        f"### Start-up: median of {repeat} runs (`{' '.join(Path(c).name for c in command)}`)",
        "",
        "| command | wall (ms) | over bare Python (ms) | CPU over bare Python (ms) | target |",
        "|---|---:|---:|---:|---|",
        f"| `python -c pass` | {bare:.0f} | 0 | 0 | |",
    ]
    summary: list[str] = []
    for (name, _, target), (ms, cpu) in zip(runs, timed, strict=True):
        if load > cores:
            verdict = f"no verdict (load {load:.1f} > {cores} cores)"
        else:
            verdict = "met" if ms - bare <= target else "missed"
        lines.append(
            f"| `{name}` | {ms:.0f} | {ms - bare:.0f} | {cpu - bare_cpu:.0f} "
            f"| ≤ +{target:.0f} ms: {verdict} |"
        )
        summary.append(
            f"SUMMARY: `{name}` over `python -c pass` | ≤ +{target:.0f} ms | +{ms - bare:.0f} ms "
            f"| {verdict}"
        )
    lines += ["", f"Load average (1 min) after the runs: {load:.1f} on {cores} cores."]
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
    lines += check_imports(example)
    return "\n".join([*lines, *summary])


def check_imports(example: str) -> list[str]:
    """What ``crosspost check <example>`` imports: the total, the libraries it loads
    without using, and the slowest, each with the module that imported it."""
    imports = import_times(["check", example])
    total = sum(item.self_us for item in imports) / 1000
    tops = {item.name for item in imports if "." not in item.name}
    unused = [name for name in UNUSED_BY_CHECK if name in tops]
    lines = [
        "",
        f"`crosspost check <example>` imports {len(imports)} modules in {total:.0f} ms "
        "(one run, `-X importtime`, own times summed). Loaded though unused: "
        + (", ".join(unused) if unused else "none of " + ", ".join(UNUSED_BY_CHECK))
        + ".",
        "",
        "| library | cumulative ms | imported by |",
        "|---|---:|---|",
    ]
    libraries = [item for item in imports if "." not in item.name and item.depth <= 2]
    for item in sorted(libraries, key=lambda i: i.cumulative_us, reverse=True)[:10]:
        who = importer_of(imports, imports.index(item))
        lines.append(f"| {item.name} | {item.cumulative_us / 1000:.1f} | {who} |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=25, help="runs per command (25)")
    args = parser.parse_args(argv)
    print(report(max(1, args.repeat)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
