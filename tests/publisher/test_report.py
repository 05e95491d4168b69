"""The exit code of a run with several posts: the most urgent thing the editor must do."""

from __future__ import annotations

import pytest

from crosspost.ledger.store import PostKey
from crosspost.publish.jobs import PostResult, PublishReport


def report(*codes: int) -> PublishReport:
    key = PostKey("ai-systems-48", "wechat", "main")
    return PublishReport(tuple(PostResult(key, "x", None, "", code) for code in codes))


@pytest.mark.parametrize(
    ("codes", "expected"),
    [
        ((), 0),
        ((0, 0), 0),
        ((0, 75), 75),
        ((75, 2), 2),  # bad input outranks "try again later": trying again will not help
        ((2, 1), 1),
        ((1, 3, 75), 3),  # something may be live twice unless reconciled: say that first
    ],
)
def test_the_run_exits_with_its_most_urgent_code(codes: tuple[int, ...], expected: int) -> None:
    assert report(*codes).exit_code == expected
