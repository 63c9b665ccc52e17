"""Execute instance SQL on one domain x condition (optionally restricted to a record-id list).

Used by generation (instantiation checks), by the dbt Python models that materialize gold answers
and contexts, and by part 2's oracle-sql / structured-only-sql systems. Tables live in a private
in-memory DuckDB connection: `<domain>__<condition>` holds the view rows, and the logical name
`<domain>` is a temp view bound to the requested condition and record ids.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Iterable

import duckdb

from .domains import CONDITIONS, DOMAINS
from .sql_validate import SQLValidationError, has_order_by, support_sql as derive_support_sql, validate_sql

_ORDER_BY = re.compile(r"\border\s+by\b", re.I)


@dataclass
class ExecResult:
    answer_json: str | None
    support_ids: list[str]
    status: str  # ok | empty | error
    error: str | None = None

    @property
    def support_json(self) -> str:
        return json.dumps(self.support_ids, separators=(",", ":"))


def as_arrow(obj):
    """A pyarrow Table from a DuckDB relation/result (DuckDB 2.0 returns a RecordBatchReader)."""
    if hasattr(obj, "to_arrow_table"):  # a connection holding a result (con.execute(...))
        return obj.to_arrow_table()
    out = obj.arrow() if hasattr(obj, "arrow") else obj  # a relation
    return out.read_all() if hasattr(out, "read_all") else out


def _norm(value: Any) -> Any:
    if isinstance(value, Decimal):
        value = float(value)
    if isinstance(value, float):
        if math.isnan(value):
            return None
        value = round(value, 4)
        return int(value) if value.is_integer() else value
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return [_norm(v) for v in value]
    return value


def canonical_answer(rows: list[tuple], answer_type: str, ordered: bool = True) -> str:
    """Canonical JSON text of a result set for the given answer type (see CONTRACT.md)."""
    if answer_type == "number":
        value = _norm(rows[0][0]) if rows else None
        if isinstance(value, bool):
            value = int(value)
    elif answer_type == "string":
        value = None if not rows or rows[0][0] is None else str(_norm(rows[0][0]))
    elif answer_type == "list":
        value = [_norm(r[0]) if len(r) == 1 else [_norm(v) for v in r] for r in rows]
        if not ordered:
            value.sort(key=lambda v: json.dumps(v, sort_keys=True, default=str))
    else:
        raise ValueError(f"unknown answer type '{answer_type}'")
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def is_empty_answer(answer_json: str | None) -> bool:
    return answer_json in (None, "null", "[]", '""')


class DomainStore:
    """Per-condition domain tables `<domain>__<condition>` in a private in-memory DuckDB connection."""

    def __init__(self):
        self.con = duckdb.connect(config={"threads": 1})  # one thread keeps list() in subquery order
        self.domains: set[str] = set()
        self.conditions: dict[str, set[str]] = {}

    @classmethod
    def from_frames(cls, frames: dict[tuple[str, str], Any]) -> "DomainStore":
        """frames[(domain, condition)] = pandas/arrow table with record_id + SQL columns."""
        store = cls()
        for (domain, condition), frame in frames.items():
            store.add(domain, condition, frame)
        return store

    @classmethod
    def from_warehouse(cls, con=None) -> "DomainStore":
        """Load the cipher_<domain>_view marts (a read-only connection, released at once)."""
        if con is None:
            from ..warehouse import connect
            with connect(read_only=True) as own:
                return cls.from_warehouse(own)
        store = cls()
        for d in DOMAINS:
            arrow = as_arrow(con.sql(f"select * from cipher_{d}_view"))
            for cond in CONDITIONS:
                store.add(d, cond, arrow, where=f"condition = '{cond}'")
        return store

    @classmethod
    def from_staging(cls, arrow_of) -> "DomainStore":
        """From the staged record tables: ``arrow_of(domain)`` returns stg_landing_cipher__records_<domain>."""
        store = cls()
        for d in DOMAINS:
            arrow = arrow_of(d)
            for cond in CONDITIONS:
                store.add(d, cond, arrow, where=f"condition = '{cond}'")
        return store

    def add(self, domain: str, condition: str, frame, where: str = "true") -> None:
        cols = ", ".join(DOMAINS[domain].sql_columns)
        self.con.register("_tmp_in", frame)
        self.con.execute(f"create or replace table {domain}__{condition} as select {cols} from _tmp_in where {where}")
        self.con.unregister("_tmp_in")
        self.domains.add(domain)
        self.conditions.setdefault(domain, set()).add(condition)
        parts = " union all ".join(f"select '{c}' as _cond, * from {domain}__{c}" for c in sorted(self.conditions[domain]))
        self.con.execute(f"create or replace table {domain}__all as {parts}")

    def bind(self, domain: str, condition: str) -> None:
        """Make the logical name `<domain>` a view of one condition (for ad-hoc queries)."""
        self._check(domain, condition)
        self.con.execute(f"create or replace temp view {domain} as select * from {domain}__{condition}")

    def _check(self, domain: str, condition: str) -> None:
        if condition not in CONDITIONS:
            raise SQLValidationError(f"unknown condition '{condition}' (known: {', '.join(CONDITIONS)})")
        if domain not in self.domains:
            raise SQLValidationError(f"domain '{domain}' is not loaded")


@dataclass
class ExecRequest:
    key: Any
    sql: str
    domain: str
    condition: str
    answer_type: str
    support_sql: str | None = None
    record_ids: list[str] | None = None
    ordered: bool | None = None


def _scoped(sql: str, domain: str, table_expr: str) -> str:
    """Point every FROM/JOIN of the logical table at the given (restricted) relation."""
    pattern = re.compile(rf"\b(FROM|JOIN)\s+{domain}\b(\s+AS\s+{domain}\b)?", re.I)
    return pattern.sub(lambda m: f"{m.group(1)} ({table_expr}) AS {domain}", sql)


def _top_level_order(sql: str) -> bool:
    try:
        return has_order_by(sql)
    except SQLValidationError:
        return bool(_ORDER_BY.search(sql))


def _prepare(req: ExecRequest, validate: bool, ctx_index: int | None) -> tuple[str, str, bool]:
    if validate:
        validate_sql(req.sql, req.domain)
    support = req.support_sql or derive_support_sql(req.sql, req.domain)
    ordered = req.ordered if req.ordered is not None else _top_level_order(req.sql)
    table = f"{req.domain}__{req.condition}"
    if ctx_index is None:
        expr = f"SELECT * FROM {table}"
    else:
        expr = f"SELECT _t.* FROM {table} AS _t WHERE _t.record_id IN (SELECT record_id FROM _ctx WHERE i = {ctx_index})"
    return _scoped(req.sql, req.domain, expr), _scoped(support, req.domain, expr), ordered


def execute_many(store: DomainStore, requests: list[ExecRequest], validate: bool = False,
                 chunk: int = 120) -> dict[Any, ExecResult]:
    """Execute many instance SQLs with few DuckDB statements (UNION ALL batches of JSON results).

    A batch that fails is retried one request at a time so a bad SQL only fails itself.
    """
    results: dict[Any, ExecResult] = {}
    prepared = []
    ctx_rows: list[tuple[int, str]] = []
    for n, req in enumerate(requests):
        try:
            store._check(req.domain, req.condition)
            ctx = None
            if req.record_ids is not None:
                ctx = n
                ctx_rows += [(n, rid) for rid in req.record_ids]
            prepared.append((n, req, *_prepare(req, validate, ctx)))
        except (SQLValidationError, duckdb.Error) as exc:
            results[req.key] = ExecResult(None, [], "error", _err(exc))
    store.con.execute("create or replace temp table _ctx (i integer, record_id varchar)")
    if ctx_rows:
        import pyarrow as pa
        store.con.register("_ctx_in", pa.table({"i": [r[0] for r in ctx_rows], "record_id": [r[1] for r in ctx_rows]}))
        store.con.execute("insert into _ctx select * from _ctx_in")
        store.con.unregister("_ctx_in")
    for start in range(0, len(prepared), chunk):
        part = prepared[start:start + chunk]
        try:
            raw = _run_batch(store, part)
        except duckdb.Error:
            raw = {}
            for item in part:
                try:
                    raw.update(_run_batch(store, [item]))
                except duckdb.Error as exc:
                    results[item[1].key] = ExecResult(None, [], "error", _err(exc))
        for n, req, _sql, _sup, ordered in part:
            if n not in raw:
                continue
            answer_rows, support = raw[n]
            answer = canonical_answer(answer_rows, req.answer_type, ordered)
            status = "empty" if is_empty_answer(answer) or not support else "ok"
            results[req.key] = ExecResult(answer, sorted(support), status)
    return results


def _run_batch(store: DomainStore, part) -> dict[int, tuple[list[tuple], list[str]]]:
    selects = []
    for n, _req, sql, sup, _ordered in part:
        selects.append(f"SELECT {n} AS n, 'a' AS k, CAST(to_json(list(_q)) AS VARCHAR) AS j FROM ({sql}) AS _q")
        selects.append(f"SELECT {n} AS n, 's' AS k, CAST(to_json(list(_s.record_id)) AS VARCHAR) AS j FROM ({sup}) AS _s")
    out: dict[int, list] = {n: [[], []] for n, *_ in part}
    for n, k, j in store.con.execute(" UNION ALL ".join(selects)).fetchall():
        values = json.loads(j) if j else []
        if k == "a":
            out[n][0] = [tuple(v.values()) for v in values]
        else:
            out[n][1] = values
    return {n: (a, s) for n, (a, s) in out.items()}


def _err(exc: Exception) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0]}"


def execute_sql(store: DomainStore, sql: str, domain: str, condition: str, record_ids: Iterable[str] | None = None,
                answer_type: str = "list", support_sql: str | None = None, validate: bool = True,
                ordered: bool | None = None) -> ExecResult:
    """Run one instance SQL (validated by default) and its support SQL; never raises for bad SQL."""
    req = ExecRequest("one", sql, domain, condition, answer_type, support_sql,
                      None if record_ids is None else list(record_ids), ordered)
    return execute_many(store, [req], validate=validate)["one"]


# ------------------------------------------------------------ set-based execution of one template

_QUOTED_SLOT = re.compile(r"(DATE\s+)?'\{(\w+)\}'", re.I)
_LIMIT_SLOT = re.compile(r"\bLIMIT\s+\{(\w+)\}", re.I)
_BARE_SLOT = re.compile(r"\{(\w+)\}")


def _correlated(template_sql: str) -> str:
    """Template SQL whose slots read columns of the parameter table `_p` (LIMIT slots stay literal)."""
    sql = _QUOTED_SLOT.sub(lambda m: f"CAST(_p.{m.group(2)} AS DATE)" if m.group(1) else f"_p.{m.group(2)}", template_sql)
    return _BARE_SLOT.sub(lambda m: m.group(0) if _is_limit_slot(sql, m) else f"_p.{m.group(1)}", sql)


def _is_limit_slot(sql: str, m: re.Match) -> bool:
    return bool(re.search(r"\bLIMIT\s+$", sql[:m.start()], re.I))


def execute_template(store: DomainStore, template_sql: str, support_template: str, domain: str, condition: str,
                     params: list[dict], answer_type: str, ordered: bool,
                     record_ids: list[list[str]] | None = None) -> list[ExecResult]:
    """Execute one template for many parameter rows on one condition (see execute_template_conditions)."""
    return execute_template_conditions(store, template_sql, support_template, domain, [condition], params, answer_type,
                                       ordered, None if record_ids is None else {condition: record_ids})[condition]


def execute_template_conditions(store: DomainStore, template_sql: str, support_template: str, domain: str,
                                conditions: list[str], params: list[dict], answer_type: str, ordered: bool,
                                record_ids: dict[str, list[list[str]]] | None = None,
                                with_support: bool = True) -> dict[str, list[ExecResult]]:
    """Every parameter row on every condition, in one statement per LIMIT value."""
    jobs = [(c, p, None if record_ids is None else record_ids[c][i]) for c in conditions for i, p in enumerate(params)]
    flat = execute_jobs(store, template_sql, support_template, domain, jobs, answer_type, ordered, with_support)
    return {c: flat[k * len(params):(k + 1) * len(params)] for k, c in enumerate(conditions)}


def execute_jobs(store: DomainStore, template_sql: str, support_template: str, domain: str,
                 jobs: list[tuple[str, dict, list[str] | None]], answer_type: str, ordered: bool,
                 with_support: bool = True) -> list[ExecResult]:
    """Execute one template for many (condition, parameters, record ids or None) jobs.

    Slots become correlated references to a parameter table (one row per job), so DuckDB plans
    the query once per LIMIT value; record ids restrict a job to those records (a
    support-controlled context). ``with_support=False`` skips the support query (support_ids is
    then empty and the status reflects the answer only). Falls back to one statement per job if the
    set-based form fails.
    """
    for c in {j[0] for j in jobs}:
        store._check(domain, c)
    results: list[ExecResult | None] = [None] * len(jobs)
    limit_slots = _LIMIT_SLOT.findall(template_sql)
    restricted = any(j[2] is not None for j in jobs)
    groups: dict[tuple, list[int]] = {}
    for k, (_c, p, _ids) in enumerate(jobs):
        groups.setdefault(tuple(p.get(s) for s in limit_slots), []).append(k)
    for key, idx in groups.items():
        sql_t = template_sql
        for slot, value in zip(limit_slots, key):
            sql_t = sql_t.replace("{" + slot + "}", str(int(value)))
        sel = [jobs[k] for k in idx]
        try:
            rows = _run_correlated(store, sql_t, support_template, domain, [c for c, _p, _i in sel], [p for _c, p, _i in sel],
                                   [ids or [] for _c, _p, ids in sel] if restricted else None, with_support)
            for k, (answer_rows, support) in zip(idx, rows):
                answer = canonical_answer(answer_rows, answer_type, ordered)
                status = "empty" if is_empty_answer(answer) or (with_support and not support) else "ok"
                results[k] = ExecResult(answer, sorted(support), status)
        except (duckdb.Error, KeyError, ValueError, TypeError):
            from .sql_validate import render
            reqs = []
            for k in idx:
                c, p, ids = jobs[k]
                try:
                    reqs.append(ExecRequest(k, render(template_sql, p), domain, c, answer_type,
                                            render(support_template, p), ids, ordered))
                except SQLValidationError as exc:
                    results[k] = ExecResult(None, [], "error", _err(exc))
            for k, res in execute_many(store, reqs, chunk=1).items():
                results[k] = res
    return results  # type: ignore[return-value]


def _param_table(params: list[dict]):
    import pyarrow as pa
    names = sorted({k for p in params for k in p})
    cols = {"n": pa.array(range(len(params)), pa.int64())}
    for name in names:
        values = [p.get(name) for p in params]
        if all(isinstance(v, bool) for v in values if v is not None):
            typ = pa.bool_()
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in values if v is not None):
            typ = pa.int64()
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values if v is not None):
            typ = pa.float64()
        else:
            typ, values = pa.string(), [None if v is None else str(v) for v in values]
        cols[name] = pa.array(values, typ)
    return pa.table(cols)


def _run_correlated(store, sql_t, sup_t, domain, conds, params, record_ids, with_support=True):
    import pyarrow as pa
    if record_ids is None:
        expr = f"SELECT * EXCLUDE (_cond) FROM {domain}__all WHERE _cond = _p._cond"
    else:
        expr = (f"SELECT _t.* EXCLUDE (_cond) FROM {domain}__all AS _t WHERE _t._cond = _p._cond "
                f"AND _t.record_id IN (SELECT _c.record_id FROM _pctx AS _c WHERE _c.i = _p.n)")
        flat = [(n, rid) for n, ids in enumerate(record_ids) for rid in ids]
        store.con.register("_pctx", pa.table({"i": pa.array([f[0] for f in flat], pa.int64()),
                                              "record_id": pa.array([f[1] for f in flat], pa.string())}))
    sql = _scoped(_correlated(sql_t), domain, expr)
    sup = _scoped(_correlated(sup_t), domain, expr)
    ptab = _param_table(params).append_column("_cond", pa.array(conds, pa.string()))
    store.con.register("_p", ptab)
    try:
        support_expr = (f"(SELECT CAST(to_json(list(_s.record_id)) AS VARCHAR) FROM ({sup}) AS _s)"
                        if with_support else "NULL")
        fetched = store.con.execute(
            f"SELECT _p.n, (SELECT CAST(to_json(list(_q)) AS VARCHAR) FROM ({sql}) AS _q), "
            f"{support_expr} FROM _p ORDER BY _p.n").fetchall()
    finally:
        store.con.unregister("_p")
        if record_ids is not None:
            store.con.unregister("_pctx")
    out = []
    for _n, a, s in fetched:
        answer = json.loads(a) if a else []
        out.append(([tuple(v.values()) for v in answer], json.loads(s) if s else []))
    return out
