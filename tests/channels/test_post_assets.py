"""A post's image wave against the sandbox: what was uploaded is remembered, once.

Runs the real publisher on the example issue (one inline image and a cover) through the
publisher tests' world; the upload wave and its ledger writes are ``post_assets``'s.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from crosspost.sandbox.box import Sandbox
from publisher.world import World, build_world, calls_to


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    """The publisher tests' world: the example issue, config and env aimed at a sandbox."""
    with Sandbox() as box:
        yield build_world(tmp_path, box, time.time, lambda seconds: None)


def test_an_upload_that_succeeded_beside_a_failed_one_is_not_sent_again(world: World) -> None:
    world.box.faults.add("wechat", "/cgi-bin/material/add_material", kind="errcode:48001", count=1)

    first, _ = world.publish(targets=("wechat",))

    assert first.exit_code == 1
    assert calls_to(world.box, "/cgi-bin/media/uploadimg") == 1

    again, _ = world.publish(targets=("wechat",), retry_failed=True)

    assert again.exit_code == 0
    assert calls_to(world.box, "/cgi-bin/media/uploadimg") == 1  # remembered by the first run
    assert calls_to(world.box, "/cgi-bin/material/add_material") == 2


def test_a_second_publish_uploads_nothing_and_the_cache_holds_each_image_once(
    world: World,
) -> None:
    world.publish()
    before = {
        path: calls_to(world.box, path)
        for path in ("/cgi-bin/media/uploadimg", "/cgi-bin/material/add_material", "/images")
    }

    world.publish()

    assert {path: calls_to(world.box, path) for path in before} == before
