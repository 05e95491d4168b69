"""Ledger size: bytes per post at 100, 1,000 and 10,000 posts must stay flat.

    python bench/bench_ledger.py                    # 100, 1,000, 10,000 posts
    python bench/bench_ledger.py --posts 100 1000   # the smoke test's run

Each post goes through the real :class:`~crosspost.ledger.store.Ledger` the way a publish
writes it: the row, three uploaded images, the draft's intent (built by
``Intent.for_draft``, as the publisher builds it) and outcome, the submit's intent and
outcome, and the poll that records the URL. All posts are on one WeChat account, the
case that made the old ledger grow with the square of the posts: every draft intent
copied the id of every earlier draft. The posts are written in one transaction per
batch (the figures are about bytes, not about fsync), and the file is measured after a
WAL checkpoint.

``--before`` also writes 100 and 1,000 posts the old way (every earlier draft id in each
intent), for comparison; 10,000 of those would be close to a gigabyte.
"""

from __future__ import annotations

import argparse
import dataclasses
import sqlite3
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from crosspost.channels.base import STEP_DRAFT, STEP_PUBLISH, DraftContent, Intent
from crosspost.ledger.assets import UploadedAsset
from crosspost.ledger.store import Ledger, PostKey

ACCOUNT = ("wechat", "main")
#: A post may cost this much more at 10,000 posts than at 100 and still count as "flat".
FLAT = 0.10


def media_id(number: int) -> str:
    """A WeChat-sized media_id (43 characters)."""
    return f"{number:010d}" + "Q" * 33


def write_post(ledger: Ledger, number: int, clock: float, *, copied: list[str] | None) -> None:
    """One post's whole life, as the publisher writes it."""
    key = PostKey(f"ai-systems-{number:05d}", *ACCOUNT)
    content_hash = f"{number:064x}"
    ledger.ensure(key, content_hash=content_hash)
    for image in range(3):
        digest = f"{number:032x}{image:032x}"
        url = f"http://mmbiz.qpic.cn/mmbiz_png/{digest}/0?wx_fmt=png"
        ledger.save_asset(*ACCOUNT, digest, "inline", UploadedAsset(url=url))
    content = DraftContent(
        title=f"AI系统前沿动态{number}",
        html="",
        author="OneFlow社区",
        digest="深度学习硬件的过去、现在和未来;分布式机器学习经典论文 8 篇",
    )
    intent = Intent.for_draft(content, clock)
    if copied is not None:  # the old way, for comparison
        intent = dataclasses.replace(intent, known_ids=tuple(copied))
    data = {**dataclasses.asdict(intent), "content_hash": content_hash}
    ledger.begin(STEP_DRAFT, key, data)
    draft = media_id(number)
    preview = f"http://mp.weixin.qq.com/s?__biz=MzA5&tempkey={draft[:24]}&idx=1#rd"
    ledger.finish_step(
        key,
        STEP_DRAFT,
        state="draft_created",
        draft_id=draft,
        url=preview,
        content_hash=content_hash,
        summary=f"created draft {draft}",
    )
    if copied is not None:
        copied.append(draft)
    submit = Intent(started_at=clock, title=content.title, draft_id=draft)
    ledger.begin(STEP_PUBLISH, key, {**dataclasses.asdict(submit), "content_hash": content_hash})
    publish_id = str(2_247_483_647 + number)
    summary = f"submitted {publish_id}"
    ledger.finish_step(key, STEP_PUBLISH, state="submitted", publish_id=publish_id, summary=summary)
    url = f"https://mp.weixin.qq.com/s/{number:022d}"
    ledger.finish_step(
        key, "poll", state="published", article_id=f"{number:043d}", url=url, summary=url
    )


@dataclasses.dataclass(frozen=True)
class Point:
    posts: int
    size: int
    #: The file's size with no post in it (schema, empty pages), not counted per post.
    empty: int
    seconds: float

    @property
    def per_post(self) -> float:
        return (self.size - self.empty) / self.posts


def checkpoint(path: Path) -> None:
    """Copy the WAL into the file, so its size is the ledger's (a second, idle connection)."""
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()


def grow(folder: Path, targets: Sequence[int], *, before: bool) -> list[Point]:
    """Write posts up to each target in turn; the ledger's size at each."""
    path = folder / ("before.sqlite3" if before else "ledger.sqlite3")
    points: list[Point] = []
    copied: list[str] | None = [] if before else None
    written = 0
    clock = 1_795_000_000.0
    with Ledger.open(path, clock=lambda: clock) as ledger:
        empty = path.stat().st_size
        for target in sorted(targets):
            started = time.process_time()  # CPU time: the machine may be shared
            with ledger.transaction():
                for number in range(written, target):
                    write_post(ledger, number, clock, copied=copied)
            seconds = time.process_time() - started
            written = target
            checkpoint(path)
            points.append(Point(target, path.stat().st_size, empty, seconds))
    return points


def lookup_ms(folder: Path) -> float:
    """What reconcile pays, once, for the account's earlier drafts at the largest size."""
    with Ledger.open(folder / "ledger.sqlite3") as ledger:
        started = time.perf_counter()
        found = ledger.draft_ids(*ACCOUNT, excluding=PostKey("none", *ACCOUNT))
        elapsed = (time.perf_counter() - started) * 1000
    assert found
    return elapsed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--posts", type=int, nargs="+", default=[100, 1000, 10_000])
    parser.add_argument("--before", action="store_true", help="also the old way (100, 1,000)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="crosspost-bench-ledger-") as tmp:
        folder = Path(tmp)
        points = grow(folder, args.posts, before=False)
        olds = grow(folder, [100, 1000], before=True) if args.before else []
        lookup = lookup_ms(folder)
    print("| posts | ledger size | bytes per post | CPU µs per post written |")
    print("|---:|---:|---:|---:|")
    previous = 0
    for point in points:
        written = point.posts - previous
        previous = point.posts
        print(
            f"| {point.posts:,} | {point.size / 1024:,.0f} KB | {point.per_post:,.0f} "
            f"| {point.seconds / written * 1e6:,.0f} |"
        )
    for point in olds:
        print(
            f"| {point.posts:,}, every earlier draft id in each intent (the old way) "
            f"| {point.size / 1024:,.0f} KB | {point.per_post:,.0f} | — |"
        )
    print()
    print(
        f"Reconcile's look-up of the account's earlier drafts at {points[-1].posts:,} posts: "
        f"{lookup:.1f} ms, paid only when a lost answer is settled."
    )
    first, last = points[0].per_post, points[-1].per_post
    drift = (last - first) / first
    # Flat: a post costs no more in a large ledger than in a small one. (A small ledger's
    # figure is a little higher: its pages are not full yet.)
    verdict = "met" if drift <= FLAT else "missed"
    print(
        f"SUMMARY: ledger bytes per post, {points[0].posts:,} → {points[-1].posts:,} posts "
        f"| flat (≤ +{FLAT:.0%}) | {first:,.0f} → {last:,.0f} B ({drift:+.0%}) | {verdict}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
