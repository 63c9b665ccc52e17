"""CIPHER fixtures shared by part 1 (data) and part 2 (evaluation) tests."""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

import pytest

_ENV = ("EVALHOUSE_DB", "EVALHOUSE_LANDING", "EVALHOUSE_PACKAGES", "EVALHOUSE_REPORTS", "EVALHOUSE_TARGET")


@contextmanager
def _pointed_at(root: Path):
    saved = {k: os.environ.get(k) for k in _ENV}
    os.environ["EVALHOUSE_DB"] = str(root / "evalhouse.duckdb")
    os.environ["EVALHOUSE_REPORTS"] = str(root / "reports")
    for k in ("EVALHOUSE_LANDING", "EVALHOUSE_PACKAGES", "EVALHOUSE_TARGET"):
        os.environ.pop(k, None)
    try:
        from evalhouse.config import paths
        yield paths()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture(scope="session")
def cipher_ci_warehouse(tmp_path_factory):
    """Paths of a warehouse with CIPHER generated at scale='ci' and `dbt build` run (once per session).

    The warehouse lives in its own directory (evalhouse.duckdb + landing/); treat it as read-only
    or copy it. Environment variables are restored after the build.
    """
    from evalhouse.benchmarks import JobOptions
    from evalhouse.cipher.generate import generate
    from evalhouse.dbt_runner import dbt_build

    root = tmp_path_factory.mktemp("cipher_ci")
    with _pointed_at(root) as p:
        generate(JobOptions(scale="ci", seed=42))
        # only CIPHER and what it depends on: another benchmark's broken model must not fail these tests
        dbt_build(select="+path:models/cipher")
        return p


@pytest.fixture
def cipher_ci_env(cipher_ci_warehouse, monkeypatch):
    """Point this test's environment at the session CI warehouse (read it, don't write it)."""
    monkeypatch.setenv("EVALHOUSE_DB", str(cipher_ci_warehouse.db))
    monkeypatch.setenv("EVALHOUSE_LANDING", str(cipher_ci_warehouse.landing))
    return cipher_ci_warehouse
