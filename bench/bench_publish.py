"""Publish latency against the protocol's critical path, and request economy.

    python bench/bench_publish.py                 # 12 images, 50 ms per request, 5 runs
    python bench/bench_publish.py --images 3 --latency 0 --repeat 1   # a smoke run

Part 1 publishes an issue with N images to WeChat and Zhihu (mode publish, a fresh
sandbox and state directory each run) while the sandbox holds every request for L ms.
The lower bound is the longest chain of requests that must follow one another, times L;
the script prints the chain and the ratio wall / bound, beside a run with no latency
(local work only), a run that publishes one channel after the other, and the strictly
sequential figure (every request of the log waited for in turn: requests × L + local work).

Part 2 counts the requests of one publish by endpoint, then publishes the same issue again
(expected: nothing mutating, no upload) and an issue that reuses all but two images
(expected: two uploads per channel).

Absolute times on a shared machine are noise; the ratios are the result.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from issue_factory import write_issue
from publish_world import PLATFORMS, SANDBOX_OPTIONS, Run, rig


def summary_line(figure: str, target: str, measured: str, met: bool | None) -> str:
    """A line ``run_all.py`` gathers into the targets table (and strips from the section).
    ``met`` None: no verdict (a run without latency has no bound to compare with)."""
    verdict = "-" if met is None else "met" if met else "missed"
    return f"SUMMARY: {figure} | {target} | {measured} | {verdict}"


def ratio(part: float, whole: float, form: str = ".2f") -> str:
    """``part / whole``, or a dash when there is no whole (a run with no latency)."""
    return format(part / whole, form) if whole else "-"


def wechat_chain(images: int) -> list[str]:
    """WeChat requests that must follow one another (the token is in every URL)."""
    polls = int(SANDBOX_OPTIONS["wechat"]["publish_polls"]) + 1
    chain = ["POST /cgi-bin/stable_token (access token)"]
    if images:
        chain.append(f"POST /cgi-bin/media/uploadimg ×{images}, all at once")
    chain += [
        "POST /cgi-bin/material/add_material (cover)",
        "POST /cgi-bin/draft/add",
        "POST /cgi-bin/freepublish/submit",
    ]
    chain += [f"POST /cgi-bin/freepublish/get (poll {n} of {polls})" for n in range(1, polls + 1)]
    return chain


def zhihu_chain(images: int) -> list[str]:
    """Zhihu requests that must follow one another (an image's URL goes into the draft)."""
    return [
        "GET /api/v4/me (login)",
        f"POST /images (I1) ×{images + 1} with the cover, all at once",
        "PUT /v2-<md5> on the OSS host (I2)",
        "PUT /images/{id}/uploading_status (I3)",
        "GET /images/{id} (I4: I3 ends processing, one poll)",
        "POST /api/articles/drafts (E2)",
        "PATCH /api/articles/{id}/draft (E3)",
        "POST /api/articles/{id}/topics (E9, every topic at once)",
        "POST /api/v4/content/publish (E6)",
    ]


def lower_bound_steps(images: int) -> int:
    """Channels run side by side, so the longer chain is the bound."""
    return max(len(wechat_chain(images)), len(zhihu_chain(images)))


#: Set by ``--in-process``: serve the sandbox from this process (the GIL is then shared).
IN_PROCESS = False


@dataclass(frozen=True)
class Timing:
    """Wall seconds of repeated fresh publishes: the median, the best, and the last run."""

    median: float
    best: float
    run: Run | None = None


def timed(
    issue: Path, latency: int, repeat: int, targets: Sequence[Sequence[str]] = ((),)
) -> Timing:
    """``repeat`` fresh publishes (each target group in turn, their times added up)."""
    walls: list[float] = []
    last: Run | None = None
    for _ in range(repeat):
        total = 0.0
        with rig(latency, in_process=IN_PROCESS) as world:
            for group in targets:
                last = world.publish(issue, targets=group)
                total += last.seconds
        walls.append(total)
    return Timing(statistics.median(walls), min(walls), last)


def load_average() -> str:
    """The machine's 1-minute load average: on a shared machine it explains the noise."""
    try:
        return f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    except OSError:
        return "unknown"


def latency_table(issue: Path, images: int, latency: int, repeat: int, workers: int) -> str:
    """Part 1 as Markdown: the chain, the bound and every run's wall time as a ratio."""
    steps = lower_bound_steps(images)
    bound = steps * latency / 1000
    timed(issue, 0, 1)  # warm-up: the first publish of a process also imports the adapters
    load_before = load_average()
    concurrent = timed(issue, latency, repeat)
    local = timed(issue, 0, repeat)
    one_by_one = timed(issue, latency, repeat, targets=(("wechat",), ("zhihu",)))
    run = concurrent.run
    assert run is not None
    requests = len(run.requests)
    extra = requests * latency / 1000
    rows = [
        (f"lower bound ({steps} × {latency} ms)", Timing(bound, bound)),
        ("publish, channels side by side (as shipped)", concurrent),
        ("local work only (same publish, 0 ms latency)", local),
        ("channels one after the other (measured)", one_by_one),
        (
            f"strictly sequential ({requests} requests × {latency} ms + local work)",
            Timing(local.median + extra, local.best + extra),
        ),
    ]
    sequential = rows[-1][1]
    summary = [
        summary_line(
            "publish wall / lower bound (median; best)",
            "≤ 1.30",
            f"{ratio(concurrent.median, bound)}; {ratio(concurrent.best, bound)}",
            concurrent.median / bound <= 1.3 if bound else None,
        ),
        summary_line(
            "strictly sequential / side by side (median)",
            "far above 1",
            f"{sequential.median / concurrent.median:.1f}",
            sequential.median / concurrent.median >= 2 if bound else None,
        ),
    ]
    if workers:
        from crosspost.publish import assets as post_assets

        shipped = post_assets.UPLOAD_WORKERS
        post_assets.UPLOAD_WORKERS = workers  # the experiment only: what a bigger pool buys
        try:
            rows.append((f"experiment: UPLOAD_WORKERS={workers}", timed(issue, latency, repeat)))
        finally:
            post_assets.UPLOAD_WORKERS = shipped
    lines = [
        f"### Publish latency: {images} images, {latency} ms per request, {repeat} runs each",
        "",
        f"WeChat chain ({len(wechat_chain(images))} steps): " + " → ".join(wechat_chain(images)),
        "",
        f"Zhihu chain ({len(zhihu_chain(images))} steps): " + " → ".join(zhihu_chain(images)),
        "",
        f"Load average before and after: {load_before}, {load_average()}.",
        "",
        "| run | median (s) | best (s) | median × bound | best × bound |",
        "|---|---:|---:|---:|---:|",
        *(
            f"| {name} | {t.median:.3f} | {t.best:.3f} | {ratio(t.median, bound)} "
            f"| {ratio(t.best, bound)} |"
            for name, t in rows
        ),
        "",
        "Requests of one publish, and the span from its first to its last request:",
        "",
        "| platform | requests | span (s) | span / L |",
        "|---|---:|---:|---:|",
    ]
    for platform in PLATFORMS:
        mine = [r for r in run.requests if r.platform == platform]
        span = (mine[-1].at - mine[0].at + latency / 1000) if mine else 0.0
        lines.append(
            f"| {platform} | {len(mine)} | {span:.3f} | {ratio(span, latency / 1000, '.1f')} |"
        )
    return "\n".join([*lines, *summary])


def economy_table(folder: Path, images: int) -> str:
    """Part 2 as Markdown: requests by endpoint, then a second publish and a reusing issue."""
    first_issue = write_issue(folder / "first", issue_id="bench-first", images=range(1, images + 1))
    keep = max(0, images - 2)
    reused = [*range(1, keep + 1), 1001, 1002][:images] if images >= 2 else [1001]
    second_issue = write_issue(folder / "second", issue_id="bench-second", images=reused)
    with rig(0, in_process=IN_PROCESS) as world:
        first = world.publish(first_issue)
        again = world.publish(first_issue)
        other = world.publish(second_issue)
    lines = [
        f"### Request economy: {images} images and a cover, both channels",
        "",
        "| endpoint | requests in the first publish |",
        "|---|---:|",
        *(f"| `{name}` | {count} |" for name, count in sorted(first.by_endpoint().items())),
        f"| **total** | **{len(first.requests)}** |",
        "",
        "| publish | requests | mutating | WeChat uploads | Zhihu uploads (I1) | posts |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name, run in (
        (f"first issue ({images} images)", first),
        ("the same issue again", again),
        (f"second issue reusing {keep} of its {images} images (same cover)", other),
    ):
        lines.append(
            f"| {name} | {len(run.requests)} | {len(run.mutating)} | {run.uploads('wechat')} "
            f"| {run.uploads('zhihu')} | {', '.join(run.states)} |"
        )
    lines.append(
        summary_line(
            "same issue again: mutating requests, uploads",
            "0, 0",
            f"{len(again.mutating)}, {again.uploads('wechat') + again.uploads('zhihu')}",
            not again.mutating and not (again.uploads("wechat") + again.uploads("zhihu")),
        )
    )
    expected = len(reused) - keep
    lines.append(
        summary_line(
            f"issue reusing {keep} of {images} images: uploads WeChat, Zhihu",
            f"{expected}, {expected}",
            f"{other.uploads('wechat')}, {other.uploads('zhihu')}",
            other.uploads("wechat") == other.uploads("zhihu") == expected,
        )
    )
    return "\n".join(lines)


def local_profile(issue: Path, lines: int) -> str:
    """Where a publish's local work goes: every thread sampled, no latency."""
    from sampler import Sampler

    with rig(0, in_process=IN_PROCESS) as world, Sampler() as sampler:
        run = world.publish(issue)
    return "\n".join(
        [
            f"### Where the local work goes (one publish, 0 ms latency, {run.seconds:.3f} s)",
            "",
            "```",
            *sampler.table(lines),
            "```",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=12, help="images in the issue (12)")
    parser.add_argument("--latency", type=int, default=50, help="ms per request (50)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (5)")
    parser.add_argument(
        "--upload-workers",
        type=int,
        default=16,
        help="also time a run with this many uploads at once (an experiment; 0: skip)",
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="serve the sandbox from this process (default: a process of its own)",
    )
    parser.add_argument(
        "--profile", type=int, default=0, metavar="N", help="sample a publish; print the top N"
    )
    args = parser.parse_args(argv)
    global IN_PROCESS
    IN_PROCESS = args.in_process
    with tempfile.TemporaryDirectory(prefix="crosspost-bench-issue-") as tmp:
        folder = Path(tmp)
        issue = write_issue(folder / "timed", images=range(1, args.images + 1))
        print(latency_table(issue, args.images, args.latency, args.repeat, args.upload_workers))
        print()
        print(economy_table(folder, args.images))
        if args.profile:
            print()
            print(local_profile(issue, args.profile))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
