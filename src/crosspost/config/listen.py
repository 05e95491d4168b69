"""The one way crosspost opens a port to listen on: ``serve``'s desk and the sandbox's
emulators.

werkzeug binds a port itself when asked to, and when the port is taken it prints two
lines of its own and ends the process with status 1. crosspost binds the socket here
instead and hands werkzeug the bound socket (``fd=``), so a port in use, an address this
machine does not have or a port that is no port is one line and exit 2, as every other
bad input (DESIGN.md), saying which option to change.
"""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING

from crosspost.errors import UsageError

if TYPE_CHECKING:
    import socket

#: The highest port number there is.
MAX_PORT = 65535


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` and listening (``port`` 0: any free one),
    or a :class:`UsageError` that names the address and the option to change."""
    import socket

    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if not 0 <= port <= MAX_PORT:
        raise UsageError(f"--port {port} is not a port number (0 to {MAX_PORT})")
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        # As every server does (werkzeug's too): a port a stopped server left in
        # TIME_WAIT can be had again at once; a port another program listens on cannot.
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen()
    except OSError as error:
        listener.close()
        if error.errno == errno.EADDRINUSE:
            change = "choose another --port (0 picks a free one)"
        elif isinstance(error, socket.gaierror) or error.errno == errno.EADDRNOTAVAIL:
            change = "--host must be an address of this machine, e.g. 127.0.0.1"
        else:
            change = "choose another --port (0 picks a free one), or --host"
        raise UsageError(
            f"cannot listen on {where} ({error.strerror or error}); {change}"
        ) from None
    return listener
