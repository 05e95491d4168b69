"""Werkzeug's request log for ``crosspost serve``, with the desk's token left out.

The first visit's address carries ``?token=…``: the command prints it once, on standard
output, for the editor to open. Werkzeug then writes every request line to standard error,
where a terminal's scrollback, a ``2>serve.log`` or a shared screen keeps it long after the
visit. The lines stay (an editor reads them to see the page was asked for); the value is
replaced by ``…``, a wrong guess's too, which may be the real token with a typo.
"""

from __future__ import annotations

from typing import Any

from werkzeug.serving import WSGIRequestHandler

from crosspost.patterns import pattern

_TOKEN = pattern(r"((?:^|[?&;\s])token=)[^&;\s\"]*")


def without_token(text: str) -> str:
    """``text`` with the value of every ``token=`` of a query string replaced by ``…``."""
    return _TOKEN.sub(r"\1…", text)


class RequestLog(WSGIRequestHandler):
    """Werkzeug's handler, whose log lines (requests and errors alike) pass through
    :func:`without_token` on their way out."""

    def log(self, type: str, message: str, *args: Any) -> None:
        super().log(type, message, *(without_token(a) if isinstance(a, str) else a for a in args))


__all__ = ["RequestLog", "without_token"]
