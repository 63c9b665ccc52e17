"""TrustDABench evaluation figures: evidence-gate latency per package, built-in systems' wall time
over every item, and tokens per instance of the agentic runner (when an LLM run exists).

Needs a warehouse where `evalhouse generate -b trustda`, `evalhouse build` and
`evalhouse run -b trustda` have run:
    .venv/bin/python benchmarks/trustda_eval.py              # figures recorded by the last runs
    .venv/bin/python benchmarks/trustda_eval.py --remeasure  # time the gate again on every package
Prints one JSON summary.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys

from evalhouse.benchmarks import JobOptions
from evalhouse.landing import LandingZone
from evalhouse.trustda.evaluate import latest_outputs, load_items
from evalhouse.trustda.gate import check


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _latency(values: list[float]) -> dict:
    return {"median": round(statistics.median(values), 2), "p95": round(_pct(values, 0.95), 2),
            "max": round(max(values), 2), "packages": len(values)}


def _run_seconds(kind: str) -> dict | None:
    events = LandingZone().read("run_events")
    events = events[events["kind"] == kind]
    if events.empty:
        return None
    last = events.sort_values("written_at").iloc[-1]["run_id"]
    mine = events[events["run_id"] == last].sort_values("written_at")
    started = mine[mine["event"] == "started"]["written_at"].iloc[0]
    finished = mine[mine["event"] == "finished"]["written_at"]
    if finished.empty:
        return None
    counts = json.loads(mine[mine["event"] == "finished"]["counts"].iloc[-1] or "{}")
    seconds = (finished.iloc[-1] - started).total_seconds()
    return {"run_id": last, "seconds": round(seconds, 1), "items": counts.get("items"),
            "seconds_per_item": round(seconds / counts["items"], 4) if counts.get("items") else None}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--remeasure", action="store_true", help="re-time the gate on every item's package")
    parser.add_argument("--limit", type=int, default=None, help="items per track when re-measuring")
    args = parser.parse_args()
    outputs = latest_outputs()
    if outputs.empty:
        sys.exit("no TrustDABench outputs: run `evalhouse run -b trustda` first")
    outputs = outputs.sort_values("written_at").drop_duplicates("item_id", keep="last")
    gated = outputs[(outputs["system"] == "evidence-gated") & outputs["gate_ms"].notna()]

    if args.remeasure:
        items = load_items(JobOptions(limit=args.limit))
        check(items[0].package, items[0].question)  # warm imports, as a long-lived process would
        gate_ms = [check(it.package, it.question).elapsed_ms for it in items]
    else:
        gate_ms = gated["gate_ms"].tolist()

    refusals = gated.assign(refused=gated["decision"] == "refuse").groupby("track")["refused"].mean()
    agent = outputs[outputs["system"].isin(["llm", "llm+gate"])]
    tokens = None
    if not agent.empty:
        per = agent["input_tokens"].fillna(0) + agent["output_tokens"].fillna(0)
        tokens = {"episodes": int(len(agent)), "mean_tokens_per_instance": float(per.mean()),
                  "median_tokens_per_instance": float(per.median()), "mean_turns": float(agent["turns"].mean())}
    by_kind = gated.assign(kind=gated["track"]).groupby("kind")["gate_ms"].median().round(2).to_dict()
    print(json.dumps({
        "gate_latency_ms": _latency(gate_ms),
        "gate_median_ms_by_track": by_kind,
        "builtin_systems_run": _run_seconds("trustda.run.builtin"),
        "evidence_gated_refusal_rate": {k: round(float(v), 4) for k, v in refusals.items()},
        "agent_tokens": tokens,
        "remeasured": args.remeasure,
    }, indent=2, default=str))


if __name__ == "__main__":
    main()
