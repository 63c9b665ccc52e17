"""Opening the DuckDB warehouse, with clear errors when it is missing or locked."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import duckdb

from .config import paths
from .errors import UserError, WarehouseLocked


@contextmanager
def connect(read_only: bool = True) -> Iterator[duckdb.DuckDBPyConnection]:
    db = paths().db
    if read_only and not db.exists():
        raise UserError(f"no warehouse at {db}: run `evalhouse build` (or `make run`) first")
    db.parent.mkdir(parents=True, exist_ok=True)
    try:
        con = duckdb.connect(str(db), read_only=read_only)
    except duckdb.IOException as exc:
        if "lock" in str(exc).lower():
            raise WarehouseLocked(
                f"the warehouse {db} is locked by another process (a running dbt build or a "
                f"read-write client); close it and retry") from None
        raise
    try:
        yield con
    finally:
        con.close()


def query_df(sql: str, params: list | None = None):
    """Run one query read-only and return a pandas frame; the file is released at once."""
    with connect(read_only=True) as con:
        return con.execute(sql, params or []).df()


def table_exists(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    row = con.execute(
        "select count(*) from information_schema.tables where table_name = ?", [name]).fetchone()
    return bool(row and row[0])
