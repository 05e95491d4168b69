"""Real HTTP servers on loopback that put an :class:`Emulator` on the wire.

Everything here is platform-neutral. werkzeug's threaded server does the HTTP (one
thread per connection, chunked bodies, the WSGI environ). Its own handler closes the
connection after each answer (it cannot tell a request's leftover body from the next
request); the platforms keep connections alive, and a client that reconnects for every
request spends its time on the connections, so :class:`_Handler` answers with a
``Content-Length`` and keeps the connection for the next request (the body is always read
whole first). Only a fault that hangs up, a chunked request, or a client that asks closes
it, and :meth:`EmulatorServer.stop` hangs up on every connection still open, so a stopped
sandbox never answers on an old one.
:meth:`EmulatorServer.app` is the WSGI application in front of the emulator: fault
injection, the request log with secrets redacted, JSON persistence, and the control
endpoint:

``GET|POST|DELETE /__sandbox__/faults``    list, add (JSON ``{"path","kind",…}`` or
                                           ``{"spec": "wechat:/x=reset*1"}``), clear
``GET|DELETE /__sandbox__/requests``       the request log of this server, or clear it
``GET /__sandbox__/state``                 the emulator's snapshot (drafts, articles, images)
``POST /__sandbox__/options``              change emulator options at run time (JSON object)
``POST /__sandbox__/clock``                ``{"advance": seconds}``: move the sandbox clock
``/__sandbox__/<platform>/…``              the emulator's own (:meth:`Emulator.control`),
                                           e.g. ``POST /__sandbox__/wechat/mass/confirm``

so that a test in another process can script a run over plain HTTP. The faults that
answer nothing at all (``reset``, ``commit_then_drop``, ``slow_answer``) raise
:class:`HangUp` out of the application; the request handler then closes the socket the way
the fault asks. A ``slow_answer`` request is kept and applied once the sandbox clock has
reached its time (checked before every request, and by :meth:`EmulatorServer.commit_due`).
"""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import socket
import ssl
import struct
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import asdict
from http import HTTPStatus
from pathlib import Path
from typing import IO, Any

from werkzeug.exceptions import ClientDisconnected
from werkzeug.serving import (
    ThreadedWSGIServer,
    WSGIRequestHandler,
)
from werkzeug.utils import cached_property
from werkzeug.wrappers import Request, Response

from crosspost.config.files import write_atomic
from crosspost.config.listen import listening_socket
from crosspost.errors import UsageError
from crosspost.sandbox.base import Emulator
from crosspost.sandbox.faults import FaultBook, fault_from_json
from crosspost.sandbox.requestlog import LoggedRequest, RequestLog, redact, redact_query

__all__ = ["EmulatorServer", "HangUp", "LoggedRequest", "RequestLog"]

CONTROL_PREFIX = "/__sandbox__/"
#: Where a request's environ keeps when the sandbox started on it (minus injected delays).
_STARTED = "crosspost.sandbox.started"
#: The request's connection: its number, and (on its first request only) the sandbox
#: clock when it was accepted, which a ``handshake`` fault counts from.
_CONNECTION = "crosspost.sandbox.connection"
_ACCEPTED = "crosspost.sandbox.accepted"


class _WholeBody(Request):
    """A request whose body comes off the connection in one read.

    werkzeug reads a body in 64 KB pieces into a growing buffer and copies it out at the
    end: some 0.45 ms of CPU for a 300 KB image, on the cores the client under test
    shares, for every upload. A body with a ``Content-Length`` is read here with one read
    of that length instead (the connection's buffered reader fills one buffer); a chunked
    body, or one without a length, is werkzeug's as before. A client that hangs up
    before the whole body is in is :class:`ClientDisconnected`, as werkzeug says it.
    """

    @cached_property
    def stream(self) -> IO[bytes]:
        length = self.content_length
        if length is None or self.shallow or self.environ.get("wsgi.input_terminated"):
            return super().stream
        body = self.environ["wsgi.input"].read(length)
        if len(body) < length:
            raise ClientDisconnected()
        return io.BytesIO(body)


