"""Which parts of a post are on the platform, one by one, as the ledger remembers them.

A post is done when every part of it is done (content, cover, topics, column, comment
settings; see :data:`crosspost.channels.base.PARTS`). Each part's last known state is a
note in the post's audit trail (step ``part``, data ``{"parts": […], "done": …}``), so a
part that failed stays visible, and the next run does that part again and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable

from crosspost.ledger.store import Ledger, PostKey

#: The ledger step under which each part's state is noted.
PART_STEP = "part"


def mark_parts(
    ledger: Ledger, key: PostKey, parts: Iterable[str], *, done: bool, detail: str = ""
) -> None:
    """Note that ``parts`` are on the platform (``done``) or missing, and why (one event)."""
    names = list(dict.fromkeys(parts))
    if not names:
        return
    summary = f"{', '.join(names)}: {'on the platform' if done else 'missing'}"
    if detail:
        summary += f" ({detail})"
    ledger.note(key, PART_STEP, summary, {"parts": names, "done": done})


def mark_left_to_editor(ledger: Ledger, key: PostKey, part: str, detail: str) -> None:
    """Note that the platform refused ``part`` for good and the editor does it by hand
    (``detail`` says how): settled, so no later run tries it again or fails on it."""
    summary = f"{part}: left to the editor ({detail})"
    ledger.note(key, PART_STEP, summary, {"parts": [part], "done": True, "by_hand": True})


def part_states(ledger: Ledger, key: PostKey) -> dict[str, bool]:
    """Each part's last noted state (parts never noted are absent; a part left to the
    editor counts as done: nothing is left for a run to do)."""
    states: dict[str, bool] = {}
    for event in ledger.events(key):
        if event.step == PART_STEP and event.kind == "note":
            for part in event.data.get("parts") or ():
                states[str(part)] = bool(event.data.get("done"))
    return states


def missing_parts(ledger: Ledger, key: PostKey, parts: Iterable[str]) -> tuple[str, ...]:
    """Those of ``parts`` not noted as on the platform."""
    states = part_states(ledger, key)
    return tuple(part for part in parts if not states.get(part))
