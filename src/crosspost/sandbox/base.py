"""What every platform emulator provides to the sandbox server.

An emulator is a WSGI application holding one platform's state (tokens, drafts,
articles, images) behind the platform's real paths and error shapes. The server in
``crosspost.sandbox.server`` owns everything that is not platform knowledge: sockets,
the request log, fault injection and the control endpoint. Faults whose *shape* is
platform knowledge (a WeChat ``errcode``, a Zhihu ``{"error": …}``) are produced by the
emulator's :meth:`Emulator.fault_response`.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from werkzeug.wrappers import Request, Response

Clock = Callable[[], float]


class Emulator(ABC):
    """One platform's fake API. Subclasses route requests with a werkzeug ``Map``."""

    #: "wechat" or "zhihu": the name used in fault specs, URLs and the CLI.
    name: str = ""

    def __init__(self, *, clock: Clock = time.time, options: Mapping[str, Any] | None = None):
        self.clock = clock
        self.options: dict[str, Any] = dict(options or {})

    # --- serving -----------------------------------------------------------------------

    @abstractmethod
    def handle(self, request: Request) -> Response:
        """Answer one request in the platform's own shape (never a Python traceback)."""

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        """Serve as a plain WSGI app too (e.g. werkzeug's test client)."""
        response = self.handle(Request(environ))
        return response(environ, start_response)

    @abstractmethod
    def is_mutating(self, method: str, path: str) -> bool:
        """True for calls that create or publish something (the 'commit, then drop' targets)."""

    @abstractmethod
    def fault_response(self, kind: str, request: Request) -> Response | None:
        """A platform-shaped answer for a platform fault kind (e.g. ``"errcode:-1"``,
        ``"errcode:45009"``, ``"token_expired"``, ``"http:429"``, ``"40362"``,
        ``"publish_code"``); None when the kind means nothing to this platform."""

    def warm(self) -> None:  # noqa: B027 - a hook: most emulators have nothing to warm
        """Do, before the first request, what a long-running server has long done (a
        route table compiled): otherwise the first request of each sandbox carries it.
        Nothing by default."""

    def update_options(self, values: Mapping[str, Any]) -> None:
        """Change options at run time (control endpoint ``POST /__sandbox__/options``).

        Subclasses that derive state from options at construction override this."""
        self.options.update(values)

    def control(self, method: str, what: str, body: Any) -> dict[str, Any] | None:
        """A platform's own ``/__sandbox__/<what>`` endpoint (e.g. WeChat's
        ``wechat/mass/confirm``): its JSON answer, or None when there is no such endpoint.
        A ``ValueError`` is a bad request (HTTP 400)."""
        return None

    def errcode_of(self, response_body: bytes) -> int | str | None:
        """The platform error code in a response body, for the request log."""
        return None

    # --- what tests, demos and the CLI see ----------------------------------------------

    @abstractmethod
    def credentials(self) -> dict[str, str]:
        """Credentials a client should use (printed by ``crosspost sandbox``)."""

    @abstractmethod
    def secrets(self) -> list[str]:
        """Every secret value currently valid (AppSecret, tokens, cookies): redacted from logs."""

    @abstractmethod
    def snapshot(self) -> dict[str, Any]:
        """Introspection: drafts, published articles, uploaded images (JSON-serialisable)."""

    @abstractmethod
    def dump_state(self) -> dict[str, Any]:
        """Everything needed to survive a restart (JSON-serialisable)."""

    @abstractmethod
    def load_state(self, state: Mapping[str, Any]) -> None:
        """Restore what :meth:`dump_state` returned."""
