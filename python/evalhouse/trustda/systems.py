"""The built-in systems (no network).

- ``path-follower``: runs the source task's original answer path on whatever package it gets and
  never refuses: the paper's path-following bias made explicit.
- ``evidence-gated``: runs the evidence gate first; refuses with the unmet requirements when a
  blocking finding exists, otherwise follows the answer path (advisory findings become caveats).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from .answer_path import AnswerResult, run_answer_path
from .gate import GateResult, check

PATH_FOLLOWER = "path-follower"
EVIDENCE_GATED = "evidence-gated"
BUILTIN_SYSTEMS = (PATH_FOLLOWER, EVIDENCE_GATED)


@dataclass
class Reply:
    reply: str
    decision: str  # answer | refuse
    status: str  # ok | path_error
    error: str | None = None
    findings: list[dict] = field(default_factory=list)
    latency_ms: float = 0.0
    gate_ms: float | None = None


def path_follower(task: dict, package: Path) -> Reply:
    start = time.perf_counter()
    try:
        result = run_answer_path(task, package)
    except Exception as exc:  # a path that crashes gives no answer; it is still stored and scored
        result = AnswerResult(False, error=f"{type(exc).__name__}: {exc}")
    ms = (time.perf_counter() - start) * 1000
    if result.ok:
        return Reply(result.text, "answer", "ok", latency_ms=ms)
    return Reply("", "answer", "path_error", error=result.error, latency_ms=ms)


def evidence_gated(task: dict, package: Path, question: str, path_reply: Reply | None = None) -> Reply:
    """The gate, then (when it passes) the answer path; ``path_reply`` reuses a path-follower run."""
    gate = check(package, question)
    if not gate.passed:
        return Reply(refusal_text(gate), "refuse", "ok", findings=[f.to_dict() for f in gate.blocking],
                     latency_ms=gate.elapsed_ms, gate_ms=gate.elapsed_ms)
    answered = path_reply or path_follower(task, package)
    notes = [f.to_dict() for f in gate.advisory]
    text = answered.reply
    if notes and text:
        text += "\nNotes: " + "; ".join(f["requirement"] for f in notes)
    return Reply(text, "answer", answered.status, answered.error, notes,
                 latency_ms=answered.latency_ms + gate.elapsed_ms, gate_ms=gate.elapsed_ms)


def refusal_text(gate: GateResult) -> str:
    lines = ["I cannot answer this question from the provided files; the evidence does not support a "
             "unique answer:"]
    for f in gate.blocking:
        where = "/".join(x for x in (f.file, f.sheet) if x)
        cols = f" columns {', '.join(f.columns[:6])}" if f.columns else ""
        rows = f" rows {f.rows[:8]}" if f.rows else ""
        lines.append(f"- {f.requirement} ({where}{cols}{rows})")
    lines.append("Please provide the missing or corrected evidence, or clarify which field is meant.")
    return "\n".join(lines)
