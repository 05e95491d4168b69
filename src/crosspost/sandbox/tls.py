"""A throw-away certificate for a sandbox that serves HTTPS on 127.0.0.1.

Both platforms are HTTPS, and some of what a client does only shows on a real handshake:
the CA bundle it is told to trust, TLS 1.3's session tickets arriving after the
handshake. :class:`~crosspost.sandbox.box.Sandbox` serves HTTPS when given a server
context; this makes one from a self-signed certificate for the address 127.0.0.1, which
is its own CA bundle (point ``REQUESTS_CA_BUNDLE`` at :attr:`Certificate.cert`). The
certificate is made by the ``openssl`` command, as no library here makes keys.
"""

from __future__ import annotations

import shutil
import ssl
import subprocess
from dataclasses import dataclass
from pathlib import Path

from crosspost.errors import UsageError


@dataclass(frozen=True)
class Certificate:
    """A self-signed certificate for 127.0.0.1 and its key, as PEM files."""

    cert: Path
    key: Path

    def server_context(self) -> ssl.SSLContext:
        """A server's TLS context that presents this certificate."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, self.key)
        return context


def throwaway_certificate(folder: Path) -> Certificate:
    """A new certificate in ``folder``, valid for a day (UsageError without ``openssl``)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        raise UsageError(
            "serving HTTPS needs the openssl command; install it (apt-get install openssl)"
        )
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return Certificate(cert, key)
