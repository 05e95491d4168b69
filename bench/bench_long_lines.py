"""Render and check time of documents with one very long line, and how it grows.

    python bench/bench_long_lines.py                       # every kind at 10, 50, 100, 200 KB
    python bench/bench_long_lines.py --sizes 10 50 --repeat 1   # the smoke test's run
    python bench/bench_long_lines.py --kind cjk --profile 20    # where one kind's time goes

Real issues carry lines of a hundred kilobytes: minified HTML pasted from an email
export, a table of hundreds of rows written on one line, a ``data:`` image in base64, a
paragraph of Chinese with no newline, a line of thousands of links, a ``|``-table whose
rows are long, a line thick with ``*``, ``_``, ``~``, ``$``, ``{`` and ``<``, a JSON code
block on one line. Each kind is written at each size (the long line is that many KB; a
title, a sentence before and one after), then rendered for both channels (load included)
and checked (:func:`~crosspost.check.lint.check_file`: load, render and lint). A figure
is the fastest CPU time of the runs (``time.process_time``), the parse cache cleared
before each. The exponent is the least-squares slope of log(time) over log(size): 1 is
linear; the target is at most 1.2 per kind and command (a short line's fixed cost bends
the small sizes down, so an exactly linear pass reads a little above 1).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import math
import os
import pstats
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench_render import exponent

from crosspost.check.lint import check_file
from crosspost.issue.dialect import parse_document
from crosspost.issue.loader import load_issue
from crosspost.render.rendered import RenderContext, render

CHANNELS = ("wechat", "zhihu")
SIZES_KB = (10, 50, 100, 200)
TARGET = 1.2


def _fill(piece: Callable[[int], str], size: int, joiner: str = "") -> str:
    """``piece(0) + joiner + piece(1) + …`` until the text is ``size`` characters or more."""
    parts, length, k = [], 0, 0
    while length < size:
        part = piece(k)
        parts.append(part)
        length += len(part) + len(joiner)
        k += 1
    return joiner.join(parts)


def html_email(size: int) -> str:
    """A newsletter's email export, minified: nested tables with inline styles."""
    cell = (
        '<tr><td style="padding:8px 16px;font-family:Helvetica,Arial,sans-serif;'
        'font-size:15px;color:#333333;line-height:1.6"><a href="https://example.com/p/{k}'
        '?utm_source=newsletter&amp;utm_medium=email" style="color:#0a66c2;'
        'text-decoration:none"><strong>Story {k}</strong></a><br>第{k}条消息的摘要,'
        "<em>值得一读</em>。</td></tr>"
    )
    rows = _fill(lambda k: cell.format(k=k), size)
    return (
        '<table width="100%" cellpadding="0" cellspacing="0" border="0" '
        f'style="max-width:600px;margin:0 auto"><tbody>{rows}</tbody></table>'
    )


def html_table(size: int) -> str:
    """A data table of many rows written on one line."""
    rows = _fill(
        lambda k: (
            f"<tr><td>{k}</td><td>item {k}</td><td>{k * 37 % 1000}.5</td><td>第{k}行</td></tr>"
        ),
        size,
    )
    head = "<thead><tr><th>#</th><th>name</th><th>value</th><th>备注</th></tr></thead>"
    return f"<table>{head}<tbody>{rows}</tbody></table>"


def data_uri(size: int) -> str:
    """An image pasted in as a base64 ``data:`` URI."""
    rng = random.Random(size)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    payload = "".join(rng.choice(alphabet) for _ in range(size))
    return f"![截图](data:image/png;base64,iVBORw0KGgo{payload}==)"


