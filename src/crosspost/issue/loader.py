"""Reading an issue file: front matter and body, validated into a frozen Issue.

Front matter is normalised by a table of field → parser (``FIELDS``, in
:mod:`crosspost.issue.fields`), so adding a field is one line, and every error names the
file and the line of the offending key. The body's ``::: only`` blocks are checked here
too, on the one parse of the body that lint and the renderers share.
"""

from __future__ import annotations

import difflib
import functools
import re
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from crosspost.errors import IssueError
from crosspost.issue.body import check_containers
from crosspost.issue.dialect import parse_document
from crosspost.issue.fields import FIELDS, FieldContext
from crosspost.issue.model import Issue
from crosspost.platforms.registry import PLATFORMS, platform_names

__all__ = [
    "default_issue_id",
    "load_issue",
    "read_front_matter",
    "read_text",
    "split_front_matter",
]

if TYPE_CHECKING:
    import yaml

_FENCE = re.compile(r"^---[ \t]*$")
#: Front matter is a few fields; anything this long is a mistake (a pasted body, a log).
MAX_FRONT_MATTER_CHARS = 64_000
#: Deep enough for any field crosspost reads (``zhihu: {topics: [...]}`` is 2).
MAX_FRONT_MATTER_DEPTH = 10


# --- loading --------------------------------------------------------------------------


def load_issue(path: Path | str) -> Issue:
    """Read and validate one issue file. Raises :class:`IssueError` naming file:line."""
    path = Path(path)
    text = read_text(path)
    front, front_lines, body, body_line = split_front_matter(path, text)
    return _build_issue(path, front, front_lines, body, body_line)


def read_front_matter(path: Path | str) -> tuple[dict[str, Any], dict[str, int]]:
    """Only the front matter (for the scheduler, which must not parse 1,000 bodies)."""
    path = Path(path)
    text = read_text(path)
    front, lines, _, _ = split_front_matter(path, text)
    return front, lines


