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


def test_an_empty_path_or_query_is_not_looked_through() -> None:
    """Most requests carry no query: the secrets (hundreds, once an image's tokens are
    handed out) are not even listed for it."""

    def untouchable() -> list[str]:
        raise AssertionError("the secrets were looked through")

    class Untouchable:
        def __iter__(self) -> object:
            return iter(untouchable())

    assert redact("", Untouchable()) == ""  # type: ignore[arg-type]
    assert redact_query("", Untouchable()) == ""  # type: ignore[arg-type]


def test_a_wechat_sandbox_without_a_seed_hands_out_new_ids_and_with_one_the_same() -> None:
    from crosspost.sandbox.wechat.state import WeChatAccount

    def ids(seed: int | None) -> list[str]:
        account = WeChatAccount({} if seed is None else {"seed": seed}, apis=())
        return [account.app_id, account.random_text(54), account.rid()]

    assert ids(None) != ids(None)
    assert ids(7) == ids(7)
    assert len(ids(None)[1]) == 54
