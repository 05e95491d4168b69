"""The run-due benchmark still runs (on 20 files): it is how the cron figure is measured."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_run_due.py"


@pytest.mark.slow
def test_the_benchmark_times_a_silent_tick_over_a_small_folder() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--files", "20", "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| 20 |")]
    assert len(rows) == 1 and rows[0].count("ms") == 3
