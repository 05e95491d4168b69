"""Patterns compiled at first use behave as compiled ones, and every one of them compiles.

A deferred pattern with a mistake would only fail when an issue first uses its construct,
in an editor's hands; importing every module and compiling every pattern found at the top
of one catches that here.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

import crosspost
from crosspost.patterns import _Deferred, pattern


def test_a_deferred_pattern_answers_as_a_compiled_one() -> None:
    source, flags = r"(?P<key>\w+)\s*=\s*(\d+)", re.IGNORECASE
    deferred, compiled = pattern(source, flags), re.compile(source, flags)
    text = "width = 300, HEIGHT=200; depth"
    assert deferred.pattern == source
    assert deferred.groups == compiled.groups == 2
    assert dict(deferred.groupindex) == {"key": 1}
    assert deferred.search(text).group("key") == "width"  # type: ignore[union-attr]
    assert deferred.match("x") is None
    assert deferred.fullmatch("a=1").groups() == ("a", "1")  # type: ignore[union-attr]
    assert [m.group(2) for m in deferred.finditer(text)] == ["300", "200"]
    assert deferred.findall(text) == compiled.findall(text)
    assert deferred.sub(r"\g<key>:\2", text) == compiled.sub(r"\g<key>:\2", text)
    assert deferred.subn("#", text) == compiled.subn("#", text)
    assert deferred.split(text) == compiled.split(text)


def test_after_its_first_use_a_pattern_hands_out_the_compiled_methods() -> None:
    deferred = pattern(rb"^---\r?$")
    assert "match" not in vars(deferred)  # nothing compiled at import
    assert deferred.match(b"---")
    assert vars(deferred)["search"] == re.compile(rb"^---\r?$").search
    assert deferred.search(b"a\n---") is None
    assert repr(deferred) == "pattern(b'^---\\\\r?$')"


def test_every_pattern_named_at_the_top_of_a_module_compiles() -> None:
    found = 0
    for module_info in pkgutil.walk_packages(crosspost.__path__, "crosspost."):
        if module_info.name == "crosspost.__main__":  # importing it runs the program
            continue
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if isinstance(value, _Deferred):
                try:
                    value.search(value.pattern[:0])  # an empty str or bytes, as it reads
                except re.error as error:  # pragma: no cover - the failure
                    raise AssertionError(f"{module_info.name}.{name}: {error}") from error
                found += 1
    assert found >= 150  # the parser's, the checks', the renderers'
