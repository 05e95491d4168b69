"""The one Jinja2 environment every renderer and the preview use (STYLE habit 13).

Templates and CSS themes are looked up through one override chain: the user's template
folders first (``RenderContext.template_dirs``), the shipped defaults last. A user who
wants a different WeChat layout copies ``wechat/article.html.j2`` into their own folder
and edits it; everything they did not copy keeps coming from the defaults.

The shipped defaults live at the repository's top-level ``templates/`` (where editors
look for them) and are copied into the wheel as ``crosspost/templates`` by ``setup.py``,
so an installed crosspost finds them without the checkout.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from crosspost import __version__
from crosspost.config.cache import private_cache
from crosspost.config.sources import theme_file, theme_file_problem
from crosspost.errors import UsageError

#: Template names ending like this are HTML and get autoescaping; ``*.md.j2`` does not.
HTML_EXTENSIONS: tuple[str, ...] = ("html", "htm", "xml", "html.j2", "htm.j2", "xml.j2")


def shipped_templates_dir() -> Path:
    """The default templates: inside the installed package, else the checkout's ``templates/``."""
    installed = Path(__file__).resolve().parents[1] / "templates"
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parents[3] / "templates"


def search_path(template_dirs: Iterable[Path | str] = ()) -> tuple[Path, ...]:
    """The override chain: the user's folders in the order given, then the shipped defaults."""
    return (*(Path(folder) for folder in template_dirs), shipped_templates_dir())


# --- filters (registered explicitly; add one line here for a new one) ---------------


def _date(value: date | datetime | str | None, format: str = "%Y-%m-%d") -> str:
    """``{{ issue.publish_at | date("%Y年%m月%d日") }}``; text passes through unchanged."""
    if value is None:
        return ""
    if isinstance(value, (date, datetime)):
        return value.strftime(format)
    return str(value)


def _utf8_bytes(value: object) -> int:
    """How many UTF-8 bytes a text takes (WeChat counts some limits in bytes)."""
    return len(str(value).encode("utf-8"))


def _nbsp(value: object) -> Markup:
    """Spaces as ``&nbsp;`` (WeChat collapses ordinary spaces)."""
    return Markup(Markup.escape(str(value)).replace(" ", Markup("&nbsp;")))


FILTERS: Mapping[str, Callable[..., Any]] = {
    "date": _date,
    "utf8_bytes": _utf8_bytes,
    "nbsp": _nbsp,
}


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Templates compiled once and kept in the user's cache folder between runs.

    Jinja2 turns a template into Python source and compiles it on every start: ~5 ms for
    the WeChat article, paid by each ``check`` and ``render`` an editor runs between
    edits. Kept compiled, it loads in ~0.3 ms; Jinja2 checks each entry against the
    template's current text, so an edited template is compiled afresh. A cache that
    cannot be read or written costs that time again, never a render."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # a damaged entry (pickle, marshal, I/O): compile the template
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def _compiled_templates() -> jinja2.BytecodeCache | None:
    """The cache of compiled templates (:func:`crosspost.config.cache.private_cache`), or
    ``None`` where none can be kept safely. A folder per crosspost build: a template's
    compiled form also depends on the filters and Jinja2 that compiled it, which an
    upgrade may change while the template stays the same."""
    folder = private_cache("templates", _build_key())
    return None if folder is None else _CompiledTemplates(str(folder))


def _build_key() -> str:
    """What a compiled template depends on besides its text: crosspost's filters (this
    file), its version, and Jinja2's, as a short folder name."""
    from hashlib import sha256

    try:
        source = Path(__file__).read_bytes()
    except OSError:
        source = b""
    built = f"{__version__} {jinja2.__version__}".encode() + source
    return sha256(built).hexdigest()[:16]


