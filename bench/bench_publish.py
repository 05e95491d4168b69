"""Publish time against the protocols' bound, end to end, and request economy.

    python bench/bench_publish.py                       # 12 images, 50 ms per request, 5 rounds
    python bench/bench_publish.py --images 12 50 --latency 50 200   # the acceptance matrix
    python bench/bench_publish.py --images 3 --latency 0 --repeat 1   # a smoke run
    python bench/bench_publish.py --setup-rounds 2 --tls --no-economy # over HTTPS

Part 1 publishes an issue with N images (and a cover) to WeChat and Zhihu, mode publish,
against a fresh sandbox that holds every request for L ms. The bound is the protocols'
critical path (``protocol_graph.py``: what must wait for what, per the specs) × L; the
script prints the path, the rounds crosspost actually spent (read from the sandbox's log),
and, taken in turn in one loop: the publisher in process (render and lint not timed,
WeChat's poll pauses zero), the same with no latency (local work), the CLI from process
start to exit (poll pauses zero), and the CLI with WeChat's real poll pauses (the
difference is the polling wait, printed apart). No verdict when the load average is above
the cores. ``--setup-rounds N``: a new connection's first request also waits N round trips
from the moment the sandbox accepted it (TCP and TLS: 2 for HTTPS), and the bound grows by
one such set-up, the first connection's, which nothing can hide. ``--tls``: the sandbox
serves HTTPS with a throw-away certificate (made by ``openssl``), so every connection
makes a real TLS 1.3 handshake, its CPU on both sides included. The sandbox runs on the
same cores as the publisher, so its own work per request (a real platform's happens on its
machines, inside the round trip) is printed too, with the ratio to the bound plus that
work; the verdict stays on the plain bound, which is what an editor on a real network
waits for at best.

Part 2 counts the requests of one publish by endpoint, then publishes the same issue again
(expected: nothing mutating, no upload) and an issue that reuses all but two images
(expected: two uploads per channel).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import protocol_graph
from issue_factory import write_issue
from protocol_graph import Round
from publish_world import PLATFORMS, SANDBOX_OPTIONS, Run, rig

from crosspost.errors import UsageError
from crosspost.sandbox.requestlog import LoggedRequest
from crosspost.sandbox.tls import Certificate, throwaway_certificate


def summary_line(figure: str, target: str, measured: str, met: bool | None) -> str:
    """A line ``run_all.py`` gathers into the targets table (and strips from the section).
    ``met`` None: no verdict (a run without latency has no bound to compare with)."""
    verdict = "-" if met is None else "met" if met else "missed"
    return f"SUMMARY: {figure} | {target} | {measured} | {verdict}"


def ratio(part: float, whole: float, form: str = ".2f") -> str:
    """``part / whole``, or a dash when there is no whole (a run with no latency)."""
    return format(part / whole, form) if whole else "-"


def graphs(images: int) -> dict[str, tuple[Round, ...]]:
    """Both protocols' graphs for an issue with ``images`` inline images and a cover, with
    the sandbox's poll counts (WeChat's cover is permanent material, Zhihu's an image)."""
    wechat_polls = int(SANDBOX_OPTIONS["wechat"]["publish_polls"]) + 1
    zhihu_polls = int(SANDBOX_OPTIONS["zhihu"]["image_polls"])
    return {
        "wechat": protocol_graph.wechat(images, wechat_polls),
        "zhihu": protocol_graph.zhihu(images + 1, zhihu_polls),
    }


#: Round names of the graphs, by (platform, method, path prefix): labels the request log
#: (the first that matches). ``adopt:``: crosspost's look for the post already on the
#: account before a first draft (reads no protocol requires).
LABELS = (
    ("wechat", "POST", "/cgi-bin/stable_token", "T"),
    ("wechat", "POST", "/cgi-bin/freepublish/batchget", "adopt:published"),
    ("wechat", "POST", "/cgi-bin/draft/batchget", "adopt:drafts"),
    ("wechat", "POST", "/cgi-bin/media/uploadimg", "U"),
    ("wechat", "POST", "/cgi-bin/material/add_material", "C"),
    ("wechat", "POST", "/cgi-bin/draft/add", "D"),
    ("wechat", "POST", "/cgi-bin/freepublish/submit", "S"),
    ("wechat", "POST", "/cgi-bin/freepublish/get", "G"),
    ("zhihu", "GET", "/api/v4/members/", "adopt:articles"),
    ("zhihu", "GET", "/api/v4/me", "E1"),
    ("zhihu", "POST", "/images", "I1"),
    ("zhihu", "PUT", "/v2-", "I2"),
    ("zhihu", "GET", "/images/", "I4"),
    ("zhihu", "GET", "/api/autocomplete/topics", "E8"),
    ("zhihu", "POST", "/api/articles/drafts", "E2"),
    ("zhihu", "PATCH", "/api/articles/", "E3"),
    ("zhihu", "GET", "/api/articles/", "E4"),
    ("zhihu", "POST", "/api/v4/content/publish", "E6"),
)


