"""The per-attempt ledger (landing table ``llm_calls``) and the request cache read from it.

Rows are buffered and written as one landing part per flush (every ``flush_rows`` rows or
``flush_seconds``, at the end of each batch, on close and at interpreter exit), so a crash loses
at most the rows of calls in flight since the last flush. The cache is every successful,
non-cache-hit row of the landing table (all runs), loaded once per client.
"""
from __future__ import annotations

import atexit
import threading
import time
import weakref
from typing import Any

import duckdb

from ..landing import LandingZone

TABLE = "llm_calls"


class Ledger:
    def __init__(self, run: Any | None, flush_rows: int = 500, flush_seconds: float = 10.0):
        self.run = run
        self.flush_rows = flush_rows
        self.flush_seconds = flush_seconds
        self._rows: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._last_flush = time.monotonic()
        self.rows_written = 0
        atexit.register(_flush_if_alive, weakref.ref(self))

    def add(self, rows: list[dict[str, Any]]) -> None:
        with self._lock:
            self._rows.extend(rows)
            due = len(self._rows) >= self.flush_rows or time.monotonic() - self._last_flush >= self.flush_seconds
        if due:
            self.flush()

    def flush(self) -> None:
        with self._lock:
            rows, self._rows = self._rows, []
            self._last_flush = time.monotonic()
            if rows and self.run is not None:
                self.run.write(TABLE, rows)
                self.rows_written += len(rows)


def _flush_if_alive(ref: "weakref.ref[Ledger]") -> None:
    ledger = ref()
    if ledger is not None:
        ledger.flush()


def load_cache(zone: LandingZone) -> dict[str, tuple[str | None, str | None]]:
    """request_hash -> (response_text, parsed JSON) of every successful answered call on disk."""
    if not any(zone.table_dir(TABLE).glob("*/*.parquet")):
        return {}
    sql = ("select request_hash, response_text, parsed from read_parquet(?, union_by_name=true) "
           "where status = 'ok' and not coalesce(cache_hit, false) "
           "qualify row_number() over (partition by request_hash order by written_at, item_id) = 1")
    with duckdb.connect() as con:
        rows = con.execute(sql, [zone.glob(TABLE)]).fetchall()
    return {h: (text, parsed) for h, text, parsed in rows}
