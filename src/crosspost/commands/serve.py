"""``crosspost serve [DIR|FILE …] [--port N] [--host H] [--open]``: the editor's desk.

A local web page per issue that follows the file as it is saved (WeChat in a phone
column beside Zhihu, with the problems ``check`` finds), buttons that copy each article
for the platform's own editor, and the week's schedule with what the ledger says. See
:mod:`crosspost.preview.desk`; this module only starts it and prints its address.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from crosspost.commands.render import add_theme_and_settings_flags, settings_of
from crosspost.errors import EXIT_OK, UsageError

DEFAULT_HOST = "127.0.0.1"
#: Not the sandbox's 8765 and 8766 (docs/sandbox.md, the example config's base_url): an
#: editor writes in the desk while a rehearsal runs against ``crosspost sandbox``.
DEFAULT_PORT = 8780


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "targets",
        nargs="*",
        metavar="DIR|FILE",
        type=Path,
        help="issue files, or folders of them (default: [schedule] issue_dirs, else .)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"port to listen on (default {DEFAULT_PORT}; 0: any free one)",
    )
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"address to listen on (default {DEFAULT_HOST}: this machine only; on any "
        "address the page opens only through the link with ?token= that serve prints)",
    )
    parser.add_argument("--open", action="store_true", help="open the page in the default browser")
    add_theme_and_settings_flags(parser)


def run(args: argparse.Namespace) -> int:
    import secrets
    import webbrowser

    from werkzeug.serving import make_server

    from crosspost.config.listen import listening_socket
    from crosspost.preview.request_log import RequestLog

    settings = settings_of(args)
    targets: tuple[Path, ...] = tuple(args.targets)
    for target in targets:
        if not target.exists():
            raise UsageError(f"{target}: no such file or folder of issues")
    token = secrets.token_urlsafe(32)

    def build() -> WSGIApp:
        from crosspost.preview.desk import Desk

        return Desk(targets, settings, token=token)

    app = _Deferred(build)
    # Bound here, as the sandbox's are: werkzeug would print two lines and exit 1 itself.
    with listening_socket(args.host, args.port) as listener:
        server = make_server(
            args.host,
            args.port,
            app,
            threaded=True,
            request_handler=RequestLog,
            fd=listener.fileno(),
        )
    shown = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{shown}:{server.port}/?token={token}"
    print(f"crosspost serve: {url}", flush=True)
    print("press Ctrl-C to stop", file=sys.stderr, flush=True)
    # The renderers load while the editor switches to the browser.
    threading.Thread(target=app.ready, daemon=True).start()
    if args.open:
        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return EXIT_OK


WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class _Deferred:
    """The desk, built once on first use: the address is printed before the renderers,
    the ledger and the adapters are imported (most of a second on a busy machine)."""

    def __init__(self, build: Callable[[], WSGIApp]) -> None:
        self._build = build
        self._app: WSGIApp | None = None
        self._lock = threading.Lock()

    def ready(self) -> WSGIApp:
        with self._lock:
            if self._app is None:
                self._app = self._build()
            return self._app

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        return self.ready()(environ, start_response)
