"""Real documents nobody here wrote: ``render`` and ``preview`` write their files for each
of them as given (no front matter added), and list what ``check`` would refuse.

Skipped when ``../shared/corpus`` is not beside the checkout.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from crosspost.cli import main
from crosspost.errors import EXIT_OK


def corpus_documents(shared_dir: Path) -> list[Path]:
    corpus = shared_dir / "corpus"
    if not corpus.is_dir():
        pytest.skip("../shared/corpus is not there")
    return sorted(corpus.glob("*.md"))


@pytest.fixture
def isolated(tmp_path: Path) -> list[str]:
    """Flags that keep the user's own config and ledger out of the run."""
    config = tmp_path / "crosspost.toml"
    config.write_text("", "utf-8")
    return ["--config", str(config), "--state-dir", str(tmp_path / "state")]


def test_render_and_preview_write_every_corpus_document(
    shared_dir: Path, tmp_path: Path, isolated: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    documents = corpus_documents(shared_dir)
    assert documents
    for document in documents:
        out = tmp_path / document.stem
        assert main(["render", str(document), "-o", str(out), *isolated]) == EXIT_OK, document
        for name in ("wechat.html", "zhihu.html", "zhihu.md"):
            assert (out / name).stat().st_size > 0, (document, name)
        capsys.readouterr()
        assert main(["preview", str(document), "-o", str(out), *isolated]) == EXIT_OK, document
        page = (out / "preview.html").read_text("utf-8")
        _, err = capsys.readouterr()
        problems = [line for line in err.splitlines() if line.startswith(str(document) + ":")]
        # Every problem printed is listed at the top of the page, by line.
        listed = re.findall(r'<li class="(?:error|warning|info)">', page)
        assert len(listed) >= len([p for p in problems if re.match(r".*:\d+: ", p)])
        assert page.index('class="problems"') < page.index('class="columns"')
