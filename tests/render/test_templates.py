"""The one Jinja2 environment: the override chain, explicit filters, autoescape, themes."""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from crosspost.errors import UsageError
from crosspost.render import templates


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def test_the_shipped_defaults_are_found_in_a_checkout() -> None:
    shipped = templates.shipped_templates_dir()
    assert (shipped / "wechat" / "article.html.j2").is_file()
    assert {"default", "grace"} <= set(templates.available_themes())


def test_one_environment_per_chain_is_built_once(tmp_path: Path) -> None:
    assert templates.environment() is templates.environment(())
    assert templates.environment([tmp_path]) is templates.environment((tmp_path,))
    assert templates.environment([tmp_path]) is not templates.environment()


def test_user_folders_come_first_and_the_defaults_fill_in(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    write(first / "x" / "a.html.j2", "first {{ name }}")
    write(second / "x" / "a.html.j2", "second {{ name }}")
    write(second / "x" / "b.html.j2", "only second")
    assert templates.render_template("x/a.html.j2", (first, second), name="甲") == "first 甲"
    assert templates.render_template("x/b.html.j2", (first, second)) == "only second"
    shipped = templates.render_template(
        "wechat/article.html.j2",
        (first,),
        content="",
        notes=[],
        references=[],
        previous=[],
        settings=None,
        issue=None,
    )
    assert shipped.strip().startswith('<section class="article">')


def test_html_templates_escape_and_markdown_templates_do_not(tmp_path: Path) -> None:
    write(tmp_path / "t.html.j2", "{{ value }}")
    write(tmp_path / "t.md.j2", "{{ value }}")
    value = "<b>a & b</b>"
    assert templates.render_template("t.html.j2", (tmp_path,), value=value) == (
        "&lt;b&gt;a &amp; b&lt;/b&gt;"
    )
    assert templates.render_template("t.md.j2", (tmp_path,), value=value) == value


def test_filters_are_registered_explicitly(tmp_path: Path) -> None:
    write(
        tmp_path / "f.html.j2",
        "{{ when | date('%Y年%m月%d日') }}|{{ t | utf8_bytes }}|{{ t | nbsp }}",
    )
    when = datetime(2026, 11, 23, 9, tzinfo=timezone(timedelta(hours=8)))
    out = templates.render_template("f.html.j2", (tmp_path,), when=when, t="中 a")
    assert out == "2026年11月23日|5|中&nbsp;a"
    assert set(templates.FILTERS) <= set(templates.environment().filters)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("{% if %}", r"broken\.html\.j2:1: template error: .*; fix the template"),
        ("\n{{ nosuch.attr }}", r"template broken\.html\.j2: 'nosuch' is undefined"),
    ],
)
def test_a_broken_user_template_is_one_line_naming_it(
    tmp_path: Path, source: str, message: str
) -> None:
    write(tmp_path / "broken.html.j2", source)
    with pytest.raises(UsageError, match=message) as caught:
        templates.render_template("broken.html.j2", (tmp_path,))
    assert "\n" not in str(caught.value)


def test_a_missing_template_names_where_it_was_looked_for(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"template 'none\.html\.j2' not found in .*templates"):
        templates.render_template("none.html.j2", (tmp_path,))


def test_themes_follow_the_chain_and_reload_when_edited(tmp_path: Path) -> None:
    assert "pygments-style" in templates.read_theme("default")
    theme = write(tmp_path / "wechat" / "themes" / "default.css", "p { color: red; }")
    assert templates.read_theme("default", (tmp_path,)) == "p { color: red; }"
    theme.write_text("p { color: blue; }", "utf-8")
    os.utime(theme, ns=(1, theme.stat().st_mtime_ns + 1_000_000))
    assert templates.read_theme("default", (tmp_path,)) == "p { color: blue; }"
    assert templates.read_theme(str(theme)) == "p { color: blue; }", "a path to a .css file"
    assert "default" in templates.available_themes((tmp_path,))


def test_an_unknown_theme_lists_the_known_ones(tmp_path: Path) -> None:
    write(tmp_path / "wechat" / "themes" / "mine.css", "")
    with pytest.raises(
        UsageError, match=r"unknown wechat theme 'x'; use one of: default, grace, mine"
    ):
        templates.read_theme("x", (tmp_path,))


