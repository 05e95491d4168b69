"""No secret reaches the ledger, the terminal or the log during a whole publish.

The sandbox knows every secret it handed out (AppSecret, each access token, z_c0, _xsrf).
A publish that meets trouble on the way (an expired token, a lost answer reconciled, a
5xx retried) is run through the CLI; then every byte it left behind is searched for them:
stdout, stderr, every log record, the ledger's SQLite files (WAL included), and every
other file in the state dir. The one file allowed to hold a secret is WeChat's
access-token cache, which must be private to its owner (0600).
"""

from __future__ import annotations

import logging
import stat

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_OK

from .world import CREATE_PATHS, ISSUE_ID, World, assert_one_post_per_channel


def test_a_troubled_publish_leaves_no_secret_anywhere(
    world: World,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    world.use_env(monkeypatch)
    caplog.set_level(logging.DEBUG)
    world.box.faults.add("wechat", "/cgi-bin/media/uploadimg", kind="token_expired", count=1)
    world.box.faults.add("wechat", CREATE_PATHS["wechat"], kind="commit_then_drop", count=1)
    world.box.faults.add("zhihu", "/api/v4/me", kind="http:503", count=1)
    world.box.faults.add("zhihu", CREATE_PATHS["zhihu"], kind="commit_then_drop", count=1)

    assert main(["publish", str(world.issue), "--mode", "publish"]) == EXIT_OK
    assert main(["status", ISSUE_ID, "--json"]) == EXIT_OK
    assert main(["reconcile", ISSUE_ID]) == EXIT_OK
    out, err = capsys.readouterr()
    assert_one_post_per_channel(world)
    assert any(r.fault == "token_expired" for r in world.box.requests)
    assert "the answer was lost" in err

    secrets = world.secrets()
    assert len(secrets) >= 5  # AppSecret, two access tokens, z_c0, _xsrf
    places = {"stdout": out.encode(), "stderr": err.encode()}
    places["log"] = "\n".join(r.getMessage() for r in caplog.records).encode()
    token_caches = []
    for path in sorted(world.state_dir.rglob("*")):
        if not path.is_file():
            continue
        if path.name.startswith("wechat-token-") and path.suffix == ".json":
            token_caches.append(path)
            continue
        places[str(path.relative_to(world.state_dir))] = path.read_bytes()
    assert any(name.startswith("ledger.sqlite3") for name in places)
    for name, data in places.items():
        for secret in secrets:
            assert secret.encode() not in data, f"a secret is in {name}"

    assert token_caches, "WeChat keeps its access token for the next run"
    # The search finds what it looks for: the cache does hold a token.
    assert any(s.encode() in c.read_bytes() for c in token_caches for s in secrets)
    for cache in token_caches:
        assert stat.S_IMODE(cache.stat().st_mode) == 0o600, cache
