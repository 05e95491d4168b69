"""Regular expressions compiled the first time they are used, for every stage.

The parser, the checks and the renderers each name a few dozen patterns at the top of
their modules, one per construct an issue may use (Hugo's shortcodes, Obsidian's wiki
links, a Quarto callout's attributes …). Most issues use a handful of those constructs,
and ``re`` compiles a pattern in Python: the two hundred of them cost ~20 ms of every
``check`` and ``render``, an editor's most frequent commands, mostly for patterns the
issue never needed. :func:`pattern` returns an object that compiles on its first match,
search or substitution and from then on hands out the compiled pattern's own methods, so
a pattern in use costs what a compiled one does.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator
from typing import Any, AnyStr, cast

#: The methods of :class:`re.Pattern` a caller may ask for; each is replaced on the
#: instance by the compiled pattern's own at the first use of any of them.
_METHODS = (
    "match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split",
)  # fmt: skip


class _Deferred:
    """A pattern not compiled yet. ``pattern`` (its source) and ``flags`` need no
    compiling, so patterns built from others' sources stay deferred too."""

    def __init__(self, source: str | bytes, flags: int) -> None:
        self.pattern = source
        self.flags = flags
        self._compiled: re.Pattern[Any] | None = None

    def _compile(self) -> re.Pattern[Any]:
        if self._compiled is None:
            compiled = re.compile(self.pattern, self.flags)
            # Instance attributes come before the class's methods (functions are not data
            # descriptors), so later calls go straight to the compiled pattern.
            for name in _METHODS:
                setattr(self, name, getattr(compiled, name))
            self._compiled = compiled
        return self._compiled

    @property
    def groups(self) -> int:
        return self._compile().groups

    @property
    def groupindex(self) -> Any:
        return self._compile().groupindex

    def __repr__(self) -> str:
        return f"pattern({self.pattern!r})"


def _first_use(name: str) -> Any:
    """The method ``name`` of a pattern not compiled yet: compile, then call the real one."""

    def method(self: _Deferred, *args: Any, **kwargs: Any) -> Any:
        return getattr(self._compile(), name)(*args, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


for _name in _METHODS:
    setattr(_Deferred, _name, _first_use(_name))


def pattern(source: AnyStr, flags: int | re.RegexFlag = 0) -> re.Pattern[AnyStr]:
    """``re.compile(source, flags)``, compiled when first used. A mistake in ``source``
    shows at that use, not at import: ``tests/test_patterns.py`` compiles every one."""
    return cast("re.Pattern[AnyStr]", _Deferred(source, int(flags)))


# Rules ask about offsets of one text once per match, in a row: counting from the top (or
# from the line's start) each time read a long line once per match, which grew with the
# square of the line. Each text is read once for all, kept for the last few texts. Here,
# below every stage, so that the rules (``issue.blocks.line_at``) and check's
# patterns (:class:`ClosedOnItsLine`) share one reading of a text.
@functools.lru_cache(maxsize=8)
def offsets_of(mark: str, text: str) -> tuple[int, ...]:
    """Where ``mark`` (a line break, a backtick) stands in ``text``, in order, for a binary
    search (:mod:`bisect`) over them."""
    return tuple(found.start() for found in re.finditer(re.escape(mark), text))


class ClosedOnItsLine:
    """``opening.*?closing`` (``.`` stopping at a line break), whose ``finditer`` finds what
    ``re`` finds, reading a long line a few times rather than once per opening.

    ``re`` tries the lazy ``.*?`` from every opening to the end of its line when no
    closing follows there: a line of many ``{{`` and no ``}}`` was read once per ``{{``,
    which grew with the square of the line. Here the closings' starts are found first,
    and the whole pattern is tried only at an opening followed by a closing on the same
    line (without one it cannot match); a match found there is ``re``'s own. ``opening``
    must match in one way only where it matches (as a literal with lookarounds does), so
    that where it ends is where ``.*?`` begins. ``pattern`` is the whole pattern's source,
    as a compiled pattern's is.
    """

    def __init__(self, opening: str, closing: str) -> None:
        self.pattern = f"{opening}.*?{closing}"
        self._opening = pattern(opening)
        self._whole = pattern(self.pattern)
        # Every start of a closing, overlapping ones too (``}}}`` closes at 0 and at 1).
        self._closing = pattern(f"(?={closing})")

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """The matches of ``pattern`` in ``text``, as ``re.finditer`` gives them."""
        closings = [found.start() for found in self._closing.finditer(text)]
        breaks = offsets_of("\n", text)
        at = 0
        while (opening := self._opening.search(text, at)) is not None:
            start, end = opening.span()  # where the lazy ``.*?`` would begin
            index, line = bisect.bisect_left(closings, end), bisect.bisect_left(breaks, end)
            line_end = breaks[line] if line < len(breaks) else len(text)
            closed = index < len(closings) and closings[index] < line_end
            found = self._whole.match(text, start) if closed else None
            if found is None:
                at = start + 1
                continue
            yield found
            at = found.end() if found.end() > start else start + 1