def label(request: LoggedRequest) -> str:
    """The graph's name for a logged request (``METHOD path`` when it has none)."""
    if request.path.endswith("/uploading_status"):
        return "I3"
    if request.path.endswith("/topics") and request.method == "POST":
        return "E9"
    for platform, method, prefix, name in LABELS:
        mine = (request.platform, request.method) == (platform, method)
        if mine and request.path.startswith(prefix):
            return name
    return f"{request.method} {request.path}"


def spent(run: Run, platform: str, latency: int) -> list[str]:
    """The rounds one publish spent on ``platform``, each as its requests (``I1×13+E8``)."""
    starts = [(r.at, label(r)) for r in run.requests if r.platform == platform]
    rounds = protocol_graph.observed_rounds(starts, latency / 1000)
    return [
        "+".join(f"{name}×{count}" if count > 1 else name for name, count in Counter(r).items())
        for r in rounds
    ]


def service_on_path(run: Run, latency: int) -> float:
    """Seconds of the sandbox's own work (see ``LoggedRequest.service``) a publish waited
    for: per channel, the longest request of each round it spent, summed; the larger
    channel's sum. A real platform does this work on its machines, inside the round trip;
    the sandbox does it on this machine's cores, after the injected latency."""
    if not latency:
        return 0.0
    sums = []
    for platform in PLATFORMS:
        mine = [r for r in run.requests if r.platform == platform]
        starts = [(r.at, str(n)) for n, r in enumerate(mine)]
        rounds = protocol_graph.observed_rounds(starts, latency / 1000)
        sums.append(sum(max(mine[int(n)].service for n in r) for r in rounds))
    return max(sums, default=0.0)


#: Set by ``--in-process``: serve the sandbox from this process (the GIL is then shared).
IN_PROCESS = False
#: Set by ``--setup-rounds``: round trips a new connection costs before its first request
#: (TCP's one, TLS 1.3's one: 2 for HTTPS); 0 charges nothing for a connection.
SETUP_ROUNDS = 0
#: Set by ``--tls``: the certificate the sandbox serves HTTPS with (real handshakes),
#: made once per run; None: plain HTTP.
TLS: Certificate | None = None


