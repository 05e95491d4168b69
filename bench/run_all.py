"""Run every benchmark and rewrite the results in bench/README.md.

    python bench/run_all.py            # full runs; rewrites the block between the markers
    python bench/run_all.py --quick    # tiny inputs (what the smoke test runs)
    python bench/run_all.py --print    # print the block instead of writing the README

Each benchmark is a script of its own, run here as a subprocess (so start-up and import
costs are each script's own, as an editor's shell would see them). A script prints
Markdown; lines starting ``SUMMARY:`` (``figure | target | measured | verdict``) are
gathered into one targets table at the top. ``bench_run_due.py`` (the scheduler's) is
run when it is present, its output kept as printed. Only the text between
:data:`START` and :data:`END` is replaced: every other section of the README stays.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
README = HERE / "README.md"
START = "<!-- bench results: start (python bench/run_all.py rewrites this block) -->"
END = "<!-- bench results: end -->"


@dataclass(frozen=True)
class Benchmark:
    """One script, with its arguments for a full run and for a quick one."""

    title: str
    script: str
    full: tuple[str, ...] = ()
    #: None: not run with --quick (its tiny-input switches are not known here).
    quick: tuple[str, ...] | None = ()


BENCHMARKS = (
    Benchmark(
        "Publish latency and request economy",
        "bench_publish.py",
        ("--images", "12", "50", "--latency", "50", "200", "--profile", "14"),
        ("--images", "3", "--latency", "0", "--repeat", "1"),
    ),
    Benchmark(
        "Publish over HTTPS (real TLS; a new connection costs 2 round trips)",
        "bench_publish.py",
        (
            "--images",
            "12",
            "50",
            "--latency",
            "50",
            "200",
            "--setup-rounds",
            "2",
            "--tls",
            "--no-economy",
        ),
        (
            "--images",
            "3",
            "--latency",
            "20",
            "--repeat",
            "1",
            "--setup-rounds",
            "2",
            "--tls",
            "--no-economy",
        ),
    ),
    Benchmark(
        "Scheduler tick (run-due)", "bench_run_due.py", (), ("--files", "20", "--repeat", "1")
    ),
    Benchmark("Start-up", "bench_startup.py", (), ("--repeat", "2")),
    Benchmark("Ledger size", "bench_ledger.py", ("--before",), ("--posts", "10", "100")),
    Benchmark(
        "Render",
        "bench_render.py",
        ("--profile", "12"),
        ("--repeat", "2", "--no-corpus", "--items", "50", "250", "--scaling-repeat", "1"),
    ),
    Benchmark(
        "One long line (render and check)",
        "bench_long_lines.py",
        (),
        ("--sizes", "2", "4", "--repeat", "1", "--kind", "cjk", "--kind", "marks"),
    ),
    Benchmark("WeChat HTML size", "bench_html_ratio.py", (), ("--no-corpus",)),
)


def cpu_model() -> str:
    """The CPU's marketing name from /proc/cpuinfo, else what ``platform`` says."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> str:
    """One line: cores, CPU, Python, OS."""
    return (
        f"{os.cpu_count()} cores (nproc), {cpu_model()}, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )


@dataclass(frozen=True)
class Outcome:
    """What one benchmark printed, split into its section and its summary lines."""

    benchmark: Benchmark
    section: str
    summary: tuple[str, ...]
    seconds: float


def run(benchmark: Benchmark, quick: bool) -> Outcome | None:
    """Run one script; None when it is absent or has no quick mode."""
    script = HERE / benchmark.script
    args = benchmark.quick if quick else benchmark.full
    if not script.is_file() or args is None:
        return None
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, cwd=HERE.parent
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        section = f"`{benchmark.script}` failed (exit {done.returncode}):\n\n```\n{tail}\n```"
        return Outcome(benchmark, section, (), seconds)
    body = [line for line in done.stdout.splitlines() if not line.startswith("SUMMARY:")]
    summary = tuple(
        line[len("SUMMARY:") :].strip() for line in done.stdout.splitlines() if "SUMMARY:" in line
    )
    if not summary and benchmark.script == "bench_run_due.py":
        summary = run_due_summary(body)
    text = "\n".join(body).strip()
    if not any(line.startswith(("|", "#")) for line in body):
        text = f"```\n{text}\n```"  # plain text from a script that does not print Markdown
    return Outcome(benchmark, text, summary, seconds)


def run_due_summary(lines: Sequence[str]) -> tuple[str, ...]:
    """The scheduler's target from its table (its script prints no SUMMARY lines):
    a 1,000-file tick under 0.5 s, start-up included."""
    found = []
    for line in lines:
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].replace(",", "") == "1000" and cells[1].endswith(" ms"):
            ms = float(cells[1].removesuffix(" ms"))
            verdict = "met" if ms < 500 else "missed"
            found.append(
                f"`crosspost run-due`, 1,000 files, nothing due | < 500 ms | {ms:.0f} ms "
                f"| {verdict}"
            )
    return tuple(found)


def load() -> str:
    """The 1-minute load average against the cores: figures taken above it are noise."""
    try:
        return f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    except OSError:
        return "unknown"


def block(outcomes: Sequence[Outcome], quick: bool, skipped: Sequence[str], loads: str = "") -> str:
    """The generated part of the README."""
    command = "python bench/run_all.py" + (" --quick" if quick else "")
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        START,
        "",
        f"Machine: {machine()}.  ",
        f"Date: {when}.  Command: `{command}`.  " + (f"Load average: {loads}." if loads else ""),
        "",
        "| figure | target | measured | verdict |",
        "|---|---|---|---|",
    ]
    for outcome in outcomes:
        lines += [f"| {line} |" for line in outcome.summary]
    for outcome in outcomes:
        lines += [
            "",
            f"## Results: {outcome.benchmark.title}",
            f"*`python bench/{outcome.benchmark.script}`, {outcome.seconds:.0f} s*",
            "",
            outcome.section,
        ]
    if skipped:
        lines += ["", "Not run: " + ", ".join(skipped) + "."]
    return "\n".join([*lines, "", END])


def write(readme: Path, generated: str) -> None:
    """Replace the block between the markers (append it when the README has none)."""
    text = readme.read_text(encoding="utf-8") if readme.is_file() else "# Benchmarks\n"
    if START in text and END in text:
        head, rest = text.split(START, 1)
        tail = rest.split(END, 1)[1]
        text = head + generated + tail
    else:
        text = text.rstrip("\n") + "\n\n" + generated + "\n"
    readme.write_text(text, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny inputs, for a smoke run")
    parser.add_argument("--print", action="store_true", help="print instead of writing")
    parser.add_argument("--readme", type=Path, default=README, help="the README to rewrite")
    args = parser.parse_args(argv)
    outcomes: list[Outcome] = []
    skipped: list[str] = []
    before = load()
    for benchmark in BENCHMARKS:
        print(f"running {benchmark.script} …", file=sys.stderr, flush=True)
        outcome = run(benchmark, args.quick)
        if outcome is None:
            skipped.append(f"`{benchmark.script}`")
        else:
            outcomes.append(outcome)
    generated = block(outcomes, args.quick, skipped, f"{before} before, {load()} after")
    if args.print:
        print(generated)
    else:
        write(args.readme, generated)
        print(f"wrote {args.readme}", file=sys.stderr)
    failed = [o for o in outcomes if "failed (exit" in o.section.split("\n", 1)[0]]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
