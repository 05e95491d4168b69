"""Real HTTP servers on loopback that put an :class:`Emulator` on the wire.

Everything here is platform-neutral: sockets (``http.server.ThreadingHTTPServer``, one
thread per connection, HTTP/1.1 keep-alive), turning a request into a werkzeug
``Request`` (so multipart bodies are parsed by werkzeug, not by hand), fault injection,
the request log with secrets redacted, JSON persistence, and the control endpoint:

``GET|POST|DELETE /__sandbox__/faults``    list, add (JSON ``{"path","kind",…}`` or
                                           ``{"spec": "wechat:/x=reset*1"}``), clear
``GET|DELETE /__sandbox__/requests``       the request log of this server, or clear it
``GET /__sandbox__/state``                 the emulator's snapshot (drafts, articles, images)
``POST /__sandbox__/options``              change emulator options at run time (JSON object)
``POST /__sandbox__/clock``                ``{"advance": seconds}``: move the sandbox clock

so that a test in another process can script a run over plain HTTP.
"""

from __future__ import annotations

import json
import socket
import struct
import sys
import threading
import traceback
from collections.abc import Callable, Mapping
from dataclasses import asdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import BytesIO
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from werkzeug.wrappers import Request, Response

from crosspost.config.files import write_atomic
from crosspost.errors import UsageError
from crosspost.sandbox.base import Emulator
from crosspost.sandbox.faults import FaultBook, fault_from_json
from crosspost.sandbox.requestlog import LoggedRequest, RequestLog, redact, redact_query

__all__ = ["EmulatorServer", "LoggedRequest", "RequestLog"]

CONTROL_PREFIX = "/__sandbox__/"


def _json(data: Any, status: int = 200) -> Response:
    return Response(
        json.dumps(data, ensure_ascii=False), status=status, mimetype="application/json"
    )


def _bad_gateway(status: int) -> Response:
    """What a front proxy sends when the platform behind it fails: HTML, not JSON."""
    phrases = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}
    phrase = phrases.get(status, "Error")
    html = f"<html><head><title>{status} {phrase}</title></head><body><center><h1>{status} "
    html += f"{phrase}</h1></center><hr><center>stgw</center></body></html>"
    return Response(html, status=status, mimetype="text/html")


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
    ) -> None:
        self.emulator = emulator
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
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- life cycle ------------------------------------------------------------------

    def address(self) -> tuple[str, int]:
        """(host, port) the server listens on."""
        if self._httpd is None:
            raise RuntimeError("the sandbox server is not running")
        host, port = self._httpd.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        """``http://host:port`` of the running server."""
        host, port = self.address()
        return f"http://{host}:{port}"

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
        handler = type("Handler", (_Handler,), {"owner": self})
        try:
            self._httpd = _Server((self._host, self._port), handler)
        except OSError as error:
            raise UsageError(
                f"cannot listen on {self._host}:{self._port} ({error.strerror}); "
                "choose another --port"
            ) from None
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"sandbox-{self.emulator.name}",
            daemon=True,
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop serving, close the socket and save the state."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
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
        except (UsageError, ValueError, TypeError) as error:
            return _json({"error": str(error)}, 400)
        return _json({"error": f"no control endpoint {method} {request.path}"}, 404)


def _body(request: Request) -> Any:
    try:
        return json.loads(request.get_data() or b"{}")
    except ValueError:
        raise UsageError("control body is not JSON") from None


