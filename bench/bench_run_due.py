"""Scheduler tick: ``crosspost run-due`` over a folder where nothing is due.

    python bench/bench_run_due.py                         # 1,000 and 10,000 files, 7 runs
    python bench/bench_run_due.py --files 20 --repeat 1   # a smoke run
    python bench/bench_run_due.py --profile 1000          # where an in-process tick spends

Cron runs ``run-due`` every minute, and almost every tick finds nothing due, so that tick
must cost next to nothing: the target is under 0.5 s for 1,000 issue files, start-up
included. Each run is a real process (the installed ``crosspost`` script), timed from
spawn to exit, over issue files shaped like real ones (front matter with every field,
a body of a few KB) whose ``publish_at`` is still to come. Printed as Markdown; lines
starting ``SUMMARY:`` feed ``bench/run_all.py``'s targets table.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

TARGET_SECONDS = 0.5
TARGET_FILES = 1000

BODY = "本期介绍深度学习硬件的过去、现在和未来,以及分布式机器学习的八篇经典论文。\n\n" + "".join(
    f"## {n}. 论文标题第{n}篇\n\n链接:https://arxiv.org/abs/2101.{n:05d}\n\n"
    f"作者:张三、李四 · 2021\n\n摘要:{'这是一段摘要。' * 12}\n\n"
    for n in range(1, 9)
)


def crosspost_command() -> list[str]:
    """The installed ``crosspost`` script beside this Python, else ``python -m crosspost``."""
    script = Path(sys.executable).parent / "crosspost"
    if script.is_file():
        return [str(script)]
    found = shutil.which("crosspost")
    return [found] if found else [sys.executable, "-m", "crosspost"]


def make_issues(folder: Path, count: int) -> None:
    """``count`` issue files, every one scheduled in the future (so nothing is due)."""
    folder.mkdir(parents=True, exist_ok=True)
    start = datetime.now(UTC) + timedelta(days=1)
    for number in range(count):
        when = (start + timedelta(hours=number)).astimezone().isoformat(timespec="seconds")
        (folder / f"issue-{number:05d}.md").write_text(
            f"---\nid: weekly-{number}\ntitle: AI系统前沿动态 第{number}期\n"
            f"author: OneFlow社区\ndigest: 深度学习硬件;分布式机器学习经典论文 8 篇\n"
            f"cover: images/cover.jpg\nsource_url: https://www.zhihu.com/org/oneflow-17\n"
            f"publish_at: {when}\nchannels: [wechat, zhihu]\n"
            f"wechat: {{title: AI系统前沿动态{number}, need_open_comment: true}}\n"
            f"zhihu: {{topics: [人工智能, 深度学习]}}\n---\n{BODY}",
            encoding="utf-8",
        )


def clean_env(home: Path) -> dict[str, str]:
    """This process's environment without crosspost's variables, HOME in the sandbox."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CROSSPOST_", "XDG_"))}
    env["HOME"] = str(home)
    return env


def tick_args(root: Path, issues: Path) -> list[str]:
    config = root / "crosspost.toml"
    config.touch()
    return ["run-due", str(issues), "--config", str(config), "--state-dir", str(root / "state")]


def time_tick(command: Sequence[str], env: dict[str, str], cwd: Path) -> float:
    """Wall seconds of one tick, spawn to exit; fails loudly if the tick was not silent."""
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd)
    seconds = time.perf_counter() - started
    if done.returncode != 0 or done.stdout or done.stderr:
        raise SystemExit(f"the tick was not a silent exit 0: {done.returncode} {done.stderr}")
    return seconds


def measure(counts: Sequence[int], repeat: int) -> list[tuple[int, float, float, float]]:
    """(files, median s, best s, start-up s) per folder size."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-run-due-") as tmp:
        root = Path(tmp)
        env = clean_env(root)
        startup = statistics.median(_startup(env) for _ in range(max(3, repeat)))
        for count in counts:
            issues = root / f"issues-{count}"
            make_issues(issues, count)
            command = [*crosspost_command(), *tick_args(root, issues)]
            time_tick(command, env, root)  # warm the page cache, as a minutely cron is
            times = [time_tick(command, env, root) for _ in range(repeat)]
            rows.append((count, statistics.median(times), min(times), startup))
    return rows


def _startup(env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([*crosspost_command(), "--version"], capture_output=True, env=env, check=True)
    return time.perf_counter() - started


def profile(count: int) -> str:
    """cProfile of one tick in this process: the 15 costliest functions, cumulative."""
    from crosspost import cli

    with tempfile.TemporaryDirectory(prefix="bench-run-due-") as tmp:
        root = Path(tmp)
        issues = root / "issues"
        make_issues(issues, count)
        args = tick_args(root, issues)
        os.environ.update(clean_env(root))
        profiler = cProfile.Profile()
        profiler.enable()
        code = cli.main(args)
        profiler.disable()
        if code != 0:
            raise SystemExit(f"the tick exited {code}")
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(15)
    return out.getvalue()


def report(rows: Sequence[tuple[int, float, float, float]], repeat: int) -> str:
    lines = [
        f"Nothing due; each figure the median of {repeat} runs of a fresh process "
        "(`crosspost run-due DIR`), start-up included.",
        "",
        "| issue files | tick (median) | best | per file | of which start-up |",
        "|---:|---:|---:|---:|---:|",
    ]
    summary = []
    for files, median, best, startup in rows:
        per_file = max(0.0, median - startup) / files * 1e6
        lines.append(
            f"| {files:,} | {median * 1000:.0f} ms | {best * 1000:.0f} ms | "
            f"{per_file:.0f} µs | {startup * 1000:.0f} ms |"
        )
        if files == TARGET_FILES:
            verdict = "ok" if median < TARGET_SECONDS else "MISSED"
            summary.append(
                f"SUMMARY: run-due tick, {files:,} files, nothing due | "
                f"< {TARGET_SECONDS * 1000:.0f} ms | {median * 1000:.0f} ms | {verdict}"
            )
    return "\n".join([*lines, "", *summary])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--profile", type=int, metavar="FILES", help="profile one tick instead")
    args = parser.parse_args(argv)
    if args.profile:
        print(profile(args.profile))
        return 0
    print(report(measure(args.files, args.repeat), args.repeat))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
