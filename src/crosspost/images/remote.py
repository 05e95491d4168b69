"""Remote images, fetched only from public hosts, within a size and a time cap.

An issue's ``![x](http://…)`` makes crosspost open a connection, from whatever machine
publishes (often a cron server inside a company network). Left open, an issue could make
it read a loopback admin page, a private service or the cloud's metadata endpoint and
upload the answer to a public account. So every fetch goes through one rule:

- only ``http`` and ``https``;
- the host name is resolved here, every address it resolves to is checked (loopback,
  private, link-local, multicast, reserved and the cloud metadata addresses are
  refused), and the connection goes to the checked address, so a second, different DNS
  answer cannot slip in between the check and the connection;
- redirects are followed by hand, each new location checked the same way;
- at most :data:`MAX_REMOTE_IMAGE_BYTES` and :data:`TOTAL_SECONDS` per image.

``private_hosts`` (config ``[images] private_hosts = true``) lets a company fetch from its
own image server on a private address (the tests, whose servers listen on loopback,
set it explicitly). Link-local and metadata addresses stay refused even then.

Written on urllib3 (which requests is built on) rather than on a requests session,
because a session resolves and connects by itself: pinning the checked address while
keeping TLS verification of the host name needs urllib3's ``server_hostname`` and
``assert_hostname``. The few SSRF-guard packages on PyPI are unmaintained or wrap
another HTTP client.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from crosspost.errors import TransientError
from crosspost.images.sources import ImageSources, RefusedImage

if TYPE_CHECKING:
    from urllib3 import BaseHTTPResponse

    from crosspost.config.settings import Settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
#: Resolves a host name to the addresses a connection could go to (injected by tests).
Resolve = Callable[[str, int], list[str]]

#: The largest remote image read (it is shrunk for the platform afterwards); a link to
#: something bigger is a mistake in the issue, not something to hold in memory.
MAX_REMOTE_IMAGE_BYTES = 50 * 1024 * 1024
#: The longest one image may take, redirects included, however steadily bytes trickle in.
TOTAL_SECONDS = 120.0
#: Redirects followed per image (each one checked like the first URL).
MAX_REDIRECTS = 5
_REDIRECTS = frozenset({301, 302, 303, 307, 308})

#: Cloud instance-metadata endpoints (AWS, GCP and Azure share 169.254.169.254; AWS's IPv6
#: one; Alibaba Cloud's; Azure's wire server). Refused even when private hosts are allowed.
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200", "168.63.129.16")
)


def refusal(address: IPAddress, *, private_hosts: bool) -> str | None:
    """Why ``address`` may not be fetched from (a few words), or None when it may."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_loopback:  # before "reserved": IPv6's ::1 lies in a reserved block
        return None if private_hosts else "a loopback address"
    if address.is_multicast or address.is_unspecified or address.is_reserved:
        return "not a host address"
    if address.is_global or private_hosts:
        return None
    return "a private address"


