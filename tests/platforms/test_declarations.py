"""Each platform is declared once, in ``crosspost/platforms/<name>.py``, and read from there.

The literal scan (:func:`test_no_limit_is_written_down_twice`) takes every number a
declaration holds and looks for it in the rest of ``src/crosspost`` with :mod:`ast`:

* Constant arithmetic is folded first, so ``10 * 1024 * 1024`` counts as 10485760, and
  so is arithmetic on the module's own constants (``MB = 1024 * 1024`` … ``10 * MB``).
* A number that code uses for many other things (below 10, 100, and powers of two such
  as 16, 32, 1024 and 2**20, which are also units, buffer and pool sizes) is reported
  only where it is given a limit's name: assigned to a name, passed as a keyword or
  used as a dict key with ``max``, ``min``, ``limit``, ``chars`` or ``bytes`` as one of
  its words (``TITLE_MAX_CHARS = 32``, ``author_chars=16``). Any other declared number,
  and any number with a fraction (WeChat's cover ratio 2.35), is reported wherever it
  appears.
* Ints and floats are told apart (WeChat's 120-character digest is not a 120.0-second
  pause).
* The declaration modules are not scanned for one another's numbers: Zhihu's
  100-character title and WeChat's 100 polls a day are each their platform's own.
* ``sandbox/`` is not scanned: the emulators model the platforms independently of the
  client (with their own, configurable, defaults), so that a test can make the two
  disagree.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from PIL import Image

import crosspost
from crosspost.channels.registry import ADAPTERS, adapter_class
from crosspost.check.lint import WARNING, check_file, lint
from crosspost.errors import ConfigError
from crosspost.images.pipeline import SourceImage, prepare
from crosspost.issue.fields import CHANNEL_OPTIONS
from crosspost.platforms.base import MB, Limits, Platform
from crosspost.platforms.registry import PLATFORMS, platform, platform_names
from crosspost.render.rendered import RENDERERS, RenderContext, render, renderer_for

SOURCE = Path(crosspost.__file__).parent
NAMES = platform_names()

Number = int | float
WriteIssue = Callable[..., Path]


# --- the literal scan ------------------------------------------------------------------


@dataclass(frozen=True)
class Literal:
    """A number written in the source, and the limit-like name it is given, if any."""

    value: Number
    name: str | None
    line: int


_LIMIT_WORD = re.compile(r"(?:^|_)(?:max|min|limits?|chars|bytes)(?:_|$)", re.IGNORECASE)


def _fold(node: ast.expr, constants: Mapping[str, Number]) -> Number | None:
    """The value of a number, or of arithmetic on numbers and ``constants``, else None."""
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.Constant):
        value = node.value
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        operand = _fold(node.operand, constants)
        return None if operand is None else -operand
    if isinstance(node, ast.BinOp):
        left, right = _fold(node.left, constants), _fold(node.right, constants)
        if left is None or right is None:
            return None
        operations = {ast.Add: left + right, ast.Sub: left - right, ast.Mult: left * right}
        if isinstance(node.op, ast.Pow):
            return left**right
        return operations.get(type(node.op))
    return None


def _name_of(target: ast.expr) -> str | None:
    if isinstance(target, ast.Name):
        return target.id
    return target.attr if isinstance(target, ast.Attribute) else None


def _named(tree: ast.AST) -> dict[int, str]:
    """id(value node) → the name it is given (assignment, keyword, dict key, default)."""
    given: list[tuple[str | None, ast.expr | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            given += [(_name_of(target), node.value) for target in node.targets]
        elif isinstance(node, ast.AnnAssign):
            given.append((_name_of(node.target), node.value))
        elif isinstance(node, ast.keyword):
            given.append((node.arg, node.value))
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    given.append((key.value, value))
        elif isinstance(node, ast.arguments):
            positional = [*node.posonlyargs, *node.args]
            with_default = positional[len(positional) - len(node.defaults) :]
            given += [(a.arg, d) for a, d in zip(with_default, node.defaults, strict=True)]
            given += [(a.arg, d) for a, d in zip(node.kwonlyargs, node.kw_defaults, strict=True)]
    return {id(value): name for name, value in given if name and value is not None}


def literals(source: str) -> Iterator[Literal]:
    """Every number in ``source`` (folded), with the name it is given when it has one."""
    tree = ast.parse(source)
    names = _named(tree)
    constants: dict[str, Number] = {}
    for statement in tree.body:  # the module's own named numbers, in order
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], _fold(statement.value, constants)
            if isinstance(target, ast.Name) and value is not None:
                constants[target.id] = value

    def visit(node: ast.AST) -> Iterator[Literal]:
        if isinstance(node, ast.Name):
            return  # a use of a constant, not a number written down
        if isinstance(node, ast.expr):
            value = _fold(node, constants)
            if value is not None:
                yield Literal(value, names.get(id(node)), getattr(node, "lineno", 0))
                return
        for child in ast.iter_child_nodes(node):
            yield from visit(child)

    yield from visit(tree)


def _common(value: Number) -> bool:
    """Numbers code uses for too many other things to tell a copied limit by value alone."""
    if isinstance(value, float):
        return value.is_integer() and value < 10
    return value < 10 or value == 100 or (value > 0 and value & (value - 1) == 0)


def declared_numbers(declared: Platform) -> set[Number]:
    """Every number the declaration holds: its limits (the image policies derive from
    them), but 0, which says "none" (no URL growth on Zhihu) rather than a limit."""
    values = (getattr(declared.limits, f.name) for f in dataclasses.fields(Limits))
    return {v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool) and v}


def copies(source: str, numbers: set[Number]) -> list[Literal]:
    """The literals of ``source`` that repeat one of ``numbers`` (by the rule above)."""
    found = []
    for literal in literals(source):
        same = any(type(n) is type(literal.value) and n == literal.value for n in numbers)
        if not same:
            continue
        if not _common(literal.value) or (literal.name and _LIMIT_WORD.search(literal.name)):
            found.append(literal)
    return found


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("TITLE_MAX_CHARS = 32\n", [32]),  # a common number, but named as a limit
        ("CONNECTIONS_PER_HOST = 32\n", []),  # the same number for something else
        ("text[:20_000]\n", [20_000]),
        ("policy = Policy(max_bytes=10 * 1024 * 1024)\n", [10 * MB]),
        ("def f(max_bytes: int = 1024 * 1024 - 1) -> None: ...\n", [MB - 1]),
        ('DEFAULTS = {"title_max_bytes": 64}\n', [64]),
        ("PAUSE_SECONDS = 20_000.0\n", []),  # a float is not the int limit
        ("pool(max_workers=min(32, n))\n", []),  # only the value given the name counts
        ("MB = 1024 * 1024\nLIMIT = MB - 1\nsend(size=10 * MB)\n", [MB - 1, 10 * MB]),
        ("box(2.35)\n", [2.35]),
    ],
)
def test_the_scan_finds_copies_by_the_rule_in_the_docstring(
    source: str, found: list[Number]
) -> None:
    numbers = {32, 64, 20_000, 10 * MB, MB - 1, 2.35}
    assert [literal.value for literal in copies(source, numbers)] == found


@pytest.mark.parametrize("name", NAMES)
def test_no_limit_is_written_down_twice(name: str) -> None:
    numbers = declared_numbers(platform(name))
    declarations = {SOURCE / "platforms" / f"{other}.py" for other in NAMES}
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        if path in declarations or (SOURCE / "sandbox") in path.parents:
            continue
        for literal in copies(path.read_text("utf-8"), numbers):
            found.append(f"{path.relative_to(SOURCE)}:{literal.line}: {literal.value}")
    assert found == [], f"{name}'s limits are copied; read them from platforms/{name}.py"


def test_the_scan_sees_the_declarations_themselves() -> None:
    """Guards the scan: each declaration module does hold its own numbers."""
    for name in NAMES:
        source = (SOURCE / "platforms" / f"{name}.py").read_text("utf-8")
        assert copies(source, declared_numbers(platform(name)))


# --- every platform is served: the contract -----------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_every_platform_has_a_renderer_and_an_adapter_that_import(name: str) -> None:
    declared = platform(name)
    assert declared.name == name
    assert RENDERERS[name] == declared.renderer and ADAPTERS[name] == declared.adapter
    assert callable(renderer_for(name))
    adapter = adapter_class(name)
    assert adapter.platform is declared and adapter.channel == name
    assert adapter.display_name == declared.display_name
    if declared.limits.text_min_chars or declared.limits.text_max_chars:
        assert callable(declared.counter())
    for kind in ("inline", "cover"):
        policy = adapter.platform.image_policy(kind)
        limit = declared.limits.image_bytes if kind == "inline" else declared.limits.cover_bytes
        assert policy.max_bytes == limit


@pytest.mark.parametrize("name", NAMES)
def test_the_issue_loader_reads_each_platforms_options(name: str) -> None:
    assert set(CHANNEL_OPTIONS[name]) == {option.name for option in platform(name).options}


def test_the_channel_names_are_the_declarations() -> None:
    assert set(PLATFORMS) == set(NAMES) == set(ADAPTERS) == set(RENDERERS)
    with pytest.raises(ConfigError, match="unknown channel 'myspace'; known channels: wechat"):
        platform("myspace")


def test_config_takes_channel_names_from_the_declarations_not_the_issue_model() -> None:
    for path in (SOURCE / "config").glob("*.py"):
        imported = {
            node.module
            for node in ast.walk(ast.parse(path.read_text("utf-8")))
            if isinstance(node, ast.ImportFrom) and node.module
        }
        assert not any(name.startswith("crosspost.issue") for name in imported), path.name


def test_platforms_import_nothing_above_them() -> None:
    """The declarations sit low: the issue model, config, render and channels read them."""
    for path in (SOURCE / "platforms").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("crosspost"):
                assert node.module == "crosspost.errors" or node.module.startswith(
                    "crosspost.platforms"
                ), f"{path.name} imports {node.module}"


# --- overrides -----------------------------------------------------------------------------


def test_an_override_makes_a_new_declaration_and_leaves_the_default() -> None:
    wechat = platform("wechat")
    changed = wechat.with_overrides({"title_chars": 30, "image_bytes": 500_000, "cover_ratio": 2})
    assert (changed.limits.title_chars, changed.limits.cover_ratio) == (30, 2.0)
    assert changed.image_policy("inline").max_bytes == 500_000
    assert wechat.limits.title_chars == 64 and changed.limits.title_bytes == 64
    assert changed.name == "wechat" and changed.renderer == wechat.renderer
    assert wechat.with_overrides({}) is wechat


def test_an_override_may_lift_a_limit_that_may_be_unknown() -> None:
    lifted = platform("zhihu").with_overrides({"text_max_chars": None})
    assert lifted.limits.text_max_chars is None


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            {"title_char": 30},
            "wechat has no limit 'title_char' (did you mean 'title_chars'?); known limits: ",
        ),
        ({"title_chars": "30"}, "wechat limit 'title_chars' must be a whole number"),
        ({"title_chars": None}, "wechat limit 'title_chars' must be a whole number"),
        ({"title_chars": True}, "wechat limit 'title_chars' must be a whole number"),
        ({"digest_chars": -1}, "wechat limit 'digest_chars' must be a whole number"),
        ({"digest_chars": 1.5}, "wechat limit 'digest_chars' must be a whole number"),
        ({"cover_required": "yes"}, "wechat limit 'cover_required' must be true or false"),
        ({"cover_ratio": -1}, "wechat limit 'cover_ratio' must be a positive number, or 0"),
        (
            {"upload_concurrency": 0},
            "limit 'upload_concurrency' must be a whole number of at least 1",
        ),
        ({"image_formats": ["png"]}, "wechat limit 'image_formats' must be a list of MIME"),
    ],
)
def test_an_override_that_does_not_fit_names_its_key(
    overrides: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)) as raised:
        platform("wechat").with_overrides(overrides)
    assert raised.value.exit_code == 2


def test_lint_judges_by_the_declaration_it_is_given(write_issue: WriteIssue) -> None:
    path = write_issue(front="title: 一个十个字的标题啊啊\ncover: cover.jpg\n")
    checked = check_file(path, ["wechat"])
    assert checked.issue is not None and checked.errors == ()
    strict = {"wechat": platform("wechat").with_overrides({"title_chars": 8})}
    problems = lint(checked.issue, checked.rendered, strict)
    assert [p.message for p in problems if p.code == "title-too-long"] == [
        "title has 10 characters, wechat allows 8; shorten it or set 'wechat: {title: …}'"
    ]


# --- lint and the adapters agree -------------------------------------------------------


def _jpeg_of(path: Path, size: int) -> Path:
    """A real JPEG padded after its end marker to exactly ``size`` bytes."""
    Image.frombytes("RGB", (64, 64), os.urandom(64 * 64 * 3)).save(path, "JPEG")
    path.write_bytes(path.read_bytes().ljust(size, b"\0"))
    return path


@pytest.mark.parametrize(("size", "shrunk"), [(MB - 1, False), (MB, True)])
def test_lint_warns_exactly_when_the_wechat_pipeline_shrinks_an_image(
    write_issue: WriteIssue, tmp_path: Path, size: int, shrunk: bool
) -> None:
    image = _jpeg_of(tmp_path / "photo.jpg", size)
    body = "正文,足够长的一段话,用来通过检查。\n\n![p](photo.jpg)\n"
    checked = check_file(write_issue(front="title: 标题\ncover: cover.jpg\n", body=body))
    warned = [p for p in checked.problems if p.code == "image-shrunk"]
    assert [(p.channel, p.severity) for p in warned] == ([("wechat", WARNING)] if shrunk else [])
    policy = adapter_class("wechat").platform.image_policy("inline")
    prepared = prepare(SourceImage("photo.jpg", image.read_bytes(), tmp_path / "issue.md"), policy)
    assert (prepared.size != size) is shrunk
    assert prepared.size <= policy.max_bytes


def test_rendering_still_goes_through_the_declared_renderer(example_issue: Path) -> None:
    checked = check_file(example_issue)
    assert checked.issue is not None
    for name in NAMES:
        assert render(checked.issue, name, RenderContext()).channel == name


# --- evidence: which limits are errors, which are warnings --------------------------------


def test_the_disputed_limits_are_unconfirmed_and_the_rest_confirmed() -> None:
    wechat, zhihu = platform("wechat").limits, platform("zhihu").limits
    unconfirmed = {name for name, found in wechat.evidence.items() if not found.confirmed}
    assert unconfirmed == {"title_bytes", "author_warn_chars", "author_warn_bytes", "content_chars"}
    assert all(wechat.confirmed(name) for name in ("title_chars", "content_bytes", "digest_chars"))
    assert all(zhihu.confirmed(name) for name in ("title_chars", "text_min_chars"))
    for limits in (wechat, zhihu):
        for name, found in limits.evidence.items():
            assert getattr(limits, name) is not None and found.source, name


def test_a_limit_set_in_the_config_is_confirmed_and_evidence_cannot_be_set() -> None:
    wechat = platform("wechat")
    changed = wechat.with_overrides({"content_chars": 30_000})
    assert not wechat.limits.confirmed("content_chars")
    assert changed.limits.confirmed("content_chars")
    assert changed.limits.source("content_chars") == "set in the config"
    with pytest.raises(ConfigError, match="wechat has no limit 'evidence'"):
        wechat.with_overrides({"evidence": {}})


def test_each_wechat_account_kind_says_what_it_may_do() -> None:
    from crosspost.platforms.wechat import ACCOUNT_KINDS

    may = {
        name: [m for m in ("draft", "publish", "broadcast") if k.may(m)]
        for name, k in ACCOUNT_KINDS.items()
    }
    assert may == {
        "verified_subscription": ["draft", "publish", "broadcast"],
        "verified_service": ["draft", "publish", "broadcast"],
        "unverified": ["draft"],
        "personal": ["draft"],
        "lapsed": [],
    }
    assert [k.name for k in ACCOUNT_KINDS.values() if k.may_preview] == [
        "verified_subscription",
        "verified_service",
    ]


def test_evidence_is_written_for_a_reader_without_the_specs() -> None:
    """Warnings cite the evidence to editors, whose installed crosspost has no spec files:
    each says what the evidence is, never a path or a section to look it up in."""
    for name in NAMES:
        for limit, found in platform(name).limits.evidence.items():
            where = f"{name} {limit}: {found.source!r}"
            assert found.source and found.source == found.source.strip(), where
            assert not re.search(r"specs/|\.md\b|§", found.source), where


#: Every limit that is a number crosspost can do without (a limit that may be unknown).
OPTIONAL_NUMBERS = tuple(
    f.name for f in dataclasses.fields(Limits) if str(f.type) in ("int | None", "float | None")
)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("limit", OPTIONAL_NUMBERS)
def test_0_turns_a_limit_off_as_if_the_platform_had_none(name: str, limit: str) -> None:
    off = platform(name).with_overrides({limit: 0})
    assert getattr(off.limits, limit) is None
    assert off.limits.confirmed(limit) and off.limits.source(limit) == "set in the config"


def test_0_takes_the_byte_cap_off_the_image_policies() -> None:
    off = platform("wechat").with_overrides({"image_bytes": 0, "cover_bytes": 0})
    inline, cover = off.image_policy("inline"), off.image_policy("cover")
    assert inline.max_bytes is None and cover.max_bytes is None
    assert inline.fits(100 * MB) and inline.formats == platform("wechat").limits.image_formats
    assert not platform("wechat").image_policy("inline").fits(MB)
