"""Shared set-up of the TUPLE-Bench benchmark scripts: a warehouse holding the paper-scale
releases of the built-in systems. Uses EVALHOUSE_DB when it already has them; otherwise builds
one once under the temp dir (generate -> dbt build -> built-in systems -> dbt build)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

SELECT = "path:models/common path:models/tuplebench path:seeds/tuplebench"


def _has_releases() -> bool:
    from evalhouse.warehouse import query_df
    try:
        return int(query_df("select count(*) as n from tuplebench_releases").iloc[0, 0]) > 0
    except Exception:
        return False


def ensure_releases() -> str:
    if os.environ.get("EVALHOUSE_DB") and _has_releases():
        return os.environ["EVALHOUSE_DB"]
    root = Path(tempfile.gettempdir()) / "evalhouse-bench-tuplebench"
    os.environ["EVALHOUSE_DB"] = str(root / "evalhouse.duckdb")
    os.environ.pop("EVALHOUSE_LANDING", None)
    if not _has_releases():
        from evalhouse.benchmarks import JobOptions
        from evalhouse.dbt_runner import dbt_build
        from evalhouse.tuplebench import evaluate, generate

        opts = JobOptions(scale="paper", seed=42)
        generate.generate(opts)
        dbt_build(select=SELECT)
        evaluate.run(opts)
        dbt_build(select=SELECT)
    return os.environ["EVALHOUSE_DB"]