@functools.lru_cache(maxsize=16)
def _environment(chain: tuple[Path, ...]) -> jinja2.Environment:
    env = jinja2.Environment(
        bytecode_cache=_compiled_templates(),
        loader=jinja2.FileSystemLoader([str(folder) for folder in chain]),
        autoescape=jinja2.select_autoescape(
            enabled_extensions=HTML_EXTENSIONS, default_for_string=True, default=False
        ),
        # Templates are laid out for people to read; block tags leave no blank lines.
        trim_blocks=True,
        lstrip_blocks=True,
        # A typo in a template variable is an error, not an empty string in a post.
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(FILTERS)
    return env


def environment(template_dirs: Iterable[Path | str] = ()) -> jinja2.Environment:
    """The Jinja2 environment for this override chain (built once per chain, then cached)."""
    return _environment(search_path(template_dirs))


def render_template(name: str, template_dirs: Iterable[Path | str] = (), /, **context: Any) -> str:
    """Render template ``name`` (e.g. ``"wechat/article.html.j2"``) through the chain.

    A broken user template is bad input, not a bug: it becomes one :class:`UsageError`
    line naming the template file and line.
    """
    env = environment(template_dirs)
    try:
        return env.get_template(name).render(**context)
    except jinja2.TemplateSyntaxError as error:
        where = f"{error.filename or name}:{error.lineno}"
        raise UsageError(f"{where}: template error: {error.message}; fix the template") from None
    except jinja2.TemplateNotFound as error:
        folders = ", ".join(str(folder) for folder in search_path(template_dirs))
        raise UsageError(
            f"template {error.name!r} not found in {folders}; reinstall crosspost or add it"
        ) from None
    except jinja2.UndefinedError as error:
        raise UsageError(
            f"template {name}: {error.message}; use only the variables crosspost passes"
        ) from None


# --- themes -----------------------------------------------------------------------


def theme_path(
    name: str, template_dirs: Iterable[Path | str] = (), channel: str = "wechat"
) -> Path:
    """The CSS file of theme ``name`` for ``channel``: ``<dir>/<channel>/themes/<name>.css``,
    first match along the chain. ``name`` may also be a path to a CSS file (it ends in
    ``.css`` or holds a ``/``), which must then be there."""
    direct = theme_file(name)
    if direct is not None:
        problem = theme_file_problem(direct)
        if problem:
            raise UsageError(problem)
        return direct
    chain = search_path(template_dirs)
    for folder in chain:
        candidate = folder / channel / "themes" / f"{name}.css"
        if candidate.is_file():
            return candidate
    known = ", ".join(available_themes(template_dirs, channel)) or "none"
    raise UsageError(
        f"unknown {channel} theme {name!r}; use one of: {known} "
        f"(or add {channel}/themes/{name}.css to your template folder)"
    )


def available_themes(
    template_dirs: Iterable[Path | str] = (), channel: str = "wechat"
) -> list[str]:
    """Every theme name the chain offers for ``channel``, sorted."""
    names: set[str] = set()
    for folder in search_path(template_dirs):
        themes = folder / channel / "themes"
        if themes.is_dir():
            names.update(path.stem for path in themes.glob("*.css"))
    return sorted(names)


@functools.lru_cache(maxsize=32)
def _read_css(path: Path, mtime_ns: int) -> str:
    try:
        return path.read_text("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: is not UTF-8 text; save it as UTF-8") from None


def read_shared(relative: str, template_dirs: Iterable[Path | str] = ()) -> str:
    """The text of the first ``relative`` file along the chain (e.g. ``wechat/base.css``),
    or "" when no folder has one; cached until the file changes."""
    for folder in search_path(template_dirs):
        path = folder / relative
        if path.is_file():
            return _read_css(path, path.stat().st_mtime_ns)
    return ""


def read_theme(name: str, template_dirs: Iterable[Path | str] = (), channel: str = "wechat") -> str:
    """The CSS text of theme ``name`` (cached until the file changes)."""
    path = theme_path(name, template_dirs, channel)
    return _read_css(path, path.stat().st_mtime_ns)
