"""Render time per document and channel, the share of WeChat's spent inlining CSS, and
how render time grows with the length of an issue.

    python bench/bench_render.py               # the example and the corpus, 20 runs each
    python bench/bench_render.py --repeat 2    # a smoke run
    python bench/bench_render.py --items 1000 5000   # the scaling rows (the default sizes)

Each figure is the median of repeated in-process renders after one warm-up render (the
first render of a process also loads the theme, the templates and the Markdown parser;
its time is shown apart). The inlining share comes from cProfile: the cumulative time of
``inline_theme`` (css-inline) over the cumulative time of the WeChat ``render`` call, both
measured in the same profiled runs.

The scaling rows render made-up issues of 1,000 and 5,000 items (a heading, a line of
text, a link and a code block each), alternately, and keep each size's fastest CPU time
(``time.process_time``: other processes on the machine slow the wall clock more than the
CPU time), with a garbage collection before each run so that no run pays for another's
garbage. The exponent is ``log(t_large / t_small) / log(large / small)``: 1 is linear;
the target is at most 1.1 for each channel. Corpus documents (``<repo>/../shared/corpus``) carry
no crosspost front matter, so each is copied with one made from its first heading.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import math
import os
import pstats
import re
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from crosspost.errors import CrosspostError
from crosspost.issue.loader import load_issue
from crosspost.issue.model import Issue
from crosspost.render.rendered import RenderContext, render

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "ai-systems-48" / "issue.md"
CORPUS = REPO / ".." / "shared" / "corpus"
CHANNELS = ("wechat", "zhihu")
TARGET_MS = 50.0
_FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.S)


def as_issue(document: Path, folder: Path) -> Path:
    """A copy of a plain Markdown document with crosspost front matter (title only)."""
    text = document.read_text(encoding="utf-8")
    title = document.stem
    front = _FRONT.match(text)
    if front:
        found = re.search(r"^title:\s*['\"]?(.*?)['\"]?\s*$", front.group(1), re.M)
        title = found.group(1) if found else title
        text = text[front.end() :]
    else:
        heading = re.search(r"^#\s+(.+)$", text, re.M)
        title = heading.group(1).strip() if heading else title
    title = title.replace('"', "'")
    target = folder / document.name
    target.write_text(f'---\ntitle: "{title}"\n---\n\n{text}', encoding="utf-8")
    return target


def documents(folder: Path, corpus: bool = True) -> list[tuple[str, Issue | str]]:
    """The example, then every corpus document that exists (or why it does not load)."""
    found: list[tuple[str, Issue | str]] = [("example (ai-systems-48)", load_issue(EXAMPLE))]
    if corpus and CORPUS.is_dir():
        for document in sorted(CORPUS.glob("*.md")):
            if document.name == "SOURCES.md":
                continue
            try:
                found.append((document.name, load_issue(as_issue(document, folder))))
            except CrosspostError as error:  # a finding to report, not a reason to stop
                found.append((document.name, str(error).replace(str(folder) + "/", "")))
    return found


def median_ms(issue: Issue, channel: str, repeat: int) -> float:
    context = RenderContext()
    walls = []
    for _ in range(repeat):
        started = time.perf_counter()
        render(issue, channel, context)
        walls.append((time.perf_counter() - started) * 1000)
    return statistics.median(walls)


def inlining_share(issue: Issue, repeat: int) -> tuple[float, pstats.Stats]:
    """The theme inliner (``inline_theme``) cumulative time / WeChat ``render`` cumulative time."""
    profile = cProfile.Profile()
    context = RenderContext()
    profile.enable()
    for _ in range(repeat):
        render(issue, "wechat", context)
    profile.disable()
    stats = pstats.Stats(profile)
    totals = {"transform": 0.0, "render": 0.0}
    for (filename, _, name), row in stats.stats.items():  # type: ignore[attr-defined]
        cumulative = row[3]
        in_document = filename.endswith(os.path.join("render", "wechat", "document.py"))
        if name == "inline_theme" and in_document:
            totals["transform"] += cumulative
        if name == "render" and in_document:
            totals["render"] += cumulative
    share = totals["transform"] / totals["render"] if totals["render"] else 0.0
    return share, stats


def report(repeat: int, corpus: bool = True, profile_lines: int = 0) -> str:
    """The render section as Markdown."""
    with tempfile.TemporaryDirectory(prefix="crosspost-bench-render-") as tmp:
        docs = documents(Path(tmp), corpus)
        example = docs[0][1]
        assert isinstance(example, Issue)
        # The first render of a process, apart (nothing was loaded yet).
        first = {channel: median_ms(example, channel, 1) for channel in CHANNELS}
        lines = [
            f"### Render: median of {repeat} in-process runs (ms)",
            "",
            "| document | KiB | WeChat | Zhihu | both | CSS inlining share of WeChat |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        profiles = []
        skipped = []
        shares: list[float] = []
        for name, issue in docs:
            if isinstance(issue, str):
                skipped.append(f"{name} does not load as an issue: {issue}")
                continue
            wechat = median_ms(issue, "wechat", repeat)
            zhihu = median_ms(issue, "zhihu", repeat)
            share, stats = inlining_share(issue, max(1, min(repeat, 5)))
            profiles.append((name, stats))
            shares.append(share)
            size = len(issue.body.encode("utf-8")) / 1024
            lines.append(
                f"| {name} | {size:.1f} | {wechat:.1f} | {zhihu:.1f} | {wechat + zhihu:.1f} "
                f"| {share:.0%} |"
            )
    both = float(lines[4].split("|")[5])
    verdict = "met" if both < TARGET_MS else "missed"
    lines += [""] + [f"Not measured: {note}" for note in skipped]
    lines += [
        "",
        f"Target: the example under {TARGET_MS:.0f} ms for both channels together: "
        f"{both:.1f} ms, {verdict}. First render of a process (theme, templates, parser "
        f"loading): WeChat {first['wechat']:.0f} ms, Zhihu {first['zhihu']:.0f} ms.",
    ]
    lines.append(
        f"SUMMARY: render the example, WeChat + Zhihu | < {TARGET_MS:.0f} ms "
        f"| {both:.1f} ms | {verdict}"
    )
    lines.append(
        f"SUMMARY: CSS inlining share of the example's WeChat render | (measured) "
        f"| {shares[0]:.0%} | -"
    )
    if profile_lines:
        name, stats = profiles[0]
        runs = max(1, min(repeat, 5))
        lines += [
            "",
            f"cProfile of {runs} WeChat renders of {name}, by cumulative time (the profiler "
            "slows Python code more than C code, so shares matter more than times):",
            "",
            "```",
        ]
        lines += _top(stats, profile_lines)
        lines.append("```")
    return "\n".join(lines)


SCALING_TARGET = 1.1


def long_issue(items: int, folder: Path) -> Issue:
    """An issue of ``items`` numbered items, each with text, a link and a code block."""
    parts = ['---\ntitle: "scaling"\n---\n\n一期很长的周报。\n']
    for k in range(1, items + 1):
        parts.append(
            f"## {k}. item {k}\n\ntext of item {k}, 第{k}条。\n\n"
            f"链接:<https://example.com/{k}>\n\n```python\nprint({k})\n```\n"
        )
    path = folder / f"issue-{items}.md"
    path.write_text("\n".join(parts), encoding="utf-8")
    return load_issue(path)


def cpu_seconds(issue: Issue, channel: str) -> float:
    """CPU time of one render, after a collection (the garbage of earlier runs is theirs)."""
    gc.collect()
    started = time.process_time()
    render(issue, channel, RenderContext())
    return time.process_time() - started


def scaling(sizes: Sequence[int], repeat: int) -> str:
    """The scaling section: fastest CPU time per size and channel, and the exponent."""
    small, large = min(sizes), max(sizes)
    load = os.getloadavg()[0]
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="crosspost-bench-scale-") as tmp:
        issues = {n: long_issue(n, Path(tmp)) for n in (small, large)}
        best: dict[tuple[str, int], float] = {}
        for channel in CHANNELS:
            cpu_seconds(issues[small], channel)  # warm-up: theme, templates, parser
            for _ in range(repeat):
                for n in (small, large):
                    spent = cpu_seconds(issues[n], channel)
                    best[channel, n] = min(best.get((channel, n), spent), spent)
    lines = [
        "",
        f"### Render time against issue length: fastest CPU time of {repeat} runs",
        "",
        f"| channel | {small:,} items (ms) | {large:,} items (ms) | exponent | "
        f"target ≤ {SCALING_TARGET} |",
        "|---|---:|---:|---:|---|",
    ]
    summary = []
    for channel in CHANNELS:
        t_small, t_large = best[channel, small], best[channel, large]
        exponent = math.log(t_large / t_small) / math.log(large / small)
        if load > cores:
            verdict = f"no verdict (load {load:.1f} > {cores} cores)"
        else:
            verdict = "met" if exponent <= SCALING_TARGET else "missed"
        lines.append(
            f"| {channel} | {t_small * 1000:.0f} | {t_large * 1000:.0f} | {exponent:.2f} "
            f"| {verdict} |"
        )
        summary.append(
            f"SUMMARY: {channel} render time, {small:,} → {large:,} items, exponent "
            f"| ≤ {SCALING_TARGET} | {exponent:.2f} | {verdict}"
        )
    lines += ["", f"Load average (1 min) while measuring: {load:.1f} on {cores} cores."]
    return "\n".join([*lines, *summary])


def _top(stats: pstats.Stats, count: int) -> list[str]:
    """The ``count`` functions with the most cumulative time, one line each."""
    rows = sorted(
        stats.stats.items(),  # type: ignore[attr-defined]
        key=lambda item: item[1][3],
        reverse=True,
    )[:count]
    out = []
    for (filename, line, name), row in rows:
        where = "/".join(Path(filename).parts[-2:])
        out.append(
            f"{row[3] * 1000:8.1f} ms cum {row[2] * 1000:7.1f} ms own  {where}:{line} {name}"
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20, help="renders per figure (20)")
    parser.add_argument("--no-corpus", action="store_true", help="the example only")
    parser.add_argument(
        "--profile", type=int, default=0, metavar="N", help="print the top N of the profile"
    )
    parser.add_argument(
        "--items",
        type=int,
        nargs=2,
        default=(1000, 5000),
        metavar=("SMALL", "LARGE"),
        help="issue lengths of the scaling rows (1000 5000)",
    )
    parser.add_argument(
        "--scaling-repeat", type=int, default=3, help="runs per size in the scaling rows (3)"
    )
    args = parser.parse_args(argv)
    print(report(max(1, args.repeat), corpus=not args.no_corpus, profile_lines=args.profile))
    print(scaling(args.items, max(1, args.scaling_repeat)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
