"""Shared fixtures: every test gets its own warehouse and landing zone under tmp_path."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def pytest_addoption(parser):
    parser.addoption("--run-live", action="store_true", default=False,
                     help="run tests against the real model named by EVALHOUSE_LIVE_MODEL")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-live") and os.environ.get("EVALHOUSE_LIVE_MODEL"):
        return
    skip = pytest.mark.skip(reason="live test: pass --run-live and set EVALHOUSE_LIVE_MODEL")
    for item in items:
        if "live" in item.keywords:
            item.add_marker(skip)


def _isolate(monkeypatch, root: Path):
    monkeypatch.setenv("EVALHOUSE_DB", str(root / "evalhouse.duckdb"))
    monkeypatch.setenv("EVALHOUSE_REPORTS", str(root / "reports"))
    for var in ("EVALHOUSE_LANDING", "EVALHOUSE_PACKAGES", "EVALHOUSE_TARGET"):
        monkeypatch.delenv(var, raising=False)
    from evalhouse.config import paths
    return paths()


@pytest.fixture
def warehouse(tmp_path, monkeypatch):
    """Paths of a fresh, empty warehouse private to this test."""
    return _isolate(monkeypatch, tmp_path / "wh")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    return SHARED_DATA


@pytest.fixture
def loopback_llm():
    """A started FAKE OpenAI-compatible server (tests/llm_server.py) standing in for a paid API.

    Yields a LoopbackLLM: .base_url, .script(...), .set_handler(...), .latency_s,
    .request_count, .max_in_flight, .requests (bodies), .tokens_sent.
    """
    import sys

    tests_dir = str(Path(__file__).resolve().parent)
    if tests_dir not in sys.path:
        sys.path.insert(0, tests_dir)
    from llm_server import LoopbackLLM

    server = LoopbackLLM().start()
    try:
        yield server
    finally:
        server.stop()
