"""Headless Chromium for pictures of a page and for reading computed styles.

The browser is the distribution's Chromium (Debian: ``apt-get install chromium``), found
through ``CROSSPOST_CHROMIUM`` or ``PATH``, and driven by Playwright for Python. Nothing is
downloaded at install time: Playwright's wheel brings only its driver, and the browser
binary is the one the system package manager keeps up to date.

Chromium is started with the flags a closed or slow network needs (no background
networking, no component updates, no sync, no QUIC) and Playwright gives every launch a
new, empty profile. Pages may load local files and ``data:`` URIs only; every other
request is refused in the page, so a preview never waits on, or reaches, the internet.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from crosspost.errors import UsageError, install_extra

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Route

#: Environment variable naming the Chromium binary (else ``chromium`` on PATH).
CHROMIUM_ENV = "CROSSPOST_CHROMIUM"
INSTALL_HINT = "apt-get install chromium (Debian/Ubuntu), or set CROSSPOST_CHROMIUM=/path/to/it"
#: Without these Chromium tries to reach Google's services and hangs on a closed network.
CHROMIUM_FLAGS: tuple[str, ...] = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
#: Wide enough for the preview's two columns (375 px phone + 690 px Zhihu) side by side.
PREVIEW_WIDTH = 1200
#: Milliseconds to wait for Chromium to start or a page to load before giving up.
TIMEOUT_MS = 60_000


def find_chromium() -> Path:
    """The Chromium binary to drive; a :class:`UsageError` saying how to install it if none."""
    configured = os.environ.get(CHROMIUM_ENV, "").strip()
    if configured:
        path = Path(configured).expanduser()
        if path.is_file() and os.access(path, os.X_OK):
            return path
        found = shutil.which(configured)
        if found:
            return Path(found)
        raise UsageError(f"{CHROMIUM_ENV}={configured}: no such program; {INSTALL_HINT}")
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return Path(found)
    raise UsageError(f"Chromium is not installed; {INSTALL_HINT}")


@contextmanager
def open_browser(executable: Path | None = None) -> Iterator[Browser]:
    """A headless Chromium for the duration of the ``with`` block."""
    binary = executable or find_chromium()
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise UsageError(
            f"the browser driver (Playwright) is missing; {install_extra('browser')}"
        ) from None
    with sync_playwright() as driver:
        try:
            browser = driver.chromium.launch(
                executable_path=str(binary),
                headless=True,
                args=list(CHROMIUM_FLAGS),
                timeout=TIMEOUT_MS,
            )
        except PlaywrightError as error:
            first_line = str(error).strip().splitlines()[0] if str(error).strip() else ""
            raise UsageError(f"{binary}: Chromium did not start ({first_line})") from None
        try:
            yield browser
        finally:
            browser.close()


LOCAL_SCHEMES: tuple[str, ...] = ("file:", "data:", "about:")


def new_page(browser: Browser, width: int, height: int = 800, allow: tuple[str, ...] = ()) -> Page:
    """A page ``width`` CSS pixels wide (one device pixel each) that loads local files only,
    and addresses starting with one of ``allow`` (the editor's desk on this machine)."""
    page = browser.new_page(viewport={"width": width, "height": height}, device_scale_factor=1)
    page.set_default_timeout(TIMEOUT_MS)
    prefixes = LOCAL_SCHEMES + allow

    def local_only(route: Route) -> None:
        if route.request.url.startswith(prefixes):
            route.continue_()
        else:
            route.abort()

    page.route("**/*", local_only)
    return page


def check_png_path(out: Path, made: Path | None = None) -> None:
    """A :class:`UsageError` unless ``out`` names a ``.png`` file in an existing folder,
    or in the folder ``made`` the command is about to create (``preview -o build/x
    --screenshot build/x/shot.png``), or under it."""
    if out.suffix.lower() != ".png":
        raise UsageError(f"{out}: a screenshot is a PNG; name the file *.png")
    if out.parent.is_dir():
        return
    if made is not None and out.parent.resolve().is_relative_to(made.resolve()):
        return
    raise UsageError(f"{out.parent}: no such folder; create it or choose another path")


def screenshot(
    html_file: Path,
    out: Path,
    *,
    width: int = PREVIEW_WIDTH,
    executable: Path | None = None,
) -> Path:
    """Render the local page ``html_file`` to the PNG ``out`` (the whole page); return ``out``.

    The PNG is written with an adaptive 256-colour palette: text and flat page colours
    survive it unchanged to the eye, and the file is a fraction of the size, small enough
    to commit beside a README.
    """
    check_png_path(out)
    with open_browser(executable) as browser:
        page = new_page(browser, width)
        page.goto(html_file.resolve().as_uri(), wait_until="load")
        png = page.screenshot(full_page=True, type="png")
    _write_png(png, out)
    return out


def screenshot_url(
    url: str,
    out: Path,
    *,
    width: int = PREVIEW_WIDTH,
    height: int = 800,
    executable: Path | None = None,
) -> Path:
    """Photograph the top ``width`` × ``height`` of a page served on this machine (the
    editor's desk) to the PNG ``out``, as :func:`screenshot` writes it; return ``out``."""
    check_png_path(out)
    origin = "{0.scheme}://{0.netloc}/".format(urlsplit(url))
    with open_browser(executable) as browser:
        page = new_page(browser, width, height, allow=(origin,))
        page.goto(url, wait_until="load")
        png = page.screenshot(full_page=False, type="png")
    _write_png(png, out)
    return out


def _write_png(png: bytes, out: Path) -> None:
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        small = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
        try:
            small.save(out, "PNG", optimize=True)
        except OSError as error:
            raise UsageError(f"{out}: cannot write ({error.strerror or error})") from None
