"""TrustDABench evaluation figures: evidence-gate latency per package, built-in systems' wall time
over every item, and tokens per instance of the agentic runner (when an LLM run exists).

Needs a warehouse where `evalhouse generate -b trustda` and `evalhouse build` have run:
    .venv/bin/python benchmarks/trustda_eval.py [--limit N]
Prints one JSON summary.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from evalhouse.benchmarks import JobOptions
from evalhouse.trustda.evaluate import BUILTIN_SYSTEMS, builtin_rows, latest_outputs, load_items
from evalhouse.trustda.gate import check


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=None, help="items per track (default: all)")
    args = parser.parse_args()
    items = load_items(JobOptions(limit=args.limit))
    if not items:
        sys.exit("no TrustDABench items: run generate and build first")

    check(items[0].package, items[0].question)  # warm imports once, as a long-lived process would
    gate_ms = []
    for it in items:
        gate_ms.append(check(it.package, it.question).elapsed_ms)

    start = time.perf_counter()
    refusals = {"original": 0, "reliability": 0, "robustness": 0}
    counts = {"original": 0, "reliability": 0, "robustness": 0}
    for it in items:
        rows = builtin_rows(it, list(BUILTIN_SYSTEMS))
        gated = next(r for r in rows if r["system"] == "evidence-gated")
        counts[it.track] += 1
        refusals[it.track] += gated["decision"] == "refuse"
    builtin_s = time.perf_counter() - start

    outputs = latest_outputs()
    agent = outputs[outputs["system"].isin(["llm", "llm+gate"])] if not outputs.empty else outputs
    tokens = None
    if not agent.empty:
        per = agent["input_tokens"].fillna(0) + agent["output_tokens"].fillna(0)
        tokens = {"episodes": int(len(agent)), "mean_tokens_per_instance": float(per.mean()),
                  "median_tokens_per_instance": float(per.median()), "mean_turns": float(agent["turns"].mean())}

    print(json.dumps({
        "items": len(items),
        "gate_latency_ms": {"median": round(statistics.median(gate_ms), 2), "p95": round(_pct(gate_ms, 0.95), 2),
                            "max": round(max(gate_ms), 2), "packages": len(gate_ms)},
        "builtin_systems_seconds": round(builtin_s, 2),
        "builtin_seconds_per_item": round(builtin_s / len(items), 4),
        "evidence_gated_refusal_rate": {k: round(refusals[k] / counts[k], 4) if counts[k] else None for k in counts},
        "agent_tokens": tokens,
    }, indent=2))


if __name__ == "__main__":
    main()
