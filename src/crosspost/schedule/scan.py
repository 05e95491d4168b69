"""What is due: every issue file's ``publish_at``, read as cheaply as it can be read.

A cron tick that finds nothing due should cost next to nothing, even with a thousand
issue files in the folder. So a file is first looked at without YAML: its front matter
is found with one regular expression and a top-level ``publish_at:`` line is read with
``datetime.fromisoformat``. When that gives a timezone-aware time still in the future,
the file is simply not due and nothing more is read. Only when the quick look is unsure
(a quoted or unusual value, a naive time, a duplicate key, broken front matter) or the
time has come is the front matter parsed properly
(:func:`crosspost.issue.loader.read_front_matter`), so every problem is reported with
the file and line the loader names.

What is skipped without a word: files that do not start with a ``---`` or ``+++`` line,
blank lines aside (a README in the issue folder is not an issue), and issues without
``publish_at`` (they are published by hand). A broken file whose quick look says "not
yet" is checked whole when it comes due. One exception to the silence: a file whose only
schedule is a field the loader would call a misspelling of ``publish_at`` (``publsh_at``)
holding a date and time that has come is :class:`Unscheduled`, so the tick can say once
that the issue will never be due. Only fields holding a date are compared, so the look
stays cheap.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, tzinfo
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from crosspost.config.advice import command_line
from crosspost.errors import IssueError, UsageError
from crosspost.issue.blocks import PICTURE_ENDING
from crosspost.issue.encoding import as_utf8, decode
from crosspost.issue.fields import (
    ISSUE_SUFFIXES,
    KNOWN_KEYS,
    meant_field,
    parse_moment,
)
from crosspost.issue.loader import (
    default_issue_id,
    opens_front_matter,
    read_front_matter,
    unreadable,
)
from crosspost.patterns import pattern

#: The front matter block of an issue file, as the loader finds it: from a ``---`` line
#: that only blank lines precede to the next ``---`` or ``...`` line.
_FRONT = pattern(
    r"\A\ufeff?(?:[ \t]*\r?\n)*---[ \t]*\r?\n(.*?)^(?:---|\.\.\.)[ \t]*\r?$", re.S | re.M
)
#: A top-level ``publish_at:`` key (column 0, so never inside a channel block).
_PUBLISH_AT = pattern(r"""^["']?publish_at["']?[ \t]*:[ \t]*(.*?)[ \t]*\r?$""", re.M)
#: A top-level key whose value starts with a date: the only keys a misspelt
#: ``publish_at`` is looked for among (comparing every key would cost a Hugo folder).
_DATED_KEY = pattern(
    r"""^["']?([A-Za-z][\w-]*)["']?[ \t]*:[ \t]*["']?(\d{4}-\d\d-\d\d[^"'#\r\n]*)""", re.M
)
#: A picture's file as an issue may name it (front matter, Markdown, raw HTML, a wiki
#: embed): no space, quote or bracket inside, a picture's ending.
_NAMED_PICTURE = pattern(rf"""[^\s"'()<>\[\]|=,]+?{PICTURE_ENDING}(?![\w.])""", re.IGNORECASE)
#: Enough of a file to hold any front matter the loader accepts (64,000 characters).
_ZONE_READ_BYTES = 256_000


@dataclass(frozen=True)
class ScheduledFile:
    """An issue file whose ``publish_at`` has come, with what the scheduler needs of it."""

    path: Path
    publish_at: datetime
    #: sha256 of the file's bytes: an edit changes it (see the scheduler's state file).
    digest: str
    #: The parsed front matter and key lines, or None while only the quick look was done.
    front: Mapping[str, Any] | None = None
    lines: Mapping[str, int] = field(default_factory=dict)

    def loaded(self) -> ScheduledFile:
        """This file with its front matter parsed (raises :class:`IssueError`)."""
        if self.front is not None:
            return self
        front, lines = read_front_matter(self.path)
        return ScheduledFile(self.path, self.publish_at, self.digest, front, lines)

    @property
    def issue_id(self) -> str:
        """The ``id:`` of the front matter, else the name the loader derives from the path."""
        front = self.front or {}
        for key in ("id", "slug"):  # as the loader reads it: a generator's slug is the id
            value = front.get(key)
            if isinstance(value, str | int) and str(value).strip():
                return str(value).strip()
        return default_issue_id(self.path)

    @property
    def channels(self) -> tuple[str, ...]:
        """The ``channels:`` the issue asks for; empty means every configured channel."""
        value = (self.front or {}).get("channels")
        names = [value] if isinstance(value, str) else value
        if isinstance(names, list) and all(isinstance(n, str) for n in names):
            return tuple(names)
        return ()  # malformed: the publisher's plan reports it with its line

    def line_of(self, key: str) -> int | None:
        return self.lines.get(key)


@dataclass(frozen=True)
class Unscheduled:
    """A file whose only schedule is a misspelt ``publish_at``, with a time that has come."""

    path: Path
    #: sha256 of the file's bytes (said once per version, as a problem is).
    digest: str
    #: The misspelt key as written (``publsh_at``) and its line.
    key: str
    line: int | None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        return (
            f"{where}: '{self.key}' is no field of crosspost (did you mean 'publish_at'?), "
            "so this issue is never due; rename the field to schedule it"
        )


@dataclass(frozen=True)
class Scan:
    """Every issue file under the folders, sorted into what the tick must look at."""

    #: How many issue files were looked at.
    files: int = 0
    #: Scheduled issues whose time has come (published or not).
    past_due: tuple[ScheduledFile, ...] = ()
    #: Files that could not be read or whose ``publish_at`` is wrong (exit 2, path:line).
    problems: tuple[IssueError, ...] = ()
    #: Scheduled issues still in the future, and the earliest of them.
    upcoming: int = 0
    next_due: tuple[Path, datetime] | None = None
    #: Files that would be due had ``publish_at`` been spelt right (said once, exit 0).
    unscheduled: tuple[Unscheduled, ...] = ()
    #: Every scheduled issue still in the future (its path, as a string: see
    #: :func:`issue_files`) with its ``publish_at``, soonest first: what ``run-due
    #: --dry-run`` says is coming (a tick never reads them further).
    later: tuple[tuple[str, datetime], ...] = ()

    @property
    def idle(self) -> bool:
        """Nothing due and nothing wrong: the tick ends here, without lock or ledger."""
        return not self.past_due and not self.problems and not self.unscheduled


def look(folders: Sequence[Path], now: datetime, *, rehearsal: bool) -> Scan:
    """The first step of every tick: :func:`scan` the folders of issues, which must be named.

    Cheap on purpose (see the module docstring), and importing this module is cheap too:
    the command looks first and loads the publishing machinery only when something is due.
    ``rehearsal``: the tick is a ``--sandbox`` one, and so is the command its advice names.
    """
    if not folders:
        again = command_line("run-due", "DIR", rehearsal=rehearsal)
        raise UsageError(
            f"no folders of issues to scan: name them ({again}) or set "
            "issue_dirs under [schedule] in the config (or CROSSPOST_ISSUE_DIRS)"
        )
    return scan(folders, now)


def issue_files(folders: Iterable[Path]) -> list[str]:
    """Every issue file under the folders (``*.md``, ``*.markdown``, ``*.mdx``; hidden
    folders skipped), each once, sorted."""
    found: dict[str, None] = {}
    for folder in folders:
        folder = Path(folder).expanduser()
        if not folder.is_dir():
            raise UsageError(
                f"{folder}: no such folder of issues; check the path given to run-due "
                "or [schedule] issue_dirs in the config"
            )
        # Resolve the folder once, not each file: realpath per file was most of a tick.
        for root, dirs, names in os.walk(folder.resolve()):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(names):
                if name.endswith(ISSUE_SUFFIXES) and not name.startswith("."):
                    found.setdefault(os.path.join(root, name), None)
    return list(found)  # strings: a Path per file costs more than the rest of the look


def scan(folders: Iterable[Path], now: datetime) -> Scan:
    """Sort every issue file under ``folders`` by its schedule relative to ``now``."""
    files = issue_files(folders)
    past_due: list[ScheduledFile] = []
    problems: list[IssueError] = []
    unscheduled: list[Unscheduled] = []
    later: list[tuple[str, datetime]] = []
    for path in files:
        try:
            found = _schedule_of(path, now)
        except IssueError as problem:
            problems.append(problem)
            continue
        if found is None:
            continue
        if isinstance(found, Unscheduled):
            unscheduled.append(found)
        elif isinstance(found, datetime):
            later.append((path, found))
        else:
            past_due.append(found)
    later.sort(key=lambda item: item[1])  # stable: files of one moment stay in path order
    return Scan(
        len(files),
        tuple(past_due),
        tuple(problems),
        len(later),
        (Path(later[0][0]), later[0][1]) if later else None,
        tuple(unscheduled),
        tuple(later),
    )


def _schedule_of(name: str, now: datetime) -> ScheduledFile | datetime | Unscheduled | None:
    """The past-due file, the time of an upcoming one, a misspelt schedule that has come,
    or None when it is not scheduled."""
    try:
        with open(name, "rb") as file:
            raw = file.read()
    except OSError as error:
        raise unreadable(name, error) from None
    if not opens_front_matter(raw):
        return None  # not a scheduled issue: publish_at lives in YAML or TOML front matter
    front = _yaml_front(raw)
    quick = _publish_at_in(front)
    path = Path(name)
    if quick is False:  # well-formed front matter without publish_at: published by hand,
        assert front is not None  # unless its only schedule is misspelt
        dated = _DATED_KEY.finditer(front.string, front.start(1), front.end(1))
        for found in dated:
            if _misspelt(found.group(1), found.group(2), now):
                line = front.string.count("\n", 0, found.start()) + 1
                return Unscheduled(path, hashlib.sha256(raw).hexdigest(), found.group(1), line)
        return None
    if isinstance(quick, datetime) and quick > now:
        return quick
    digest = hashlib.sha256(raw).hexdigest()
    if isinstance(quick, datetime):
        return ScheduledFile(path, quick, digest)  # YAML only if the tick must act on it
    fields, lines = read_front_matter(path)
    publish_at = parse_moment(path, "publish_at", fields.get("publish_at"), lines.get("publish_at"))
    if publish_at is None:
        for key, value in fields.items():
            if _misspelt(str(key), value, now):
                return Unscheduled(path, digest, str(key), lines.get(str(key)))
        return None
    if publish_at > now:
        return publish_at
    return ScheduledFile(path, publish_at, digest, fields, lines)


def _misspelt(key: str, value: object, now: datetime) -> bool:
    """Whether ``key`` is what the loader's "did you mean 'publish_at'" warning would
    name, holding a date and time at or before ``now`` (one without a zone read in this
    machine's), so the issue would be due had the field been spelt right."""
    if key in KNOWN_KEYS:  # cheap first: most keys of a front matter are ours
        return False
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            return False
    if isinstance(value, date) and not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    if not isinstance(value, datetime) or value.astimezone() > now:
        return False
    return meant_field(key) == "publish_at"  # the loader's own "did you mean"


def _yaml_front(raw: bytes) -> re.Match[str] | None:
    """The YAML front matter block of a file, found without YAML (None: not found). Its
    bytes are read as the loader reads them: UTF-8, or what a byte-order mark says."""
    try:
        text = decode(raw)
    except UnicodeDecodeError:
        return None
    return _FRONT.match(text)


def _publish_at_in(front: re.Match[str] | None) -> datetime | bool | None:
    """``publish_at`` of a front matter block: a datetime, False (surely none), None
    (unsure, or no block found)."""
    if front is None:
        return None
    values = _PUBLISH_AT.findall(front.group(1))
    if not values:
        return False
    if len(values) > 1:
        return None
    value = values[0].split(" #", 1)[0].strip().strip("\"'")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.utcoffset() is not None else None


def publish_zone(path: Path | str | None) -> tzinfo | None:
    """The timezone of an issue file's ``publish_at`` (the editor's zone), if it has one.

    ``crosspost status`` shows each post's time in its issue's zone: an editor who wrote
    ``+08:00`` reads Beijing time even when the server runs on UTC. The quick look only:
    a missing, unreadable or unusual file just falls back to the machine's local time.
    """
    if path is None:
        return None
    try:
        with open(path, "rb") as file:
            raw = file.read(_ZONE_READ_BYTES)
    except OSError:
        return None
    moment = _publish_at_in(_yaml_front(as_utf8(raw)))  # UTF-16 cut inside a character
    return moment.tzinfo if isinstance(moment, datetime) else None


def named_pictures_digest(path: Path, folders: Sequence[Path] = ()) -> str:
    """A digest of the state of every picture file the issue's text names: each one's
    size and time of change, or its absence, next to the issue and in the extra image
    ``folders`` (by its path there and by its name).

    A problem of a scheduled issue is said once per version of its file, and the tick
    does not look at that version again; but the fix of the commonest problems (a
    missing cover or picture, one too large or broken) is a change to another file. When
    this digest moves, the tick looks at the issue again. The names are read from the
    text as written, without parsing it: a tick pays this only for files with a problem,
    a read and a few ``stat`` calls. An address (``https://…``) names no file here.
    """
    try:
        text = decode(path.read_bytes(), "replace")
    except OSError:
        return ""
    names = sorted(
        {
            unquote(name).removeprefix("./").lstrip("/")
            for name in _NAMED_PICTURE.findall(text)
            if "://" not in name and not name.startswith("data:")
        }
    )
    state = hashlib.sha256()
    for name in names:
        places = [path.parent / name]
        for folder in folders:
            places += [folder / name, folder / Path(name).name]
        for place in places:
            try:
                seen = place.stat()
            except (OSError, ValueError):
                state.update(f"{place}|-\n".encode())
            else:
                state.update(f"{place}|{seen.st_size}|{seen.st_mtime_ns}\n".encode())
    return state.hexdigest()[:24]
