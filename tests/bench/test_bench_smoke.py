"""The benchmark scripts run on tiny inputs and print their tables.

Benchmarks are never pass/fail on speed: these tests only prove that ``python bench/…``
still works after a change elsewhere (a renamed option, a moved function), and that what
it prints is the table a reader of bench/README.md expects. They run no latency (no test
waits): the publish benchmark is driven with 0 ms, which still publishes for real to a
sandbox and counts every request.
"""

from __future__ import annotations

import contextlib
import gc
import os
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench"

pytestmark = pytest.mark.slow


def bench(script: str, *args: str) -> str:
    """Run one benchmark script as a user would; its standard output."""
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_publish_benchmark_prints_the_bound_the_rounds_spent_and_the_request_economy() -> None:
    out = bench(
        "bench_publish.py", "--images", "3", "--latency", "0", "--repeat", "1", "--profile", "5",
    )  # fmt: skip
    assert "- zhihu (7 rounds): E1 GET /api/v4/me → I1 POST /images ×4" in out
    assert "- wechat (7 rounds): T POST /cgi-bin/stable_token" in out
    assert "| protocol bound (7 rounds × 0 ms) |" in out
    assert "| CLI, process start to exit, no poll pauses |" in out
    assert "WeChat's polling wait (CLI with pauses − CLI without, medians):" in out
    assert "| `wechat POST /cgi-bin/draft/add` | 1 |" in out
    assert "| `zhihu POST /api/v4/content/publish` | 1 |" in out
    # A second publish of the same issue sends nothing; a reusing issue uploads two images.
    assert "| the same issue again | 0 | 0 | 0 | 0 | unchanged, unchanged |" in out
    assert "| second issue reusing 1 of its 3 images (same cover) |" in out
    assert "SUMMARY: issue reusing 1 of 3 images: uploads WeChat, Zhihu | 2, 2 | 2, 2 | met" in out
    assert "on the stack  crosspost function" in out


def _open_files() -> list[str]:
    """What this process holds open (sockets, pipes, files), by ``/proc/self/fd``."""
    held = []
    for fd in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):  # the listing's own descriptor, closed since
            held.append(os.readlink(fd))
    return sorted(held)


def test_a_publish_rig_leaves_nothing_open_behind_it(tmp_path: Path) -> None:
    """A rig's pipes, ledger, sockets and threads end with it: a benchmark runs many rigs in
    one process, and what one leaves open (a ledger connection on a deleted folder, a
    thread still at work) must not meet the next one's fresh ledger."""
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("needs /proc")
    sys.path.insert(0, str(BENCH))
    from issue_factory import write_issue
    from publish_world import rig

    issue = write_issue(tmp_path / "issue", images=range(1, 2))
    with rig(0) as world:
        world.publish(issue)  # the first publish of a process imports what it needs
    gc.collect()
    files, threads = _open_files(), threading.active_count()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        with rig(0) as world:
            world.publish(issue)
            folder = world.home
        gc.collect()
    assert [str(w.message) for w in caught if w.category is ResourceWarning] == []
    assert _open_files() == files
    assert not [f for f in files if str(folder) in f]
    assert threading.active_count() == threads


def test_the_protocol_graph_gives_the_critical_path_and_groups_requests_into_rounds() -> None:
    sys.path.insert(0, str(BENCH))
    import protocol_graph

    zhihu = protocol_graph.critical_path(protocol_graph.zhihu(13))
    assert [r.name for r in zhihu] == ["E1", "I1", "I2", "I3", "I4", "E3", "E6"]
    wechat = protocol_graph.wechat(12, polls=3)
    assert [r.name for r in protocol_graph.critical_path(wechat)][:4] == ["T", "U", "D", "S"]
    assert protocol_graph.bound_rounds({"w": wechat, "z": protocol_graph.zhihu(0)}) == 7
    starts = [(0.0, "a"), (0.01, "b"), (0.1, "c"), (0.3, "d")]
    assert protocol_graph.observed_rounds(starts, 0.1) == [["a", "b"], ["c"], ["d"]]


def test_startup_benchmark_compares_with_bare_python_and_names_heavy_imports() -> None:
    out = bench("bench_startup.py", "--repeat", "1")
    assert "| `python -c pass` |" in out
    assert "| `crosspost --version` |" in out
    assert "| `crosspost --help` |" in out
    assert "Heavy libraries imported by `crosspost --help`:" in out
    assert "SUMMARY: `crosspost --help` over `python -c pass` | ≤ +150 ms |" in out
    assert "| `crosspost check <example>` |" in out
    assert "SUMMARY: `crosspost render <example>` over `python -c pass` | ≤ +200 ms |" in out
    # check loads none of the libraries it does not use (see crosspost.commands.deferred)
    assert "Loaded though unused: none of requests," in out


