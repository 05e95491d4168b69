"""Issues with many images, drawn with Pillow at run time, for the publish benchmarks.

Nothing large is committed: each image is a small gradient with a few shapes, made from
a number (the same number gives the same bytes, so a second issue can reuse images and
the upload cache can recognise them). The text is long enough to pass both channels'
checks and reads like a digest: numbered items, each with a picture.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from PIL import Image, ImageDraw

#: Side of a benchmark image: large enough to look like a figure, small enough to upload fast.
SIZE = (640, 360)


def draw_image(number: int, path: Path) -> Path:
    """A PNG that only ``number`` produces (same number, same bytes)."""
    rng = random.Random(number)
    image = Image.new("RGB", SIZE, (rng.randrange(256), rng.randrange(256), rng.randrange(256)))
    pen = ImageDraw.Draw(image)
    for _ in range(12):
        x, y = rng.randrange(SIZE[0]), rng.randrange(SIZE[1])
        colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
        pen.rectangle((x, y, x + rng.randrange(20, 200), y + rng.randrange(20, 120)), fill=colour)
    pen.text((20, 20), f"figure {number}", fill=(255, 255, 255))
    # A little grain, so a figure weighs what a screenshot does (about 300 KB as PNG).
    grain = Image.frombytes("L", SIZE, rng.randbytes(SIZE[0] * SIZE[1])).convert("RGB")
    image = Image.blend(image, grain, 0.06)
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, format="PNG")
    return path


def draw_cover(number: int, path: Path) -> Path:
    """A JPEG cover (WeChat wants a cover as permanent material)."""
    rng = random.Random(10_000 + number)
    image = Image.new("RGB", (900, 383), (rng.randrange(256), 40, 90))
    ImageDraw.Draw(image).text((40, 40), f"cover {number}", fill=(255, 255, 255))
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, format="JPEG", quality=85)
    return path


def write_issue(
    folder: Path,
    *,
    issue_id: str = "bench-issue",
    images: Sequence[int] = tuple(range(1, 13)),
    cover: int = 1,
) -> Path:
    """An issue file in ``folder`` with one item per image number in ``images``.

    Two issues that share image numbers share those images byte for byte, which is how
    the request-economy benchmark makes "a second issue that reuses 10 of the 12 images".
    """
    folder.mkdir(parents=True, exist_ok=True)
    draw_cover(cover, folder / "images" / "cover.jpg")
    items = []
    for index, number in enumerate(images, start=1):
        name = f"images/figure-{number:03d}.png"
        draw_image(number, folder / name)
        items.append(
            f"## {index}. 第{index}篇:分布式训练的一个案例\n\n"
            f"这一节介绍第{index}个案例的背景、方法和结果,并附上一张示意图。"
            "作者比较了几种并行方案在不同规模集群上的吞吐。\n\n"
            f"![示意图 {index}]({name})\n\n"
            f"链接:<https://example.org/papers/{number}>\n"
        )
    text = (
        "---\n"
        f"id: {issue_id}\n"
        f"title: 基准测试 {issue_id}\n"
        "author: 基准\n"
        "digest: 十二张图的一期,用来测量发布速度\n"
        "cover: images/cover.jpg\n"
        "source_url: https://example.org/bench\n"
        "channels: [wechat, zhihu]\n"
        "zhihu: {topics: [人工智能, 深度学习]}\n"
        "---\n\n"
        "这是一期用来测量发布速度的通讯,每一节都有一张图。\n\n" + "\n".join(items)
    )
    path = folder / "issue.md"
    path.write_text(text, encoding="utf-8")
    return path
