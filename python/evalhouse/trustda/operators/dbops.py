"""Small DuckDB helpers the validator hooks use to recover or misread perturbed tables."""
from __future__ import annotations

import duckdb


def qi(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    return [r[0] for r in con.execute(f"describe {qi(table)}").fetchall()]


def tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [r[0] for r in con.execute("select table_name from duckdb_tables() where schema_name = current_schema() "
                                      "and database_name = current_database() order by table_name").fetchall()]


def rename(con, table: str, old: str, new: str) -> None:
    con.execute(f"alter table {qi(table)} rename column {qi(old)} to {qi(new)}")


def drop_columns(con, table: str, cols: list[str]) -> None:
    keep = [c for c in columns(con, table) if c not in cols]
    con.execute(f"create or replace table {qi(table)} as select {', '.join(qi(c) for c in keep)} from {qi(table)}")


def replace_expr(con, table: str, col: str, expr: str) -> None:
    cols = columns(con, table)
    sel = ", ".join(f"{expr} as {qi(c)}" if c == col else qi(c) for c in cols)
    con.execute(f"create or replace table {qi(table)} as select {sel} from {qi(table)}")


def drop_table(con, table: str) -> None:
    con.execute(f"drop table if exists {qi(table)}")
