"""The request log's redaction: every known secret out of paths and queries."""

from __future__ import annotations

import pytest

from crosspost.sandbox.requestlog import redact, redact_query


def every_secret_replaced(text: str, secrets: list[str]) -> str:
    """The rule as first written: every secret, longest first, whether present or not."""
    for secret in sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


CASES = {
    "a token in a path": ("/images/tok-1234/uploading_status", ["tok-1234", "other-9999"]),
    "a longer secret holding a shorter one": ("/a/abcdefgh/b", ["abcd", "abcdefgh"]),
    "short values are left alone": ("/abc/xyz", ["abc", "xyz"]),
    "none present": ("/api/v4/me", ["tok-1234"] * 3),
    "a secret made by a replacement": ("/x/secret-tail", ["secret-", "***tail"]),
}


@pytest.mark.parametrize(("text", "secrets"), CASES.values(), ids=CASES.keys())
def test_redact_replaces_what_every_secret_would(text: str, secrets: list[str]) -> None:
    assert redact(text, secrets) == every_secret_replaced(text, secrets)


def test_redact_query_masks_secret_names_and_known_values() -> None:
    query = "access_token=abc123&type=image&note=tok-1234"
    assert redact_query(query, ["tok-1234"]) == "access_token=***&type=image&note=***"
