"""Render time per document and channel, the share of WeChat's spent inlining CSS, and
how render time grows with the length of an issue.

    python bench/bench_render.py               # the example and the corpus, 20 runs each
    python bench/bench_render.py --repeat 2    # a smoke run
    python bench/bench_render.py --items 1000 2000 5000   # the scaling rows' sizes (default)

Each figure is the median of repeated in-process renders after one warm-up render (the
first render of a process also loads the theme, the templates and the Markdown parser;
its time is shown apart). The inlining share comes from cProfile: the cumulative time of
``inline_theme`` (css-inline) over the cumulative time of the WeChat ``render`` call, both
measured in the same profiled runs.

The scaling rows render made-up issues of 1,000, 2,000 and 5,000 items (a heading, two
lines of text with a footnote, a figure, a link and a code block each), the sizes in
turn in each round, and keep each size's fastest CPU time (``time.process_time``: other
processes on the machine slow the wall clock more than the CPU time). The exponent is
the least-squares slope of log(time) over log(items): 1 is linear; the target is at most
1.1 for each channel, and no verdict is printed when the load average exceeded the cores.

How it is measured matters, because what bent the curve was Python's cyclic garbage
collector: a render allocates the whole issue's token copies and trees, and every full
collection walks everything alive, so the longer the issue, the more walks and the
longer each. So each run starts with a full collection (no run pays for another's
garbage), ends with a collection of what it left (it pays for its own), and only one
issue is loaded at a time (the parse cache would otherwise keep every size's tokens in
the heap each collection walks, as no ``crosspost render`` process does). A user paid
that collector time too, which is why the parse, ``render`` and lint now pause the
collector (see ``crosspost.issue.collector``); the "running" rows call the renderer
without the pause, for comparison.

Corpus documents (``<repo>/../shared/corpus``) carry no crosspost front matter, so each
is copied with one made from its first heading.
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
from crosspost.issue.dialect import parse_document
from crosspost.issue.loader import load_issue
from crosspost.issue.model import Issue
from crosspost.render.rendered import RenderContext, render, renderer_for

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
#: Issue lengths of the scaling rows: the target's two ends and a point between.
SCALING_SIZES = (1000, 2000, 5000)


def long_issue(items: int, folder: Path) -> Path:
    """An issue file of ``items`` numbered items, each a heading, two lines of text with
    bold words and a footnote, a figure, a link and a code block (the images need not
    exist: a render reads none)."""
    parts = ['---\ntitle: "scaling"\n---\n\n一期很长的周报。\n']
    for k in range(1, items + 1):
        parts.append(
            f"## {k}. item {k}\n\ntext of **item {k}**, 第{k}条[^{k}],\n第二行。\n\n"
            f"![图 {k}](images/figure-{k % 50:02d}.png)\n\n"
            f"链接:<https://example.com/{k}>\n\n```python\nprint({k})\n```\n\n"
            f"[^{k}]: note {k}\n"
        )
    path = folder / f"issue-{items}.md"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def cpu_seconds(issue: Issue, channel: str, paused: bool) -> float:
    """CPU time of one render and of the collection of the garbage it leaves.

    ``paused``: through :func:`render`, as crosspost renders (the cyclic collector paused
    meanwhile); else the channel's renderer called directly, the collector running as it
    did before. A full collection first, so that no run pays for another's garbage; a
    collection of the youngest generation after, inside the timed region, so that a run
    pays for its own: with the collector paused, every object the render made is still
    in that generation, and the cycles it leaves wait there for the next collection,
    which a user pays too (a full one would also walk the modules, the same at any size).
    """
    gc.collect()
    started = time.process_time()
    if paused:
        render(issue, channel, RenderContext())
    else:
        renderer_for(channel)(issue, RenderContext())
    gc.collect(0)
    return time.process_time() - started


def exponent(times: dict[int, float]) -> float:
    """The least-squares slope of log(time) over log(size) (items, KB): 1 is linear. A
    time too short to measure counts as a microsecond (a log needs more than 0)."""
    sizes = [math.log(n) for n in times]
    spent = [math.log(max(t, 1e-6)) for t in times.values()]
    return statistics.linear_regression(sizes, spent).slope


def scaling(sizes: Sequence[int], repeat: int) -> str:
    """The scaling section: fastest CPU time per size and channel, and the exponent."""
    sizes = sorted(set(sizes))
    cores = os.cpu_count() or 1
    loads = [os.getloadavg()[0]]
    best: dict[tuple[str, bool, int], float] = {}
    with tempfile.TemporaryDirectory(prefix="crosspost-bench-scale-") as tmp:
        paths = {n: long_issue(n, Path(tmp)) for n in sizes}
        warm = load_issue(long_issue(10, Path(tmp)))
        for channel in CHANNELS:
            render(warm, channel)  # theme, templates, parser
        del warm
        for round_ in range(repeat):
            for n in sizes:
                # One issue alive at a time, as in a `crosspost render` process: the
                # process-wide parse cache would keep every size's tokens in the heap
                # that each collection walks.
                parse_document.cache_clear()
                issue = load_issue(paths[n])
                for channel in CHANNELS:
                    for paused in (True, False) if round_ % 2 else (False, True):
                        spent = cpu_seconds(issue, channel, paused)
                        key = (channel, paused, n)
                        best[key] = min(best.get(key, spent), spent)
                del issue
        parse_document.cache_clear()
    loads.append(os.getloadavg()[0])
    load = max(loads)
    small, large = sizes[0], sizes[-1]
    lines = [
        "",
        f"### Render time against issue length: fastest CPU time of {repeat} runs",
        "",
        "| channel | cyclic collector | "
        + " | ".join(f"{n:,} items (ms)" for n in sizes)
        + f" | µs per item, {small:,} → {large:,} | exponent | target ≤ {SCALING_TARGET} |",
        "|---|---|" + "---:|" * (len(sizes) + 2) + "---|",
    ]
    summary = []
    for channel in CHANNELS:
        for paused in (True, False):
            times = {n: best[channel, paused, n] for n in sizes}
            slope = exponent(times)
            if not paused:
                verdict = "(for comparison: not how crosspost renders)"
            elif load > cores:
                verdict = f"no verdict (load {load:.1f} > {cores} cores)"
            else:
                verdict = "met" if slope <= SCALING_TARGET else "missed"
            per_item = f"{times[small] / small * 1e6:.0f} → {times[large] / large * 1e6:.0f}"
            cells = " | ".join(f"{times[n] * 1000:.0f}" for n in sizes)
            how = "paused during the render" if paused else "running (as before)"
            lines.append(f"| {channel} | {how} | {cells} | {per_item} | {slope:.2f} | {verdict} |")
            if paused:
                summary.append(
                    f"SUMMARY: {channel} render time, {small:,} → {large:,} items, exponent "
                    f"| ≤ {SCALING_TARGET} | {slope:.2f} | {verdict}"
                )
    lines += [
        "",
        f"Exponent: the least-squares slope of log(time) over log(items) at "
        f"{', '.join(f'{n:,}' for n in sizes)} items. Each run is one render of a fresh "
        "load of the issue and the collection of its garbage, timed in CPU seconds; "
        'the row "running" calls the channel\'s renderer without the pause.',
        f"Load average (1 min): {loads[0]:.1f} before, {loads[1]:.1f} after, on {cores} cores.",
    ]
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
        nargs="+",
        default=SCALING_SIZES,
        metavar="N",
        help="issue lengths of the scaling rows, two or more (1000 2000 5000)",
    )
    parser.add_argument(
        "--scaling-repeat", type=int, default=3, help="runs per size in the scaling rows (3)"
    )
    args = parser.parse_args(argv)
    if len(set(args.items)) < 2:
        parser.error("--items needs two lengths or more")
    print(report(max(1, args.repeat), corpus=not args.no_corpus, profile_lines=args.profile))
    print(scaling(args.items, max(1, args.scaling_repeat)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
