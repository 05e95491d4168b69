"""The protocols' dependency graphs, as data: what must wait for what, per the specs.

A node is one protocol round (a request, or a wave of requests that need not wait for one
another, such as every image's I1); an edge says "cannot be sent before that one's answer
is back", each with the reason the spec gives. The lower bound of a publish is the
longest path through its graph, in rounds, times the network's round-trip time: nothing a
client does can publish sooner. Channels share nothing, so both together cost the longer
of the two.

The rounds a client spends beyond the bound are read from the sandbox's request log:
requests that start within half a round trip of one another are one round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class Round:
    """One protocol round: its label, the request(s) and the rounds it must wait for."""

    name: str
    call: str
    after: tuple[str, ...] = ()
    #: Why it waits (the spec's section), or what it is for.
    why: str = ""


def zhihu(images: int, polls: int = 1) -> tuple[Round, ...]:
    """zhihu-api.md §4.1 and §3. ``polls``: I4 answers until an image is ready (the
    sandbox's ``image_polls``; one when I3 ends processing)."""
    rounds = [Round("E1", "GET /api/v4/me", why="§4.1.1: the login is checked first")]
    last_image = "E1"
    if images:
        rounds += [
            Round("I1", f"POST /images ×{images}", ("E1",), "§3 I1: the upload token"),
            Round("I2", f"PUT /v2-<md5> ×{images} (OSS)", ("I1",), "§3 I2: signed by I1's token"),
            Round(
                "I3",
                f"PUT /images/{{id}}/uploading_status ×{images}",
                ("I2",),
                "§3 I3: after the bytes are there (needed or not: §11 [?], kept)",
            ),
        ]
        last_image = "I3"
        for n in range(1, polls + 1):
            name = f"I4.{n}" if polls > 1 else "I4"
            rounds.append(
                Round(name, f"GET /images/{{id}} ×{images}", (last_image,), "§3 I4: processed?")
            )
            last_image = name
    rounds += [
        Round("E8", "GET /api/autocomplete/topics", (), "§3 E8: a read, needs nothing"),
        Round("E2", "POST /api/articles/drafts (title only)", ("E1",), "§4.1.3: content empty"),
        Round("E9", "POST /api/articles/{id}/topics", ("E2", "E8"), "§3 E9: the draft's id"),
        Round(
            "E3",
            "PATCH /api/articles/{id}/draft",
            ("E2", last_image),
            "§4.1.4: the draft's id and every image's URL",
        ),
        Round("E6", "POST /api/v4/content/publish", ("E3", "E9"), "§4.1.6: the filled draft"),
    ]
    return tuple(rounds)


def wechat(images: int, polls: int = 3) -> tuple[Round, ...]:
    """wechat-api.md: every call carries the token; ``polls``: freepublish/get answers
    until the article is out (the sandbox's ``publish_polls`` + 1)."""
    rounds = [Round("T", "POST /cgi-bin/stable_token", why="the token is in every URL")]
    waits = ["T"]
    if images:
        rounds.append(
            Round("U", f"POST /cgi-bin/media/uploadimg ×{images}", ("T",), "token; independent")
        )
        waits.append("U")
    rounds += [
        Round("C", "POST /cgi-bin/material/add_material (cover)", ("T",), "token; independent"),
        Round("D", "POST /cgi-bin/draft/add", (*waits, "C"), "image URLs and the cover's id"),
        Round("S", "POST /cgi-bin/freepublish/submit", ("D",), "the draft's media_id"),
    ]
    last = "S"
    for n in range(1, polls + 1):
        rounds.append(
            Round(f"G{n}", "POST /cgi-bin/freepublish/get", (last,), "publish_id; one at a time")
        )
        last = f"G{n}"
    return tuple(rounds)


def critical_path(rounds: Sequence[Round]) -> tuple[Round, ...]:
    """The longest chain of rounds that must follow one another (the graph is acyclic)."""
    by_name = {r.name: r for r in rounds}

    @cache
    def longest(name: str) -> tuple[str, ...]:
        before = [longest(n) for n in by_name[name].after]
        return (*max(before, key=len, default=()), name)

    best = max((longest(r.name) for r in rounds), key=len, default=())
    return tuple(by_name[name] for name in best)


def bound_rounds(graphs: Mapping[str, Sequence[Round]]) -> int:
    """Rounds of the slowest channel: channels run side by side and share nothing."""
    return max((len(critical_path(g)) for g in graphs.values()), default=0)


def observed_rounds(starts: Sequence[tuple[float, str]], latency: float) -> list[list[str]]:
    """Requests ``(start, label)`` of one channel grouped into rounds: a request that
    starts more than half a round trip after the previous one opens a new round."""
    rounds: list[list[str]] = []
    last = float("-inf")
    for at, label in sorted(starts):
        if not rounds or at - last > latency / 2:
            rounds.append([])
        rounds[-1].append(label)
        last = at
    return rounds
