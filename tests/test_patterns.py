"""Patterns compiled at first use behave as compiled ones, and every one of them compiles.

A deferred pattern with a mistake would only fail when an issue first uses its construct,
in an editor's hands; importing every module and compiling every pattern found at the top
of one catches that here.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import time

import pytest

import crosspost
from crosspost.patterns import _Deferred, pattern


def test_a_deferred_pattern_answers_as_a_compiled_one() -> None:
    source, flags = r"(?P<key>\w+)\s*=\s*(\d+)", re.IGNORECASE
    deferred, compiled = pattern(source, flags), re.compile(source, flags)
    text = "width = 300, HEIGHT=200; depth"
    assert deferred.pattern == source
    assert deferred.groups == compiled.groups == 2
    assert dict(deferred.groupindex) == {"key": 1}
    assert deferred.search(text).group("key") == "width"  # type: ignore[union-attr]
    assert deferred.match("x") is None
    assert deferred.fullmatch("a=1").groups() == ("a", "1")  # type: ignore[union-attr]
    assert [m.group(2) for m in deferred.finditer(text)] == ["300", "200"]
    assert deferred.findall(text) == compiled.findall(text)
    assert deferred.sub(r"\g<key>:\2", text) == compiled.sub(r"\g<key>:\2", text)
    assert deferred.subn("#", text) == compiled.subn("#", text)
    assert deferred.split(text) == compiled.split(text)


def test_after_its_first_use_a_pattern_hands_out_the_compiled_methods() -> None:
    deferred = pattern(rb"^---\r?$")
    assert "match" not in vars(deferred)  # nothing compiled at import
    assert deferred.match(b"---")
    assert vars(deferred)["search"] == re.compile(rb"^---\r?$").search
    assert deferred.search(b"a\n---") is None
    assert repr(deferred) == "pattern(b'^---\\\\r?$')"


def test_every_pattern_named_at_the_top_of_a_module_compiles() -> None:
    found = 0
    for module_info in pkgutil.walk_packages(crosspost.__path__, "crosspost."):
        if module_info.name == "crosspost.__main__":  # importing it runs the program
            continue
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if isinstance(value, _Deferred):
                try:
                    value.search(value.pattern[:0])  # an empty str or bytes, as it reads
                except re.error as error:  # pragma: no cover - the failure
                    raise AssertionError(f"{module_info.name}.{name}: {error}") from error
                found += 1
    assert found >= 150  # the parser's, the checks', the renderers'


@pytest.mark.parametrize(
    ("module", "name", "line"),
    [
        # An attribute list never closed, and brackets and braces in their thousands.
        ("crosspost.issue.pandoc_spans", "_WRAPPED_LIST", "{" + "a\n" * 5_000),
        ("crosspost.issue.pandoc_spans", "_SPAN_LIST", "{" + ".a " * 3_333 + "{"),
        ("crosspost.issue.merge_tags", "_ANY_TAG", "%%a" * 3_333 + "*|A" * 3_333),
        ("crosspost.issue.merge_tags", "_ANY_TAG", "%%" + "a" * 10_000),
        ("crosspost.issue.private_notes", "_COMMENT", "%%a" * 5_000),
        ("crosspost.issue.dialect", "_WRAPPED_NUMBER_SIGN", "\n# 1 2 3" * 1_500),
        ("crosspost.issue.tracking_pixels", "_RAW_SIZE", "<img " + "width= " * 1_500),
        ("crosspost.issue.blocks", "IMG_TAG", "<img " * 2_000),
        # iA Writer's content blocks, Bear's marks, Notion's export, Quarto, Hexo, Typora.
        ("crosspost.issue.attachments", "CONTENT_BLOCK", "/" + "a." * 5_000),
        ("crosspost.issue.attachments", "CONTENT_BLOCK", "/a.png " + '"' * 10_000),
        ("crosspost.issue.attachments", "BEAR_ATTACHMENT", "[image:" * 1_400),
        ("crosspost.issue.bear", "_HIGHLIGHT", "::a" * 3_333),
        ("crosspost.issue.bear", "_HIGHLIGHT", "::" + "a " * 5_000),
        ("crosspost.issue.bear", "_TAG_LINE", "#a b " * 2_000 + "x"),
        ("crosspost.issue.bear", "_TAG_LINE", "#" + "a" * 10_000 + " x"),
        ("crosspost.issue.notion", "_ICON", "<img src='/icons/" + "a" * 10_000),
        ("crosspost.issue.notion", "_ICON", "<img " * 2_000),
        ("crosspost.issue.notion", "_PROPERTY", "a " * 5_000),
        ("crosspost.issue.notion", "_PROPERTY", "a-" * 5_000),
        ("crosspost.issue.dialect", "_CHUNK_OPTION", "#| " + "a " * 5_000),
        ("crosspost.issue.dialect", "_BRACE_OPTION", "include= " * 1_100),
        ("crosspost.issue.dialect", "_LOOSE_TILDE", " " * 10_000 + "a"),
        ("crosspost.issue.yuque", "_FORMULA_PICTURE", "https://a/" + "/yuque/__latex/" * 700),
        ("crosspost.issue.tracked_changes", "_CHANGE", '<span class="deletion" ' * 400),
        ("crosspost.issue.bear", "_BEARS_HAND", "#a " * 3_333 + "x"),
        ("crosspost.issue.bear", "_BEARS_HAND", "#a " + "b " * 5_000),
        ("crosspost.issue.dialect", "_STYLED", "<a " * 3_333),
        ("crosspost.issue.dialect", "_NOTE_TARGET", "#fnref" * 1_600),
        ("crosspost.issue.bear", "_BEARS_HAND", " #a b" * 2_000),
        ("crosspost.issue.merge_tags", "PERCENT_TAG", "%%" + "aA" * 5_000),
        # Empty anchors, Zhihu's formula pictures, indented HTML (a sweep of exports).
        ("crosspost.issue.empty_anchors", "_EMPTY_ELEMENT", "<span " * 2_000),
        ("crosspost.issue.empty_anchors", "_EMPTY_ELEMENT", "<a id=x>" + " " * 10_000),
        ("crosspost.issue.empty_anchors", "_PLACE", " id " * 2_500),
        ("crosspost.issue.empty_anchors", "_EMPTIED_LINES", "\n" + " " * 10_000),
        ("crosspost.issue.zhihu_formulas", "_EQUATION", "//zhihu.com/equation?" * 450),
        ("crosspost.issue.blocks", "IMG_TAG", "<img " + "a" * 10_000),
        ("crosspost.issue.blocks", "IMG_SOURCE", " src=" * 2_000),
        ("crosspost.issue.dialect", "_TAG", "<a" + "/" * 10_000),
        ("crosspost.issue.dialect", "_TAG", "<a " * 3_333),
        ("crosspost.issue.dialect", "_TAG_LINE", " " * 10_000 + "<"),
        ("crosspost.issue.pandoc_tables", "_CAPTION_LABEL", "{#" + "a" * 10_000),
        ("crosspost.issue.pandoc_tables", "_CAPTION_LABEL", "{#a " + " " * 10_000 + "x"),
        ("crosspost.issue.template_tags", "_TIMELINE_NODE", "<!-- timeline " * 700),
        ("crosspost.issue.template_tags", "_CLASSED_LABEL", "a" * 10_000),
        ("crosspost.check.source", "_BARE_REFERENCE", "@a" * 5_000),
        ("crosspost.check.source", "_BARE_REFERENCE", "@fig-" + "a-" * 5_000 + "@"),
        ("crosspost.images.sources", "_TYPORA_ROOT", "typora-root-url: " + " " * 10_000),
        # Converted notes, Roam, task states, page breaks (a sweep of exports).
        ("crosspost.issue.converted_notes", "_REFERENCE", "<sup " + "a" * 10_000),
        ("crosspost.issue.converted_notes", "_DATA", " data-url='" * 1_000),
        ("crosspost.issue.converted_notes", "_MARK", "[\\[1\\]](#footnote-" * 500),
        ("crosspost.issue.converted_notes", "_NOTE", '1. <a id="footnote-1"></a>' + "[" * 10_000),
        ("crosspost.issue.converted_notes", "_REDIRECT", "https://link.zhihu.com/?target=" * 300),
        ("crosspost.issue.roam", "_BLOCK_REFERENCE", "((" + "a" * 10_000),
        ("crosspost.issue.roam", "_ALIAS", "[" + "a" * 10_000 + "]([[b"),
        ("crosspost.issue.roam", "_ALIAS", "[a](((" * 1_600),
        ("crosspost.issue.roam", "_MACRO", "{{[[" + "a" * 10_000),
        ("crosspost.issue.roam", "_HIGHLIGHT", "^^a" * 3_333),
        ("crosspost.issue.roam", "_HIGHLIGHT", "^^" + "a " * 5_000),
        ("crosspost.issue.roam", "_ROAMS_HAND", "{{[" * 3_333),
        ("crosspost.issue.roam", "_BLOCK_REFERENCE", "((" * 5_000),
        ("crosspost.issue.task_states", "_BOX", "{{[[TODO]]" * 1_000),
        ("crosspost.issue.dialect", "_PAGE_BREAK", " " * 10_000 + "\\newpagex"),
        ("crosspost.issue.dialect", "_PAGE_BREAK", "{{<" + " " * 10_000 + "pagebreak"),
        # Logseq's pages, Quarto's cross references (a sweep of exported documents).
        ("crosspost.issue.logseq", "_MACRO", "{{a " * 2_500),
        ("crosspost.issue.logseq", "_MACRO", "{{a" + " " * 10_000),
        ("crosspost.issue.logseq", "_REFERENCE", "[a](((" * 1_600),
        ("crosspost.issue.logseq", "_REFERENCE", "[" + "a" * 10_000 + "]((("),
        ("crosspost.issue.logseq", "_SIZE", "){:height 1, " * 800),
        ("crosspost.issue.logseq", "_PLANNING", "SCHEDULED: <2024-05-03" + " " * 10_000),
        ("crosspost.issue.logseq", "LOGSEQS_HAND", "- " * 5_000 + "id::"),
        ("crosspost.issue.task_states", "_LOGSEQ_STATE", "TODO [#A]" + " " * 10_000),
        ("crosspost.check.source", "_CITED_KEY", "-@a" * 3_333),
        # CSDN's failed pictures, Feishu's fences, Logseq's Org blocks, Roam's embeds.
        ("crosspost.issue.csdn", "_IN_PLACE", "![外链图片转存失败" * 1_000),
        ("crosspost.issue.csdn", "_IN_PLACE", "[外链图片转存失败(img-a)(" + "a" * 10_000),
        ("crosspost.issue.csdn", "_AS_ALT", "![外链图片转存中](" + " " * 10_000),
        ("crosspost.issue.dialect", "_SPACED_LANGUAGE", "plain" + " " * 10_000 + "texts"),
        ("crosspost.issue.org_blocks", "_OPENING", "#+begin_a" + " " * 10_000 + "b"),
        ("crosspost.issue.roam", "_EMBEDDED", "[[" + "a" * 10_000),
    ],
)
def test_a_new_pattern_stays_fast_on_a_line_made_to_trip_it(
    module: str, name: str, line: str
) -> None:
    # Nested quantifiers over the same characters try every cut of a line that never
    # matches: minutes for a few thousand characters. These read each character a few
    # times at most, so 10,000 of them take milliseconds.
    found = getattr(importlib.import_module(module), name)
    started = time.perf_counter()
    for at in range(0, len(line), 50):  # a search from many starts, as sub and finditer do
        found.match(line, at)
    list(found.finditer(line))
    assert time.perf_counter() - started < 1.0
