"""A world for publisher tests: a sandbox, a config file aimed at it, a state dir, an issue.

Nothing here reads the user's real configuration or environment: the config file, the
``.env``-free environment, ``HOME`` and the state dir all live in ``tmp_path``. The same
:class:`World` drives the publisher three ways: through :class:`~crosspost.publish.runner.
Publisher` (injected clock and sleep), through ``crosspost.cli.main`` in this process
(``monkeypatch`` sets the environment), and as ``python -m crosspost`` subprocesses
(:meth:`World.spawn`), which is how the crash tests kill a run at an exact step.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from crosspost.commands.switches import MAX_SLEEP_VARIABLE, Switches
from crosspost.config import files
from crosspost.config.settings import Settings, load_settings
from crosspost.ledger import schema
from crosspost.ledger.store import Ledger, PostRecord
from crosspost.publish.jobs import PublishOptions, PublishReport
from crosspost.publish.runner import Publisher
from crosspost.sandbox.box import Sandbox

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_DIR = REPO_ROOT / "examples" / "ai-systems-48"
ISSUE_ID = "ai-systems-48"
CHANNELS = ("wechat", "zhihu")

#: The irreversible calls of each platform (a second one of these is a second post).
CREATE_PATHS = {"wechat": "/cgi-bin/draft/add", "zhihu": "/api/articles/drafts"}
PUBLISH_PATHS = {"wechat": "/cgi-bin/freepublish/submit", "zhihu": "/api/v4/content/publish"}

#: POSTs that only read (WeChat sends its queries as POST) or fetch a token.
_READ_ONLY_POSTS = frozenset(
    {
        "/cgi-bin/token",
        "/cgi-bin/stable_token",
        "/cgi-bin/draft/get",
        "/cgi-bin/draft/batchget",
        "/cgi-bin/draft/count",
        "/cgi-bin/freepublish/get",
        "/cgi-bin/freepublish/batchget",
        "/cgi-bin/freepublish/getarticle",
        "/cgi-bin/openapi/quota/get",
    }
)

#: Subprocesses get a hard limit, so a hung run fails the test instead of the suite.
SUBPROCESS_TIMEOUT = 60.0


def mutating(box: Sandbox) -> list[str]:
    """Every request that changed (or may have changed) something on a platform."""
    return [
        f"{r.platform} {r.method} {r.path}"
        for r in box.requests
        if r.method not in ("GET", "HEAD", "OPTIONS")
        and r.path not in _READ_ONLY_POSTS
        and not r.path.startswith("/__sandbox__")
    ]


def finish(process: subprocess.Popen[str]) -> tuple[str, str]:
    """Wait (bounded) for a process and return its output; a hung one is killed, and fails."""
    try:
        return process.communicate(timeout=SUBPROCESS_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise


def calls_to(box: Sandbox, path: str) -> int:
    """How many times a path was called (delivered or not)."""
    return sum(1 for r in box.requests if r.path == path)


@dataclass
class World:
    """One sandbox, the config and environment that point crosspost at it, and an issue."""

    root: Path
    box: Sandbox
    clock: Callable[[], float]
    sleep: Callable[[float], None]
    config: Path
    state_dir: Path
    env: dict[str, str]
    issue: Path
    #: A shared PostgreSQL ledger (``CROSSPOST_LEDGER_URL``); None: SQLite in the state dir.
    ledger_url: str | None = None

    # --- the three ways in -------------------------------------------------------------

    def settings(self, **flags: Any) -> Settings:
        """The settings a run in this world resolves (flags as ``load_settings`` takes)."""
        return load_settings(flags, environ=self.env, cwd=self.root, home=self.root)

    def ledger(self) -> Ledger:
        return Ledger.open(self.ledger_url or self.state_dir / "ledger.sqlite3", clock=self.clock)

    def publish(
        self, paths: Sequence[Path] | None = None, **options: Any
    ) -> tuple[PublishReport, list[str]]:
        """One ``crosspost publish`` through the library, on this world's clock and sleep.

        Returns the report and the progress lines. ``options`` are :class:`PublishOptions`.
        """
        return self.with_publisher(
            lambda p: p.publish(paths or [self.issue], PublishOptions(**options))
        )

    def with_publisher(
        self, work: Callable[[Publisher], PublishReport], **kwargs: Any
    ) -> tuple[PublishReport, list[str]]:
        """Run ``work`` with a :class:`Publisher` of this world (fresh settings and ledger).

        ``kwargs`` go to the Publisher (e.g. ``lock_timeout``).
        """
        settings = self.settings()
        lines: list[str] = []
        secrets = [s for a in settings.accounts for s in a.credentials.values()]
        with Ledger.open(settings.ledger, clock=self.clock, secrets=secrets) as ledger:
            publisher = Publisher(
                settings,
                ledger,
                clock=self.clock,
                sleep=self.sleep,
                progress=lines.append,
                **kwargs,
            )
            return work(publisher), lines

    def use_env(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Make this process look like a shell in this world, for ``cli.main`` tests."""
        use_env(self.env, self.root, monkeypatch)

    def spawn(self, *args: str, crash_at: str | None = None) -> subprocess.Popen[str]:
        """Start ``python -m crosspost ARGS`` in this world (optionally with the crash switch)."""
        env = {**base_env(), **self.env}
        if crash_at:
            env["CROSSPOST_CRASH_AT"] = crash_at
        return subprocess.Popen(
            [sys.executable, "-m", "crosspost", *args],
            cwd=self.root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def run(self, *args: str, crash_at: str | None = None) -> subprocess.CompletedProcess[str]:
        """Run ``python -m crosspost ARGS`` to its end (bounded) and return what it printed."""
        process = self.spawn(*args, crash_at=crash_at)
        out, err = finish(process)
        return subprocess.CompletedProcess(process.args, process.returncode, out, err)

    # --- what the platforms and the ledger say -----------------------------------------

    def posts(self) -> dict[str, PostRecord]:
        """The ledger's posts of the issue, by channel."""
        with self.ledger() as ledger:
            return {p.channel: p for p in ledger.posts(ISSUE_ID)}

    def published_on(self, channel: str) -> list[dict[str, Any]]:
        """The published articles the platform holds."""
        if channel == "wechat":
            return list(self.box.wechat.snapshot()["published"])
        return list(self.box.zhihu.snapshot()["articles"])

    def drafts_on(self, channel: str) -> list[str]:
        """The ids of every draft on the platform (Zhihu keeps a published article's draft)."""
        if channel == "wechat":
            return [str(d["media_id"]) for d in self.box.wechat.snapshot()["drafts"]]
        return [str(d["id"]) for d in self.box.zhihu.snapshot()["drafts"]]

    def secrets(self) -> list[str]:
        """Every secret the sandbox handed out: AppSecret, access tokens, z_c0, _xsrf."""
        return sandbox_secrets(self.box)


def use_env(env: dict[str, str], root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This process as a shell with ``env`` in ``root``: none of the user's own settings."""
    for name in list(os.environ):
        if name.startswith(("CROSSPOST_", "WECHAT_", "ZHIHU_", "XDG_")):
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(root)


def sandbox_secrets(box: Sandbox) -> list[str]:
    """Every secret the sandbox handed out: AppSecret, access tokens, z_c0, _xsrf."""
    found = [*box.wechat.secrets(), *box.zhihu.secrets()]
    return [s for s in found if s and len(s) >= 8]


def sandbox_env(root: Path, box: Sandbox, config: Path, *, max_sleep: str) -> dict[str, str]:
    """The environment of a shell aimed at the sandbox: its credentials, our config."""
    wechat, zhihu = box.wechat.credentials(), box.zhihu.credentials()
    return {
        "HOME": str(root),
        "XDG_CONFIG_HOME": str(root / ".config"),
        "XDG_STATE_HOME": str(root / ".state"),
        "CROSSPOST_CONFIG": str(config),
        "WECHAT_APP_ID": wechat["app_id"],
        "WECHAT_APP_SECRET": wechat["app_secret"],
        "ZHIHU_Z_C0": zhihu["z_c0"],
        "ZHIHU_XSRF": zhihu["xsrf"],
        "ZHIHU_D_C0": zhihu["d_c0"],
        # Processes cannot be handed a fake sleep: cap the publisher's polling pauses.
        MAX_SLEEP_VARIABLE: max_sleep,
    }


def base_env() -> dict[str, str]:
    """What a subprocess keeps of this process's environment: how to run Python, no config."""
    keep = ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "VIRTUAL_ENV", "SYSTEMROOT", "TMPDIR")
    return {name: os.environ[name] for name in keep if name in os.environ}


def write_config(
    root: Path, box: Sandbox, extra: str = "", *, top: str = "", zhihu_topics: bool = True
) -> Path:
    """A config file with one WeChat and one Zhihu account aimed at the sandbox.

    ``top`` goes before the tables (top-level keys, other tables), ``extra`` after them.
    The Zhihu account has a default topic (publishing needs one) unless ``zhihu_topics``
    is False.
    """
    topics = 'topics = ["人工智能"]' if zhihu_topics else ""
    config = root / "crosspost.toml"
    config.write_text(
        f"""mode = "publish"
timeout = 10
{top}
[channels.wechat.accounts.main]
app_id_env = "WECHAT_APP_ID"
app_secret_env = "WECHAT_APP_SECRET"
base_url = "{box.wechat_url}"

[channels.zhihu.accounts.main]
cookie_env = "ZHIHU_Z_C0"
xsrf_env = "ZHIHU_XSRF"
base_url = "{box.zhihu_url}"
{topics}
{extra}""",
        encoding="utf-8",
    )
    return config


def copy_example(root: Path) -> Path:
    """The example issue and its images, copied so a test may edit them."""
    target = root / "issue"
    shutil.copytree(EXAMPLE_DIR, target, ignore=shutil.ignore_patterns("*.py"))
    return target / "issue.md"


def build_world(
    root: Path,
    box: Sandbox,
    clock: Callable[[], float],
    sleep: Any,
    *,
    ledger_url: str | None = None,
) -> World:
    state_dir = root / "state"
    env = sandbox_env(root, box, write_config(root, box), max_sleep="0")
    env["CROSSPOST_STATE_DIR"] = str(state_dir)
    if ledger_url is not None:
        env["CROSSPOST_LEDGER_URL"] = ledger_url
    return World(
        root=root,
        box=box,
        clock=clock,
        sleep=sleep,
        config=root / "crosspost.toml",
        state_dir=state_dir,
        env=env,
        issue=copy_example(root),
        ledger_url=ledger_url,
    )


def assert_one_post_per_channel(world: World, channels: Sequence[str] = CHANNELS) -> None:
    """Exactly one post per channel on the platform, its URL in the ledger, no stray drafts."""
    posts = world.posts()
    for channel in channels:
        published = world.published_on(channel)
        assert len(published) == 1, f"{channel}: {len(published)} posts on the platform"
        record = posts[channel]
        assert record.state == "published", f"{channel}: ledger says {record.state}"
        if record.url is None:
            # WeChat lists a published article only with a temporary link; when the
            # submit's answer was lost, that is all there is: the URL stays pending (a
            # temporary link is never recorded), and the ledger says where to look.
            assert channel == "wechat", f"{channel}: no URL in the ledger"
            assert record.article_id == published[0]["article_id"]
            assert "URL pending" in events_text(world, record)
            assert "发表记录" in events_text(world, record)
        else:
            assert record.url in post_urls(published[0]), record.url
            assert "tempkey=" not in record.url
        assert_drafts_explained(world, channel)


def post_urls(post: dict[str, Any]) -> list[str]:
    """The public URLs of a published post in a snapshot (WeChat lists one per article)."""
    return [str(u) for u in post.get("urls") or [post.get("url")] if u]


def events_text(world: World, record: PostRecord) -> str:
    """Every event of a post, as one text to search."""
    with world.ledger() as ledger:
        return " ".join(f"{e.summary} {dict(e.data)}" for e in ledger.events(record.key))


def assert_drafts_explained(world: World, channel: str) -> None:
    """Every draft on the platform is the ledger's, or an event of the ledger explains it.

    A WeChat draft is named in an event. Zhihu cannot list drafts, so a draft whose
    creation was never answered cannot be found again: each such case leaves an event
    saying an unused private draft may remain, and there may be at most that many.
    """
    record = world.posts()[channel]
    told = events_text(world, record)
    warned = private_draft_warnings(world, channel)
    unnamed = [
        draft_id
        for draft_id in world.drafts_on(channel)
        if draft_id not in (record.draft_id, record.article_id) and draft_id not in told
    ]
    assert len(unnamed) <= (warned if channel == "zhihu" else 0), f"orphan drafts: {unnamed}"


def private_draft_warnings(world: World, channel: str) -> int:
    """How often the ledger says "an unused private draft may remain" (Zhihu, lost answer)."""
    record = world.posts()[channel]
    with world.ledger() as ledger:
        return sum(
            1
            for e in ledger.events(record.key)
            if e.step == "draft" and e.outcome == "not-happened" and "private draft" in e.summary
        )


class StateTrouble:
    """This machine's trouble with the state dir, made in this process from a moment on.

    Once :meth:`begin` is called (directly, or by :meth:`checkpoint` at the named
    checkpoint of a post), every new file under ``folder`` is refused with ``code``, at
    the ``open`` that creates it (``write_atomic``'s temporary: the token cache,
    ``run-due.json``, a sent copy), as the kernel refuses it: ``EACCES`` for a folder this
    user may not add to (``subfolders`` False: its own subfolders are still writable; the
    files already there too), ``ENOSPC`` for a full disk. With ``ledger`` the ledger's
    writes fail too, with the error SQLite gives on a full disk (``SQLITE_FULL``); the
    ledger still reads, as it does on a full disk.
    """

    def __init__(
        self,
        monkeypatch: pytest.MonkeyPatch,
        folder: Path,
        code: int,
        *,
        ledger: bool = False,
        subfolders: bool = True,
        at: str | None = None,
        posts: int = 1,
    ) -> None:
        self.on = False
        self.at = at
        #: ``at`` waits for this many posts (one per channel thread) to reach it.
        self.gathering = threading.Barrier(posts) if posts > 1 else None
        create = files._create_beside
        execute = schema._Cursor.execute

        def create_beside(target: Path, mode: int) -> tuple[Path, int]:
            where = target.resolve()
            inside = where.is_relative_to(folder.resolve()) if subfolders else None
            if self.on and (inside or where.parent == folder.resolve()):
                temporary = target.with_name(f".{target.name}.0.tmp")
                raise OSError(code, os.strerror(code), str(temporary))
            return create(target, mode)

        def write(cursor: Any, sql: str, parameters: Any = (), /) -> Any:
            words = ("BEGIN", "INSERT", "UPDATE", "DELETE", "COMMIT")
            if self.on and ledger and sql.lstrip().upper().startswith(words):
                full = sqlite3.OperationalError("database or disk is full")
                full.sqlite_errorcode = 13  # type: ignore[attr-defined]
                with schema._translated(cursor.path):
                    raise full
            return execute(cursor, sql, parameters)

        def checkpoint(switches: Switches, name: str) -> None:
            self.checkpoint(name)

        monkeypatch.setattr(files, "_create_beside", create_beside)
        monkeypatch.setattr(schema._Cursor, "execute", write)
        monkeypatch.setattr(Switches, "checkpoint", checkpoint)

    def begin(self) -> None:
        self.on = True

    def end(self) -> None:
        """The trouble fixed (space freed, the folder writable): nothing refused any more."""
        self.on, self.at = False, None

    def checkpoint(self, name: str) -> None:
        """A post's checkpoint (``after-publish``…): the trouble begins at ``at``, once
        ``posts`` posts have reached it (their calls are all out by then)."""
        if name != self.at:
            return
        if self.gathering is not None:
            with contextlib.suppress(threading.BrokenBarrierError):
                self.gathering.wait(30)
        self.begin()
