"""Helpers shared by the TUPLE-Bench tests (warehouse environment, targeted dbt build)."""
from __future__ import annotations

import os
from pathlib import Path

BUILD_SELECT = "path:models/common path:models/tuplebench path:seeds/tuplebench"
ENV_VARS = ("EVALHOUSE_DB", "EVALHOUSE_LANDING", "EVALHOUSE_PACKAGES", "EVALHOUSE_REPORTS", "EVALHOUSE_TARGET")


def env_for(root: Path) -> dict[str, str]:
    return {"EVALHOUSE_DB": str(root / "evalhouse.duckdb"), "EVALHOUSE_REPORTS": str(root / "reports")}


def apply_env(env: dict[str, str]) -> dict[str, str | None]:
    old = {k: os.environ.get(k) for k in ENV_VARS}
    for k in ENV_VARS:
        os.environ.pop(k, None)
    os.environ.update(env)
    return old


def restore_env(old: dict[str, str | None]) -> None:
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def build(select: str = BUILD_SELECT) -> None:
    from evalhouse.dbt_runner import dbt_build
    dbt_build(select=select)
