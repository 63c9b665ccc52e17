"""CIPHER benchmark figures: generation time, the CIPHER part of `dbt build`, and gold regeneration
inside dbt build versus bare DuckDB execution of the same SQL statements.

    .venv/bin/python benchmarks/cipher_gold.py [--scale paper|ci] [--workdir DIR] [--skip-generate]

Uses a scratch warehouse (never the project's). Prints one JSON summary.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path


def _node_seconds(target: Path) -> dict[str, float]:
    results = json.loads((target / "run_results.json").read_text())["results"]
    return {r["unique_id"].split(".")[-1]: float(r.get("execution_time") or 0.0) for r in results}


def bare_duckdb_seconds(db: Path) -> tuple[float, int]:
    """Execute every instance's SQL and support SQL per condition, one statement each, on plain tables."""
    import duckdb

    from evalhouse.cipher.domains import CONDITIONS, DOMAINS

    src = duckdb.connect(str(db), read_only=True)
    con = duckdb.connect(config={"threads": 1})
    for d in DOMAINS:
        for c in CONDITIONS:
            con.register("_in", src.sql(f"select * exclude (view_key, condition) from cipher_{d}_view where condition = '{c}'").to_arrow_table())
            con.execute(f"create table {d}__{c} as select * from _in")
            con.unregister("_in")
    rows = src.execute("select domain, sql, support_sql from cipher_instances where sql is not null").fetchall()
    src.close()
    n = 0
    start = time.perf_counter()
    for c in CONDITIONS:
        for d in DOMAINS:
            con.execute(f"create or replace temp view {d} as select * from {d}__{c}")
        for _domain, sql, support in rows:
            con.execute(sql).fetchall()
            con.execute(support).fetchall()
            n += 2
    return time.perf_counter() - start, n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", default="paper", choices=["paper", "ci"])
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--skip-generate", action="store_true", help="reuse the landing zone already in --workdir")
    args = ap.parse_args()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="cipher_bench_"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ["EVALHOUSE_DB"] = str(work / "evalhouse.duckdb")
    os.environ.pop("EVALHOUSE_LANDING", None)
    from evalhouse.benchmarks import JobOptions
    from evalhouse.cipher.generate import generate
    from evalhouse.config import paths
    from evalhouse.dbt_runner import dbt_build

    out: dict = {"scale": args.scale, "workdir": str(work)}
    if not args.skip_generate:
        t = time.perf_counter()
        generate(JobOptions(scale=args.scale, seed=42))
        out["generate_seconds"] = round(time.perf_counter() - t, 1)
    t = time.perf_counter()
    dbt_build(select="+path:models/cipher")
    out["dbt_build_cipher_seconds"] = round(time.perf_counter() - t, 1)
    nodes = _node_seconds(paths().warehouse_dir / "dbt_target")
    cipher_nodes = {k: v for k, v in nodes.items() if "cipher" in k}
    out["dbt_cipher_node_seconds_sum"] = round(sum(cipher_nodes.values()), 1)
    out["slowest_nodes"] = dict(sorted(cipher_nodes.items(), key=lambda kv: -kv[1])[:6])
    gold_inside = nodes.get("int_cipher_gold_executed", 0.0)
    bare, statements = bare_duckdb_seconds(paths().db)
    out.update(gold_inside_dbt_seconds=round(gold_inside, 2), bare_duckdb_seconds=round(bare, 2),
               bare_statements=statements, gold_ratio_dbt_over_bare=round(gold_inside / bare, 2) if bare else None)
    import duckdb
    con = duckdb.connect(str(paths().db), read_only=True)
    out["instances_in_benchmark"] = dict(con.execute(
        "select domain, count(*) from cipher_instances where in_benchmark group by domain order by domain").fetchall())
    out["table1"] = {f"{d}.{s}": [v, p] for d, s, v, p in con.execute(
        "select domain, statistic, value, paper_value from cipher_benchmark_stats order by domain, section, statistic").fetchall()}
    out["retention"] = {r[0]: {"templates": r[1], "approved": r[2], "rewritten": r[3], "removed": r[4], "retained_pct": r[5]}
                        for r in con.execute("select domain, n_templates, n_approved, n_rewritten, n_removed, retained_pct "
                                             "from cipher_audit_retention order by domain").fetchall()}
    con.close()
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