def system_resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (the system resolver, as a connection would)."""
    import socket  # here: `check` builds this module's sources for every issue, most never fetch

    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in found))


class RemoteImages:
    """Fetches remote images under the rules above; each URL once per run.

    One instance serves a whole run: ``check`` (in the plan) downloads and decodes every
    remote image before anything is sent, and the uploads reuse those bytes instead of
    downloading again (so what was checked is what is uploaded).
    """

    #: A name that surely exists, looked up when an image's host does not: if it fails
    #: too, no name resolves on this machine (offline, DNS down) and the image is not the
    #: issue's dead link. WeChat's API host, because a machine that publishes must resolve
    #: it anyway, and it resolves inside mainland China as well as outside (where a
    #: well-known name of elsewhere may be filtered). Tests set another.
    control_host = "api.weixin.qq.com"

    def __init__(
        self,
        *,
        private_hosts: bool = False,
        timeout: float = 30.0,
        total_seconds: float = TOTAL_SECONDS,
        max_bytes: int = MAX_REMOTE_IMAGE_BYTES,
        resolve: Resolve = system_resolve,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.private_hosts = private_hosts
        self.timeout = timeout
        self.total_seconds = total_seconds
        self.max_bytes = max_bytes
        self.resolve = resolve
        self.clock = clock
        self._fetched: dict[str, bytes] = {}
        self._lock = threading.Lock()
        #: Whether names resolve here at all (see :meth:`_names_resolve`); None: not asked.
        self._names_resolved: bool | None = None
        self._control_lock = threading.Lock()

    def fetch(self, url: str) -> bytes:
        """The image's bytes. ``ValueError`` (:class:`RefusedImage` for a refused source)
        when the link is the issue's problem; ``TransientError`` for network trouble."""
        with self._lock:
            known = self._fetched.get(url)
        if known is not None:
            return known
        deadline = self.clock() + self.total_seconds
        location = url
        for _ in range(MAX_REDIRECTS + 1):
            data, location_next = self._get(location, deadline)
            if data is not None:
                with self._lock:
                    self._fetched[url] = data
                return data
            location = location_next
        raise ValueError(f"more than {MAX_REDIRECTS} redirects; link the image itself")

    # --- one request --------------------------------------------------------------------

    def _address(self, host: str, port: int) -> str:
        """The checked address to connect to: every address of ``host`` must pass."""
        import socket

        try:
            addresses = [ipaddress.ip_address(host)]
        except ValueError:
            try:
                addresses = [
                    ipaddress.ip_address(a.split("%")[0]) for a in self.resolve(host, port)
                ]
            except socket.gaierror as error:
                if error.errno in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", None)):
                    if not self._names_resolve():
                        raise TransientError(
                            f"{host} does not resolve, nor does {self.control_host}: this "
                            "machine seems offline or its DNS is down"
                        ) from None
                    raise ValueError(f"host {host} does not exist") from None
                raise TransientError(f"could not look up {host} ({error.strerror})") from None
        if not addresses:
            raise ValueError(f"host {host} has no address")
        for address in addresses:
            why = refusal(address, private_hosts=self.private_hosts)
            if why is not None:
                advice = (
                    "crosspost fetches images only from public hosts; copy the image next to "
                    "the issue"
                )
                if why in ("a loopback address", "a private address"):
                    advice += ", or set private_hosts = true under [images] for your own server"
                shown = host if str(address) == host else f"{host} ({address})"
                raise RefusedImage(f"is on {shown}, {why}; {advice}")
        return str(addresses[0])

    def _names_resolve(self) -> bool:
        """Whether any name resolves here: without DNS every host "does not exist", and
        calling that the issue's fault (exit 2) would make cron give up on a scheduled
        issue. :attr:`control_host` is asked once per fetcher, whichever thread asks
        first; the others wait for its answer."""
        with self._control_lock:
            if self._names_resolved is None:
                try:
                    self._names_resolved = bool(self.resolve(self.control_host, 443))
                except OSError:  # socket.gaierror: whatever the reason, it did not resolve
                    self._names_resolved = False
            return self._names_resolved

    def _get(self, url: str, deadline: float) -> tuple[bytes | None, str]:
        """(bytes, url) for an image, or (None, next URL) for a redirect."""
        import urllib3
        from urllib3.exceptions import (
            ConnectTimeoutError,
            HTTPError,
            NewConnectionError,
            ProtocolError,
            ReadTimeoutError,
            SSLError,
        )

        if self.clock() > deadline:
            raise TransientError(f"took longer than {self.total_seconds:g} s")
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            raise RefusedImage(
                f"leads to a {scheme or 'schemeless'} URL; only http(s) images are fetched"
            )
        host = parts.hostname
        try:
            port = parts.port or (443 if scheme == "https" else 80)
        except ValueError:
            raise ValueError("has a port that is not a number") from None
        if not host:
            raise ValueError("has no host name")
        address = self._address(host, port)
        timeout = urllib3.Timeout(connect=self.timeout, read=self.timeout)
        pool: urllib3.HTTPConnectionPool
        if scheme == "https":
            import certifi

            pool = urllib3.HTTPSConnectionPool(
                address,
                port,
                timeout=timeout,
                retries=False,
                maxsize=1,
                server_hostname=host,
                assert_hostname=host,
                cert_reqs="CERT_REQUIRED",
                ca_certs=certifi.where(),
            )
        else:
            pool = urllib3.HTTPConnectionPool(
                address, port, timeout=timeout, retries=False, maxsize=1
            )
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        headers = {
            "Host": parts.netloc.rpartition("@")[2],
            "Accept": "image/*",
            "User-Agent": "crosspost (fetching an image an issue links to)",
        }
        where = f"{host}:{port}"
        try:
            with pool:
                response = pool.urlopen(
                    "GET", target, headers=headers, redirect=False, preload_content=False
                )
                try:
                    return self._answer(url, response, deadline)
                finally:
                    response.release_conn()
        except NewConnectionError as error:
            if isinstance(error.__context__, ConnectionRefusedError) or "refused" in str(error):
                raise ValueError(f"nothing answers at {where} (connection refused)") from None
            raise TransientError(f"could not connect to {where}") from None
        except SSLError:
            raise ValueError(f"{host} offered no valid TLS connection (certificate)") from None
        except (ConnectTimeoutError, ReadTimeoutError):
            raise TransientError(f"{where} gave no answer within {self.timeout:g} s") from None
        except ProtocolError:
            raise TransientError(f"{where} dropped the connection") from None
        except (HTTPError, OSError) as error:
            raise TransientError(f"{where} failed ({type(error).__name__})") from None

    def _answer(
        self, url: str, response: BaseHTTPResponse, deadline: float
    ) -> tuple[bytes | None, str]:
        status = response.status
        if status in _REDIRECTS:
            location = response.headers.get("Location")
            if not location:
                raise ValueError(f"HTTP {status} without a Location")
            return None, urljoin(url, location)
        if status >= 500 or status == 429:
            raise TransientError(f"HTTP {status}")
        if status >= 400:
            raise ValueError(f"HTTP {status}")
        if status != 200:
            raise ValueError(f"HTTP {status}; link the image itself")
        kind = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if kind.startswith("text/") or kind in ("application/json", "application/xhtml+xml"):
            raise ValueError(f"it answers with {kind}, not an image; link the image itself")
        too_big = f"it is larger than {self.max_bytes / (1024 * 1024):g} MB; link a smaller image"
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            raise ValueError(too_big)
        chunks: list[bytes] = []
        total = 0
        for chunk in response.stream(64 * 1024):
            total += len(chunk)
            if total > self.max_bytes:
                raise ValueError(too_big)
            if self.clock() > deadline:
                raise TransientError(f"took longer than {self.total_seconds:g} s")
            chunks.append(chunk)
        return b"".join(chunks), url


def sources_for(settings: Settings) -> ImageSources:
    """The image rules of a run with ``settings``: its extra folders, and one fetcher (so
    each remote image is downloaded once, by the check, and uploaded from those bytes)."""
    remote = RemoteImages(private_hosts=settings.private_image_hosts, timeout=settings.timeout)
    return ImageSources(folders=settings.image_folders, fetch=remote.fetch)
