"""Answer paths: load a table package into DuckDB and run a task's gold SQL on it.

``run_answer_path`` is the original answer path executed unchanged on whatever files a package
holds; it never refuses (the built-in path-follower system). Tables are named after the package
files (``sales.csv`` → ``sales``, sheet ``Data`` of ``book.xlsx`` → ``book__Data``).
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterable

import duckdb
import pandas as pd

from ..errors import BadInput
from .package import NULL_SPELLINGS, table_files, table_name_for
from .workbook import column_kind, detect_layout, read_records, read_workbook

DUCKDB_NULLS = [s for s in NULL_SPELLINGS if s not in ("NaN", "nan")]
ANSWER_RE = re.compile(r"@(\w+)\[(.*?)\]")


@dataclass
class AnswerResult:
    ok: bool
    pairs: list[tuple[str, str]] = field(default_factory=list)
    text: str = ""
    error: str | None = None


_CACHE: dict[tuple, dict] = {}
_CACHE_LIMIT = 256


_BASE: duckdb.DuckDBPyConnection | None = None
_OPEN: list[tuple[duckdb.DuckDBPyConnection, str]] = []
_COUNTER = [0]


def _session() -> duckdb.DuckDBPyConnection:
    """A cursor on one process-wide in-memory database, in a fresh schema of its own.

    ``duckdb.connect()`` costs ~100 ms here while a cursor and a schema cost ~2 ms; schemas of
    cursors the caller has closed are dropped at the next call."""
    global _BASE
    if _BASE is None:
        _BASE = duckdb.connect()
    still_open = []
    for cur, schema in _OPEN:
        try:
            cur.execute("select 1").fetchall()
            still_open.append((cur, schema))
        except duckdb.Error:
            _BASE.execute(f'drop schema if exists "{schema}" cascade')
    _OPEN[:] = still_open
    _COUNTER[0] += 1
    schema = f"pkg{os.getpid()}_{_COUNTER[0]}"
    cur = _BASE.cursor()
    cur.execute(f'create schema "{schema}"')
    cur.execute(f'set schema = \'{schema}\'')
    _OPEN.append((cur, schema))
    return cur


def load_package(package_dir: Path, con: duckdb.DuckDBPyConnection | None = None) -> duckdb.DuckDBPyConnection:
    """Register one DuckDB table per CSV/TSV file and per Excel sheet holding a table.

    Returns a connection (close it when done). Parsed files are cached in-process by
    (path, size, mtime), so validating several readings of one package parses each file once."""
    con = con or _session()
    for name in table_files(Path(package_dir)):
        path = Path(package_dir) / name
        for table, arrow in _parsed(path).items():
            con.register("_parsed_frame", arrow)
            con.execute(f'create or replace table "{table}" as select * from _parsed_frame')
            con.unregister("_parsed_frame")
    return con


def _parsed(path: Path) -> dict:
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    hit = _CACHE.get(key)
    if hit is None:
        scratch = _session()
        try:
            if path.suffix.lower() == ".xlsx":
                names = _load_workbook(scratch, path)
            else:
                names = [_load_csv(scratch, path)]
            hit = {n: scratch.sql(f'select * from "{n}"').to_arrow_table() for n in names}
        finally:
            scratch.close()
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = hit
    return hit


def _load_csv(con, path: Path) -> None:
    table = table_name_for(path.name)
    delimiter = "\t" if path.suffix.lower() == ".tsv" else _first_line_delimiter(path)
    try:
        con.execute(
            f'create or replace table "{table}" as select * from read_csv(?, header=true, delim=?, '
            f"nullstr=?, sample_size=-1, auto_detect=true, strict_mode=true, "
            f"auto_type_candidates=['BIGINT', 'DOUBLE', 'DATE', 'TIMESTAMP', 'VARCHAR'])",
            [str(path), delimiter, DUCKDB_NULLS])
    except duckdb.Error as exc:
        raise BadInput(f"{path.name}: cannot be parsed as CSV ({str(exc).splitlines()[0]})") from None
    return table


def _first_line_delimiter(path: Path) -> str:
    with open(path, "rb") as fh:
        first = fh.readline().decode("utf-8", errors="replace")
    counts = {d: first.count(d) for d in (",", ";", "\t", "|")}
    best = max(counts, key=counts.get)
    return best if counts[best] else ","


def _load_workbook(con, path: Path) -> None:
    try:
        wb = read_workbook(path)
    except Exception as exc:  # openpyxl raises many types for corrupt files
        raise BadInput(f"{path.name}: not a readable .xlsx workbook ({type(exc).__name__}: {exc})") from None
    names = []
    for ws in wb.worksheets:
        layout = detect_layout(ws)
        if layout is None:
            continue
        frame = records_frame(layout.columns, read_records(ws, layout))
        table = table_name_for(path.name, ws.title)
        con.register("_sheet_frame", frame)
        con.execute(f'create or replace table "{table}" as select * from _sheet_frame')
        con.unregister("_sheet_frame")
        names.append(table)
    return names


def records_frame(columns: list[str], records: list[list]) -> pd.DataFrame:
    data = {}
    for i, name in enumerate(columns):
        values = [r[i] for r in records]
        kind = column_kind(values)
        if kind == "int":
            data[name] = pd.array(values, dtype="Int64")
        elif kind == "float":
            data[name] = pd.array([None if v is None else float(v) for v in values], dtype="Float64")
        elif kind == "bool":
            data[name] = pd.array(values, dtype="boolean")
        elif kind == "date":
            data[name] = pd.to_datetime(pd.Series(values, dtype=object))
        else:
            data[name] = pd.Series([None if v is None else str(v) for v in values], dtype=object)
    return pd.DataFrame(data)


def run_sql(con: duckdb.DuckDBPyConnection, sql: str, answer_names: list[str]) -> AnswerResult:
    try:
        cur = con.execute(sql)
        rows = cur.fetchall()
    except duckdb.Error as exc:
        return AnswerResult(False, error=f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
    if len(rows) != 1:
        return AnswerResult(False, error=f"answer path returned {len(rows)} rows, expected 1")
    values = rows[0]
    if len(values) != len(answer_names):
        return AnswerResult(False, error=f"answer path returned {len(values)} values for {len(answer_names)} names")
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values):
        return AnswerResult(False, error="answer path returned NULL")
    pairs = [(n, format_value(v)) for n, v in zip(answer_names, values)]
    return AnswerResult(True, pairs, format_answer(pairs))


def run_answer_path(task: Any, package_dir: Path) -> AnswerResult:
    """Run the task's original answer path (gold SQL) on a package; never refuses."""
    sql, names = _task_sql(task)
    if not sql:
        return AnswerResult(False, error="the task has no executable answer path")
    try:
        con = load_package(Path(package_dir))
    except BadInput as exc:
        return AnswerResult(False, error=str(exc))
    try:
        return run_sql(con, sql, names)
    finally:
        con.close()


