"""A local note of every Zhihu draft this machine created, written the moment Zhihu
answers — because Zhihu itself offers no way to list drafts (zhihu-api.md §2).

Without it, a run killed between "Zhihu created draft 123" and "the ledger recorded 123"
would leave the next run unable to find the draft, and it would create a second one. With
it, :meth:`ZhihuAdapter.reconcile` finds the draft here and confirms it on Zhihu (E4).
Only an answer lost on the wire (no id ever arrived) stays unknowable.

One JSON object per line, appended and fsync'd; a damaged line is skipped, never fatal.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

#: Clock skew tolerated between the intent's time and the journal's (seconds).
SKEW = 2.0


@dataclass(frozen=True)
class JournalEntry:
    draft_id: str
    title: str
    created_at: float


class DraftJournal:
    """Append-only record of the drafts one account created, in ``state_dir``."""

    def __init__(self, state_dir: Path, account_key: str) -> None:
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in account_key)
        self.path = Path(state_dir) / "zhihu" / f"{safe}.drafts.jsonl"

    def record(self, draft_id: str, title: str, created_at: float) -> None:
        """Write one line and flush it to disk before the caller goes on."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"id": draft_id, "title": title, "at": created_at}, ensure_ascii=False)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def entries(self) -> list[JournalEntry]:
        try:
            lines = self.path.read_text("utf-8").splitlines()
        except (FileNotFoundError, UnicodeDecodeError):
            return []
        found: list[JournalEntry] = []
        for line in lines:
            try:
                row = json.loads(line)
                found.append(JournalEntry(str(row["id"]), str(row["title"]), float(row["at"])))
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by a crash: the rest still counts
        return found

    def candidates(
        self, title: str, since: float, exclude: tuple[str, ...] = ()
    ) -> list[JournalEntry]:
        """Drafts with this title created at or after ``since``, newest first."""
        matches = [
            entry
            for entry in self.entries()
            if entry.title == title
            and entry.created_at >= since - SKEW
            and entry.draft_id not in exclude
        ]
        return sorted(matches, key=lambda entry: entry.created_at, reverse=True)
