"""Instance SQL validation, column lineage, support-SQL derivation and the structured-only variant.

Valid instance SQL is one read-only SELECT (or set operation of SELECTs) over the domain's logical
table (`fir`, `cfpb` or `mimic`) and CTEs, whose every column resolves against the domain schema
(sqlglot `qualify`). Writes, DDL, ATTACH/COPY/PRAGMA/SET, file readers and table functions are
rejected.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import traverse_scope

from .domains import DOMAINS

_FORBIDDEN_NODES = tuple(getattr(exp, n) for n in (
    "Insert", "Update", "Delete", "Create", "Drop", "Alter", "Command", "Copy", "Attach", "Detach", "Pragma", "Set",
    "Merge", "TruncateTable", "Use", "Into", "Transaction", "Commit", "Rollback", "Describe", "Install", "Load",
) if hasattr(exp, n))
_FORBIDDEN_FUNCS = re.compile(
    r"^(read_\w+|\w+_scan|glob|query|query_table|getenv|current_setting|sniff_csv|load|install|export\w*|import\w*|"
    r"read|write\w*|system|http\w*|pg_\w+|duckdb_\w+|pragma_\w+|which_secret|range|generate_series|repeat_row)$", re.I)


class SQLValidationError(ValueError):
    """The SQL is not a single read-only SELECT over known tables and columns."""


@dataclass(frozen=True)
class Lineage:
    structured: tuple[str, ...]
    annotation: tuple[str, ...]

    @property
    def is_hybrid(self) -> bool:
        return bool(self.structured) and bool(self.annotation)


def _parse_one(sql: str) -> exp.Expression:
    try:
        trees = [t for t in sqlglot.parse(sql, read="duckdb") if t is not None]
    except ParseError as exc:
        raise SQLValidationError(f"does not parse: {str(exc).splitlines()[0]}") from None
    if len(trees) != 1:
        raise SQLValidationError(f"expected exactly one statement, found {len(trees)}")
    return trees[0]


def validate_sql(sql: str, domain: str) -> exp.Expression:
    """Parse, check read-only-ness and resolve every table/column; returns the qualified tree."""
    if domain not in DOMAINS:
        raise SQLValidationError(f"unknown domain '{domain}'")
    tree = _parse_one(sql)
    if not isinstance(tree, exp.Query):
        raise SQLValidationError(f"not a SELECT query ({type(tree).__name__})")
    for node in tree.walk():
        if isinstance(node, _FORBIDDEN_NODES):
            raise SQLValidationError(f"forbidden statement or clause: {type(node).__name__}")
        if isinstance(node, exp.Func):
            name = node.sql_name() if not isinstance(node, exp.Anonymous) else node.name
            if _FORBIDDEN_FUNCS.match(str(name)):
                raise SQLValidationError(f"forbidden function: {name}")
        if isinstance(node, exp.Table) and isinstance(node.this, (exp.Func, exp.Anonymous)):
            raise SQLValidationError("table functions are not allowed")
        if isinstance(node, (exp.Values, exp.Lateral)):
            raise SQLValidationError(f"{type(node).__name__} is not allowed in instance SQL")
    ctes = {c.alias_or_name for c in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        if table.args.get("db") or table.args.get("catalog"):
            raise SQLValidationError(f"qualified table names are not allowed: {table.sql()}")
        if table.name not in ctes and table.name != domain:
            raise SQLValidationError(f"unknown table '{table.name}' (this domain's table is '{domain}')")
    schema = {domain: DOMAINS[domain].sql_schema()}
    try:
        return qualify(tree.copy(), schema=schema, dialect="duckdb", validate_qualify_columns=True,
                       quote_identifiers=False)
    except Exception as exc:  # sqlglot raises OptimizeError subclasses for unknown columns
        raise SQLValidationError(f"does not resolve against the {domain} schema: {exc}") from None


def _base_scopes(tree: exp.Expression, domain: str):
    for scope in traverse_scope(tree):
        for alias, source in scope.sources.items():
            if isinstance(source, exp.Table) and source.name == domain:
                yield scope, alias


def lineage(sql: str, domain: str) -> Lineage:
    """Base-table columns read anywhere in the query, split by kind (from sqlglot scopes)."""
    return _lineage_of(validate_sql(sql, domain), domain)


def _lineage_of(tree: exp.Expression, domain: str) -> Lineage:
    d = DOMAINS[domain]
    read: set[str] = set()
    for scope, alias in _base_scopes(tree, domain):
        for col in scope.columns:
            if col.table == alias:
                read.add(col.name)
    return Lineage(tuple(c for c in d.structured if c in read), tuple(c for c in d.annotation if c in read))


def support_sql(sql: str, domain: str) -> str:
    """SELECT of the record ids satisfying the row-level predicates of every scan of the base table."""
    return _support_of(validate_sql(sql, domain), domain)


def _support_of(tree: exp.Expression, domain: str) -> str:
    parts = []
    for scope, alias in _base_scopes(tree, domain):
        sel = scope.expression
        if not isinstance(sel, exp.Select):
            continue
        sub = exp.select(exp.column("record_id", table=alias)).from_(sel.args["from_"].this.copy())
        for join in sel.args.get("joins") or []:
            sub = sub.join(join.copy())
        if sel.args.get("where") is not None:
            sub.set("where", sel.args["where"].copy())
        parts.append(sub.sql(dialect="duckdb"))
    if not parts:
        raise SQLValidationError("the query never scans its domain table")
    body = " UNION ".join(parts)
    return f"SELECT DISTINCT record_id FROM ({body}) AS support ORDER BY record_id"


def has_order_by(sql: str) -> bool:
    tree = _parse_one(sql)
    return tree.args.get("order") is not None


def drop_narrative_predicates(sql: str, domain: str) -> str:
    """The structured-only variant: every predicate that reads an annotation column becomes TRUE.

    Annotation columns in the projection (e.g. `SELECT weapon_used ...`) are kept: the variant
    can only ignore narrative *conditions*, not invent narrative values.
    """
    return _drop_of(validate_sql(sql, domain), domain)


def _drop_of(tree: exp.Expression, domain: str) -> str:
    ann = set(DOMAINS[domain].annotation)

    def reads_annotation(node: exp.Expression) -> bool:
        return any(c.name in ann for c in node.find_all(exp.Column))

    for clause in list(tree.find_all(exp.Where, exp.Having)):
        _replace_conjuncts(clause, reads_annotation)
    for agg in list(tree.find_all(exp.Filter)):  # COUNT(*) FILTER (WHERE ...)
        where = agg.args.get("expression")
        if isinstance(where, exp.Where):
            _replace_conjuncts(where, reads_annotation)
    return tree.sql(dialect="duckdb")


def _replace_conjuncts(clause: exp.Expression, predicate) -> None:
    cond = clause.this
    conjuncts = list(cond.flatten()) if isinstance(cond, exp.And) else [cond]
    kept = [c for c in conjuncts if not predicate(c)]
    clause.set("this", exp.and_(*kept) if kept else exp.true())


# ----------------------------------------------------------------- templates with parameter slots

_SLOT = re.compile(r"\{(\w+)\}")
_SENTINEL_BASE = 987_650_000


def _with_sentinels(template_sql: str) -> tuple[str, dict[str, str]]:
    """Replace unquoted {slots} by numeric sentinels so the template parses; quoted '{slot}' stay."""
    back: dict[str, str] = {}
    out = []
    pos = 0
    for i, m in enumerate(_SLOT.finditer(template_sql)):
        before = template_sql[max(0, m.start() - 1):m.start()]
        after = template_sql[m.end():m.end() + 1]
        out.append(template_sql[pos:m.start()])
        if before == "'" and after == "'":
            out.append(m.group(0))
        else:
            sentinel = str(_SENTINEL_BASE + i)
            back[sentinel] = m.group(0)
            out.append(sentinel)
        pos = m.end()
    out.append(template_sql[pos:])
    return "".join(out), back


def _restore_sentinels(sql: str, back: dict[str, str]) -> str:
    for sentinel, slot in back.items():
        sql = sql.replace(sentinel, slot)
    return sql


@dataclass(frozen=True)
class TemplateAnalysis:
    ok: bool
    error: str | None
    structured: tuple[str, ...] = ()
    annotation: tuple[str, ...] = ()
    support_sql: str | None = None
    ordered: bool = False
    slots: tuple[str, ...] = ()
    structured_only_sql: str | None = None
    projects_annotation: bool = False


@lru_cache(maxsize=4096)
def analyze_template(template_sql: str, domain: str) -> TemplateAnalysis:
    """Validate a template once (slots as sentinels) and derive lineage, support SQL and the
    structured-only variant from the one qualified tree."""
    try:
        parsed_sql, back = _with_sentinels(template_sql)
        tree = validate_sql(parsed_sql, domain)
        lin = _lineage_of(tree, domain)
        sup = _restore_sentinels(_support_of(tree, domain), back)
        ann = set(DOMAINS[domain].annotation)
        projects = any(any(c.name in ann for c in proj.find_all(exp.Column))
                       for sel in tree.find_all(exp.Select) for proj in sel.expressions)
        so = None if projects else _restore_sentinels(_drop_of(tree.copy(), domain), back)
        return TemplateAnalysis(True, None, lin.structured, lin.annotation, sup, tree.args.get("order") is not None,
                                tuple(dict.fromkeys(_SLOT.findall(template_sql))), so, projects)
    except SQLValidationError as exc:
        return TemplateAnalysis(False, str(exc))


def render(template: str, params: dict, sql: bool = True) -> str:
    """Fill {slots}; in SQL, string values are escaped and numbers must be numeric."""
    def sub(m):
        name = m.group(1)
        if name not in params:
            raise SQLValidationError(f"missing parameter '{name}'")
        value = params[name]
        if not sql:
            return str(value)
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise SQLValidationError(f"parameter '{name}' has unsupported type {type(value).__name__}")
        return str(value).replace("'", "''") if isinstance(value, str) else repr(value)
    return _SLOT.sub(sub, template)
