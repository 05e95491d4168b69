"""One redactor per run: a token fetched mid-run is hidden by the ledger, not only by HTTP."""

from __future__ import annotations

from crosspost.config.redaction import Redactor
from crosspost.ledger.store import Ledger, PostKey
from crosspost.publish.settle import build_adapter, run_redactor
from publisher.world import World


def test_a_token_fetched_during_the_run_is_hidden_in_the_ledger(world: World) -> None:
    settings = world.settings()
    account = settings.account("wechat")
    redactor = Redactor()
    with Ledger.open(settings.ledger_path, clock=world.clock, redact=redactor) as ledger:
        adapter = build_adapter(
            account,
            settings.state_dir,
            timeout=5.0,
            clock=world.clock,
            sleep=world.sleep,
            redactor=run_redactor(ledger),
        )
        adapter.preflight()  # fetches the access token
        app_secret = account.credentials["app_secret"].reveal()
        (token,) = [t for t in world.box.wechat.secrets() if t != app_secret]
        key = PostKey("issue", "wechat", account.name)
        ledger.ensure(key)
        ledger.fail(key, f"platform echoed {token} back", permanent=True)
        stored = ledger.get(key)
    assert stored is not None and stored.error_message is not None
    assert token not in stored.error_message and "***" in stored.error_message
    assert redactor(f"id {account.credentials['app_id'].reveal()}").endswith(
        account.credentials["app_id"].reveal()
    ), "the public AppID stays readable for operators"
