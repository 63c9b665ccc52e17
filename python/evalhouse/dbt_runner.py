"""`dbt build` through dbtRunner (one parse per invocation), after readying the landing zone."""
from __future__ import annotations

import json
import os
from contextlib import contextmanager

from .config import PROJECT_ROOT, export_env
from .errors import UserError
from .landing import LandingZone
from .warehouse import connect


@contextmanager
def _cwd(path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def _release_duckdb() -> None:
    """dbt-duckdb caches its connection for the process; close it so the file is free again
    (otherwise a job running after an in-process build would hold the warehouse lock)."""
    from dbt.adapters.duckdb.connections import DuckDBConnectionManager

    with DuckDBConnectionManager._LOCK:
        env = DuckDBConnectionManager._ENV
        if env is not None:
            env.close()
        DuckDBConnectionManager._ENV = None


def dbt_build(select: str | None = None, target: str | None = None, quiet: bool = True,
              scale: str | None = None) -> dict:
    """Build models, seeds and tests; raises UserError naming the failing nodes."""
    from dbt.cli.main import dbtRunner

    p = export_env()
    LandingZone(p.landing).ensure_tables()
    with connect(read_only=False):  # fail fast, with a clear message, if the file is locked
        pass
    # Each warehouse gets its own dbt target/ and logs/ so concurrent builds never share state.
    args = ["build", "--project-dir", str(PROJECT_ROOT), "--profiles-dir", str(PROJECT_ROOT),
            "--target-path", str(p.warehouse_dir / "dbt_target"), "--log-path", str(p.warehouse_dir / "dbt_logs")]
    if select:
        args += ["--select", select]
    if target:
        args += ["--target", target]
    if scale:
        args += ["--vars", json.dumps({"scale": scale})]
    if quiet:
        args = ["--quiet", *args]
    with _cwd(PROJECT_ROOT):
        try:
            result = dbtRunner().invoke(args)
        finally:
            _release_duckdb()
    failures = []
    if result.result is not None:
        for r in result.result:
            status = str(getattr(r, "status", ""))
            if status in ("error", "fail", "runtime error"):
                failures.append(f"{r.node.name} ({status}: {(r.message or '').strip()[:300]})")
    if result.exception is not None:
        raise UserError(f"dbt build failed: {result.exception}")
    if failures:
        raise UserError("dbt build failed on " + "; ".join(failures))
    n = len(result.result) if result.result is not None else 0
    return {"nodes": n}
