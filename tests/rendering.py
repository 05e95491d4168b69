"""Rendering a body as an editor sees it, for the tests of constructs met in real documents
(``test_other_tools``, ``test_writers_habits``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from crosspost.issue.model import Issue
from crosspost.render.rendered import RenderContext, render

#: ``body_warnings(body)`` (see conftest): the warnings check gives a body.
BodyWarnings = Callable[[str], list[str]]
#: ``check_lines(document)`` (see conftest): every line check prints for a document.
CheckLines = Callable[[str], list[str]]
CHANNELS = ("wechat", "zhihu")


def issue_of(body: str) -> Issue:
    return Issue(path=Path("/issues/t/issue.md"), id="t", title="t", body=body, body_line=1)


def shown(body: str, channel: str) -> str:
    return render(issue_of(body), channel, RenderContext()).body


def words(html: str) -> str:
    """The text a reader sees, tags left out."""
    return re.sub(r"<[^>]+>", "", html)