def cjk(size: int) -> str:
    """A paragraph of Chinese with no newline and no space (a character is 3 bytes)."""
    sentence = (
        "深度学习硬件究竟如何继续提升性能,英伟达首席科学家回顾了现状,认为手里的牌打得差不多了。"
    )
    return (sentence * (size // (3 * len(sentence)) + 1))[: size // 3]


def links(size: int) -> str:
    """Thousands of inline links on one line (a link list pasted from a spreadsheet)."""
    return _fill(lambda k: f"[链接{k}](https://example.com/a/{k})", size, " ")


def pipe_table(size: int) -> str:
    """A ``|``-table whose three lines are each ``size`` / 3 long (many columns)."""
    width = max(1, size // 3 // 12)
    header = "| " + " | ".join(f"col {k:04d}" for k in range(width)) + " |"
    rule = "|" + "|".join("---" for _ in range(width)) + "|"
    row = "| " + " | ".join(f"*v{k}* `x`" for k in range(width)) + " |"
    return f"{header}\n{rule}\n{row}"


def marks(size: int) -> str:
    """A line thick with emphasis, strike, math, brace and angle characters, mostly unpaired."""
    pieces = (
        "a*b", "c_d", "~e", "$f", "{g", "<h", "**i", "__j", "~~k", "$$l", "{{m", "<n>",
        "x * y", "p_q_r", "1 < 2", "{%", "${", "<!", "*_~$", "中*文_",
    )  # fmt: skip
    return _fill(lambda k: pieces[k % len(pieces)], size, " ")


def json_block(size: int) -> str:
    """A fenced JSON code block whose one line is the whole document."""
    items = []
    length = 0
    k = 0
    while length < size:
        item = {"id": k, "name": f"item {k}", "tags": ["a", "b<c>", "{x}"], "v": k * 0.5}
        text = json.dumps(item, ensure_ascii=False)
        items.append(text)
        length += len(text) + 1
        k += 1
    return "```json\n[" + ",".join(items) + "]\n```"


KINDS: dict[str, Callable[[int], str]] = {
    "html-email": html_email,
    "html-table": html_table,
    "data-uri": data_uri,
    "cjk": cjk,
    "links": links,
    "pipe-table": pipe_table,
    "marks": marks,
    "json-block": json_block,
}


def document(kind: str, size_kb: int) -> str:
    """An issue whose body holds one line of ``kind`` ``size_kb`` KB long."""
    line = KINDS[kind](size_kb * 1024)
    return f'---\ntitle: "long line: {kind}"\n---\n\n一段开头的话。\n\n{line}\n\n结尾的一句话。\n'


def write(kind: str, size_kb: int, folder: Path) -> Path:
    path = folder / f"{kind}-{size_kb}.md"
    path.write_text(document(kind, size_kb), encoding="utf-8")
    return path


def render_both(path: Path) -> None:
    """What a render costs: load the issue, render each channel."""
    issue = load_issue(path)
    for channel in CHANNELS:
        render(issue, channel, RenderContext())


def check(path: Path) -> None:
    """What a check costs: load, render every channel and lint."""
    check_file(path, CHANNELS)


COMMANDS: dict[str, Callable[[Path], None]] = {"render": render_both, "check": check}


def cpu_seconds(command: Callable[[Path], None], path: Path) -> float:
    parse_document.cache_clear()
    gc.collect()
    started = time.process_time()
    command(path)
    return time.process_time() - started


def measure(kinds: Sequence[str], sizes: Sequence[int], repeat: int) -> str:
    cores = os.cpu_count() or 1
    loads = [os.getloadavg()[0]]
    best: dict[tuple[str, str, int], float] = {}
    with tempfile.TemporaryDirectory(prefix="crosspost-bench-long-") as tmp:
        folder = Path(tmp)
        render_both(write("cjk", 1, folder))  # theme, templates, parser
        paths = {(kind, n): write(kind, n, folder) for kind in kinds for n in sizes}
        for _ in range(repeat):
            for kind in kinds:
                for n in sizes:
                    for name, command in COMMANDS.items():
                        spent = cpu_seconds(command, paths[kind, n])
                        key = (kind, name, n)
                        best[key] = min(best.get(key, spent), spent)
        parse_document.cache_clear()
    loads.append(os.getloadavg()[0])
    load = max(loads)
    lines = [
        f"### One long line: fastest CPU time of {repeat} runs (s)",
        "",
        "| kind | command | "
        + " | ".join(f"{n} KB" for n in sizes)
        + f" | exponent | {sizes[-2]} → {sizes[-1]} KB | target ≤ {TARGET} |",
        "|---|---|" + "---:|" * (len(sizes) + 2) + "---|",
    ]
    summary = []
    worst: dict[str, tuple[float, str]] = {}
    for kind in kinds:
        for name in COMMANDS:
            times = {n: best[kind, name, n] for n in sizes}
            slope = exponent(times)
            if load > cores:
                verdict = f"no verdict (load {load:.1f} > {cores} cores)"
            else:
                verdict = "met" if slope <= TARGET else "missed"
            cells = " | ".join(f"{times[n]:.3f}" for n in sizes)
            last = exponent({n: times[n] for n in sizes[-2:]})
            lines.append(f"| {kind} | {name} | {cells} | {slope:.2f} | {last:.2f} | {verdict} |")
            if slope > worst.get(name, (-math.inf, ""))[0]:
                worst[name] = (slope, kind)
    for name, (slope, kind) in worst.items():
        if load > cores:
            verdict = f"no verdict (load {load:.1f} > {cores} cores)"
        else:
            verdict = "met" if slope <= TARGET else "missed"
        summary.append(
            f"SUMMARY: {name} of one long line, {sizes[0]} → {sizes[-1]} KB, worst exponent "
            f"({kind}) | ≤ {TARGET} | {slope:.2f} | {verdict}"
        )
    lines += [
        "",
        "Each run loads the file afresh (parse cache cleared); render is both channels' "
        "render, check is `check_file` (load, render, lint) for both channels. Exponent: "
        "the least-squares slope of log(time) over log(size) at every size (the verdict's); "
        "the next column is the slope between the two largest, where a fixed cost weighs "
        "least.",
        f"Load average (1 min): {loads[0]:.1f} before, {loads[1]:.1f} after, on {cores} cores.",
    ]
    return "\n".join([*lines, *summary])


def profile(kind: str, size_kb: int, count: int) -> str:
    """The top ``count`` functions of a cProfile of one check of ``kind`` at ``size_kb``."""
    with tempfile.TemporaryDirectory(prefix="crosspost-bench-long-") as tmp:
        path = write(kind, size_kb, Path(tmp))
        check(write("cjk", 1, Path(tmp)))
        parse_document.cache_clear()
        profiler = cProfile.Profile()
        profiler.enable()
        check(path)
        profiler.disable()
    stats = pstats.Stats(profiler)
    rows = sorted(
        stats.stats.items(),  # type: ignore[attr-defined]
        key=lambda item: item[1][3],
        reverse=True,
    )[:count]
    out = [
        "",
        f"cProfile of one check of {kind} at {size_kb} KB, by cumulative time:",
        "",
        "```",
    ]
    for (filename, line, name), row in rows:
        where = "/".join(Path(filename).parts[-2:])
        out.append(
            f"{row[3] * 1000:8.1f} ms cum {row[2] * 1000:7.1f} ms own  {where}:{line} {name}"
        )
    return "\n".join([*out, "```"])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=SIZES_KB, metavar="KB",
        help="lengths of the long line in KB, two or more (10 50 100 200)",
    )  # fmt: skip
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (3)")
    parser.add_argument(
        "--kind", action="append", choices=sorted(KINDS), help="only this kind (repeatable)"
    )
    parser.add_argument(
        "--profile", type=int, default=0, metavar="N",
        help="also print the top N of a profile of each kind's check at the largest size",
    )  # fmt: skip
    args = parser.parse_args(argv)
    sizes = sorted(set(args.sizes))
    if len(sizes) < 2:
        parser.error("--sizes needs two sizes or more")
    kinds = args.kind or list(KINDS)
    print(measure(kinds, sizes, max(1, args.repeat)))
    if args.profile:
        for kind in kinds:
            print(profile(kind, sizes[-1], args.profile))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
