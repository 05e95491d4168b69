"""The sandbox over HTTPS: both platforms are HTTPS, and a client's TLS handling (its CA
bundle, its connections set up ahead) only meets the real thing on a real handshake.

Given a server TLS context, each emulator serves ``https://127.0.0.1:<port>``; each
connection's handshake runs in its own handler thread, as on a real server. A client that
does not trust the certificate, or does not speak TLS, is turned away by the handshake,
and the sandbox goes on serving the others without a word on its terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
import requests

from crosspost.sandbox.box import Sandbox

if TYPE_CHECKING:
    from crosspost.sandbox.tls import Certificate

LOG = "/__sandbox__/requests"


def test_the_sandbox_serves_https_with_the_certificate_it_is_given(
    certificate: Certificate, capfd: pytest.CaptureFixture[str]
) -> None:
    trusted = str(certificate.cert)
    with Sandbox(tls=certificate.server_context()) as box:
        for platform in ("wechat", "zhihu"):
            url = box.url(platform)
            assert url.startswith("https://127.0.0.1:")
            with pytest.raises(requests.exceptions.SSLError):
                requests.get(url + LOG, timeout=10)  # the system's CAs do not vouch for it
            with pytest.raises(requests.exceptions.ConnectionError):
                requests.get(url.replace("https://", "http://") + LOG, timeout=10)
            answer = requests.get(url + LOG, timeout=10, verify=trusted)
            assert answer.status_code == 200 and "requests" in answer.json()
        app = box.wechat.credentials()
        token = requests.post(
            f"{box.wechat_url}/cgi-bin/stable_token",
            json={"grant_type": "client_credential", "appid": app["app_id"],
                  "secret": app["app_secret"]},
            timeout=10,
            verify=trusted,
        )  # fmt: skip
    assert "access_token" in token.json()
    _, err = capfd.readouterr()
    assert "Traceback" not in err, err
