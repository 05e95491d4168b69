"""Moving a ledger: copy one into another (SQLite → PostgreSQL), or write it as JSON Lines.

**Copy** (``crosspost ledger migrate --to``) keeps every row's id, so the audit trail's
order and the events' links to their posts are exactly the original's, and a second run
is a no-op: rows already there are left alone (``ON CONFLICT DO NOTHING``). It runs in
one transaction of the target, so a failed copy leaves nothing half-copied. It refuses a
target that holds posts of another ledger (a shared ledger already in use): merging two
histories is not a copy. Afterwards each table is counted on both sides; any difference
is an error, not a warning.

**Export** (``crosspost ledger export``) writes one JSON object per row, table by table,
for backups and for reading with ``jq``. Nothing secret is in the ledger's tables (every
message was redacted when written); ``shared_state`` is left out of both, because it
holds the WeChat access token, a credential that expires within two hours anyway.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from crosspost.errors import UsageError
from crosspost.ledger.store import Ledger

#: The tables a ledger is made of, parents first (events point at posts).
TABLES: tuple[str, ...] = ("posts", "events", "assets")
#: How each table's rows are told apart (and ordered in an export).
_KEYS = {
    "posts": ("id",),
    "events": ("id",),
    "assets": ("channel", "account", "digest", "kind"),
}

#: Columns that hold JSON text: exported as JSON, not as a string of it.
_JSON_COLUMNS = frozenset({"data", "pending_intent"})


@dataclass(frozen=True)
class TableCount:
    """One table's rows in the source and in the target after a copy."""

    table: str
    source: int
    target: int

    @property
    def matches(self) -> bool:
        return self.source == self.target


def columns(ledger: Ledger, table: str) -> tuple[str, ...]:
    """The table's columns as this ledger has them (migrations may have added some)."""
    if ledger.engine == "sqlite":
        rows = ledger._db.execute(f"PRAGMA table_info({table})").fetchall()
        return tuple(str(row[1]) for row in rows)
    rows = ledger._db.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = "
        "current_schema() AND table_name = ? ORDER BY ordinal_position",
        (table,),
    ).fetchall()
    return tuple(str(row[0]) for row in rows)


def rows(ledger: Ledger, table: str) -> Iterator[dict[str, Any]]:
    """Every row of ``table`` as a mapping, in key order."""
    names = columns(ledger, table)
    order = ", ".join(_KEYS[table])
    cursor = ledger._db.execute(f"SELECT {', '.join(names)} FROM {table} ORDER BY {order}")
    for row in cursor.fetchall():
        yield dict(zip(names, row, strict=True))


def count(ledger: Ledger, table: str) -> int:
    return int(ledger._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def copy(source: Ledger, target: Ledger) -> tuple[TableCount, ...]:
    """Copy every row of ``source`` into ``target`` (see the module docstring)."""
    with target.transaction(durable=True):
        _refuse_another_history(source, target)
        for table in TABLES:
            names = columns(source, table)
            keys = ", ".join(_KEYS[table])
            marks = ", ".join("?" for _ in names)
            insert = (
                f"INSERT INTO {table} ({', '.join(names)}) VALUES ({marks}) "
                f"ON CONFLICT ({keys}) DO NOTHING"
            )
            for row in rows(source, table):
                target._db.execute(insert, tuple(row.values()))
        if target.engine == "postgresql":
            # Ids were given explicitly: the next post or event must not reuse one.
            for table in ("posts", "events"):
                target._db.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                    f"(SELECT COALESCE(max(id), 0) + 1 FROM {table}), false)"
                )
    return tuple(TableCount(t, count(source, t), count(target, t)) for t in TABLES)


def _refuse_another_history(source: Ledger, target: Ledger) -> None:
    """Stop when the target holds a post the source does not, under the same id or not."""
    mine = {(r["id"], r["issue_id"], r["channel"], r["account"]) for r in rows(source, "posts")}
    for row in rows(target, "posts"):
        if (row["id"], row["issue_id"], row["channel"], row["account"]) not in mine:
            raise UsageError(
                f"{target.path}: already holds posts of another ledger "
                f"({row['issue_id']} → {row['channel']}:{row['account']}); migrate into an "
                "empty database, or point ledger_url at this one and leave the SQLite "
                "ledger as a backup"
            )


def export_lines(ledger: Ledger) -> Iterator[str]:
    """The ledger as JSON Lines: ``{"table": …, <column>: <value>, …}`` per row."""
    for table in TABLES:
        for row in rows(ledger, table):
            for name in _JSON_COLUMNS.intersection(row):
                row[name] = json.loads(row[name]) if row[name] else row[name]
            yield json.dumps({"table": table, **row}, ensure_ascii=False)
