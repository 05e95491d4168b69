"""Reading what documentation sites write in code for their highlighter
(:mod:`crosspost.issue.code_annotations`): which comments are annotations, in which
languages, which lines they mark, and what stays code. What each channel then shows is
in ``render/test_annotated_code.py``."""

from __future__ import annotations

import pytest

from crosspost.issue.code_annotations import line_marks, mintlify_title, read_annotations
from crosspost.issue.dialect import code_title, parse_document


def fence(body: str) -> tuple[str, str, tuple[str, ...]]:
    """The first fence of ``body``: its info string, code and line marks."""
    token = next(t for t in parse_document(body).tokens if t.type == "fence")
    return token.info, token.content, line_marks(token.meta)


# --- Shiki's notation, in each language's comments -----------------------------------------


@pytest.mark.parametrize(
    ("language", "written", "kept"),
    [
        ("js", "const a = 1; // [!code ++]", "const a = 1;"),
        ("ts", "const a = 1 /* [!code ++] */", "const a = 1"),
        ("jsx", "<App /> {/* [!code ++] */}", "<App />"),
        ("tsx", "<App />  // [!code ++]", "<App />"),
        ("python", "a = 1  # [!code ++]", "a = 1"),
        ("bash", "npm i shiki # [!code ++]", "npm i shiki"),
        ("yaml", "key: value # [!code ++]", "key: value"),
        ("html", "<p>hi</p> <!-- [!code ++] -->", "<p>hi</p>"),
        ("vue", "<p>{{ a }}</p> <!-- [!code ++] -->", "<p>{{ a }}</p>"),
        ("css", "color: red; /* [!code ++] */", "color: red;"),
        ("sql", "SELECT 1 -- [!code ++]", "SELECT 1"),
        ("lua", "local a = 1 -- [!code ++]", "local a = 1"),
        ("json", '"a": 1, // [!code ++]', '"a": 1,'),  # JSONC, as Shiki reads it
        ("clojure", "(def a 1) ; [!code ++]", "(def a 1)"),
        ("tex", r"\section{A} % [!code ++]", r"\section{A}"),
        ("", "anything # [!code ++]", "anything"),  # no language: any comment
        ("zig-like-unknown", "x <!-- [!code ++] -->", "x"),
    ],
)
def test_a_trailing_note_in_the_languages_comment_is_read(
    language: str, written: str, kept: str
) -> None:
    assert read_annotations(f"{written}\nnext\n", language) == (f"{kept}\nnext\n", ("added", ""))


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("python", 's = "[!code ++]"'),  # a string, not a comment
        ("python", 's = "# [!code ++]"'),  # a comment's look, inside a string
        ("python", "a = b // [!code ++]"),  # // is Python's floor division
        ("js", "const a = 1 # [!code ++]"),  # # opens no comment in JavaScript
        ("js", "const a = 1 // [!code ++] and more"),  # not at the line's end
        ("js", "const a = 1 // [!code unknown]"),  # no note Shiki knows
        ("css", "a { b: c } // [!code ++]"),  # CSS has block comments only
        ("html", "<p>x</p> // [!code ++]"),
    ],
)
def test_text_that_only_looks_like_a_note_stays_code(language: str, line: str) -> None:
    assert read_annotations(f"{line}\n", language) is None


def test_the_kinds_of_notes_and_the_marks_they_give() -> None:
    code = (
        "a // [!code --]\n"
        "b // [!code ++]\n"
        "c // [!code highlight]\n"
        "d // [!code hl]\n"
        "e // [!code focus]\n"
        "f // [!code error]\n"
        "g // [!code warning]\n"
        "h // [!code word:Hello]\n"
        "i // [!code --] [!code highlight]\n"
    )
    assert read_annotations(code, "js") == (
        "a\nb\nc\nd\ne\nf\ng\nh\ni\n",
        ("removed", "added", "marked", "marked", "marked", "marked", "marked", "", "removed"),
    )


def test_a_count_takes_that_many_lines_and_a_note_alone_marks_the_lines_after_it() -> None:
    # Shiki's v3 reading: on a line of its own the note's line is left out and its count
    # starts at the next line; at a line's end the count starts at that line.
    code = (
        "// [!code highlight:2]\n"
        "one\n"
        "two\n"
        "three // [!code ++:2]\n"
        "four\n"
        "five\n"
        "    // [!code word:x]\n"
        "six\n"
    )
    assert read_annotations(code, "ts") == (
        "one\ntwo\nthree\nfour\nfive\nsix\n",
        ("marked", "marked", "added", "added", "", ""),
    )


