"""Code written for a documentation site, as a reader of each channel sees it.

Sites draw Shiki's ``// [!code ++]`` notes and Docusaurus's magic comments and leave them
out of the code; crosspost showed them as code, so a reader copying a block got them
with it, and a diff read as two versions of every changed line. Each case asserts the
lines a reader sees on WeChat (text, and the line's background and sign colour), in
Zhihu's HTML and in Zhihu's Markdown.
"""

from __future__ import annotations

import html
from pathlib import Path

import lxml.html
import pytest

from crosspost.issue.model import Issue
from crosspost.render.rendered import RenderContext, Rendered, render

#: The default theme's Pygments style (friendly): its diff colours, as a ```diff block's.
REMOVED = "A00000"
ADDED = "00A000"
MARKED = "rgba(128,128,128,.13)"


def rendered(body: str, channel: str, theme: str = "default") -> Rendered:
    issue = Issue(path=Path("/issues/t/issue.md"), id="t", title="t", body=body, body_line=1)
    return render(issue, channel, RenderContext(theme=theme))


def wechat_lines(body: str, theme: str = "default") -> list[tuple[str, str, str]]:
    """Each line of the first code block on WeChat: its text, its background (``""``:
    the block's), the style of its diff sign (``""``: none)."""
    page = lxml.html.fragment_fromstring(rendered(body, "wechat", theme).body, "div")
    wrapper = page.find(".//pre/code/span")
    assert wrapper is not None
    lines = wrapper.findall("span[@style]")
    if not any(line.get("style", "").startswith("display:block") for line in lines):
        text = lxml.html.tostring(wrapper, encoding="unicode")
        return [(lxml.html.fromstring(f"<p>{part}</p>").text_content(), "", "")
                for part in text.split("<br>")]  # fmt: skip
    found = []
    for line in lines:
        style = line.get("style", "")
        background = style.split("background:")[1] if "background:" in style else ""
        sign = line.find("span")
        signed = sign is not None and sign.text in ("+", "-") and not (line.text or "")
        colour = (sign.get("style") or "") if sign is not None and signed else ""
        found.append((line.text_content().replace("\xa0", " "), background, colour))
    return found


def zhihu_code(body: str) -> tuple[str, str]:
    """The first code block in Zhihu's HTML (unescaped) and the whole Markdown."""
    out = rendered(body, "zhihu")
    code = out.body.split("<pre", 1)[1].split(">", 1)[1].split("</pre>", 1)[0]
    return html.unescape(code), out.files["zhihu.md"]


DIFF = (
    "```js\n"
    "import { a } from './a' // [!code --]\n"
    "import { b } from './b' // [!code ++]\n"
    "\n"
    "export default b\n"
    "```\n"
)


def test_shikis_diff_shows_removed_and_added_lines_on_both_channels() -> None:
    assert wechat_lines(DIFF) == [
        ("- import { a } from './a'", "rgba(160,0,0,.15)", f"color:#{REMOVED}"),
        ("+ import { b } from './b'", "rgba(0,160,0,.15)", f"color:#{ADDED}"),
        ("", "", ""),
        ("  export default b", "", ""),
    ]
    code, markdown = zhihu_code(DIFF)
    diff = "- import { a } from './a'\n+ import { b } from './b'\n\n  export default b"
    assert code == diff
    assert f"```javascript\n{diff}\n```" in markdown
    assert "[!code" not in markdown


@pytest.mark.parametrize(
    ("theme", "removed", "added"),
    [("default", "160,0,0", "0,160,0"), ("grace", "224,108,117", "152,195,121")],
)
def test_each_theme_tints_a_diff_in_its_own_diff_colours(
    theme: str, removed: str, added: str
) -> None:
    # The colours a ```diff block's lines take in the theme's Pygments style.
    lines = wechat_lines(DIFF, theme)
    assert lines[0][1] == f"rgba({removed},.15)" and lines[1][1] == f"rgba({added},.15)"


