"""A deadline for a whole exchange: the request sent and its whole answer read.

The read timeout bounds each wait for the next bytes, not the answer: a gateway or proxy
that trickles an answer (a byte every few seconds, a header line a minute) keeps every
wait short and the exchange open for as long as it likes, and with it the run, the post's
lock and the cron job behind it. :class:`Deadlines` ends such an exchange: when one
outlasts its deadline, the socket it talks on is shut down, the read blocked on it
returns, and the policy reports the call as one whose answer did not come in time
(ambiguous for an irreversible call, like any answer that stopped coming).

A connection learns which exchange it serves from the thread that sends on it
(:func:`attach`, called by the policy's connection classes when a request starts), since
urllib3 picks the connection inside the pool, out of the policy's sight.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Deadlines", "Exchange", "attach"]

_current = threading.local()


@dataclass(eq=False)
class Exchange:
    """One request and its answer, while they last. ``overdue`` turns true when its
    deadline passed before it ended, and its connection, if it had one, was cut."""

    deadline: float
    connection: Any = None
    ended: bool = False
    overdue: bool = False


@dataclass(eq=False)
class Deadlines:
    """The exchanges under way and their deadlines, and the thread that cuts the late ones.

    ``clock`` is monotonic seconds. With ``watch`` off no thread runs and nothing is cut
    until :meth:`cut_overdue` is called, which is how tests move time instead of waiting.
    """

    clock: Callable[[], float] = time.monotonic
    watch: bool = True
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _due: list[tuple[float, int, Exchange]] = field(default_factory=list, init=False, repr=False)
    _order: itertools.count[int] = field(default_factory=itertools.count, init=False, repr=False)
    _wake: threading.Event = field(default_factory=threading.Event, init=False, repr=False)
    _thread: threading.Thread | None = field(default=None, init=False, repr=False)

    def begin(self, seconds: float) -> Exchange:
        """An exchange that must end within ``seconds`` from now, which the requests this
        thread starts carry until :meth:`end`."""
        exchange = Exchange(self.clock() + seconds)
        _current.serving = (self, exchange)
        with self._lock:
            earliest = not self._due or exchange.deadline < self._due[0][0]
            heapq.heappush(self._due, (exchange.deadline, next(self._order), exchange))
            if self.watch and self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="crosspost-deadlines", daemon=True
                )
                self._thread.start()
        if earliest:
            self._wake.set()
        return exchange

    def end(self, exchange: Exchange) -> None:
        """``exchange`` is over: its connection may serve the next one untouched."""
        _current.serving = None
        with self._lock:
            exchange.ended = True
            exchange.connection = None

    def attach(self, exchange: Exchange, connection: Any) -> None:
        """``connection`` carries ``exchange``; one already overdue is cut at once."""
        with self._lock:
            exchange.connection = connection
            if exchange.overdue:
                _cut(connection)

    def cut_overdue(self) -> int:
        """Cut every exchange whose deadline has passed; how many were cut."""
        now, cut = self.clock(), 0
        with self._lock:
            while self._due and self._due[0][0] <= now:
                _, _, exchange = heapq.heappop(self._due)
                if exchange.ended:
                    continue
                exchange.overdue = True
                if exchange.connection is not None:
                    _cut(exchange.connection)
                cut += 1
        return cut

    def _next_deadline(self) -> float | None:
        with self._lock:
            while self._due and self._due[0][2].ended:
                heapq.heappop(self._due)
            return self._due[0][0] if self._due else None

    def _run(self) -> None:
        while True:
            # Cleared before the look, so an earlier deadline begun after it still wakes
            # the wait below.
            self._wake.clear()
            deadline = self._next_deadline()
            wait = None if deadline is None else deadline - self.clock()
            if wait is None or wait > 0:
                self._wake.wait(wait)
            self.cut_overdue()


def _cut(connection: Any) -> None:
    """Shut ``connection``'s socket down under the thread reading it: the one it sends
    on, or, once an answer that ends the connection is being read, the one the answer
    was handed (``answering``: http.client lets go of it then). The plain socket's own
    shutdown is called even for TLS: ``SSLSocket.shutdown`` also drops its TLS state,
    which the reading thread is still using."""
    sock = getattr(connection, "sock", None) or getattr(connection, "answering", None)
    if sock is None:
        return
    with contextlib.suppress(OSError):  # already closed: nothing is waiting on it
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


def attach(connection: Any) -> None:
    """Called by a connection as it starts a request: it now carries the exchange the
    sending thread serves, if any."""
    found = getattr(_current, "serving", None)
    if found is not None:
        deadlines, exchange = found
        deadlines.attach(exchange, connection)
