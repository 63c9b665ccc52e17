"""TrustDABench fixtures shared by part 1 (data) and part 2 (evaluation) tests."""
from __future__ import annotations

import pytest

DABENCH = "dabench-dev"


@pytest.fixture(scope="session")
def trustda_ci_warehouse(tmp_path_factory, shared_data):
    """Paths of a warehouse where `generate(scale="ci")` and `dbt build` have run.

    Environment variables point at it for the whole session (part 2 tests can run their phases
    and `dbt_build()` again on it)."""
    from evalhouse.benchmarks import JobOptions
    from evalhouse.config import paths
    from evalhouse.dbt_runner import dbt_build
    from evalhouse.trustda.generate import generate

    root = tmp_path_factory.mktemp("trustda_ci")
    mp = pytest.MonkeyPatch()
    mp.setenv("EVALHOUSE_DB", str(root / "evalhouse.duckdb"))
    mp.setenv("EVALHOUSE_REPORTS", str(root / "reports"))
    for var in ("EVALHOUSE_LANDING", "EVALHOUSE_PACKAGES", "EVALHOUSE_TARGET"):
        mp.delenv(var, raising=False)
    extra = {"dabench_dir": str(shared_data / DABENCH)} if (shared_data / DABENCH).is_dir() else {"dabench": False}
    generate(JobOptions(scale="ci", seed=42, extra=extra))
    dbt_build()
    yield paths()
    mp.undo()


@pytest.fixture(scope="session")
def dabench_dir(shared_data):
    folder = shared_data / DABENCH
    if not folder.is_dir():
        pytest.skip("shared DABench dev data not present")
    return folder