HIGHLIGHTS = (
    "```ts\n"
    "// [!code highlight:2]\n"
    "const a = 1\n"
    "const b = 2\n"
    "const c = 3 // [!code focus]\n"
    "const d = 4 // [!code error]\n"
    "const e = 5 // [!code warning]\n"
    "const f = a // [!code word:a]\n"
    "```\n"
)


def test_highlighted_lines_are_tinted_on_wechat_and_plain_on_zhihu() -> None:
    plain = ["const a = 1", "const b = 2", "const c = 3", "const d = 4", "const e = 5",
             "const f = a"]  # fmt: skip
    assert wechat_lines(HIGHLIGHTS) == [
        *((line, MARKED, "") for line in plain[:5]),
        ("const f = a", "", ""),
    ]
    code, markdown = zhihu_code(HIGHLIGHTS)
    assert code == "\n".join(plain)
    assert "```typescript\n" + "\n".join(plain) + "\n```" in markdown


DOCUSAURUS = (
    "```python\n"
    "# highlight-next-line\n"
    "import os\n"
    "\n"
    "# highlight-start\n"
    "def main():\n"
    '    print("# highlight-next-line")\n'
    "# highlight-end\n"
    "```\n\n"
    "```jsx\n"
    "<App>\n"
    "  {/* highlight-next-line */}\n"
    "  <Hello />\n"
    "</App>\n"
    "```\n"
)


def test_docusaurus_magic_comments_are_left_out_and_their_lines_tinted_on_wechat() -> None:
    assert wechat_lines(DOCUSAURUS) == [
        ("import os", MARKED, ""),
        ("", "", ""),
        ("def main():", MARKED, ""),
        ('    print("# highlight-next-line")', MARKED, ""),
    ]
    out = rendered(DOCUSAURUS, "zhihu")
    assert out.body == (
        '<pre lang="python">import os\n\ndef main():\n'
        "    print(&quot;# highlight-next-line&quot;)</pre>"
        '<pre lang="jsx">&lt;App&gt;\n  &lt;Hello /&gt;\n&lt;/App&gt;</pre>'
    )
    assert "{/*" not in out.files["zhihu.md"] and "# highlight-start" not in out.files["zhihu.md"]


@pytest.mark.parametrize(
    ("info", "title"),
    [
        ("json 200", "200"),
        ("bash npm", "npm"),
        ('tsx "Component.tsx" twoslash lines icon="react"', "Component.tsx"),
        ('js title="src/index.js"', "src/index.js"),  # Docusaurus, Expressive Code
    ],
)
def test_a_mintlify_title_shows_above_the_code_as_a_file_name_does(info: str, title: str) -> None:
    body = f"```{info}\nconst ok = true\n```\n"
    wechat = rendered(body, "wechat").body
    assert f">{title}</section><pre" in wechat
    assert info.split()[1] not in wechat.split("<pre", 1)[1]  # nothing of it in the code
    zhihu = rendered(body, "zhihu")
    assert f"<p><code>{title}</code></p><pre" in zhihu.body
    assert f"`{title}`\n\n```" in zhihu.files["zhihu.md"]


def test_a_quoted_word_the_code_holds_marks_it_and_is_no_title() -> None:
    # Expressive Code's text marker: ```js "console.log" marks the words in the code.
    body = '```js "console.log"\nconsole.log(1)\n```\n'
    assert "</section><pre" not in rendered(body, "wechat").body
    assert "<p><code>" not in rendered(body, "zhihu").body


@pytest.mark.parametrize(
    "body",
    [
        '```python\ns = "[!code ++]"  # a string, and its comment\n```\n',
        "```js\nconst a = 1 # [!code ++]\n```\n",
        "    indented // [!code ++]\n",
        "Inline `a // [!code ++]` code.\n",
    ],
)
def test_text_that_is_no_annotation_shows_as_written_on_both_channels(body: str) -> None:
    for channel in ("wechat", "zhihu"):
        out = rendered(body, channel)
        text = lxml.html.fromstring(f"<div>{out.body}</div>").text_content()
        assert "[!code ++]" in text.replace("\xa0", " "), channel
        assert "display:block;background" not in out.body
    assert "[!code ++]" in rendered(body, "zhihu").files["zhihu.md"]
