"""TrustDABench evaluation phases: ``run`` (systems answer every instance) and ``judge``.

``run(opts)``: the built-in systems (path-follower, evidence-gated) on every original source task
and every accepted instance; with ``opts.model`` also the agentic LLM systems (``llm`` and
``llm+gate``). Results land in ``trustda_eval_outputs`` (+ ``trustda_eval_trajectory_steps``);
a rerun with the same configuration resumes, skipping what already landed.

``judge(opts)``: reliability judgments (rule judge always; LLM judge with ``opts.judge_model``) and
robustness correctness (DABench official rule and the strict variant) for replies not yet scored.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from ..benchmarks import JobOptions
from ..errors import UserError
from ..landing import LandingZone
from ..runs import open_run
from .package import package_dir
from .scoring import label_answers, score_dabench
from .systems import BUILTIN_SYSTEMS, EVIDENCE_GATED, PATH_FOLLOWER, evidence_gated, path_follower

LLM_SYSTEMS = ("llm", "llm+gate")
BUILTIN_MODEL = "builtin"
BATCH = 200
DEFAULT_MAX_TURNS = 12
RULE_JUDGE_VERSION = 4  # bump when the rule judge changes: a new judge run supersedes older judgments


@dataclass(frozen=True)
class Item:
    """One thing a system answers: an original source task or a perturbed instance."""

    instance_id: str
    source_task_id: str
    track: str  # original | reliability | robustness
    question: str  # what the system is shown (question + constraints)
    answer_format: str
    package: Path
    package_hash: str
    files: tuple[str, ...]
    task: dict  # the source task's answer path (gold_sql, answer_names): built-ins only


# ---------------------------------------------------------------------------------------- items

def load_items(opts: JobOptions) -> list[Item]:
    """Originals first, then instances, in a stable order; ``opts.limit`` keeps a prefix per track."""
    from ..warehouse import query_df

    try:
        sources = query_df("select * from trustda_source_tasks where answer_status in ('ok', 'label') "
                           "order by source_task_id")
        instances = query_df("select * from trustda_instances order by instance_id")
    except Exception as exc:
        raise UserError("TrustDABench instances are not built yet: run `evalhouse generate -b trustda` "
                        f"and `evalhouse build` first ({str(exc).splitlines()[0]})") from None
    by_source = {r.source_task_id: r for r in sources.itertuples(index=False)}
    items = [_original_item(r) for r in sources.itertuples(index=False)]
    items += [_instance_item(r, by_source.get(r.source_task_id)) for r in instances.itertuples(index=False)]
    if opts.limit:
        kept, seen = [], {}
        for it in items:
            seen[it.track] = seen.get(it.track, 0) + 1
            if seen[it.track] <= opts.limit:
                kept.append(it)
        items = kept
    return items


def _shown_question(question: str, constraints: str | None) -> str:
    constraints = (constraints or "").strip()
    return f"{question}\nConstraints: {constraints}" if constraints else question


def _files(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = json.loads(value)
    return tuple(value or ())


def _task(row) -> dict:
    return {"gold_sql": getattr(row, "gold_sql", None), "answer_names": getattr(row, "answer_names", None)}


def _original_item(r) -> Item:
    return Item(r.source_task_id, r.source_task_id, "original", _shown_question(r.question, r.constraints),
                r.answer_format or "", package_dir(r.package_path), r.package_hash, _files(r.files), _task(r))


def _instance_item(r, source) -> Item:
    constraints = getattr(source, "constraints", None) if source is not None else None
    return Item(r.instance_id, r.source_task_id, r.track, _shown_question(r.question, constraints),
                r.answer_format or "", package_dir(r.package_path), r.package_hash, _files(r.files),
                _task(source) if source is not None else {})


def items_digest(items: Iterable[Item]) -> str:
    h = hashlib.sha256()
    for it in items:
        h.update(f"{it.instance_id}\0{it.package_hash}\n".encode())
    return h.hexdigest()[:16]


def output_id(system: str, model: str, instance_id: str) -> str:
    return f"{system}|{model}|{instance_id}"


# ---------------------------------------------------------------------------------------- run

def run(opts: JobOptions) -> None:
    items = load_items(opts)
    digest = items_digest(items)
    builtins = [s for s in BUILTIN_SYSTEMS if not opts.methods or s in opts.methods]
    if builtins:
        run_builtin(items, digest, builtins, opts)
    if opts.model:
        systems = [s for s in LLM_SYSTEMS if not opts.methods or s in opts.methods]
        if systems:
            run_agents(items, digest, systems, opts)


def run_builtin(items: list[Item], digest: str, systems: list[str], opts: JobOptions) -> None:
    config = {"systems": systems, "items": digest, "limit": opts.limit, "scale": opts.scale,
              "seed": opts.seed, "run_tag": opts.run_tag}
    with open_run("trustda.run.builtin", config, benchmark="trustda") as run:
        done = run.done_items("trustda_eval_outputs")
        todo = [it for it in items if any(output_id(s, BUILTIN_MODEL, it.instance_id) not in done for s in systems)]
        rows: list[dict] = []
        for it in _progress(todo, "trustda built-in systems"):
            rows += [r for r in builtin_rows(it, systems) if r["item_id"] not in done]
            if len(rows) >= BATCH:
                run.write("trustda_eval_outputs", rows)
                rows = []
        run.write("trustda_eval_outputs", rows)
        run.count("items", len(todo))


def builtin_rows(it: Item, systems: list[str]) -> list[dict]:
    """Both built-in systems on one item; the answer path runs once and is shared."""
    if not it.package.is_dir():
        return [_output_row(it, system, BUILTIN_MODEL, reply="", decision="answer", findings=[],
                            status="system_error", error=f"package folder {it.package} is missing")
                for system in systems]
    path = path_follower(it.task, it.package)
    out = []
    for system in systems:
        reply = path if system == PATH_FOLLOWER else evidence_gated(it.task, it.package, it.question, path)
        out.append(_output_row(it, system, BUILTIN_MODEL, reply=reply.reply, decision=reply.decision,
                               findings=reply.findings, status=reply.status, error=reply.error,
                               latency_ms=reply.latency_ms, gate_ms=reply.gate_ms))
    return out


def _output_row(it: Item, system: str, model: str, *, reply: str | None, decision: str | None,
                findings: list | None, status: str, error: str | None = None, turns: int = 0,
                tool_calls: int = 0, tool_errors: int = 0, input_tokens: int = 0, output_tokens: int = 0,
                latency_ms: float = 0.0, gate_ms: float | None = None) -> dict:
    return {"item_id": output_id(system, model, it.instance_id), "system": system, "model": model,
            "instance_id": it.instance_id, "source_task_id": it.source_task_id, "track": it.track,
            "package_hash": it.package_hash, "reply": reply or "", "has_final_answer": bool(reply and reply.strip()),
            "decision": decision, "findings": findings or [], "status": status, "error": error, "turns": turns,
            "tool_calls": tool_calls, "tool_errors": tool_errors, "input_tokens": input_tokens,
            "output_tokens": output_tokens, "latency_ms": latency_ms, "gate_ms": gate_ms}


def run_agents(items: list[Item], digest: str, systems: list[str], opts: JobOptions) -> None:
    from ..llm import LLMClient, resolve_model
    from .agent import Agent, AgentTask

    spec = resolve_model(opts.model, base_url=opts.base_url, api_key_env=opts.api_key_env, role="subject")
    max_turns = int(opts.extra.get("max_turns", DEFAULT_MAX_TURNS))
    config = {"systems": systems, "model": opts.model, "base_url": opts.base_url, "items": digest,
              "limit": opts.limit, "max_turns": max_turns, "scale": opts.scale, "seed": opts.seed,
              "run_tag": opts.run_tag}
    with open_run("trustda.run.agent", config, benchmark="trustda") as run:
        client = LLMClient(run, concurrency=opts.concurrency)
        agents = {s: Agent(client, spec, max_turns=max_turns, with_gate=(s == "llm+gate"),
                           purpose=f"trustda.{s}") for s in systems}
        done = run.done_items("trustda_eval_outputs")
        todo = [(s, it) for it in items for s in systems
                if output_id(s, opts.model, it.instance_id) not in done]
        for start in range(0, len(todo), BATCH):
            chunk = todo[start:start + BATCH]
            factories = [_episode_factory(agents[s], s, it, opts.model, AgentTask) for s, it in chunk]
            results = client.run_batch(factories, desc=f"trustda agent {start + len(chunk)}/{len(todo)}")
            steps = [row for _, rows in results for row in rows]
            run.write("trustda_eval_trajectory_steps", steps)  # before outputs: an output marks done
            run.write("trustda_eval_outputs", [out for out, _ in results])
            run.count("episodes", len(chunk))
        client.close()


def _episode_factory(agent, system: str, it: Item, model: str, AgentTask):
    async def go():
        task = AgentTask(it.question, it.answer_format, it.package, it.files)
        start = time.perf_counter()
        try:
            ep = await agent.run(task)
        except Exception as exc:  # one broken episode is stored and scored, never stops the run
            from .agent import Episode
            ep = Episode(status="system_error", error=f"{type(exc).__name__}: {exc}")
        oid = output_id(system, model, it.instance_id)
        out = _output_row(it, system, model, reply=ep.final, decision=None, findings=[], status=ep.status,
                          error=ep.error, turns=ep.turns, tool_calls=ep.tool_calls, tool_errors=ep.tool_errors,
                          input_tokens=ep.input_tokens, output_tokens=ep.output_tokens,
                          latency_ms=(time.perf_counter() - start) * 1000)
        return out, _step_rows(oid, ep.steps)
    return go


def _step_rows(oid: str, steps: list[dict]) -> list[dict]:
    rows = []
    for i, s in enumerate(steps):
        content = s.get("content")
        if s.get("role") == "assistant" and s.get("tool_calls"):
            args = [{"name": c.get("name"), "arguments": c.get("arguments"), "id": c.get("id")} for c in s["tool_calls"]]
        else:
            args = s.get("tool_arguments")
        rows.append({"item_id": f"{oid}#{i:03d}", "output_id": oid, "step": i, "role": s.get("role"),
                     "content": content if isinstance(content, str) else (None if content is None else json.dumps(content)),
                     "tool_name": s.get("tool_name"), "tool_call_id": s.get("tool_call_id"),
                     "tool_arguments": args, "tool_status": s.get("tool_status") or s.get("error"),
                     "request_hash": s.get("request_hash")})
    return rows


def _progress(seq: list, desc: str):
    try:
        from rich.progress import track
        return track(seq, description=desc, transient=True) if len(seq) > 50 else seq
    except ImportError:  # pragma: no cover
        return seq


# ---------------------------------------------------------------------------------------- judge

def latest_outputs() -> pd.DataFrame:
    """Every landed reply (all runs), the newest per (run, item)."""
    frame = LandingZone().read("trustda_eval_outputs")
    if frame.empty:
        return frame
    frame = frame.sort_values("written_at").drop_duplicates(["run_id", "item_id"], keep="last")
    return frame.reset_index(drop=True)


def judge(opts: JobOptions) -> None:
    from ..warehouse import query_df

    outputs = latest_outputs()
    if outputs.empty:
        print("  (no TrustDABench outputs to judge; run `evalhouse run -b trustda` first)")
        return
    instances = query_df("select instance_id, track, operator_code, gold_reason, gold_reason_code, gold_evidence, "
                         "reference_pairs, question from trustda_instances")
    sources = query_df("select source_task_id, reference_pairs, question from trustda_source_tasks")
    judge_rule(outputs, instances)
    score_correctness(outputs, instances, sources)
    if opts.judge_model:
        judge_llm(outputs, instances, opts)


def _key(row) -> str:
    return f"{row.run_id}/{row.item_id}"


def judge_rule(outputs: pd.DataFrame, instances: pd.DataFrame) -> None:
    from .judging import rule_judge

    gold = {r.instance_id: r for r in instances.itertuples(index=False) if r.track == "reliability"}
    rel = outputs[outputs["instance_id"].isin(gold.keys())]
    with open_run("trustda.judge.rule", {"judge": "rule", "version": RULE_JUDGE_VERSION}, benchmark="trustda") as run:
        done = run.done_items("trustda_eval_judgments")
        rows = []
        for r in rel.itertuples(index=False):
            item_id = f"rule||{_key(r)}"
            if item_id in done:
                continue
            g = gold[r.instance_id]
            j = rule_judge(r.reply, r.status, r.decision, _json(r.findings, []), _gold_code(g),
                           _json(g.gold_evidence, {}))
            rows.append({"item_id": item_id, "output_run_id": r.run_id, "output_id": r.item_id, "judge": "rule",
                         "judge_model": "", "mode": j.mode, "score": j.score, "failure_form": j.failure_form,
                         "rationale": j.rationale, "request_hash": None})
        for start in range(0, len(rows), 1000):
            run.write("trustda_eval_judgments", rows[start:start + 1000])
        run.count("judged", len(rows))


def _gold_code(g) -> str | None:
    from .judging import OPERATOR_REASON

    code = g.gold_reason_code if isinstance(g.gold_reason_code, str) and g.gold_reason_code else None
    return code or OPERATOR_REASON.get(getattr(g, "operator_code", None))


def score_correctness(outputs: pd.DataFrame, instances: pd.DataFrame, sources: pd.DataFrame) -> None:
    refs = {r.source_task_id: r.reference_pairs for r in sources.itertuples(index=False)}
    refs.update({r.instance_id: r.reference_pairs for r in instances.itertuples(index=False)
                 if r.track == "robustness"})
    scored = outputs[outputs["track"].isin(["original", "robustness"]) & outputs["instance_id"].isin(refs.keys())]
    with open_run("trustda.judge.correctness", {"rule": "dabench_official", "version": 1}, benchmark="trustda") as run:
        done = run.done_items("trustda_eval_correctness")
        rows = []
        for r in scored.itertuples(index=False):
            item_id = _key(r)
            if item_id in done:
                continue
            labels = label_answers(_json(refs[r.instance_id], []))
            if not labels:
                continue  # no reference answer to score against
            reply = r.reply if r.has_final_answer else None
            official = score_dabench(reply, labels, "official")
            strict = score_dabench(reply, labels, "strict")
            rows.append({"item_id": item_id, "output_run_id": r.run_id, "output_id": r.item_id,
                         "rule": "dabench_official", "counted_official": official.counted,
                         "correct_official": official.correct, "correct_strict": bool(strict.correct),
                         "sub_correct": strict.sub_correct, "extracted": strict.extracted})
        for start in range(0, len(rows), 1000):
            run.write("trustda_eval_correctness", rows[start:start + 1000])
        run.count("scored", len(rows))


def judge_llm(outputs: pd.DataFrame, instances: pd.DataFrame, opts: JobOptions) -> None:
    from ..llm import LLMClient, resolve_model
    from .judging import REASON_TEXT, JudgeVerdict, from_verdict, judge_messages

    spec = resolve_model(opts.judge_model, base_url=opts.base_url, api_key_env=opts.api_key_env, role="judge")
    gold = {r.instance_id: r for r in instances.itertuples(index=False) if r.track == "reliability"}
    rel = outputs[outputs["instance_id"].isin(gold.keys()) & outputs["system"].isin(LLM_SYSTEMS)]
    with open_run("trustda.judge.llm", {"judge_model": opts.judge_model, "base_url": opts.base_url, "version": 1},
                  benchmark="trustda") as run:
        done = run.done_items("trustda_eval_judgments")
        todo = [r for r in rel.itertuples(index=False) if f"llm|{opts.judge_model}|{_key(r)}" not in done]
        client = LLMClient(run, concurrency=opts.concurrency)
        for start in range(0, len(todo), BATCH):
            chunk = todo[start:start + BATCH]

            def factory(r):
                g = gold[r.instance_id]
                reason = g.gold_reason if isinstance(g.gold_reason, str) and g.gold_reason else REASON_TEXT.get(_gold_code(g), "")
                msgs = judge_messages(g.question, reason, r.reply if r.has_final_answer else None, r.status)
                return lambda: client.structured(spec, msgs, JudgeVerdict, purpose="trustda.judge", max_retries=2)

            results = client.run_batch([factory(r) for r in chunk], desc="trustda LLM judge")
            rows = []
            for r, res in zip(chunk, results):
                if not res.ok or res.value is None:
                    continue  # a failed judgment is in the ledger and retried on the next judge run
                j = from_verdict(res.value, r.reply, r.status)
                rows.append({"item_id": f"llm|{opts.judge_model}|{_key(r)}", "output_run_id": r.run_id,
                             "output_id": r.item_id, "judge": "llm", "judge_model": opts.judge_model,
                             "mode": j.mode, "score": j.score, "failure_form": j.failure_form,
                             "rationale": j.rationale, "request_hash": res.request_hash})
            run.write("trustda_eval_judgments", rows)
        client.close()


def _json(value: Any, default: Any) -> Any:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return default
    if isinstance(value, str):
        try:
            return json.loads(value) if value else default
        except json.JSONDecodeError:
            return default
    return value