def load_average() -> float:
    """The machine's 1-minute load average (0 when the system cannot say)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def cores() -> int:
    return os.cpu_count() or 1


def in_process(issue: Path, latency: int) -> Run:
    """One fresh publish by the publisher of this process (sandbox start-up not timed)."""
    with rig(latency, in_process=IN_PROCESS, setup_ms=SETUP_ROUNDS * latency, tls=TLS) as world:
        return world.publish(issue)


def cli(issue: Path, latency: int, poll_pauses: bool) -> float:
    """One fresh ``crosspost publish`` process against a sandbox with ``latency``."""
    with rig(latency, in_process=IN_PROCESS, setup_ms=SETUP_ROUNDS * latency, tls=TLS) as world:
        return world.cli(issue, poll_pauses=poll_pauses)


def latency_table(folder: Path, images: int, latency: int, repeat: int) -> str:
    """Part 1 for one issue size and one latency, as Markdown.

    Every figure is taken in the same loop, one run of each in turn (so a change of load
    during the loop weighs on all of them alike); medians and bests of ``repeat`` runs.
    """
    issue = write_issue(folder / f"timed-{images}", images=range(1, images + 1))
    graph = graphs(images)
    paths = {name: protocol_graph.critical_path(rounds) for name, rounds in graph.items()}
    # The first connection's set-up cannot be hidden; every other one can be made while
    # the first round is out (the hosts are known before it), so it adds once.
    steps = protocol_graph.bound_rounds(graph) + SETUP_ROUNDS
    bound = steps * latency / 1000
    setup = f", new connections {SETUP_ROUNDS} round trips" if SETUP_ROUNDS else ""
    setup += ", over TLS" if TLS is not None else ""
    in_process(issue, 0)  # warm-up: the first publish of a process also imports the adapters
    load_before = load_average()
    walls: dict[str, list[float]] = {name: [] for name in VARIANTS}
    last: Run | None = None
    services: list[float] = []
    for _ in range(repeat):
        last = in_process(issue, latency)
        services.append(service_on_path(last, latency))
        walls["publisher, in process"].append(last.seconds)
        walls["local work only (in process, 0 ms)"].append(in_process(issue, 0).seconds)
        walls["CLI, process start to exit, no poll pauses"].append(cli(issue, latency, False))
        walls["CLI, with WeChat's real poll pauses"].append(cli(issue, latency, True))
    assert last is not None
    load_after = load_average()
    load = max(load_before, load_after)
    median = {name: statistics.median(times) for name, times in walls.items()}
    best = {name: min(times) for name, times in walls.items()}
    target = 1.15 if images <= 12 else 1.3
    publisher = median["publisher, in process"]
    service = statistics.median(services)
    per_request = statistics.median([r.service for r in last.requests] or [0.0])
    polling = (
        median["CLI, with WeChat's real poll pauses"]
        - median["CLI, process start to exit, no poll pauses"]
    )
    lines = [
        f"### Publish: {images} images, {latency} ms per request{setup}, {repeat} runs of each",
        "",
        f"Load average: {load_before:.1f} before, {load_after:.1f} after, on {cores()} cores.",
        "",
        "The protocols' critical paths (`bench/protocol_graph.py`, from the specs):",
        "",
        *(
            f"- {name} ({len(path)} rounds): " + " → ".join(f"{r.name} {r.call}" for r in path)
            for name, path in paths.items()
        ),
        "",
        "Rounds crosspost spent (one run; requests ending within half a round trip are one round):",
        "",
        *(
            (
                f"- {name} ({len(rounds)} rounds, {len(rounds) - len(paths[name]):+d} over the "
                "bound): " + " → ".join(rounds)
                if latency
                else f"- {name}: with no latency, rounds cannot be told apart"
            )
            for name in graph
            for rounds in [spent(last, name, latency)]
        ),
        "",
        "| run | median (s) | best (s) | median × bound | best × bound |",
        "|---|---:|---:|---:|---:|",
        f"| protocol bound ({bound_text(steps)} × {latency} ms) | {bound:.3f} | {bound:.3f} "
        "| 1.00 | 1.00 |",
        *(
            f"| {name} | {median[name]:.3f} | {best[name]:.3f} | {ratio(median[name], bound)} "
            f"| {ratio(best[name], bound)} |"
            for name in VARIANTS
        ),
        "",
        f"WeChat's polling wait (CLI with pauses − CLI without, medians): {polling:.2f} s "
        f'for {SANDBOX_OPTIONS["wechat"]["publish_polls"]} answers of "publishing".',
        "",
        f"The sandbox's own work on the path (median per request {per_request * 1000:.1f} ms; "
        f"longest request of each round, summed, slower channel): {service * 1000:.0f} ms. "
        "A real platform works inside its round trip, this sandbox on the same cores after "
        f"it: publisher / (bound + that) = {ratio(publisher, bound + service) if bound else '-'}"
        " (for reading only; the verdict is on the bound).",
    ]
    if not latency:
        verdict: bool | None = None
    elif load > cores():
        verdict = None
        lines += ["", f"No verdict: the load ({load:.1f}) was above the {cores()} cores."]
    else:
        verdict = publisher / bound <= target
    cli_ratio = ratio(median["CLI, process start to exit, no poll pauses"], bound)
    lines.append(
        summary_line(
            f"publish / protocol bound, {images} images, {latency} ms{setup} (in process; CLI), "
            f"load {load:.1f}",
            f"≤ {target:.2f}",
            f"{ratio(publisher, bound)}; CLI {cli_ratio}",
            verdict,
        )
    )
    return "\n".join(lines)


def bound_text(steps: int) -> str:
    """How the bound's rounds are made up, for its row."""
    if not SETUP_ROUNDS:
        return f"{steps} rounds"
    return f"({SETUP_ROUNDS} to set up the first connection + {steps - SETUP_ROUNDS} rounds)"


#: The figures of part 1, in the order they are taken and printed.
VARIANTS = (
    "publisher, in process",
    "local work only (in process, 0 ms)",
    "CLI, process start to exit, no poll pauses",
    "CLI, with WeChat's real poll pauses",
)


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
    parser.add_argument(
        "--images", type=int, nargs="+", default=[12], help="images in the issue (12)"
    )
    parser.add_argument("--latency", type=int, nargs="+", default=[50], help="ms per request (50)")
    parser.add_argument("--repeat", type=int, default=5, help="rounds of each figure (5)")
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="serve the sandbox from this process (default: a process per platform)",
    )
    parser.add_argument(
        "--profile", type=int, default=0, metavar="N", help="sample a publish; print the top N"
    )
    parser.add_argument(
        "--setup-rounds",
        type=int,
        default=0,
        metavar="N",
        help="round trips a new connection costs (TCP + TLS 1.3: 2); default 0",
    )
    parser.add_argument(
        "--tls", action="store_true", help="the sandbox serves HTTPS (real TLS handshakes)"
    )
    parser.add_argument(
        "--no-economy", action="store_true", help="skip part 2 (the request economy)"
    )
    args = parser.parse_args(argv)
    global IN_PROCESS, SETUP_ROUNDS, TLS
    IN_PROCESS = args.in_process
    SETUP_ROUNDS = args.setup_rounds
    with tempfile.TemporaryDirectory(prefix="crosspost-bench-issue-") as tmp:
        folder = Path(tmp)
        try:
            TLS = throwaway_certificate(folder) if args.tls else None
        except UsageError as missing:
            print(f"bench_publish.py: --tls: {missing}")
            return 2
        for images in args.images:
            for latency in args.latency:
                print(latency_table(folder, images, latency, args.repeat))
                print()
        if not args.no_economy:
            print(economy_table(folder, args.images[0]))
        if args.profile:
            issue = write_issue(folder / "profiled", images=range(1, args.images[0] + 1))
            print()
            print(local_profile(issue, args.profile))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