@pytest.mark.parametrize("name", ["nothere.css", "themes/nothere.css", "~/nothere.css"])
def test_a_theme_given_as_a_path_that_is_not_there_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Not 'unknown wechat theme … (or add wechat/themes//tmp/x/nothere.css.css …)'."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    shown = Path(name).expanduser().absolute()
    with pytest.raises(UsageError) as caught:
        templates.read_theme(name, (tmp_path,))
    assert str(caught.value) == (
        f"theme file {shown} does not exist; check the path, or name a theme instead "
        "(such as default)"
    )


def test_a_theme_named_with_a_subfolder_is_found_in_the_template_folders(tmp_path: Path) -> None:
    write(tmp_path / "wechat" / "themes" / "brand" / "dark.css", "p { color: #111; }")
    assert "#111" in templates.read_theme("brand/dark", (tmp_path,))


def test_a_theme_that_is_not_utf8_is_one_clear_line(tmp_path: Path) -> None:
    theme = tmp_path / "wechat" / "themes" / "gbk.css"
    theme.parent.mkdir(parents=True)
    theme.write_bytes("p { font-family: 宋体; }".encode("gbk"))
    with pytest.raises(UsageError, match=r"gbk\.css: is not UTF-8 text; save it as UTF-8"):
        templates.read_theme("gbk", (tmp_path,))


def _kept(cache_home: Path) -> Path:
    """The one folder of compiled templates under ``cache_home`` (one per build)."""
    (folder,) = (cache_home / "crosspost" / "templates").iterdir()
    return folder


def test_compiled_templates_are_kept_between_runs_and_follow_edits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each ``check`` and ``render`` starts a new process: the compiled article is kept
    in the user's cache folder, and an edited template is never served stale."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "mine"
    template = write(folder / "x" / "a.html.j2", "one {{ name }}")
    assert templates._compiled_templates() is not None
    kept = _kept(tmp_path / "cache")
    for made in (kept, kept.parent, kept.parent.parent):
        assert made.stat().st_mode & 0o077 == 0  # the owner's alone: it holds code

    import jinja2

    def fresh_run() -> jinja2.Environment:  # what a new process builds
        return jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(folder)),
            bytecode_cache=templates._compiled_templates(),
        )

    assert fresh_run().get_template("x/a.html.j2").render(name="甲") == "one 甲"
    assert len(list(kept.iterdir())) == 1
    assert fresh_run().get_template("x/a.html.j2").render(name="甲") == "one 甲"
    template.write_text("two {{ name }}", "utf-8")
    assert fresh_run().get_template("x/a.html.j2").render(name="甲") == "two 甲"


def test_a_cache_folder_others_can_write_or_that_cannot_be_made_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared" / "crosspost"
    shared.mkdir(parents=True)
    shared.chmod(0o777)  # a parent others can write: they could swap the folder below
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "shared"))
    assert templates._compiled_templates() is None  # code others could plant is not run
    write(tmp_path / "a-file", "not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a-file"))
    assert templates._compiled_templates() is None


def test_a_relative_cache_home_or_no_home_never_writes_where_the_command_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert templates._compiled_templates() is not None
    assert not (tmp_path / "relative").exists()  # ignored, as the XDG rules say
    assert _kept(tmp_path / "home" / ".cache").is_dir()
    monkeypatch.setenv("HOME", "")
    monkeypatch.setattr(os.path, "expanduser", lambda path: path)  # no passwd entry either
    assert templates._compiled_templates() is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]


def test_a_new_build_compiles_afresh_in_a_folder_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The filters that compiled a template may change with crosspost while the template
    does not: each build keeps its own compiled forms."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert templates._compiled_templates() is not None
    monkeypatch.setattr(templates, "__version__", "99.0")
    assert templates._compiled_templates() is not None
    assert len(list((tmp_path / "cache" / "crosspost" / "templates").iterdir())) == 2


def test_a_damaged_cache_entry_is_compiled_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import jinja2

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    write(tmp_path / "mine" / "a.html.j2", "kept {{ name }}")

    def fresh_run() -> str:
        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(tmp_path / "mine")),
            bytecode_cache=templates._compiled_templates(),
        )
        return env.get_template("a.html.j2").render(name="乙")

    assert fresh_run() == "kept 乙"
    (entry,) = _kept(tmp_path / "cache").iterdir()
    entry.write_bytes(entry.read_bytes()[:40])  # cut short, as a full disk would leave it
    assert fresh_run() == "kept 乙"
