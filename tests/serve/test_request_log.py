"""The desk's request log leaves out the token's value, wherever a request put it."""

from __future__ import annotations

import pytest

from crosspost.preview.request_log import without_token


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("GET /?token=abc-_123 HTTP/1.1", "GET /?token=… HTTP/1.1"),
        ("GET /issue/a?x=1&token=abc&y=2 HTTP/1.1", "GET /issue/a?x=1&token=…&y=2 HTTP/1.1"),
        ("GET /?token= HTTP/1.1", "GET /?token=… HTTP/1.1"),
        ("\x1b[32mGET /?token=abc HTTP/1.1\x1b[0m", "\x1b[32mGET /?token=… HTTP/1.1\x1b[0m"),
        # a path or another parameter that merely ends in "token" is not the token
        (
            "GET /docs/token=page?mytoken=keep HTTP/1.1",
            "GET /docs/token=page?mytoken=keep HTTP/1.1",
        ),
        ("GET /week HTTP/1.1", "GET /week HTTP/1.1"),
    ],
)
def test_the_value_of_token_is_replaced_and_the_rest_of_the_line_kept(
    line: str, shown: str
) -> None:
    assert without_token(line) == shown
