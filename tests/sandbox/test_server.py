"""The server around the emulators: control endpoint, request log, persistence, lifecycle."""

from __future__ import annotations

import json
import socket
import struct
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests

from crosspost.errors import UsageError
from crosspost.sandbox.box import ManualClock, Sandbox

from .wechat_client import WeChat, image_bytes

COUNT = "/cgi-bin/draft/count"


def test_control_endpoint_scripts_faults_over_http(sandbox: Sandbox, wechat: WeChat) -> None:
    control = f"{sandbox.wechat_url}/__sandbox__/faults"
    added = requests.post(
        control, json={"path": COUNT, "kind": "errcode:-1", "count": 1}, timeout=5
    )
    assert added.status_code == 201
    spec = {"spec": "wechat:/cgi-bin/draft/add=commit_then_drop*1"}
    assert requests.post(control, json=spec, timeout=5).status_code == 201
    listed = requests.get(control, timeout=5).json()["faults"]
    assert [(f["path"], f["kind"]) for f in listed] == [
        (COUNT, "errcode:-1"),
        ("/cgi-bin/draft/add", "commit_then_drop"),
    ]
    assert wechat.get(COUNT)["errcode"] == -1
    assert requests.delete(control, timeout=5).json() == {"cleared": True}
    assert requests.get(control, timeout=5).json() == {"faults": []}
    bad = requests.post(control, json={"path": COUNT, "kind": "latency:x"}, timeout=5)
    assert bad.status_code == 400
    assert "needs a number" in bad.json()["error"]


def test_control_endpoint_state_requests_options_and_clock(
    sandbox: Sandbox, wechat: WeChat, clock: ManualClock
) -> None:
    base = f"{sandbox.wechat_url}/__sandbox__"
    wechat.add_draft()
    state = requests.get(f"{base}/state", timeout=5).json()
    assert len(state["drafts"]) == 1
    logged = requests.get(f"{base}/requests", timeout=5).json()["requests"]
    assert [e["path"] for e in logged][-1] == "/cgi-bin/draft/add"
    assert requests.delete(f"{base}/requests", timeout=5).json() == {"cleared": True}
    assert requests.get(f"{base}/requests", timeout=5).json() == {"requests": []}
    options = requests.post(f"{base}/options", json={"verified": False}, timeout=5).json()
    assert options["options"]["verified"] is False
    before = clock()
    moved = requests.post(f"{base}/clock", json={"advance": 7200}, timeout=5).json()
    assert moved["now"] == before + 7200
    assert wechat.get(COUNT)["errcode"] == 42001  # the token's two hours are gone
    assert requests.get(f"{base}/nothing", timeout=5).status_code == 404


def test_request_log_never_holds_a_secret(sandbox: Sandbox, wechat: WeChat) -> None:
    secret = sandbox.wechat.credentials()["app_secret"]
    stable = requests.post(
        f"{sandbox.wechat_url}/cgi-bin/stable_token",
        json={
            "grant_type": "client_credential",
            "appid": sandbox.wechat.credentials()["app_id"],
            "secret": secret,
        },
        timeout=5,
    ).json()["access_token"]
    wechat.get(COUNT)
    wechat.get(COUNT, access_token=stable)
    wechat.get(f"/cgi-bin/x{wechat.token}")  # a secret in the path, too
    wechat.upload("/cgi-bin/media/uploadimg", "a.jpg", image_bytes())
    text = json.dumps([entry.__dict__ for entry in sandbox.requests])
    text += requests.get(f"{sandbox.wechat_url}/__sandbox__/requests", timeout=5).text
    text += "\n".join(entry.line() for entry in sandbox.requests)
    for value in (secret, wechat.token, stable):
        assert value not in text
    assert "access_token=***" in text
    assert "secret=***" in text


def test_state_survives_a_restart(tmp_path: Path) -> None:
    clock = ManualClock()
    with Sandbox(clock=clock, sleep=clock.sleep, state_dir=tmp_path) as first:
        wechat = WeChat(first)
        token = wechat.fetch_token()
        media_id = wechat.add_draft()
        image = wechat.upload("/cgi-bin/media/uploadimg", "a.png", image_bytes("PNG"), "image/png")
        credentials = first.wechat.credentials()
    assert (tmp_path / "wechat.json").exists()
    with Sandbox(clock=clock, sleep=clock.sleep, state_dir=tmp_path) as second:
        again = WeChat(second, token=token)
        assert second.wechat.credentials() == credentials
        assert again.post("/cgi-bin/draft/get", {"media_id": media_id})["news_item"]
        served = requests.get(second.wechat_image_url(image["url"]), timeout=5)
        assert served.content == image_bytes("PNG")


