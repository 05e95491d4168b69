"""WeChat output looks like the theme: Chromium computes both and every style must match.

(a) the themed article before inlining (:func:`crosspost.render.wechat.document.styled_document`:
classes plus the theme's ``<style>``) and (b) the final WeChat HTML with every ``<style>``,
``class`` and ``id`` removed, as WeChat does, are loaded at 375 px. The elements under the
article's root ``<section>`` are paired by document order. Inlining and the clean-up after
it may remove elements (an external ``<a>`` they unwrap, forbidden tags), so pairing
follows the longest common run of tag names (``difflib``) and compares the elements both
have, and reports an element found on one side only. On the example, the corpus and
``fixtures/everything.md`` both sides have the same tag sequence, so every element is
compared.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import lxml.html
import pytest
from lxml import etree

from crosspost.issue.loader import load_issue
from crosspost.issue.model import Issue
from crosspost.render.rendered import RenderContext
from crosspost.render.wechat import document as wechat

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO / ".." / "shared"
CORPUS = sorted((SHARED / "corpus").glob("*.md")) if (SHARED / "corpus").is_dir() else []
EXAMPLE = REPO / "examples" / "ai-systems-48" / "issue.md"
EVERYTHING = Path(__file__).parent / "fixtures" / "everything.md"
PHONE_WIDTH = 375
SIDES = ("top", "right", "bottom", "left")

PROPERTIES = (
    "color", "background-color", "font-size", "font-weight", "font-style", "font-family",
    "line-height", "margin-top", "margin-right", "margin-bottom", "margin-left",
    "padding-top", "padding-right", "padding-bottom", "padding-left",
    *(f"border-{side}-{part}" for side in SIDES for part in ("width", "style", "color")),
    "text-align", "white-space", "list-style-type", "display",
    "float", "border-spacing", "border-collapse", "vertical-align",
)  # fmt: skip

#: Runs in the page: every element of the article root in document order, with a tag path
#: and the computed value of each property.
COLLECT = """(properties) => {
  const root = document.body.firstElementChild;
  const path = (el) => {
    const parts = [];
    for (let node = el; node && node !== document.body; node = node.parentElement) {
      const parent = node.parentElement;
      const index = parent ? [...parent.children].indexOf(node) + 1 : 1;
      parts.unshift(`${node.tagName.toLowerCase()}[${index}]`);
    }
    return parts.join(">");
  };
  return [root, ...root.querySelectorAll("*")].map((el) => {
    const style = getComputedStyle(el);
    return {tag: el.tagName.toLowerCase(), path: path(el),
            styles: Object.fromEntries(properties.map((p) => [p, style.getPropertyValue(p)]))};
  });
}"""


@dataclass(frozen=True)
class Difference:
    """One property of one element that differs between the theme and the WeChat output."""

    path: str
    property: str
    before: str
    after: str

    def __str__(self) -> str:
        return f"{self.path}: {self.property} {self.before!r} -> {self.after!r}"


def issue_from_corpus(path: Path) -> Issue:
    """A corpus document as an issue: its body under a front matter with a title."""
    text = path.read_text("utf-8")
    if text.startswith("---\n"):
        text = text.split("\n---\n", 1)[1]
    return Issue(path=path, id=path.stem, title="测试一期", body=text, body_line=1)


def as_wechat_shows_it(body: str) -> str:
    """The final HTML as WeChat keeps it: no ``<style>``, no ``class``, no ``id``."""
    fragment = lxml.html.fragment_fromstring(body, create_parent="div")
    etree.strip_elements(fragment, "style", with_tail=False)
    for element in fragment.iter():
        for name in ("class", "id"):
            element.attrib.pop(name, None)
    inner = "".join(lxml.html.tostring(child, encoding="unicode") for child in fragment)
    return f'<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>{inner}</body></html>'


def computed(browser: Browser, document: str) -> list[dict[str, Any]]:
    """Every article element's computed styles, as Chromium lays the page out at 375 px."""
    from crosspost.preview.screenshot import new_page

    page = new_page(browser, PHONE_WIDTH)
    try:
        page.set_content(document, wait_until="load")
        result: list[dict[str, Any]] = page.evaluate(COLLECT, list(PROPERTIES))
        return result
    finally:
        page.close()


