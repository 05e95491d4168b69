"""The editor's desk: a small local web application behind ``crosspost serve``.

Three pages: the week at a glance (every issue file of the served folders, when it is
due and what the ledger says of it), an issue (WeChat in a phone column beside Zhihu,
the problems ``check`` finds, buttons that copy each article for the platform's own
editor) and the ledger's story of one issue.

Safe by default. Every request must carry the token the command printed: in the URL
once (the answer moves it into an HttpOnly, SameSite=Strict cookie and drops it from the
address bar), then in the cookie. Anything else gets 403, so another user of the machine,
or a web page open in the same browser, reads nothing through the desk. The only request
that changes something on a platform (uploading the article's images to WeChat) is a
POST that must also carry the token in a header (which a form on another site cannot
set) and the editor's confirmation.

An issue page stays current by itself: its script asks ``/issue/<key>/changes`` whether
the files changed (the answer is held open until they do, see
:mod:`crosspost.preview.watch`), then fetches the page's live part again and swaps it in
place, keeping the scroll position.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import mimetypes
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from werkzeug.exceptions import BadRequest, Forbidden, HTTPException, NotFound
from werkzeug.routing import Map, Rule
from werkzeug.utils import redirect
from werkzeug.wrappers import Request, Response

from crosspost.check.lint import Checked
from crosspost.config.crash import bug_report
from crosspost.config.settings import Settings
from crosspost.errors import CrosspostError
from crosspost.preview.columns import article
from crosspost.preview.sources import (
    check_issue,
    cross_links,
    issue_paths,
    ledger_of,
    local_images,
    schedule,
    themes,
    upload_account,
    upload_images,
)
from crosspost.preview.watch import Watcher, fingerprint
from crosspost.render.templates import render_template, shipped_templates_dir

#: The cookie that carries the token after the first visit.
COOKIE = "crosspost_desk"
#: The header a POST repeats the token in (a cross-site form cannot set a header).
TOKEN_HEADER = "X-Crosspost-Token"
#: Said to every answer: never cached, never framed, no address leaked to a linked site.
SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data: http: https:; frame-ancestors 'none'"
    ),
}


def new_token() -> str:
    """A token nobody can guess (32 random bytes, URL-safe)."""
    return secrets.token_urlsafe(32)


def issue_key(path: Path) -> str:
    """A short, stable name of an issue file in the desk's URLs (its path stays private)."""
    return hashlib.sha256(str(path).encode("utf-8", "surrogateescape")).hexdigest()[:12]


def _now() -> datetime:
    return datetime.now().astimezone()