def test_the_saved_state_is_the_newest_after_concurrent_changes(tmp_path: Path) -> None:
    """Every change is saved; a slower save of an older state never lands last."""
    clock = ManualClock()
    with Sandbox(clock=clock, sleep=clock.sleep, state_dir=tmp_path) as box:
        token = WeChat(box).fetch_token()

        def add(_: int) -> str:
            return WeChat(box, token=token).add_draft()

        with ThreadPoolExecutor(max_workers=12) as pool:
            made = set(pool.map(add, range(36)))
        saved = json.loads((tmp_path / "wechat.json").read_text("utf-8"))
        assert set(saved["drafts"]) == made


def test_a_client_hanging_up_mid_request_prints_no_traceback(
    sandbox: Sandbox, capfd: pytest.CaptureFixture[str]
) -> None:
    host, port = sandbox.servers["wechat"].address()
    for _ in range(5):
        with socket.create_connection((host, port)) as client:
            client.sendall(b"POST /cgi-bin/draft/add HTTP/1.1\r\nContent-Length: 999\r\n\r\n{")
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    deadline = time.monotonic() + 5
    while threading.active_count() > 2 + len(sandbox.servers) and time.monotonic() < deadline:
        time.sleep(0.01)  # let the handler threads notice the reset
    assert requests.get(f"{sandbox.wechat_url}{COUNT}", timeout=5).json()["errcode"] == 41001
    assert "Traceback" not in capfd.readouterr().err


def test_unreadable_state_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "wechat.json").write_text("{half", "utf-8")
    with pytest.raises(UsageError, match=r"wechat\.json: sandbox state is unreadable"):
        Sandbox(state_dir=tmp_path).start()


def test_memory_only_by_default(sandbox: Sandbox) -> None:
    assert all(server.state_file is None for server in sandbox.servers.values())


def test_a_taken_port_is_a_usage_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(UsageError, match="choose another --port"):
            Sandbox(wechat_port=port).start()


def test_keep_alive_sessions_and_both_platforms_on_loopback(sandbox: Sandbox) -> None:
    assert sandbox.wechat_url.startswith("http://127.0.0.1:")
    if "zhihu" in sandbox.servers:
        assert sandbox.zhihu_url != sandbox.wechat_url
    with requests.Session() as session:
        for _ in range(3):
            reply = session.get(f"{sandbox.wechat_url}{COUNT}", timeout=5)
            assert reply.json()["errcode"] == 41001
    assert [e.errcode for e in sandbox.requests] == [41001] * 3


def test_chunked_bodies_are_read(sandbox: Sandbox, wechat: WeChat) -> None:
    body = json.dumps({"offset": 0, "count": 1}).encode()
    reply = wechat.session.post(
        f"{wechat.url}/cgi-bin/draft/batchget",
        params={"access_token": wechat.token},
        data=iter([body[:5], body[5:]]),
        timeout=5,
    )
    assert reply.json() == {"total_count": 0, "item_count": 0, "item": []}


def test_sandbox_options_go_to_their_platform() -> None:
    options = {"wechat": {"app_id": "wx1234567890abcdef", "verified": False}}
    with Sandbox(options=options) as box:
        assert box.wechat.credentials()["app_id"] == "wx1234567890abcdef"
        assert box.wechat.options["verified"] is False


def test_wechat_alone_when_the_zhihu_emulator_is_absent(monkeypatch: pytest.MonkeyPatch) -> None:
    # None in sys.modules makes the import fail as if the module were not installed.
    monkeypatch.setitem(sys.modules, "crosspost.sandbox.zhihu.app", None)
    with Sandbox() as box:
        assert set(box.servers) == {"wechat"}
        assert requests.get(f"{box.wechat_url}{COUNT}", timeout=5).json()["errcode"] == 41001
        with pytest.raises(RuntimeError, match="zhihu emulator is not installed"):
            _ = box.zhihu_url
