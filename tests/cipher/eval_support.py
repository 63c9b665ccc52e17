"""Shared set-up of the CIPHER evaluation tests: a private copy of part 1's CI warehouse with the
built-in systems run, judged and built into marts (once per session)."""
from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

ENV_VARS = ("EVALHOUSE_DB", "EVALHOUSE_LANDING", "EVALHOUSE_PACKAGES", "EVALHOUSE_REPORTS", "EVALHOUSE_TARGET")
_BUILT: dict[str, Path] = {}


def source_dir(cipher_ci_warehouse) -> Path:
    """The directory holding part 1's built CI warehouse (fixture value: Paths or a path)."""
    db = getattr(cipher_ci_warehouse, "db", None)
    if db is not None:
        return Path(db).parent
    path = Path(cipher_ci_warehouse)
    return path.parent if path.suffix == ".duckdb" else path


@contextmanager
def pointed_at(root: Path):
    """Point the evalhouse paths at a warehouse directory for the duration of the block."""
    saved = {k: os.environ.get(k) for k in ENV_VARS}
    os.environ["EVALHOUSE_DB"] = str(root / "evalhouse.duckdb")
    os.environ["EVALHOUSE_REPORTS"] = str(root / "reports")
    for k in ("EVALHOUSE_LANDING", "EVALHOUSE_PACKAGES", "EVALHOUSE_TARGET"):
        os.environ.pop(k, None)
    try:
        yield root
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def copy_warehouse(src: Path, dest: Path) -> Path:
    """Copy the DuckDB file (renamed to the default name) and the landing zone."""
    dest.mkdir(parents=True, exist_ok=True)
    dbs = sorted(src.glob("*.duckdb"))
    if not dbs:
        raise FileNotFoundError(f"no .duckdb file in {src}")
    shutil.copy2(dbs[0], dest / "evalhouse.duckdb")
    if (src / "landing").is_dir():
        shutil.copytree(src / "landing", dest / "landing", dirs_exist_ok=True)
    if (src / "packages").is_dir():
        shutil.copytree(src / "packages", dest / "packages", dirs_exist_ok=True)
    return dest


def builtin_evaluated(cipher_ci_warehouse, tmp_path_factory) -> Path:
    """A copy of the CI warehouse after the built-in run, the rule judge and a dbt build."""
    if "builtin" not in _BUILT:
        from evalhouse.benchmarks import JobOptions
        from evalhouse.cipher import evaluate
        from evalhouse.dbt_runner import dbt_build

        root = copy_warehouse(source_dir(cipher_ci_warehouse), tmp_path_factory.mktemp("cipher_eval"))
        with pointed_at(root):
            opts = JobOptions(scale="ci")
            evaluate.run(opts)
            evaluate.judge(opts)
            dbt_build(select="tag:cipher_eval")
        _BUILT["builtin"] = root
    return _BUILT["builtin"]
