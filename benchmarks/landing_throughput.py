"""Landing-zone write throughput: 1e5 rows through Run.write in batches of various sizes.

Prints JSON: rows/s per batch size, parts written, bytes on disk, and resume-scan (done_items) time.
Run: .venv/bin/python benchmarks/landing_throughput.py
"""
from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

N_ROWS = 100_000


def _rows(n: int):
    return [{"item_id": f"item-{i:06d}", "value": i, "payload": f"answer {i} " * 8} for i in range(n)]


def measure(batch: int, root: Path) -> dict:
    from evalhouse.landing import LandingZone, declare
    from evalhouse.runs import open_run

    declare("bench_items", {"value": "int", "payload": "string"})
    rows = _rows(N_ROWS)
    start = time.perf_counter()
    with open_run("bench.landing", {"batch": batch}, landing_root=root) as run:
        for i in range(0, N_ROWS, batch):
            run.write("bench_items", rows[i:i + batch])
        run_id = run.run_id
    elapsed = time.perf_counter() - start
    zone = LandingZone(root)
    scan_start = time.perf_counter()
    done = zone.done_items("bench_items", run_id)
    scan = time.perf_counter() - scan_start
    parts = list((zone.table_dir("bench_items") / run_id).glob("*.parquet"))
    assert len(done) == N_ROWS
    return {"batch_rows": batch, "rows": N_ROWS, "seconds": round(elapsed, 3),
            "rows_per_s": round(N_ROWS / elapsed), "parts": len(parts),
            "bytes": sum(p.stat().st_size for p in parts), "resume_scan_s": round(scan, 3)}


def main() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        results = [measure(b, Path(tmp) / f"b{b}") for b in (100, 1_000, 10_000)]
    return {"benchmark": "landing_throughput", "cpu_count": os.cpu_count(), "results": results}


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
