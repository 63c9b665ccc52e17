"""Benchmark: build the TrustDABench instance set and report throughput and coverage as JSON.

Usage: .venv/bin/python benchmarks/trustda_instances.py [--scale paper|ci] [--no-dabench] [--workdir DIR]
Runs `generate` in a fresh warehouse (temporary unless --workdir) and reads the landing zone.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", default="paper")
    ap.add_argument("--no-dabench", action="store_true")
    ap.add_argument("--workdir")
    ap.add_argument("--dbt", action="store_true", help="also run dbt build and time it")
    args = ap.parse_args()
    root = Path(args.workdir or tempfile.mkdtemp(prefix="trustda_bench_"))
    os.environ["EVALHOUSE_DB"] = str(root / "evalhouse.duckdb")
    for var in ("EVALHOUSE_LANDING", "EVALHOUSE_PACKAGES"):
        os.environ.pop(var, None)

    from evalhouse.benchmarks import JobOptions
    from evalhouse.landing import LandingZone
    from evalhouse.trustda.generate import generate

    extra = {"dabench": False} if args.no_dabench else {}
    t0 = time.time()
    generate(JobOptions(scale=args.scale, seed=42, extra=extra))
    seconds = time.time() - t0
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
    zone = LandingZone()
    cand = zone.read("trustda_candidates")
    src = zone.read("trustda_source_tasks")
    out = {"scale": args.scale, "workdir": str(root), "generate_seconds": round(seconds, 1),
           "source_tasks": dict(Counter(src["dataset"])), "candidates": int(len(cand)),
           "constructed_candidates": int((cand["failure_category"] != "not_applicable").sum()),
           "accepted": int((cand["verdict"] != "Rejected").sum()),
           "candidates_per_second": round(len(cand) / seconds, 2),
           "cpu_seconds": round(cpu, 1),
           # the machine is shared: wall time on 2 free cores is about CPU time / 2
           "estimated_wall_seconds_on_2_free_cores": round(cpu / 2, 1),
           "load_average_1min_at_end": round(os.getloadavg()[0], 2)}
    per_op = defaultdict(dict)
    for (ds, op), g in cand.groupby(["dataset", "operator_code"]):
        acc = int((g["verdict"] != "Rejected").sum())
        per_op[op][ds] = {"candidates": int(len(g)), "accepted": acc, "acceptance_rate": round(acc / len(g), 3)}
    out["per_operator"] = per_op
    acc = cand[cand["verdict"] != "Rejected"]
    per_task = acc.groupby("source_task_id").size()
    out["accepted_per_source_task"] = {ds: round(float(per_task[[i for i in per_task.index if i.startswith(ds)]].mean()), 2)
                                       for ds in ("builtin", "dabench") if any(i.startswith(ds) for i in per_task.index)}
    out["covered_source_tasks"] = {ds: int(sum(i.startswith(ds) for i in per_task.index)) for ds in ("builtin", "dabench")}
    out["failure_categories"] = dict(Counter(cand.loc[cand["verdict"] == "Rejected", "failure_category"]))
    if args.dbt:
        from evalhouse.dbt_runner import dbt_build

        t1 = time.time()
        dbt_build(select="+trustda_instance_stats +trustda_dataset_stats")
        out["dbt_seconds"] = round(time.time() - t1, 1)
    print(json.dumps(out, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
