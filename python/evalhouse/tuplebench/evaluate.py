"""TUPLE-Bench evaluation phases.

run(opts): native responses (coarse task and refusal probe) of the built-in systems, and of the
  LLM system named by opts.model. Reads the worlds from the tuplebench_worlds mart.
judge(opts): secret-recovery decoders and their bootstrap statistics (part 1), then downstream
  workflows, WCPQ and field ablations (part 2). Reads release views from the
  tuplebench_releases mart (views are derived in SQL from the saved native responses).
"""
from __future__ import annotations

import json

import pandas as pd

from ..benchmarks import JobOptions
from ..errors import UserError
from ..runs import open_run
from . import builtin_systems, ontology

RESPOND_BUILTIN_KIND = "tuplebench.respond.builtin"
RESPOND_LLM_KIND = "tuplebench.respond.llm"


def load_worlds() -> pd.DataFrame:
    from ..warehouse import query_df
    try:
        worlds = query_df("select * from tuplebench_worlds order by domain, pair_id, world_index")
    except Exception as exc:  # the mart is missing: generation or dbt build has not run
        raise UserError("no TUPLE-Bench worlds in the warehouse: run `evalhouse generate -b tuplebench` "
                        f"and `evalhouse build` first ({type(exc).__name__})") from None
    if worlds.empty:
        raise UserError("the tuplebench_worlds mart is empty: run `evalhouse generate -b tuplebench` and `evalhouse build`")
    return worlds


def run(opts: JobOptions) -> None:
    worlds = load_worlds()
    selected = [n for n, s in builtin_systems.SYSTEMS.items() if (n in opts.methods if opts.methods else s.default)]
    if selected:
        from .stats import single_threaded_blas
        with single_threaded_blas():
            run_builtin(worlds, selected, opts)
    if opts.model:
        run_llm(worlds, opts)


def judge(opts: JobOptions) -> None:
    import importlib.util

    from . import recovery_job
    print(f"[tuplebench] decoders: {recovery_job.run(opts)}")
    if importlib.util.find_spec(f"{__package__}.part2_job") is not None:
        from . import part2_job
        print(f"[tuplebench] workflows and WCPQ: {part2_job.run(opts)}")


def _response_row(system: str, kind: str, task: str, gen_run: str, resp: dict, attempt: int = 1,
                  valid: bool = True, is_final: bool = True, reason: str | None = None,
                  raw_text: str | None = None, request_hash: str | None = None) -> dict:
    return {"item_id": f"{system}|{task}|{resp['world_id']}|{attempt}", "system": system,
            "system_kind": kind, "task": task, "world_id": resp["world_id"], "attempt": attempt,
            "is_final": is_final, "valid": valid, "invalid_reason": reason,
            "choice": resp.get("choice"), "probabilities": resp.get("probabilities"),
            "confidence": resp.get("confidence"),
            "raw_text": raw_text if raw_text is not None else json.dumps(
                {k: resp.get(k) for k in ("choice", "probabilities", "confidence")}, sort_keys=True),
            "request_hash": request_hash, "generation_run_id": gen_run}


def run_builtin(worlds: pd.DataFrame, systems: list[str], opts: JobOptions) -> None:
    gen_run = worlds["generation_run_id"].iloc[0]
    domains = ontology.load()
    config = {"generation_run_id": gen_run, "systems": systems, "seed": opts.seed, "tag": opts.run_tag}
    with open_run(RESPOND_BUILTIN_KIND, config, benchmark="tuplebench") as run:
        done = run.done_items("tuplebench_responses_raw")
        for name in systems:
            system = builtin_systems.SYSTEMS[name]
            for dom_name, frame in worlds.groupby("domain", sort=True):
                frame = frame.reset_index(drop=True)
                dom = domains[dom_name]
                for task, responses in (
                        ("coarse", lambda: builtin_systems.coarse_responses(system, frame, dom.category_names, opts.seed)),
                        ("probe", lambda: builtin_systems.probe_responses(system, frame, dom.mechanism_names, opts.seed))):
                    if f"{name}|{task}|{frame['world_id'].iloc[0]}|1" in done:
                        continue
                    rows = [_response_row(name, "builtin", task, gen_run, r) for r in responses()]
                    run.write("tuplebench_responses_raw", rows)
                    run.count(f"{name}.{task}", len(rows))


def run_llm(worlds: pd.DataFrame, opts: JobOptions) -> None:
    from ..llm import LLMClient, resolve_model
    from .llm_systems import coarse_messages, native_attempts, probe_messages

    spec = resolve_model(opts.model, base_url=opts.base_url, api_key_env=opts.api_key_env, role="subject")
    gen_run = worlds["generation_run_id"].iloc[0]
    domains = ontology.load()
    if opts.limit:
        worlds = worlds.head(opts.limit)
    config = {"generation_run_id": gen_run, "model": opts.model, "base_url": opts.base_url,
              "limit": opts.limit, "tag": opts.run_tag}
    system = opts.model
    with open_run(RESPOND_LLM_KIND, config, benchmark="tuplebench") as run:
        done = {i.split("|")[1] + "|" + i.split("|")[2] for i in run.done_items("tuplebench_responses_raw")}
        client = LLMClient(run, concurrency=opts.concurrency)
        jobs = []
        for _, world in worlds.iterrows():
            dom = domains[world["domain"]]
            coarse_ids = [c.name for c in dom.categories]
            mechs = [(m.name, m.label) for m in dom.mechanisms]
            for task, messages, cands in (
                    ("coarse", coarse_messages(world), coarse_ids),
                    ("probe", probe_messages(world, mechs), [m for m, _ in mechs] + ["WITHHOLD"])):
                if f"{task}|{world['world_id']}" in done:
                    continue
                jobs.append((task, world["world_id"], messages, cands))
        for start in range(0, len(jobs), 100):
            batch = jobs[start:start + 100]
            factories = [(lambda m=m, c=c, t=t: native_attempts(client, spec, m, c, f"tuplebench.{t}"))
                         for t, _, m, c in batch]
            results = client.run_batch(factories, desc=f"tuplebench {system}")
            rows = []
            for (task, world_id, _, _), attempts in zip(batch, results):
                for a in attempts:
                    rows.append(_response_row(system, "llm", task, gen_run, {"world_id": world_id, **a},
                                              attempt=a["attempt"], valid=a["valid"], is_final=a["is_final"],
                                              reason=a["invalid_reason"], raw_text=a["raw_text"] or "",
                                              request_hash=a["request_hash"]))
                run.count(f"{task}.requeries", len(attempts) - 1)
                run.count(f"{task}.final_invalid", int(not attempts[-1]["valid"]))
            run.write("tuplebench_responses_raw", rows)
        client.close()
