"""A local note of every Zhihu draft this machine created, written the moment Zhihu
answers — because Zhihu itself offers no way to list drafts (zhihu-api.md §2).

Without it, a run killed between "Zhihu created draft 123" and "the ledger recorded 123"
would leave the next run unable to find the draft, and it would create a second one. With
it, :meth:`ZhihuAdapter.reconcile` finds the draft here and confirms it on Zhihu (E4).
Only an answer lost on the wire (no id ever arrived) stays unknowable.

It also notes the column each draft's issue asks for (``zhihu.column``): publishing may
happen in a later process that only knows the draft's id.

One JSON object per line, appended and fsync'd; a damaged line is skipped, never fatal.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
        self._append({"id": draft_id, "title": title, "at": created_at})

    def _append(self, row: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(row, ensure_ascii=False)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def _rows(self) -> list[dict[str, Any]]:
        try:
            lines = self.path.read_text("utf-8").splitlines()
        except (FileNotFoundError, UnicodeDecodeError):
            return []
        rows: list[dict[str, Any]] = []
        for line in lines:
            try:
                row = json.loads(line)
            except ValueError:
                continue  # a line cut short by a crash: the rest still counts
            if isinstance(row, dict):
                rows.append(row)
        return rows

    def record_column(self, draft_id: str, column: str | None) -> None:
        """Note the column the issue asks for (None: the account's default), so a later
        run that only knows the draft's id still files the article where the issue says."""
        self._append({"id": draft_id, "column": column})

    def column_for(self, draft_id: str) -> str | None:
        """The last column noted for ``draft_id``; None when none was."""
        column = None
        for row in self._rows():
            if row.get("id") == draft_id and "column" in row:
                column = str(row["column"]) if row["column"] else None
        return column

    def entries(self) -> list[JournalEntry]:
        found: list[JournalEntry] = []
        for row in self._rows():
            if "title" not in row:
                continue  # a column note, not a creation
            try:
                found.append(JournalEntry(str(row["id"]), str(row["title"]), float(row["at"])))
            except (ValueError, KeyError, TypeError):
                continue
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
