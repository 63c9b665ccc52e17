"""A model-calling job killed with SIGKILL loses at most its unflushed ledger rows; the re-run
pays only for the calls whose rows were lost (the rest come from the landed cache)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from evalhouse.landing import LandingZone
from evalhouse.llm import LLMClient, resolve_model
from evalhouse.runs import open_run, run_id_for

N_CALLS = 40
JOB = """
import sys
from evalhouse.llm import LLMClient, resolve_model
from evalhouse.runs import open_run
spec = resolve_model("vllm/crash-model", base_url=sys.argv[1])
with open_run("test.llm_crash", {"n": %d}) as run:
    client = LLMClient(run, concurrency=2, flush_rows=4, flush_seconds=1e6, show_progress=False)
    client.run_batch([lambda i=i: client.text(spec, [{"role": "user", "content": f"item {i}"}]) for i in range(%d)])
""" % (N_CALLS, N_CALLS)


def _parts(run_id: str) -> list[Path]:
    return list((LandingZone().table_dir("llm_calls") / run_id).glob("*.parquet"))


def test_killed_job_resumes_paying_only_for_lost_calls(warehouse, loopback_llm):
    loopback_llm.latency_s = 0.1
    run_id = run_id_for("test.llm_crash", {"n": N_CALLS})
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "python")}
    job = subprocess.Popen([sys.executable, "-c", JOB, loopback_llm.base_url], env=env)
    deadline = time.monotonic() + 60
    while len(_parts(run_id)) < 3 and time.monotonic() < deadline and job.poll() is None:
        time.sleep(0.02)
    job.send_signal(signal.SIGKILL)
    job.wait(10)
    assert job.returncode == -signal.SIGKILL, "the job finished before it could be killed"

    landed = LandingZone().read("llm_calls", run_id=run_id)
    assert len(landed) % 4 == 0 and len(landed) >= 12  # whole flushed batches only
    assert landed["item_id"].is_unique and set(landed["status"]) == {"ok"}
    sent_before_restart = loopback_llm.request_count
    assert sent_before_restart >= len(landed)

    spec = resolve_model("vllm/crash-model", base_url=loopback_llm.base_url)
    with open_run("test.llm_crash", {"n": N_CALLS}) as run:
        client = LLMClient(run, concurrency=2, show_progress=False)
        results = client.run_batch([lambda i=i: client.text(spec, [{"role": "user", "content": f"item {i}"}])
                                    for i in range(N_CALLS)])
    assert all(r.ok for r in results)
    assert sum(r.cache_hit for r in results) == len(landed)
    assert loopback_llm.request_count - sent_before_restart == N_CALLS - len(landed)
    answered = LandingZone().read("llm_calls", run_id=run_id)
    assert answered["request_hash"].nunique() == N_CALLS