def test_a_comment_with_words_of_its_own_keeps_them() -> None:
    code = (
        "f() // 调用它 [!code highlight]\n"
        "g() /* note [!code ++] */\n"
        "url = 'http://a' // [!code --]\n"
    )
    assert read_annotations(code, "js") == (
        "f() // 调用它\ng() /* note */\nurl = 'http://a'\n",
        ("marked", "added", "removed"),
    )


# --- Docusaurus's magic comments --------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "opening", "closing"),
    [("js", "// ", ""), ("js", "/* ", " */"), ("jsx", "{/* ", " */}"), ("python", "# ", ""),
     ("html", "<!-- ", " -->"), ("lua", "-- ", ""), ("", "# ", "")],
)  # fmt: skip
def test_docusaurus_magic_comments_mark_lines_and_are_left_out(
    language: str, opening: str, closing: str
) -> None:
    def magic(name: str) -> str:
        return f"  {opening}{name}{closing}\n"

    code = (
        f"a\n{magic('highlight-next-line')}b\nc\n{magic('highlight-start')}d\ne\n"
        f"{magic('highlight-end')}f\n"
    )
    assert read_annotations(code, language) == (
        "a\nb\nc\nd\ne\nf\n",
        ("", "marked", "", "marked", "marked", ""),
    )


def test_only_the_magic_comments_docusaurus_ships_are_read() -> None:
    # 'This will error' and 'error-next-line' are a site's own, declared in its config,
    # which the post does not carry: they are comments like any other.
    code = "// This will error\na\n// error-next-line\nb\nc // highlight-next-line\n"
    assert read_annotations(code, "js") is None


# --- fences only -------------------------------------------------------------------------------


def test_only_fences_are_read() -> None:
    body = (
        "    indented // [!code ++]\n\n`inline // [!code ++]`\n\n```js\nfenced // [!code ++]\n```\n"
    )
    tokens = parse_document(body).tokens
    assert tokens[0].type == "code_block" and "[!code ++]" in tokens[0].content
    assert "[!code ++]" in next(t for t in tokens if t.type == "inline").content
    assert fence(body) == ("js", "fenced\n", ("added",))


def test_a_fence_with_no_diff_or_highlight_has_no_marks() -> None:
    assert fence("```js\na // [!code word:a]\n```\n") == ("js", "a\n", ())
    assert fence("```js\na\n```\n") == ("js", "a\n", ())


# --- Mintlify's title --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("info", "code", "title"),
    [
        ("json 200", "{}", "200"),
        ("bash npm", "npm i", "npm"),
        ("javascript Code Block Example", "x", "Code Block Example"),
        ('tsx "Component.tsx" twoslash lines icon="react"', "x", "Component.tsx"),
        ('typescript "server.ts - setup" expandable', "x", "server.ts - setup"),
        ("java HelloWorld.java icon=java lines theme={null}", "x", "HelloWorld.java"),
        ('js "console.log"', "console.log(1)", ""),  # Expressive Code marks that text
        ("js /log/", "console.log(1)", ""),
        ("jsx live noInline", "x", ""),  # Docusaurus's switches
        ("js showLineNumbers{10} copy", "x", ""),
        ('js title="a.js" b', "x", ""),  # titled already: code_title reads it
        ("ts [vite.config.ts]", "x", ""),
        ("python", "x", ""),
        ("{figure} a.png", "x", ""),  # MyST's directive and its argument
    ],
)
def test_mintlifys_title_after_the_language(info: str, code: str, title: str) -> None:
    assert mintlify_title(info, code) == title


def test_a_mintlify_title_is_said_as_docusaurus_says_it_for_every_channel() -> None:
    info, _, _ = fence("```bash \"npm 'i'\" lines\nnpm i\n```\n")
    assert info == "bash title=\"npm 'i'\"" and code_title(info) == "npm 'i'"
    info, _, _ = fence('```tsx "Component.tsx" twoslash\nx\n```\n')
    assert code_title(info) == "Component.tsx"


@pytest.mark.parametrize(
    ("written", "info", "title"),
    [
        ("plain text", "text", ""),  # Feishu's and Notion's: `text` showed above the code
        ("Plain Text", "text", ""),
        ("plain  text", "text", ""),
        ("visual basic", "vbnet", ""),
        ("Power Shell", "powershell", ""),
        ("LLVM IR", "llvm", ""),
        ('plain text title="hosts.txt"', 'text title="hosts.txt"', "hosts.txt"),
        ("plain text hosts.txt", 'text title="hosts.txt"', "hosts.txt"),  # Mintlify's, after it
        ("plaintext hosts.txt", 'plaintext title="hosts.txt"', "hosts.txt"),
        ("json 200", 'json title="200"', "200"),
    ],
)
def test_a_language_whose_name_holds_a_space_is_no_title(
    written: str, info: str, title: str
) -> None:
    found, _, _ = fence(f"```{written}\nx\n```\n")
    assert found == info and code_title(found) == title