def _json(data: Any, status: int = 200) -> Response:
    return Response(
        json.dumps(data, ensure_ascii=False), status=status, mimetype="application/json"
    )


def _bad_gateway(status: int) -> Response:
    """What a front proxy sends when the platform behind it fails: HTML, not JSON."""
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    html = f"<html><head><title>{status} {phrase}</title></head><body><center><h1>{status} "
    html += f"{phrase}</h1></center><hr><center>stgw</center></body></html>"
    return Response(html, status=status, mimetype="text/html")


def _relay_json(status: int) -> Response:
    """What a relay in front of the platform sends of its own: JSON, in no platform's shape
    (an API gateway's ``{"code": 403, "msg": …}``, a whitelist relay's refusal)."""
    return _json({"code": status, "msg": "request refused by the relay"}, status)


class EmulatorServer:
    """One emulator served on one loopback port, with faults, log and persistence."""

    def __init__(
        self,
        emulator: Emulator,
        *,
        faults: FaultBook,
        log: RequestLog,
        sleep: Callable[[float], None],
        host: str = "127.0.0.1",
        port: int = 0,
        state_file: Path | None = None,
        advance_clock: Callable[[float], object] | None = None,
        clock: Callable[[], float] | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.emulator = emulator
        #: Serve HTTPS with this server context (None: plain HTTP).
        self.tls = tls
        self.faults = faults
        self.log = log
        self.sleep = sleep
        self.state_file = state_file
        self.advance_clock = advance_clock
        self.clock = clock or emulator.clock
        # One request at a time inside the emulator: its state is plain dicts.
        self.lock = threading.RLock()
        # State dumps are numbered under ``lock`` and written in order under ``_write``,
        # so an older dump can never replace a newer one on disk.
        self._write = threading.Lock()
        self._dumped = 0
        self._written = 0
        self._host, self._port = host, port
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        #: ``slow_answer`` requests not applied yet: (when they take effect, the request).
        self._late: list[tuple[float, Request]] = []

    # --- life cycle ------------------------------------------------------------------

    def address(self) -> tuple[str, int]:
        """(host, port) the server listens on."""
        if self._httpd is None:
            raise RuntimeError("the sandbox server is not running")
        host, port = self._httpd.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        """``http://host:port`` (``https://`` when it serves TLS) of the running server."""
        host, port = self.address()
        return f"{'https' if self.tls else 'http'}://{host}:{port}"

    def start(self) -> None:
        """Load saved state (if any), bind the port and serve on a daemon thread."""
        if self.state_file and self.state_file.exists():
            try:
                state = json.loads(self.state_file.read_text("utf-8"))
            except (OSError, ValueError) as error:
                raise UsageError(
                    f"{self.state_file}: sandbox state is unreadable ({error}); "
                    "delete the file to start afresh"
                ) from None
            self.emulator.load_state(state)
        # Bound here rather than by werkzeug, which prints and exits when the port is taken.
        with listening_socket(self._host, self._port) as listener:
            self._httpd = _Server(
                self._host,
                self._port,
                self.app,
                _Handler,
                fd=listener.fileno(),  # werkzeug serves a duplicate of this socket
            )
            self._httpd.clock = self.clock
        if self.tls is not None:
            # Each connection's handshake happens in its own handler thread, on its first
            # read, as on a real server: werkzeug's own wrapping shakes hands inside accept
            # and so one connection at a time.
            self._httpd.socket = self.tls.wrap_socket(
                self._httpd.socket, server_side=True, do_handshake_on_connect=False
            )
            self._httpd.ssl_context = self.tls  # the WSGI environ then says https
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"sandbox-{self.emulator.name}",
            daemon=True,
        )
        self._thread.start()

    @property
    def connections_accepted(self) -> int:
        """Connections accepted since the server started (each request's log entry
        names its connection by this count)."""
        return self._httpd.accepted if self._httpd is not None else 0

    def await_connections(self, count: int, timeout: float = 10.0) -> bool:
        """Whether ``count`` connections were accepted within ``timeout`` seconds: a
        client's connect returns before the server has taken the connection in."""
        httpd = self._httpd
        if httpd is None:
            return False
        with httpd.taken_in:
            return httpd.taken_in.wait_for(lambda: httpd.accepted >= count, timeout)

    def stop(self) -> None:
        """Stop serving, close the socket and save the state."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd.hang_up_all()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self.save()

    def save(self) -> None:
        """Write the emulator's state atomically (a crash never leaves half a file)."""
        if not self.state_file:
            return
        with self.lock:
            text = json.dumps(self.emulator.dump_state(), ensure_ascii=False)
            self._dumped += 1
            number = self._dumped
        with self._write:
            if number < self._written:  # a newer dump is already on disk
                return
            write_atomic(self.state_file, text)
            self._written = number

    # --- one request -------------------------------------------------------------------

    def app(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        """The WSGI application werkzeug serves: control endpoint, or faults then emulator."""
        request = _WholeBody(environ)
        try:
            request.get_data()  # read (and keep) the whole body before anything is decided
        except ClientDisconnected:
            raise ConnectionAbortedError("the client hung up mid-request") from None
        # The body is in: what follows is the sandbox's own work (see LoggedRequest.service).
        request.environ[_STARTED] = time.perf_counter()
        if request.path.startswith(CONTROL_PREFIX):
            return self.control(request)(environ, start_response)
        return self.serve(request)(environ, start_response)

    def serve(self, request: Request) -> Response:
        """Consult the fault book, then answer, answer in the platform's error shape, or
        hang up (:class:`HangUp`); every request lands in the log."""
        emulator = self.emulator
        self.commit_due()
        accepted = request.environ.get(_ACCEPTED)
        decision = self.faults.decide(
            emulator.name,
            request.method,
            request.path,
            mutating=emulator.is_mutating(request.method, request.path),
            fresh=accepted is not None,
        )
        hold = decision.delay
        if decision.handshake and accepted is not None:
            hold += max(0.0, accepted + decision.handshake - self.clock())
        if hold:
            held = time.perf_counter()
            self.sleep(hold)
            request.environ[_STARTED] += time.perf_counter() - held  # not the sandbox's work
        kind = decision.kind
        response: Response | None = None
        if kind == "reset":
            self._log(request, None, kind, delivered=False)
            raise HangUp(hard=True)
        if kind == "commit_then_drop":
            response = self.call(request)
            self._log(request, response, kind, delivered=False)
            raise HangUp(hard=False)
        slow = decision.fault.slow_seconds if decision.fault else None
        if slow is not None:
            if emulator.is_mutating(request.method, request.path):
                with self.lock:
                    self._late.append((self.clock() + slow, request))
            self._log(request, None, kind, delivered=False)
            raise HangUp(hard=False)
        if kind is not None:
            with self.lock:
                response = emulator.fault_response(kind, request)
            status = decision.fault.http_status if decision.fault else None
            if response is None and status is not None:
                response = _bad_gateway(status)
            if response is None and kind.startswith("relay_json:"):
                response = _relay_json(int(kind.split(":", 1)[1]))
            if response is None:
                kind = f"{kind} (ignored: unknown to {emulator.name})"
        if response is None:
            response = self.call(request)
        self._log(request, response, kind, delivered=True)
        return response

    def commit_due(self) -> int:
        """Apply the ``slow_answer`` requests whose time has come; how many were applied."""
        with self.lock:
            now = self.clock()
            due = [request for at, request in self._late if at <= now]
            self._late = [(at, request) for at, request in self._late if at > now]
        for request in due:
            self.call(request)
        return len(due)

    def _log(
        self,
        request: Request,
        response: Response | None,
        fault: str | None,
        *,
        delivered: bool,
    ) -> None:
        with self.lock:
            secrets = self.emulator.secrets()
            errcode = self.emulator.errcode_of(response.get_data()) if response else None
        self.log.add(
            at=self.clock(),
            platform=self.emulator.name,
            method=request.method,
            path=redact(request.path, secrets),
            query=redact_query(request.query_string.decode("latin-1"), secrets),
            status=response.status_code if response else None,
            errcode=errcode,
            fault=fault,
            delivered=delivered,
            service=time.perf_counter() - request.environ.get(_STARTED, time.perf_counter()),
            connection=request.environ.get(_CONNECTION, 0),
        )

    def call(self, request: Request) -> Response:
        """The emulator's answer; a bug in it becomes a 500 here, never a traceback there."""
        with self.lock:
            try:
                response = self.emulator.handle(request)
            except Exception:
                traceback.print_exc(file=sys.stderr)
                response = _bad_gateway(500)
        if request.method not in ("GET", "HEAD"):
            self.save()
        return response

    def control(self, request: Request) -> Response:
        """The ``/__sandbox__/…`` endpoints (see the module docstring)."""
        platform = self.emulator.name
        self.commit_due()
        what = request.path[len(CONTROL_PREFIX) :].strip("/")
        method = request.method
        try:
            if what == "faults" and method == "GET":
                return _json({"faults": self.faults.plans(platform)})
            if what == "faults" and method == "POST":
                fault = self.faults.add_fault(fault_from_json(_body(request), platform))
                return _json({"added": fault.as_dict()}, 201)
            if what == "faults" and method == "DELETE":
                self.faults.clear(platform)
                return _json({"cleared": True})
            if what == "requests" and method == "GET":
                return _json({"requests": [asdict(e) for e in self.log.entries(platform)]})
            if what == "requests" and method == "DELETE":
                self.log.clear(platform)
                return _json({"cleared": True})
            if what == "state" and method == "GET":
                with self.lock:
                    return _json(self.emulator.snapshot())
            if what == "options" and method == "POST":
                values = _body(request)
                if not isinstance(values, dict):
                    raise UsageError("options body must be a JSON object")
                with self.lock:
                    self.emulator.update_options(values)
                return _json({"options": self.emulator.options})
            if what == "clock" and method == "POST" and self.advance_clock:
                body = _body(request)
                self.advance_clock(float(body.get("advance", 0)) if isinstance(body, dict) else 0)
                return _json({"now": self.clock()})
            with self.lock:
                answer = self.emulator.control(method, what, _body(request))
            if answer is not None:
                self.save()
                return _json(answer)
        except (UsageError, ValueError, TypeError) as error:
            return _json({"error": str(error)}, 400)
        return _json({"error": f"no control endpoint {method} {request.path}"}, 404)


def _body(request: Request) -> Any:
    try:
        return json.loads(request.get_data() or b"{}")
    except ValueError:
        raise UsageError("control body is not JSON") from None


class HangUp(ConnectionAbortedError):
    """Raised by :meth:`EmulatorServer.app` to leave a request unanswered.

    werkzeug's request handler treats a ``ConnectionError`` out of the application as a
    dropped connection and calls :meth:`_Handler.connection_dropped`, which is where the
    socket is closed the way the fault asks: RST (``hard``) or a plain FIN.
    """

    def __init__(self, *, hard: bool) -> None:
        super().__init__("reset" if hard else "closed")
        self.hard = hard


class _Server(ThreadedWSGIServer):
    """werkzeug's threaded server, knowing its open connections so that it can hang up
    on all of them when it stops (their threads would otherwise wait for a next request
    and answer it with a stopped sandbox's state)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.connections: set[socket.socket] = set()
        self.guard = threading.Lock()
        self.accepted = 0
        #: Told each time a connection is taken in (see :meth:`EmulatorServer.await_connections`).
        self.taken_in = threading.Condition(self.guard)
        #: The emulator server's clock (a ``handshake`` fault counts from the accept).
        self.clock: Callable[[], float] = time.monotonic

    def hang_up_all(self) -> None:
        """Shut every open connection down; each handler thread then sees the end and
        closes its socket itself."""
        with self.guard:
            open_now = list(self.connections)
        for connection in open_now:
            with contextlib.suppress(OSError):  # already gone
                connection.shutdown(socket.SHUT_RDWR)


class _RequestHeaders(http.client.HTTPMessage):
    """A request's header block, as http.server reads it (with the email parser).

    The email parser takes a ``multipart/…`` Content-Type for a MIME body to split, and
    compiles a regular expression for its boundary; every upload comes with a boundary of
    its own, so every upload cost the sandbox a fresh compile (0.2 ms of its CPU, the
    platform's work done on the client's cores). A header block ends where the request's
    body begins: there is never anything in it to split, and nothing else asks."""

    def get_content_maintype(self) -> str:
        return "text"


class _Handler(WSGIRequestHandler):
    """werkzeug's handler, quiet, without Nagle's delay, keeping connections alive, able
    to hang up on purpose."""

    MessageClass = _RequestHeaders

    # The status line and headers go out before the body; without this, Nagle and
    # delayed ACKs add 40 ms to every request.
    disable_nagle_algorithm = True
    # Said here so werkzeug does not set it on the class when the server starts.
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        with self.server.guard:
            self.server.connections.add(self.connection)
            self.accepted_at: float | None = self.server.clock()
            self.server.accepted += 1
            self.number = self.server.accepted
            self.server.taken_in.notify_all()

    def finish(self) -> None:
        with self.server.guard:
            self.server.connections.discard(self.connection)
        super().finish()

    def log(self, type: str, message: str, *args: Any) -> None:
        """No line per request on stderr: the request log is the record."""

    def run_wsgi(self) -> None:
        """Answer one request and keep the connection for the next one.

        werkzeug's own version sends ``Connection: close`` and then reads whatever the
        client sends next, to drain a body the application left unread; here the
        application always reads the whole body first (:meth:`EmulatorServer.app`), so
        the next bytes are the next request. The answer is collected, then sent with
        its length. A chunked request (its end is the dechunker's business) and a
        request that asks for it close the connection after the answer.
        """
        if self.headers.get("Expect", "").lower().strip(" \t") == "100-continue":
            self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        environ = self.environ = self.make_environ()
        environ[_CONNECTION] = self.number
        environ[_ACCEPTED], self.accepted_at = self.accepted_at, None  # its first request
        if "chunked" in str(environ.get("HTTP_TRANSFER_ENCODING", "")).lower():
            self.close_connection = True
        started: list[Any] = []
        chunks: list[bytes] = []

        def start_response(
            status: str, headers: list[tuple[str, str]], exc_info: Any = None
        ) -> Callable[[bytes], None]:
            started[:] = [status, headers]
            return chunks.append

        try:
            answer = self.server.app(environ, start_response)
            try:
                chunks.extend(answer)
            finally:
                getattr(answer, "close", lambda: None)()
            self._send(environ, started, b"".join(chunks))
        except (TimeoutError, ConnectionError) as error:
            self.connection_dropped(error, environ)
        except Exception:  # a bug of the sandbox's: a 500, never a dead connection
            traceback.print_exc(file=sys.stderr)
            self.close_connection = True
            failed = _bad_gateway(500)
            self._send(environ, [failed.status, failed.headers.to_wsgi_list()], failed.data)

    def _send(self, environ: dict[str, Any], started: list[Any], body: bytes) -> None:
        status, headers = started
        code, _, phrase = str(status).partition(" ")
        self.send_response(int(code), phrase)
        for key, value in headers:
            if key.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if environ["REQUEST_METHOD"] != "HEAD":
            self.wfile.write(body)
        self.wfile.flush()

    def connection_dropped(
        self, error: BaseException, environ: dict[str, Any] | None = None
    ) -> None:
        """Close the socket for a :class:`HangUp`; a client that left needs nothing."""
        self.close_connection = True
        if not isinstance(error, HangUp):
            return
        connection: socket.socket = self.connection
        try:
            if error.hard:
                # Linger 0: close() sends RST instead of FIN.
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            else:
                connection.shutdown(socket.SHUT_RDWR)
            connection.close()
        except OSError:
            pass
