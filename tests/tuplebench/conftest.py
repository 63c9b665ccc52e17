"""TUPLE-Bench fixtures: one CI-scale pipeline (generate -> build -> built-in systems -> build ->
decoders [-> part 2] -> build) shared by the session; tests that write use a copy of it."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tb_support import ENV_VARS, apply_env, build, env_for, restore_env


@pytest.fixture(scope="session")
def tb_pipeline(tmp_path_factory):
    """Root of a warehouse where the whole TUPLE-Bench pipeline ran at CI scale (seed 7)."""
    from evalhouse.benchmarks import JobOptions
    from evalhouse.tuplebench import evaluate, generate

    root = tmp_path_factory.mktemp("tuplebench_pipeline")
    old = apply_env(env_for(root))
    try:
        opts = JobOptions(scale="ci", seed=7)
        generate.generate(opts)
        build()
        evaluate.run(opts)
        build()
        evaluate.judge(opts)
        build()
    finally:
        restore_env(old)
    return root


@pytest.fixture
def tb(tb_pipeline, monkeypatch):
    """The session pipeline's warehouse, read-only by convention, with the environment pointed at it."""
    for k in ENV_VARS:
        monkeypatch.delenv(k, raising=False)
    for k, v in env_for(tb_pipeline).items():
        monkeypatch.setenv(k, v)
    return tb_pipeline


@pytest.fixture
def tb_copy(tb_pipeline, tmp_path, monkeypatch):
    """A private copy of the pipeline's warehouse and landing zone, for tests that write."""
    root = tmp_path / "copy"
    shutil.copytree(tb_pipeline, root, ignore=shutil.ignore_patterns("dbt_target", "dbt_logs", "reports"))
    for k in ENV_VARS:
        monkeypatch.delenv(k, raising=False)
    for k, v in env_for(root).items():
        monkeypatch.setenv(k, v)
    return root