def _task_sql(task: Any) -> tuple[str | None, list[str]]:
    get = task.get if isinstance(task, dict) else (lambda k, d=None: getattr(task, k, d))
    names = get("answer_names") or []
    if isinstance(names, str):
        import json
        names = json.loads(names)
    return get("gold_sql"), list(names)


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, Decimal):
        value = float(value)
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return repr(value)
        return repr(round(value, 10))
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return str(value)


def format_answer(pairs: Iterable[tuple[str, str]]) -> str:
    return " ".join(f"@{n}[{v}]" for n, v in pairs)


def parse_answer(text: str) -> dict[str, str]:
    """DABench extraction: ``@name[value]``; a repeated name keeps its last value."""
    return {m.group(1): m.group(2) for m in ANSWER_RE.finditer(text or "")}


def answers_equal(a: dict[str, str] | list, b: dict[str, str] | list) -> bool:
    """DABench official rule: equal strings, or both floats within 1e-6, for every sub-answer."""
    da, db = dict(a), dict(b)
    if set(da) != set(db) or not da:
        return False
    return all(_value_equal(da[k], db[k]) for k in da)


def _value_equal(x: str, y: str) -> bool:
    if str(x).strip() == str(y).strip():
        return True
    try:
        return abs(float(x) - float(y)) <= 1e-6
    except (TypeError, ValueError):
        return False