def compare(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[Difference]:
    """Differences element by element, pairing by the longest common tag sequence."""
    matcher = difflib.SequenceMatcher(
        None, [e["tag"] for e in before], [e["tag"] for e in after], autojunk=False
    )
    differences: list[Difference] = []
    for i, j, size in matcher.get_matching_blocks():
        for old, new in zip(before[i : i + size], after[j : j + size], strict=True):
            for name in PROPERTIES:
                if old["styles"][name] != new["styles"][name]:
                    differences.append(
                        Difference(new["path"], name, old["styles"][name], new["styles"][name])
                    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "insert"):  # the output gained elements the theme never styled
            differences.extend(
                Difference(e["path"], "element", "(absent)", e["tag"]) for e in after[j1:j2]
            )
        if tag == "replace":
            differences.extend(
                Difference(e["path"], "element", e["tag"], "(absent)") for e in before[i1:i2]
            )
    return differences


def fidelity(browser: Browser, issue: Issue, theme: str) -> tuple[int, list[Difference]]:
    """(elements compared, differences) for one issue in one theme."""
    context = RenderContext(theme=theme)
    before = computed(browser, wechat.styled_document(issue, context))
    after = computed(browser, as_wechat_shows_it(wechat.render(issue, context).body))
    return len(before), compare(before, after)


def assert_same_look(browser: Browser, issue: Issue, theme: str = "default") -> None:
    count, differences = fidelity(browser, issue, theme)
    assert count > 3, "the article root has almost no elements; the page did not load"
    report = "\n".join(str(d) for d in differences[:80])
    assert not differences, f"{len(differences)} style differences in {issue.path}:\n{report}"


def test_the_example_looks_the_same_after_inlining(browser: Browser) -> None:
    if not EXAMPLE.is_file():
        pytest.skip("examples/ai-systems-48/issue.md is not there")
    assert_same_look(browser, load_issue(EXAMPLE))


@pytest.mark.parametrize("theme", ["default", "grace"])
def test_a_document_with_every_construct_looks_the_same(browser: Browser, theme: str) -> None:
    assert_same_look(browser, load_issue(EVERYTHING), theme)


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_every_corpus_document_looks_the_same(browser: Browser, path: Path) -> None:
    assert_same_look(browser, issue_from_corpus(path))


def test_the_corpus_is_there_or_skipped() -> None:
    if not CORPUS:
        pytest.skip("../shared/corpus is not beside this checkout")
    assert len(CORPUS) >= 4


# --- the test of the test ----------------------------------------------------------


def test_a_stripped_inline_declaration_is_named_element_and_property(browser: Browser) -> None:
    issue = load_issue(EVERYTHING)
    context = RenderContext()
    body = wechat.render(issue, context).body
    fragment = lxml.html.fragment_fromstring(body, create_parent="div")
    heading = next(fragment.iter("h2"))
    style = heading.get("style", "")
    kept = [d for d in style.split(";") if d.strip() and not d.strip().startswith("color:")]
    assert len(kept) < len([d for d in style.split(";") if d.strip()]), style
    heading.set("style", ";".join(kept))
    broken = "".join(lxml.html.tostring(child, encoding="unicode") for child in fragment)
    before = computed(browser, wechat.styled_document(issue, context))
    after = computed(browser, as_wechat_shows_it(broken))
    found = compare(before, after)
    assert found and all(d.path.rsplit(">", 1)[-1].startswith("h2[") for d in found)
    # The borders' colour follows ``color`` unless the theme sets its own.
    assert "color" in {d.property for d in found}
    assert {d.property for d in found} <= {"color"} | {f"border-{s}-color" for s in SIDES}


def test_a_rule_left_only_in_the_stylesheet_is_found(browser: Browser) -> None:
    issue = load_issue(EVERYTHING)
    context = RenderContext()
    styled = wechat.styled_document(issue, context).replace(
        "</style>", "blockquote{padding-left:33px}</style>", 1
    )
    before = computed(browser, styled)
    after = computed(browser, as_wechat_shows_it(wechat.render(issue, context).body))
    found = compare(before, after)
    assert found and {d.property for d in found} == {"padding-left"}
    assert all("blockquote" in d.path.rsplit(">", 1)[-1] for d in found)
    assert "33px" in str(found[0])
