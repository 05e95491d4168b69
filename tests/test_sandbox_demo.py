"""The built-in sandbox as an editor first meets it (``--sandbox``): a 群发 rehearsal ends
with the send recorded, not left "still going out" for a later run to settle."""

from __future__ import annotations

from pathlib import Path

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_OK

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ai-systems-48" / "issue.md"


def test_a_broadcast_rehearsal_on_the_built_in_sandbox_ends_sent_to_followers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("CROSSPOST_CONFIG", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "CROSSPOST_MODE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CROSSPOST_STATE_DIR", str(tmp_path / "state"))

    assert main(["publish", str(EXAMPLE), "--sandbox", "--mode", "broadcast"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "sent to followers (msg_id" in out
    assert "still going out" not in out

    assert main(["status", "--sandbox"]) == EXIT_OK
    status = capsys.readouterr().out
    assert "sending" not in status and "published" in status
