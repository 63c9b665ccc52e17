"""Landing zone and run registry: crash safety, resume, and no blocking of readers or dbt."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from evalhouse.dbt_runner import dbt_build
from evalhouse.errors import BadInput, UserError
from evalhouse.landing import LandingZone, declare
from evalhouse.runs import open_run, run_id_for

COMMON = "path:models/common"  # platform tests build only the common models
JOB = Path(__file__).with_name("landing_writer_job.py")
declare("crash_test_items", {"value": "int", "payload": "string"})


def _start_job(n: int, batch: int, delay: float, hold: Path | None = None) -> subprocess.Popen:
    args = [str(n), str(batch), str(delay)] + ([str(hold)] if hold else [])
    return subprocess.Popen([sys.executable, str(JOB), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy())


def _wait_for_batches(proc: subprocess.Popen, count: int, timeout: float = 60) -> None:
    seen, deadline = 0, time.monotonic() + timeout
    while seen < count:
        line = proc.stdout.readline()
        assert line, f"job ended early: {proc.stderr.read()}"
        seen += line.startswith("wrote batch")
        assert time.monotonic() < deadline, "job too slow"


def _landed(zone: LandingZone, run_id: str) -> list[str]:
    with duckdb.connect() as con:
        return [r[0] for r in con.execute("select item_id from read_parquet(?)", [zone.glob("crash_test_items", run_id)]).fetchall()]


def test_sigkill_mid_batch_then_resume_loses_nothing_and_duplicates_nothing(warehouse):
    n, batch = 300, 25
    zone = LandingZone()
    run_id = run_id_for("test.crash_writer", {"n": n})

    job = _start_job(n, batch, delay=0.004)
    _wait_for_batches(job, 3)
    time.sleep(0.05)  # some rows of the next batch are in memory: kill mid-batch
    job.send_signal(signal.SIGKILL)
    job.wait(timeout=10)
    landed_before = _landed(zone, run_id)
    assert 0 < len(landed_before) < n
    assert len(landed_before) % batch == 0, "only whole batches may land"

    # A torn temp file from a crash inside a write must be ignored by readers.
    (zone.table_dir("crash_test_items") / run_id / ".part-torn.parquet.tmp").write_bytes(b"PAR1garbage")

    job = _start_job(n, batch, delay=0.0)
    out, err = job.communicate(timeout=60)
    assert job.returncode == 0, err
    assert f"resuming with {len(landed_before)} done" in out

    landed = _landed(zone, run_id)
    assert sorted(landed) == sorted(f"item-{i}" for i in range(n))
    assert len(landed) == len(set(landed))


def test_dbt_build_and_read_only_reader_work_while_a_job_writes(warehouse):
    dbt_build(select=COMMON)  # a first warehouse exists, as after `make run`
    hold = warehouse.db.parent / "hold"
    hold.touch()
    job = _start_job(205, 20, delay=0.001, hold=hold)  # holds its last (partial) batch
    try:
        _wait_for_batches(job, 2)
        summary = dbt_build(select=COMMON)
        assert summary["nodes"] > 0
        with duckdb.connect(str(warehouse.db), read_only=True) as con:
            runs = con.execute("select run_id, status from runs where kind = 'test.crash_writer'").fetchall()
        assert runs and runs[0][1] == "running or interrupted"
        assert job.poll() is None, "the job must still be writing during the build"
    finally:
        hold.unlink()
        job.wait(timeout=120)
    assert job.returncode == 0
    dbt_build(select=COMMON)
    with duckdb.connect(str(warehouse.db), read_only=True) as con:
        status, starts = con.execute(
            "select status, starts from runs where kind = 'test.crash_writer'").fetchone()
    assert (status, starts) == ("finished", 1)


def test_run_registry_records_failure_and_resumes_under_the_same_id(warehouse):
    with pytest.raises(RuntimeError):
        with open_run("test.registry", {"seed": 1}) as run:
            run.write("crash_test_items", [{"item_id": "a", "value": 1}])
            raise RuntimeError("boom")
    with open_run("test.registry", {"seed": 1}) as run:
        assert run.done_items("crash_test_items") == {"a"}
        first_id = run.run_id
    dbt_build(select=COMMON)
    with duckdb.connect(str(warehouse.db), read_only=True) as con:
        row = con.execute("select run_id, status, starts, config from runs where kind = 'test.registry'").fetchone()
    assert row[0] == first_id and row[1] == "finished" and row[2] == 2
    assert '"seed":1' in row[3]


def test_concurrent_writers_of_one_run_are_refused(warehouse):
    with open_run("test.lock", {"x": 1}):
        with pytest.raises(UserError, match="another process"):
            with open_run("test.lock", {"x": 1}):
                pass


def test_bad_rows_are_rejected_with_row_and_field_and_nothing_lands(warehouse):
    zone = LandingZone()
    with pytest.raises(BadInput, match=r"row 1: unknown field\(s\) \['colour'\]"):
        zone.write("crash_test_items", "r1", [{"item_id": "a", "value": 1}, {"item_id": "b", "colour": "red"}])
    with pytest.raises(BadInput, match="row 0: field item_id is missing"):
        zone.write("crash_test_items", "r1", [{"value": 2}])
    assert zone.done_items("crash_test_items", "r1") == set()
