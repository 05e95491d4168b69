"""多图文: an issue that takes other issues into its WeChat draft and send.

With one mass send a day, a newsletter with a lead story and short ones bundles them: the
lead names its companions by id (``wechat: {with: [short-1, short-2]}``), each an issue
file of its own in the lead's folder, with its own title, cover and digest. WeChat takes
up to eight articles in one draft, so seven companions at most.

Only front matter is read to find them (the folder may hold many issues); the files found
are then loaded whole by the caller, which lints them like any issue.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crosspost.errors import IssueError, UsageError
from crosspost.issue.encoding import as_utf8
from crosspost.issue.fields import ISSUE_SUFFIXES
from crosspost.issue.loader import default_issue_id, read_front_matter
from crosspost.issue.model import Issue

#: The channel whose drafts hold several articles, and the option that names them.
CHANNEL = "wechat"
OPTION = "with"
#: A WeChat draft holds eight articles: the lead and seven others.
MAX_COMPANIONS = 7
#: Enough of a file to hold any front matter the loader accepts.
_FRONT_BYTES = 256_000


def companion_ids(issue: Issue) -> tuple[str, ...]:
    """The ids the issue's ``wechat.with`` names, checked: at most seven, none twice,
    not the issue itself (IssueError at that line)."""
    ids = tuple(issue.settings(CHANNEL).options.get(OPTION) or ())
    line = issue.line_of(f"{CHANNEL}.{OPTION}")
    if len(ids) > MAX_COMPANIONS:
        raise IssueError(
            issue.path,
            f"{CHANNEL}.{OPTION} names {len(ids)} issues; a WeChat draft holds the issue "
            f"and {MAX_COMPANIONS} more: send the rest another day",
            line,
        )
    for number, name in enumerate(ids):
        if name == issue.id:
            raise IssueError(issue.path, f"{CHANNEL}.{OPTION} names the issue itself", line)
        if name in ids[:number]:
            raise IssueError(issue.path, f"{CHANNEL}.{OPTION} names '{name}' twice", line)
    return ids


def _id_of(path: Path, front: dict[str, Any]) -> str:
    value = front.get("id")
    return str(value).strip() if value else default_issue_id(path)


def _issue_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix in ISSUE_SUFFIXES and p.is_file())


def find_companions(issue: Issue) -> tuple[Path, ...]:
    """The files of the issue's companions, in the order it names them.

    A name no file of the folder has is exit 2 at the ``with`` line; a companion that
    names companions of its own too (bundles do not nest) is exit 2 at its own line.
    """
    wanted = companion_ids(issue)
    if not wanted:
        return ()
    folder = issue.path.parent
    found: dict[str, Path] = {}
    for path in _issue_files(folder):
        if path.resolve() == issue.path.resolve():
            continue
        try:
            front, lines = read_front_matter(path)
        except UsageError:
            continue  # a broken file is no one's companion; check reports it on its own
        name = _id_of(path, front)
        if name not in wanted or name in found:
            continue
        nested = (front.get(CHANNEL) or {}) if isinstance(front.get(CHANNEL), dict) else {}
        if nested.get(OPTION):
            line = lines.get(f"{CHANNEL}.{OPTION}") or lines.get(CHANNEL)
            raise IssueError(
                path,
                f"is sent with '{issue.id}' ({issue.path.name}), so it cannot bring "
                f"companions of its own: move its {CHANNEL}.{OPTION} to '{issue.id}'",
                line,
            )
        found[name] = path
    missing = [name for name in wanted if name not in found]
    if missing:
        raise IssueError(
            issue.path,
            f"{CHANNEL}.{OPTION} names '{missing[0]}', but no issue in {folder} has that id "
            "(its 'id:' or its file name)",
            issue.line_of(f"{CHANNEL}.{OPTION}"),
        )
    return tuple(found[name] for name in wanted)


def lead_of(issue: Issue) -> tuple[str, Path] | None:
    """The issue of the same folder that names this one among its companions, if any:
    this one's WeChat article goes out with it, never on its own."""
    needle = issue.id.encode("utf-8")
    for path in _issue_files(issue.path.parent):
        if path.resolve() == issue.path.resolve():
            continue
        try:
            with path.open("rb") as handle:
                head = as_utf8(handle.read(_FRONT_BYTES))
            if needle not in head or OPTION.encode() not in head:
                continue  # cannot name it: not worth parsing (a folder may hold 1,000)
            front, _ = read_front_matter(path)
        except (OSError, UsageError):
            continue
        block = front.get(CHANNEL)
        names = block.get(OPTION) if isinstance(block, dict) else None
        if isinstance(names, str):
            names = [names]
        if isinstance(names, list) and issue.id in [str(n).strip() for n in names]:
            return _id_of(path, front), path
    return None