def test_render_benchmark_times_the_example_per_channel_with_the_inlining_share() -> None:
    out = bench(
        "bench_render.py", "--repeat", "1", "--no-corpus", "--profile", "25",
        "--items", "20", "100", "--scaling-repeat", "1",
    )  # fmt: skip
    row = next(line for line in out.splitlines() if line.startswith("| example"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert len(cells) == 6 and cells[5].endswith("%"), row
    assert float(cells[4]) == pytest.approx(float(cells[2]) + float(cells[3]), abs=0.2)
    assert "SUMMARY: render the example, WeChat + Zhihu | < 50 ms |" in out
    assert "wechat/document.py" in out  # the profile names the renderer's steps
    assert "| wechat | " in out and "| zhihu | " in out  # the scaling rows
    assert "SUMMARY: wechat render time, 20 → 100 items, exponent | ≤ 1.1 |" in out
    assert "| wechat | paused during the render | " in out
    assert "| zhihu | running (as before) | " in out  # the collector on, for comparison


def test_render_benchmark_reads_the_corpus_when_it_is_there() -> None:
    corpus = REPO / ".." / "shared" / "corpus"
    if not corpus.is_dir():
        pytest.skip("no shared corpus beside the repository")
    out = bench("bench_render.py", "--repeat", "1", "--items", "20", "100", "--scaling-repeat", "1")
    for document in sorted(corpus.glob("*.md")):
        if document.name != "SOURCES.md":
            assert document.name in out  # measured, or named with the reason it was not


def test_run_all_rewrites_only_its_block_of_the_readme(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(
        "# Benchmarks\n\n## Scheduler tick\nA teammate's section.\n", encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, str(BENCH / "run_all.py"), "--quick", "--readme", str(readme)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("# Benchmarks\n\n## Scheduler tick\nA teammate's section.\n")
    assert text.count("<!-- bench results: start") == 1
    assert text.count("<!-- bench results: end -->") == 1
    assert "cores (nproc)" in text and "Python 3." in text
    assert "Command: `python bench/run_all.py --quick`" in text
    assert "| figure | target | measured | verdict |" in text
    titles = [
        "Publish latency and request economy",
        "Publish over HTTPS (real TLS; a new connection costs 2 round trips)",
        "Start-up",
        "Render",
    ]
    # Over HTTPS the sandbox served real TLS, and the publish went through it.
    assert "new connections 2 round trips, over TLS (in process; CLI)" in text
    if (BENCH / "bench_run_due.py").is_file():
        titles.append("Scheduler tick (run-due)")
    for title in titles:
        assert f"## Results: {title}" in text

    # The next run replaces that block, and what a teammate wrote on either side stays.
    # (Its block is written as the script writes one; running every benchmark a second
    # time would prove nothing more and doubles the slowest test of the suite.)
    readme.write_text(text + "\n## Notes\nWritten below the block.\n", encoding="utf-8")
    sys.path.insert(0, str(BENCH))
    import run_all

    run_all.write(readme, run_all.block([], True, ["`bench_gone.py`"]))
    again = readme.read_text(encoding="utf-8")
    assert again.startswith("# Benchmarks\n\n## Scheduler tick\nA teammate's section.\n")
    assert again.rstrip().endswith("## Notes\nWritten below the block.")
    assert again.count("<!-- bench results: start") == 1
    assert again.count("<!-- bench results: end -->") == 1
    assert "Not run: `bench_gone.py`." in again
    assert "## Results:" not in again, "the first run's block was kept"


def test_ledger_benchmark_prints_bytes_per_post_and_the_flat_verdict() -> None:
    out = bench("bench_ledger.py", "--posts", "10", "100")
    assert "| posts | ledger size | bytes per post | CPU µs per post written |" in out
    assert "| 100 |" in out
    assert "SUMMARY: ledger bytes per post, 10 → 100 posts | flat (≤ +10%) |" in out
    assert out.rstrip().endswith("| met")


def test_html_ratio_benchmark_has_a_row_per_document_and_the_median() -> None:
    corpus = REPO / ".." / "shared" / "corpus"
    out = bench("bench_html_ratio.py", *(() if corpus.is_dir() else ("--no-corpus",)))
    row = next(line for line in out.splitlines() if line.startswith("| example"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    html, text = (int(cell.replace(",", "")) for cell in cells[1:3])
    assert float(cells[3]) == pytest.approx(html / text, abs=0.01), row
    assert "SUMMARY: WeChat HTML ÷ visible text, median over the example and corpus" in out
    for document in sorted(corpus.glob("*.md")) if corpus.is_dir() else []:
        if document.name != "SOURCES.md":
            assert document.name in out  # measured, or named with the reason it was not


def test_long_lines_benchmark_prints_each_kind_with_its_exponent() -> None:
    out = bench("bench_long_lines.py", "--sizes", "2", "4", "--repeat", "1", "--kind", "marks")
    assert "| marks | render |" in out
    assert "| marks | check |" in out
    assert "SUMMARY: check of one long line, 2 → 4 KB, worst exponent (marks) | ≤ 1.2 |" in out
