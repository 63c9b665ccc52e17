"""The raw landing zone: append-only Parquet parts that dbt reads as sources.

Layout: ``<landing>/<table>/<run_id>/part-<ns>-<rand>.parquet`` plus a zero-row
``<landing>/<table>/_schema/empty.parquet`` so that a table with no data yet is still a valid
dbt source. Each part is written to a temporary name, fsynced and renamed, so a job killed at any
point leaves either a whole part or none: at most the batch in flight is lost. Jobs never open
the DuckDB warehouse for writing, so they never block ``dbt build`` or read-only BI readers.
"""
from __future__ import annotations

import fcntl
import json
import os
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from .config import paths
from .errors import BadInput, UserError

TYPES = {
    "string": pa.string(),
    "json": pa.string(),  # canonical JSON text; dbt casts with ::JSON where needed
    "int": pa.int64(),
    "float": pa.float64(),
    "bool": pa.bool_(),
    "timestamp": pa.timestamp("us", tz="UTC"),
}
SYSTEM_COLUMNS = {"run_id": "string", "item_id": "string", "written_at": "timestamp"}


@dataclass(frozen=True)
class LandingTable:
    """A landing table: its name and columns (besides run_id, item_id and written_at)."""

    name: str
    columns: dict[str, str]
    description: str = ""

    def arrow_schema(self) -> pa.Schema:
        cols = {**SYSTEM_COLUMNS, **self.columns}
        return pa.schema([(name, TYPES[kind]) for name, kind in cols.items()])


_REGISTRY: dict[str, LandingTable] = {}


def declare(name: str, columns: dict[str, str], description: str = "") -> LandingTable:
    """Register a landing table; modules declare theirs at import (see ``all_tables``)."""
    unknown = {c: t for c, t in columns.items() if t not in TYPES}
    if unknown:
        raise ValueError(f"landing table {name}: unknown column types {unknown}")
    table = LandingTable(name, columns, description)
    _REGISTRY[name] = table
    return table


def all_tables() -> dict[str, LandingTable]:
    """Every declared landing table, importing the light modules that declare them."""
    from . import landing_tables  # noqa: F401  (declares the common tables)
    from .benchmarks import import_landing_declarations

    import_landing_declarations()
    return dict(_REGISTRY)


def get_table(name: str) -> LandingTable:
    tables = all_tables()
    if name not in tables:
        raise UserError(f"unknown landing table '{name}' (known: {', '.join(sorted(tables))})")
    return tables[name]


def now_utc() -> datetime:
    return datetime.now(timezone.utc)


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


class LandingZone:
    def __init__(self, root: Path | None = None):
        self.root = Path(root) if root else paths().landing

    def table_dir(self, table: str) -> Path:
        return self.root / table

    def glob(self, table: str, run_id: str | None = None) -> str:
        return str(self.table_dir(table) / (run_id or "*") / "*.parquet")

    def ensure_tables(self, tables: Iterable[LandingTable] | None = None) -> None:
        """Write (or refresh) each table's zero-row schema part so dbt sources always resolve."""
        for table in tables or all_tables().values():
            target = self.table_dir(table.name) / "_schema" / "empty.parquet"
            _atomic_write(table.arrow_schema().empty_table(), target)

    def write(self, table: str, run_id: str, rows: list[dict[str, Any]]) -> Path | None:
        """Append one batch as one atomic part. Raises BadInput naming the row and field."""
        if not rows:
            return None
        spec = get_table(table)
        stamp = now_utc()
        records = [_coerce_row(spec, run_id, stamp, row, i) for i, row in enumerate(rows)]
        arrow = pa.Table.from_pylist(records, schema=spec.arrow_schema())
        part = self.table_dir(table) / run_id / f"part-{stamp.strftime('%Y%m%dT%H%M%S%f')}-{uuid.uuid4().hex[:8]}.parquet"
        _atomic_write(arrow, part)
        return part

    def done_items(self, table: str, run_id: str) -> set[str]:
        """item_ids already landed for this run (the resume key)."""
        if not (self.table_dir(table) / run_id).is_dir():
            return set()
        with duckdb.connect() as con:
            rows = con.execute(f"select distinct item_id from read_parquet(?)", [self.glob(table, run_id)]).fetchall()
        return {r[0] for r in rows}

    def read(self, table: str, run_id: str | None = None, where: str = "true"):
        """A pandas frame of a landing table (all runs or one), read without the warehouse file."""
        spec = get_table(table)
        files = self.glob(table, run_id)
        with duckdb.connect() as con:
            if not any(self.table_dir(table).glob(f"{run_id or '*'}/*.parquet")):
                return spec.arrow_schema().empty_table().to_pandas()
            return con.execute(
                f"select * from read_parquet(?, union_by_name=true) where {where}", [files]
            ).df()


def _coerce_row(spec: LandingTable, run_id: str, stamp: datetime, row: dict, index: int) -> dict:
    allowed = spec.columns
    extra = set(row) - set(allowed) - {"item_id"}
    if extra:
        raise BadInput(f"landing table {spec.name}, row {index}: unknown field(s) {sorted(extra)}")
    if row.get("item_id") in (None, ""):
        raise BadInput(f"landing table {spec.name}, row {index}: field item_id is missing")
    out = {"run_id": run_id, "item_id": str(row["item_id"]), "written_at": stamp}
    for name, kind in allowed.items():
        value = row.get(name)
        if kind == "json" and value is not None and not isinstance(value, str):
            value = canonical_json(value)
        out[name] = value
    return out


def _atomic_write(table: pa.Table, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f".{target.name}.{uuid.uuid4().hex}.tmp"
    pq.write_table(table, tmp, compression="zstd")
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, target)
    dir_fd = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


class RunLock:
    """An exclusive, non-blocking lock so two processes never write the same run at once."""

    def __init__(self, landing_root: Path, run_id: str):
        self.path = landing_root / "_locks" / f"{run_id}.lock"
        self.run_id = run_id
        self._fh = None

    def __enter__(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a+")
        try:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._fh.close()
            raise UserError(f"run {self.run_id} is being written by another process; wait for it or stop it") from None
        return self

    def __exit__(self, *exc):
        fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
        self._fh.close()