@dataclass
class Desk:
    """The WSGI application. ``targets``: issue files or folders, as given to ``serve``."""

    targets: Sequence[Path]
    settings: Settings
    token: str = field(default_factory=new_token)
    #: The moment the schedule is read against (local time zone); injected by tests.
    now: Callable[[], datetime] = _now
    watcher: Watcher = field(default_factory=Watcher)
    #: Clock and pause of the WeChat uploads (the HTTP policy's retries wait with it).
    clock: Callable[[], float] = time.time
    sleep: Callable[[float], None] = time.sleep
    #: Issue key → the files its last render read (the issue, its images and cover).
    _watched: dict[str, tuple[Path, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.routes = Map(
            [
                Rule("/", endpoint="week", methods=["GET"]),
                Rule("/issue/<key>", endpoint="issue", methods=["GET"]),
                Rule("/issue/<key>/changes", endpoint="changes", methods=["GET"]),
                Rule("/issue/<key>/files/<path:name>", endpoint="file", methods=["GET"]),
                Rule("/issue/<key>/upload", endpoint="upload", methods=["POST"]),
                Rule("/ledger/<issue_id>", endpoint="ledger", methods=["GET"]),
                Rule("/static/desk.js", endpoint="script", methods=["GET"]),
            ]
        )
        # Fail at start, not on the first page, when a named file or folder is missing.
        issue_paths(self.targets, self.settings)

    # --- WSGI ----------------------------------------------------------------------------

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        request = Request(environ)
        response = self.respond(request)
        response.headers.update(SECURITY_HEADERS)
        return response(environ, start_response)

    def respond(self, request: Request) -> Response:
        """The answer to one request: the token checked first, then the route."""
        given = request.args.get("token")
        if given is not None and request.method == "GET" and self._is_token(given):
            return self._enter(request)
        if not self._is_token(request.cookies.get(COOKIE)):
            return _text(
                403, "403: open the address crosspost serve printed (it carries the token)"
            )
        try:
            endpoint, values = self.routes.bind_to_environ(request.environ).match()
            handler: Callable[..., Response] = getattr(self, f"_{endpoint}")
            return handler(request, **values)
        except HTTPException as error:
            return _text(error.code or 500, f"{error.code}: {error.description}")
        except CrosspostError as error:  # a folder that went away, a broken user template
            return _text(500, f"crosspost: error: {error}")
        except Exception as error:  # a bug: one line on the page and the terminal, no traceback
            line = f"crosspost: error: {bug_report(f'the page {request.path}', ['serve'], error)}"
            print(line, file=sys.stderr, flush=True)  # the terminal serve runs in
            return _text(500, line)

    def _is_token(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def _enter(self, request: Request) -> Response:
        """The first visit: the token goes into the cookie and out of the address bar."""
        rest = [(k, v) for k, v in request.args.items(multi=True) if k != "token"]
        query = "&".join(f"{quote(k)}={quote(v)}" for k, v in rest)
        response = redirect(request.path + (f"?{query}" if query else ""), code=303)
        response.set_cookie(COOKIE, self.token, httponly=True, samesite="Strict", path="/")
        return response

    # --- pages ---------------------------------------------------------------------------

    def _page(self, name: str, **context: Any) -> Response:
        html = render_template(
            f"preview/{name}", tuple(self.settings.template_dirs), token=self.token, **context
        )
        return Response(html, mimetype="text/html")

    def _week(self, request: Request) -> Response:
        now = self.now()
        rows = schedule(issue_paths(self.targets, self.settings), self.settings, now)
        keys = {row.path: issue_key(row.path) for row in rows}
        return self._page("desk_week.html.j2", rows=rows, keys=keys, now=now)

    def _issue(self, request: Request, key: str) -> Response:
        path = self._path_of(key)
        theme = request.args.get("theme") or None
        watched = self._watched.get(key, (path,))
        version = fingerprint(watched)  # before the render: a save during it shows next
        checked: Checked | None = None
        failure: str | None = None
        try:
            checked = check_issue(path, self.settings, theme)
        except CrosspostError as error:  # a broken user template, an unknown theme
            failure = str(error)
        if checked is not None:
            self._watched[key] = _read_files(checked)
            if self._watched[key] != watched:  # the first render named the images to watch
                version = fingerprint(self._watched[key])
        context = self._issue_context(key, path, checked, theme, version)
        context["failure"] = failure
        part = "desk_live.html.j2" if request.args.get("part") == "live" else "desk_issue.html.j2"
        return self._page(part, **context)

    def _issue_context(
        self, key: str, path: Path, checked: Checked | None, theme: str | None, version: str
    ) -> dict[str, Any]:
        issue = checked.issue if checked is not None else None
        articles: list[dict[str, Any]] = []
        local: tuple[str, ...] = ()
        if checked is not None and issue is not None:
            for channel, output in checked.rendered.items():
                settings = issue.settings(channel)
                links = {s: self._file_url(key, s) for s in output.images}
                beside = _beside(issue.folder, settings.cover)
                cover = self._file_url(key, beside) if beside is not None else None
                shown = article(issue, channel, output, links, cover)
                # What the copy buttons put on the clipboard, exactly.
                shown["clipboard"] = output.files.get("zhihu.md", output.body)
                articles.append(shown)
            if "wechat" in checked.rendered:
                local = local_images(checked.rendered["wechat"])
        account = upload_account(self.settings)
        return {
            "key": key,
            "path": _shown(checked.path if checked is not None else path),
            "issue": issue,
            "articles": articles,
            "problems": checked.problems if checked is not None else (),
            "theme": theme or self.settings.theme,
            "themes": themes(self.settings),
            "links": cross_links(issue, self.settings) if issue is not None else (),
            "local_images": local,
            "upload_account": account.key if account is not None else None,
            "version": version,
        }

    def _ledger(self, request: Request, issue_id: str) -> Response:
        stories = ledger_of(self.settings, issue_id)
        return self._page("desk_ledger.html.j2", issue_id=issue_id, stories=stories, when=_local)

    # --- the live page's helpers ---------------------------------------------------------

    def _changes(self, request: Request, key: str) -> Response:
        path = self._path_of(key)
        since = request.args.get("since", "")
        version = self.watcher.wait(lambda: self._watched.get(key, (path,)), since)
        return _json({"version": version})

    def _file(self, request: Request, key: str, name: str) -> Response:
        """A file of the issue's folder (its images): nothing outside the folder."""
        folder = self._path_of(key).parent.resolve()
        target = (folder / unquote(name)).resolve()
        if not target.is_relative_to(folder) or not target.is_file():
            raise NotFound(f"{name}: no such file beside the issue")
        mime = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        return Response(target.read_bytes(), mimetype=mime)

    def _script(self, request: Request) -> Response:
        script = shipped_templates_dir() / "preview" / "desk.js"
        for folder in self.settings.template_dirs:  # a user's copy wins, as for templates
            if (Path(folder) / "preview" / "desk.js").is_file():
                script = Path(folder) / "preview" / "desk.js"
                break
        return Response(script.read_bytes(), mimetype="text/javascript")

    def _upload(self, request: Request, key: str) -> Response:
        """Upload the WeChat article's images and answer the HTML that uses their URLs."""
        if not self._is_token(request.headers.get(TOKEN_HEADER)):
            raise Forbidden("the token must come in the X-Crosspost-Token header")
        if request.form.get("confirm") != "yes":
            raise BadRequest("uploading changes the account's media: confirm it (confirm=yes)")
        account = upload_account(self.settings)
        if account is None:
            return _json({"error": "no WeChat account with API credentials is configured"}, 409)
        path = self._path_of(key)
        theme = request.form.get("theme") or None
        checked = check_issue(path, self.settings, theme)
        if checked.issue is None or "wechat" not in checked.rendered:
            return _json({"error": "the issue has no WeChat article to copy"}, 409)
        try:
            uploaded = upload_images(
                self.settings,
                account,
                checked.issue,
                checked.rendered["wechat"],
                clock=self.clock,
                sleep=self.sleep,
            )
        except CrosspostError as error:
            return _json({"error": str(error)}, 502)
        return _json({"html": uploaded.body, "account": account.key})

    # --- lookups -------------------------------------------------------------------------

    def _path_of(self, key: str) -> Path:
        for path in issue_paths(self.targets, self.settings):
            if issue_key(path) == key:
                return path
        raise NotFound("no such issue among the served files; go back to the list")

    @staticmethod
    def _file_url(key: str, source: str) -> str:
        if urlsplit(source).scheme in ("http", "https", "data"):
            return source
        return f"/issue/{key}/files/{quote(unquote(source))}"


def _read_files(checked: Checked) -> tuple[Path, ...]:
    """The files a render of ``checked`` read: the issue, its local images, its cover."""
    files = [Path(checked.path).resolve()]
    issue = checked.issue
    if issue is not None:
        sources: set[str] = {s for r in checked.rendered.values() for s in local_images(r)}
        sources |= {
            str(issue.settings(c).cover) for c in checked.rendered if issue.settings(c).cover
        }
        files += sorted(issue.folder / unquote(s) for s in sources)
    return tuple(files)


def _shown(path: Path) -> Path:
    """A path as the page shows it: from the folder the desk was started in, when inside it."""
    try:
        return Path(path).resolve().relative_to(Path.cwd())
    except ValueError:
        return Path(path)


def _beside(folder: Path, file: Path | None) -> str | None:
    """A file the issue names (the loader makes it absolute) as a path from its folder."""
    if file is None:
        return None
    return Path(file).relative_to(folder).as_posix() if Path(file).is_absolute() else str(file)


def _local(stamp: float) -> str:
    """Seconds since the epoch as the editor's local time, to the second."""
    return datetime.fromtimestamp(stamp).astimezone().strftime("%Y-%m-%d %H:%M:%S %z")


def _text(status: int, message: str) -> Response:
    return Response(message + "\n", status=status, mimetype="text/plain")


def _json(value: dict[str, Any], status: int = 200) -> Response:
    return Response(
        json.dumps(value, ensure_ascii=False), status=status, mimetype="application/json"
    )


__all__ = ["COOKIE", "TOKEN_HEADER", "Desk", "issue_key", "new_token"]