class _Server(ThreadingHTTPServer):
    """A client that hangs up mid-request is normal (timeouts, killed runs, reset faults):
    no traceback on the terminal for it; anything else is still reported."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], BrokenPipeError | ConnectionResetError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    """Reads one HTTP request, asks the owner what to do, answers (or pointedly does not)."""

    owner: EmulatorServer
    protocol_version = "HTTP/1.1"
    server_version = "crosspost-sandbox"
    # Headers and body go out in two writes; without this, Nagle and delayed ACKs add
    # 40 ms to every keep-alive request.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the stdlib's stderr line; the request log is the record."""

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _environ(self, body: bytes) -> dict[str, Any]:
        path, _, query = self.path.partition("?")
        host, port = self.owner.address()
        environ: dict[str, Any] = {
            "REQUEST_METHOD": self.command,
            "SCRIPT_NAME": "",
            "PATH_INFO": unquote(path, encoding="latin-1"),
            "QUERY_STRING": query,
            "SERVER_NAME": str(host),
            "SERVER_PORT": str(port),
            "SERVER_PROTOCOL": self.request_version,
            "REMOTE_ADDR": self.client_address[0],
            "REMOTE_PORT": str(self.client_address[1]),
            "CONTENT_LENGTH": str(len(body)),
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input": BytesIO(body),
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }
        if self.headers.get("Content-Type"):
            environ["CONTENT_TYPE"] = self.headers["Content-Type"]
        for name, value in self.headers.items():
            key = "HTTP_" + name.upper().replace("-", "_")
            # The body is already read (and de-chunked): length and framing are ours.
            if key not in ("HTTP_CONTENT_TYPE", "HTTP_CONTENT_LENGTH", "HTTP_TRANSFER_ENCODING"):
                environ[key] = f"{environ[key]},{value}" if key in environ else value
        return environ

    def _serve(self) -> None:
        owner = self.owner
        environ = self._environ(self._read_body())
        request = Request(environ)
        if request.path.startswith(CONTROL_PREFIX):
            self._send(owner.control(request), environ)
            return
        emulator = owner.emulator
        decision = owner.faults.decide(
            emulator.name,
            request.method,
            request.path,
            mutating=emulator.is_mutating(request.method, request.path),
        )
        if decision.delay:
            owner.sleep(decision.delay)
        kind = decision.kind
        response: Response | None = None
        if kind == "reset":
            self._log(request, None, kind, delivered=False)
            self._abort(hard=True)
            return
        if kind == "commit_then_drop":
            response = owner.call(request)
            self._log(request, response, kind, delivered=False)
            self._abort(hard=False)
            return
        if kind is not None:
            with owner.lock:
                response = emulator.fault_response(kind, request)
            status = decision.fault.http_status if decision.fault else None
            if response is None and status is not None:
                response = _bad_gateway(status)
            if response is None:
                kind = f"{kind} (ignored: unknown to {emulator.name})"
        if response is None:
            response = owner.call(request)
        self._log(request, response, kind, delivered=True)
        self._send(response, environ)

    def _send(self, response: Response, environ: Mapping[str, Any]) -> None:
        app_iter, status, headers = response.get_wsgi_response(dict(environ))
        body = b"".join(app_iter)
        code, _, reason = status.partition(" ")
        self.send_response(int(code), reason or None)
        for name, value in headers:
            if name.lower() not in ("content-length", "connection"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _abort(self, *, hard: bool) -> None:
        """Close without a status line: RST (``hard``) or a plain FIN."""
        self.close_connection = True
        connection: socket.socket = self.connection
        try:
            if hard:
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            else:
                connection.shutdown(socket.SHUT_RDWR)
            connection.close()
        except OSError:
            pass

    def _log(
        self,
        request: Request,
        response: Response | None,
        fault: str | None,
        *,
        delivered: bool,
    ) -> None:
        owner = self.owner
        with owner.lock:
            secrets = owner.emulator.secrets()
            errcode = owner.emulator.errcode_of(response.get_data()) if response else None
        owner.log.add(
            at=owner.clock(),
            platform=owner.emulator.name,
            method=request.method,
            path=redact(request.path, secrets),
            query=redact_query(request.query_string.decode("latin-1"), secrets),
            status=response.status_code if response else None,
            errcode=errcode,
            fault=fault,
            delivered=delivered,
        )

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _serve
