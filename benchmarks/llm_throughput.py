"""LLM-layer throughput against the loopback FAKE server with an injected 50 ms latency.

For concurrency limits 1, 8 and 32: achieved requests/s as a fraction of the ideal
``limit / latency``, and the peak requests in flight the server saw; then the throughput of a
re-run served entirely from the cache (loaded from the landing zone, zero requests). Text calls
for every limit, structured calls (instructor, JSON mode) for 8 and 32, each next to the bare
openai SDK's requests/s under the same limit (``raw_sdk_requests_per_s``). The server runs in its
own process so it does not share the client's interpreter. Prints one JSON object.
``client_cpu_ms_per_request`` shows where the ceiling is: the openai SDK's per-request CPU cost
(request transforms, httpx, response models) bounds requests/s once ``limit / latency`` exceeds
``1000 / client_cpu_ms_per_request``.

    .venv/bin/python benchmarks/llm_throughput.py [--latency 0.05] [--requests 300]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]


def start_server(latency_s: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "llm_server.py"), "--latency", str(latency_s)],
                            stdout=subprocess.PIPE, text=True)
    return proc, proc.stdout.readline().strip()


def reset_server(base_url: str) -> None:
    request = urllib.request.Request(base_url.replace("/v1", "/loopback/reset"), data=b"", method="POST")
    urllib.request.urlopen(request, timeout=5).close()


def server_stats(base_url: str) -> dict:
    with urllib.request.urlopen(base_url.replace("/v1", "/loopback/stats"), timeout=5) as resp:
        return json.load(resp)


class Ack(BaseModel):
    ok: bool


def timed_batch(limit: int, spec, prompts: list[str], tag: str, kind: str = "text") -> tuple[float, object]:
    from evalhouse.llm import LLMClient
    from evalhouse.runs import open_run

    with open_run("bench.llm_throughput", {"tag": tag, "limit": limit, "kind": kind}) as run:
        client = LLMClient(run, concurrency=limit, show_progress=False)
        if kind == "structured":
            factories = [lambda p=p: client.structured(spec, [{"role": "user", "content": p}], Ack) for p in prompts]
        else:
            factories = [lambda p=p: client.text(spec, [{"role": "user", "content": p}]) for p in prompts]
        started, cpu_started = time.perf_counter(), time.process_time()
        results = client.run_batch(factories)
        elapsed = time.perf_counter() - started
        timed_batch.cpu_ms_per_call = (time.process_time() - cpu_started) * 1000 / len(prompts)
    assert all(r.ok for r in results), [r.error for r in results if not r.ok][:3]
    return elapsed, results


def measure_limit(limit: int, n: int, latency_s: float, base_url: str, kind: str = "text") -> dict:
    from evalhouse.llm import resolve_model

    spec = resolve_model("vllm/bench-model", base_url=base_url)
    reset_server(base_url)
    before = server_stats(base_url)["request_count"]
    prompts = [f"{kind} limit {limit} prompt {i}" for i in range(n)]
    elapsed, _ = timed_batch(limit, spec, prompts, "live", kind)
    stats = server_stats(base_url)
    achieved = n / elapsed
    ideal = limit / latency_s
    baseline = raw_sdk_per_s(limit, n, base_url)
    return {"kind": kind, "limit": limit, "requests": stats["request_count"] - before, "seconds": round(elapsed, 3),
            "requests_per_s": round(achieved, 1), "ideal_per_s": round(ideal, 1),
            "fraction_of_ideal": round(achieved / ideal, 3), "server_max_in_flight": stats["max_in_flight"],
            "raw_sdk_requests_per_s": round(baseline, 1),
            "fraction_of_raw_sdk": round(achieved / baseline, 3),
            "client_cpu_ms_per_request": round(timed_batch.cpu_ms_per_call, 2),
            "overhead_ms_per_request_beyond_latency": round((elapsed * limit / n - latency_s) * 1000, 1)}


def raw_sdk_per_s(limit: int, n: int, base_url: str) -> float:
    """Baseline: the bare openai SDK under the same limit (no cache, ledger, retries or instructor)."""
    import asyncio

    import openai

    async def main() -> float:
        client = openai.AsyncOpenAI(api_key="not-needed", base_url=base_url, max_retries=0)
        gate = asyncio.Semaphore(limit)

        async def one(i: int) -> None:
            async with gate:
                await client.chat.completions.create(
                    model="bench-model", temperature=0.0,
                    messages=[{"role": "user", "content": f"raw limit {limit} prompt {i}"}])

        started = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(n)))
        elapsed = time.perf_counter() - started
        await client.close()
        return n / elapsed

    return asyncio.run(main())


def measure_cache(n: int, base_url: str) -> dict:
    """Re-run the limit-32 prompts with a fresh client: every answer comes from the landing cache."""
    from evalhouse.llm import resolve_model

    spec = resolve_model("vllm/bench-model", base_url=base_url)
    before = server_stats(base_url)["request_count"]
    elapsed, results = timed_batch(32, spec, [f"text limit 32 prompt {i}" for i in range(n)], "cached")
    return {"requests": n, "http_requests_made": server_stats(base_url)["request_count"] - before,
            "cache_hits": sum(r.cache_hit for r in results), "seconds": round(elapsed, 3),
            "cache_hits_per_s": round(n / elapsed, 1),
            "client_cpu_ms_per_hit": round(timed_batch.cpu_ms_per_call, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    os.environ["EVALHOUSE_DB"] = str(Path(tempfile.mkdtemp(prefix="evalhouse-bench-")) / "evalhouse.duckdb")
    os.environ.pop("EVALHOUSE_LANDING", None)
    proc, base_url = start_server(args.latency)
    try:
        measure_limit(4, 20, args.latency, base_url)  # warm-up: imports, SDK client set-up
        limits = [measure_limit(limit, n, args.latency, base_url)
                  for limit, n in ((1, min(args.requests, 200)), (8, args.requests), (32, args.requests))]
        structured = [measure_limit(limit, args.requests, args.latency, base_url, "structured") for limit in (8, 32)]
        cache = measure_cache(args.requests, base_url)
    finally:
        proc.terminate()
        proc.wait(10)
    print(json.dumps({"latency_s": args.latency, "limits": limits, "structured": structured, "cache": cache},
                     indent=2))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "python"))
    main()
