"""An Obsidian Canvas passed where a note was meant.

Obsidian keeps a canvas (cards laid out on a board, arrows between them) in a ``.canvas``
file: JSON Canvas, one object of ``nodes`` and ``edges``, each text card's Markdown a
string inside it. Beside the notes in a vault it is easily picked by mistake. Read as an
issue it was front matter in JSON (Hugo's kind) with an empty body: render wrote empty
pages, check said the fields 'nodes' and 'edges' are not used and the body is too short,
and import wrote an empty issue. It is named as what it is, with what to pass instead.
"""

from __future__ import annotations

import json
from typing import Any

#: What a canvas's object holds, and nothing else.
_KEYS = frozenset({"nodes", "edges"})


def is_canvas(data: Any) -> bool:
    """Whether ``data`` (a JSON object read whole) is a JSON Canvas: ``nodes`` and maybe
    ``edges``, lists of objects, each node with an id and a type."""
    if not isinstance(data, dict) or "nodes" not in data or not set(data) <= _KEYS:
        return False
    nodes, edges = data.get("nodes"), data.get("edges", [])
    return (
        isinstance(nodes, list)
        and isinstance(edges, list)
        and all(isinstance(node, dict) and "id" in node and "type" in node for node in nodes)
    )


def is_canvas_text(text: str) -> bool:
    """Whether a file's ``text`` is a JSON Canvas and nothing else."""
    if not text.lstrip().startswith("{"):
        return False
    try:
        return is_canvas(json.loads(text))
    except (ValueError, RecursionError):
        return False


def canvas_problem(text: str) -> str:
    """What to say of a canvas passed as an issue: what it is and what to pass."""
    data = json.loads(text)
    notes = [node["file"] for node in data["nodes"] if isinstance(node.get("file"), str)]
    named = f" (this one shows {', '.join(repr(note) for note in notes[:3])})" if notes else ""
    return (
        "is an Obsidian Canvas (JSON of cards and arrows), not a Markdown note; pass the "
        f"note a card shows{named}, or copy the text cards into a .md file"
    )