def read_text(path: Path) -> str:
    """A text file as str with Unix line ends; IssueError (file:line, the fix) if it isn't."""
    if path.is_dir():
        raise IssueError(path, "is a folder, not an issue file; name the .md file inside it")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise IssueError(path, "no such file; check the path") from None
    except PermissionError:
        raise IssueError(
            path, "cannot be read (permission denied); check its permissions"
        ) from None
    except OSError as error:
        raise IssueError(path, f"cannot be read ({error.strerror}); check the path") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise IssueError(
            path, "is not UTF-8 text; save it as UTF-8 (most editors: 'Save with encoding')", line
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_front_matter(path: Path, text: str) -> tuple[dict[str, Any], dict[str, int], str, int]:
    """Split ``---`` front matter from the body; return (data, key lines, body, body line)."""
    lines = text.split("\n")
    if not lines or not _FENCE.match(lines[0]):
        raise IssueError(
            path,
            "has no front matter; start the file with a '---' line, 'title: …', and '---'",
            1,
        )
    for index in range(1, len(lines)):
        if _FENCE.match(lines[index]):
            end = index
            break
    else:
        raise IssueError(path, "front matter is not closed; add a '---' line after it", 1)
    source = "\n".join(lines[1:end])
    if len(source) > MAX_FRONT_MATTER_CHARS:
        raise IssueError(
            path,
            f"front matter is {len(source):,} characters long (at most "
            f"{MAX_FRONT_MATTER_CHARS:,}); long text belongs in the body, below the '---'",
            1,
        )
    import yaml  # here, not at the top: `crosspost --help` must not pay for PyYAML

    loader = _bounded_loader()(source)
    try:
        # One parse: the node tree gives each key's line, the data is built from it.
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except _TooDeep as error:
        raise IssueError(
            path,
            f"front matter nests lists or blocks more than {MAX_FRONT_MATTER_DEPTH} deep; "
            "an issue needs two levels (wechat: {title: …}), flatten it",
            error.line,
        ) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 2 if mark else 1
        problem = " ".join(str(error.problem or error.context or "invalid YAML").split())
        raise IssueError(
            path, f"front matter is not valid YAML ({problem}); fix that line", line
        ) from None
    except yaml.YAMLError as error:
        problem = " ".join(str(error).split())
        raise IssueError(path, f"front matter is not valid YAML ({problem})", 1) from None
    finally:
        loader.dispose()
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise IssueError(
            path, "front matter must be 'key: value' lines (a mapping), not a list or text", 2
        )
    key_lines = _key_lines(path, node)
    body = "\n".join(lines[end + 1 :])
    return data, key_lines, body, end + 2


class _TooDeep(Exception):
    """Raised by the bounded loader at the first node nested too deeply (1-based file line)."""

    def __init__(self, line: int) -> None:
        self.line = line
        super().__init__(line)


@functools.cache
def _bounded_loader() -> type[yaml.SafeLoader]:
    """PyYAML's SafeLoader, refusing nesting deeper than :data:`MAX_FRONT_MATTER_DEPTH`.

    PyYAML builds the node tree by recursion, so a few thousand ``[`` exhaust Python's
    stack (a RecursionError, not a line a person can act on). Counting depth where the
    tree is built stops it at the first node too deep, in the same single parse.
    """
    import yaml

    class BoundedLoader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
            if self.depth >= MAX_FRONT_MATTER_DEPTH:
                # +2: the front matter starts on the file's second line.
                raise _TooDeep(self.peek_event().start_mark.line + 2)  # type: ignore[no-untyped-call]
            self.depth += 1
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    return BoundedLoader


def _key_lines(path: Path, node: yaml.Node | None, prefix: str = "") -> dict[str, int]:
    """Map each key (``wechat.title`` for nested ones) to its 1-based file line.

    YAML quietly keeps the last of two equal keys; an editor who wrote ``title`` twice
    meant one of them, so a duplicate is an error here rather than a silent choice.
    """
    import yaml

    found: dict[str, int] = {}
    if not isinstance(node, yaml.MappingNode):
        return found
    for key_node, value_node in node.value:
        key = f"{prefix}{key_node.value}"
        line = key_node.start_mark.line + 2  # +1 for 1-based, +1 for the '---' line
        if key in found:
            raise IssueError(
                path, f"'{key}' appears twice (also on line {found[key]}); keep one", line
            )
        found[key] = line
        if isinstance(value_node, yaml.MappingNode) and not prefix:
            found.update(_key_lines(path, value_node, prefix=f"{key}."))
    return found


def _unknown_field(path: Path, front: dict[str, Any], lines: dict[str, int]) -> IssueError | None:
    """The error for the first key that is not in ``FIELDS``, with a likely fix."""
    for raw_key, value in front.items():
        key = str(raw_key)
        if key in FIELDS:
            continue
        close = difflib.get_close_matches(key, list(FIELDS), n=1, cutoff=0.75)
        if close:
            hint = f"did you mean '{close[0]}'?"
        elif isinstance(value, dict):
            hint = f"channels are {', '.join(platform_names())}"
            return IssueError(path, f"unknown channel '{key}'; {hint}", lines.get(key))
        else:
            hint = f"known fields: {', '.join(FIELDS)}"
        return IssueError(path, f"unknown front-matter field '{key}'; {hint}", lines.get(key))
    return None


def _build_issue(
    path: Path, front: dict[str, Any], lines: dict[str, int], body: str, body_line: int
) -> Issue:
    unknown = _unknown_field(path, front, lines)
    if unknown:
        raise unknown
    values = {key: FIELDS[key](front.get(key), FieldContext(path, lines, key)) for key in FIELDS}
    if not values["title"]:
        raise IssueError(path, "front matter has no 'title'; add 'title: …'", lines.get("title", 2))
    check_containers(path, parse_document(body), body_line)
    overrides = {name: values.pop(name) for name in PLATFORMS if front.get(name) is not None}
    for name in PLATFORMS:
        values.pop(name, None)
    issue_id = values.pop("id") or default_issue_id(path)
    return Issue(
        path=path.resolve(),
        id=issue_id,
        body=body,
        body_line=body_line,
        overrides=MappingProxyType(overrides),
        field_lines=MappingProxyType(dict(lines)),
        **values,
    )


def default_issue_id(path: Path) -> str:
    """The file stem, or the folder's name for ``issue.md``/``index.md`` in a folder of its own."""
    stem = path.stem
    if stem.lower() in {"issue", "index", "readme"}:
        stem = path.parent.name
    # Letters of any script stay (两会.md and 三中全会.md are two issues, not one "issue");
    # path separators, spaces and punctuation become "-", and no id starts with a dot.
    return re.sub(r"[^\w.-]+", "-", stem).strip("-.") or "issue"
