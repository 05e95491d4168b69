"""Make docs/desk.png, the README's picture of ``crosspost serve``: the example issue's page
on the desk, photographed in headless Chromium by ``crosspost.preview.screenshot``.

Run from the checkout: ``.venv/bin/python docs/make_desk_png.py``. The desk runs in this
process on a free port of 127.0.0.1, with no config file and an empty state folder, so
the picture shows no account of the person who makes it.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

from PIL import Image
from werkzeug.serving import make_server

from crosspost.config.settings import load_settings
from crosspost.preview.desk import Desk, issue_key
from crosspost.preview.screenshot import screenshot_url

ROOT = Path(__file__).resolve().parents[1]
ISSUE = ROOT / "examples" / "ai-systems-48" / "issue.md"
OUT = ROOT / "docs" / "desk.png"


def main() -> None:
    os.chdir(ROOT)  # the page names the issue file from here: examples/…
    with tempfile.TemporaryDirectory() as home:
        environ = {"HOME": home, "CROSSPOST_STATE_DIR": str(Path(home) / "state")}
        settings = load_settings({}, environ=environ, cwd=Path(home), home=Path(home))
        desk = Desk([ISSUE], settings)
        server = make_server("127.0.0.1", 0, desk, threaded=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            base = f"http://127.0.0.1:{server.server_port}"
            url = f"{base}/issue/{issue_key(ISSUE.resolve())}?token={desk.token}"
            screenshot_url(url, OUT, width=1280, height=860)
        finally:
            server.shutdown()
            server.server_close()
    with Image.open(OUT) as image:  # 128 colours, as docs/preview.png: small enough to commit
        small = image.convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    small.save(OUT, "PNG", optimize=True)
    print(f"wrote {OUT} ({OUT.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
