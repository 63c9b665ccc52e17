"""The CLI: help on every command, and user errors as one sentence with a non-zero exit."""
from __future__ import annotations

import os
import subprocess
import sys

import duckdb
import pytest

COMMON = "path:models/common"
COMMANDS = ["generate", "build", "run", "judge", "report", "run-all", "status"]


def evalhouse(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalhouse.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


def assert_user_error(proc: subprocess.CompletedProcess, *fragments: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, proc.stderr
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command):
    proc = evalhouse(command, "--help")
    assert proc.returncode == 0
    assert "Usage:" in proc.stdout and command in proc.stdout


def test_unknown_benchmark_is_one_sentence(warehouse):
    assert_user_error(evalhouse("generate", "--benchmark", "nosuch"), "unknown benchmark 'nosuch'")


def test_locked_warehouse_is_reported_not_crashed(warehouse):
    warehouse.db.parent.mkdir(parents=True, exist_ok=True)
    holder = duckdb.connect(str(warehouse.db))  # another process's read-write client, in effect
    try:
        assert_user_error(evalhouse("build", "--select", COMMON), "locked")
    finally:
        holder.close()


def test_status_lists_runs_and_staleness(warehouse):
    from evalhouse.dbt_runner import dbt_build
    from evalhouse.landing import declare
    from evalhouse.runs import open_run

    declare("crash_test_items", {"value": "int", "payload": "string"})
    with open_run("test.status", {"k": 1}) as run:
        run.write("crash_test_items", [{"item_id": "a", "value": 1}])
    dbt_build(select=COMMON)
    proc = evalhouse("status", "--json")
    assert proc.returncode == 0, proc.stderr
    assert "test.status" in proc.stdout and '"stale": false' in proc.stdout
    with open_run("test.status", {"k": 2}) as run:
        run.write("crash_test_items", [{"item_id": "b", "value": 2}])
    proc = evalhouse("status")
    assert "stale (landing newer than warehouse; run `evalhouse build`): " in proc.stdout
    assert "crash_test_items" in proc.stdout.split("stale")[1].splitlines()[0]


def test_unknown_model_string_is_one_sentence(warehouse):
    assert_user_error(evalhouse("run", "--model", "not-a-model-string"), "model")


def test_missing_api_key_is_one_sentence(warehouse):
    env = {"EVALHOUSE_TEST_MISSING_KEY": ""}
    proc = evalhouse("run", "--model", "openai/gpt-4o-mini", "--api-key-env", "EVALHOUSE_NO_SUCH_KEY", env=env)
    assert_user_error(proc, "EVALHOUSE_NO_SUCH_KEY")


def test_unreachable_endpoint_is_one_sentence(warehouse):
    proc = evalhouse("run", "--model", "vllm/some-model", "--base-url", "http://127.0.0.1:9/v1")
    assert_user_error(proc, "127.0.0.1:9")


def test_extra_options_parse_json_values_and_reject_malformed_pairs():
    from evalhouse.cli import _parse_extra

    assert _parse_extra(("dabench=false", "settings=full_table", "max_turns=6")) == {
        "dabench": False, "settings": "full_table", "max_turns": 6}
    assert_user_error(evalhouse("generate", "--extra", "novalue"), "KEY=VALUE")
