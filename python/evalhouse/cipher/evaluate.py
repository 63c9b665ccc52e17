"""CIPHER evaluation phases: ``run`` (systems under test) and ``judge`` (M1 and M2).

run(opts)
    Built-in systems on every benchmark instance x condition x setting (no network), plus the
    structured-predicate candidate sets, the retrieval pools (recall@k) and the prompt size of
    every LLM method. With ``opts.model`` also the LLM methods (support-controlled setting unless
    ``opts.extra['settings']`` says otherwise).
judge(opts)
    The rule judge scores every output (M1 and its M2); with ``opts.judge_model`` the LLM judge
    also judges the LLM systems' outputs (``opts.extra['judge_builtin']`` adds the built-ins).
All jobs are resumable runs: what already landed is skipped.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Iterable, Sequence

import click
import numpy as np

from ..config import paths
from ..errors import UserError
from ..landing import LandingZone
from ..llm.progress import progress_bar
from ..runs import open_run
from ..warehouse import connect
from .eval_data import SYSTEM_SETTINGS, EvalItem, RecordStore, latest_data_run, load_items, load_records, visible_input
from .prompts import PROMPT_VERSION, RAG_K, RAG_METHODS, VisibleInput, prompt_templates, system_prompt, user_prompt
from .systems import BUILTIN_SYSTEMS, HYBRID_METHODS, LLM_METHODS

EVAL_VERSION = "cipher-eval/v1"
BATCH = 250
RAG_RETRIEVER = {"rag-bm25": "bm25", "rag-dense": "dense", "rag-dense-rerank": "dense-rerank"}
LLM_DEFAULT_SETTINGS = ("support_controlled",)


# ---------------------------------------------------------------- shared helpers
def _batches(seq: Sequence, size: int = BATCH) -> Iterable[Sequence]:
    for start in range(0, len(seq), size):
        yield seq[start:start + size]


def _selected(opts, universe: Sequence[str]) -> list[str]:
    if not opts.methods:
        return list(universe)
    return [m for m in universe if m in opts.methods]


def _settings(opts, default: Sequence[str]) -> list[str]:
    wanted = opts.extra.get("settings") if opts.extra else None
    if not wanted:
        return list(default)
    wanted = [wanted] if isinstance(wanted, str) else list(wanted)
    bad = [s for s in wanted if s not in SYSTEM_SETTINGS]
    if bad:
        raise UserError(f"unknown CIPHER setting(s) {bad} (choose from {', '.join(SYSTEM_SETTINGS)})")
    return wanted


def _not_failed_items(run, table: str) -> set[str]:
    """item_ids landed for this run whose status is not 'error' (errors are retried)."""
    frame = LandingZone(run.zone.root).read(table, run_id=run.run_id, where="status <> 'error'")
    return set(frame["item_id"]) if len(frame) else set()


class Embeddings:
    """MiniLM vectors of every record line of a domain x condition, cached on disk by content."""

    def __init__(self, cache_dir: Path | None = None):
        self.cache_dir = cache_dir or (paths().packages / "cipher_eval" / "embeddings")

    def vectors(self, lines: list[str]) -> np.ndarray:
        from .retrieval import embed

        digest = hashlib.sha256("\n".join(["all-MiniLM-L6-v2|256", *lines]).encode()).hexdigest()[:24]
        path = self.cache_dir / f"{digest}.npy"
        if path.exists():
            return np.load(path)
        vectors = embed(lines)
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, vectors)
        tmp.replace(path)
        return vectors


def build_indexes(records: RecordStore, keys: Iterable[tuple[str, str]], dense: bool = True):
    """A CorpusIndex per (domain, condition)."""
    from .retrieval import CorpusIndex

    cache = Embeddings()
    out = {}
    for key in sorted(set(keys)):
        ids, lines = records.corpus(*key)
        index = CorpusIndex(ids, lines, dense=False)
        if dense:
            index.vectors = cache.vectors(lines)
        out[key] = index
    return out


def question_vectors(items: Sequence[EvalItem]) -> dict[str, np.ndarray]:
    from .retrieval import embed

    questions = sorted({it.question for it in items})
    return dict(zip(questions, embed(questions)))


class PromptSizer:
    """Prompt tokens of a rendered method prompt, summed from cached per-line counts.

    WordPiece splits at whitespace, so the count of newline-joined parts is the sum of the parts'
    counts; tests check this equals counting the fully rendered prompt.
    """

    def __init__(self, records: RecordStore):
        from .retrieval import count_tokens

        self._count = count_tokens
        self.line_tokens: dict[tuple[str, str], dict[str, int]] = {}
        for key, lines in records.lines.items():
            ids = list(lines)
            self.line_tokens[key] = dict(zip(ids, count_tokens([lines[i] for i in ids])))
        self._system: dict[tuple[str, str], int] = {}

    def tokens(self, method: str, inp: VisibleInput, condition: str) -> int:
        skey = (method, inp.domain)
        if skey not in self._system:
            self._system[skey] = self._count([system_prompt(method, inp)])[0]
        counts = self.line_tokens[(inp.domain, condition)]
        body = sum(counts[r] for r in inp.record_ids)
        empty = VisibleInput(inp.domain, inp.question, inp.columns, inp.record_ids, ("",) * len(inp.record_ids))
        frame = self._count([user_prompt(method, empty)])[0]
        return self._system[skey] + frame + body


def _retrieval_rows(item: EvalItem, pools: dict) -> list[dict]:
    return [{"item_id": f"{name}|{item.key}", "retriever": name, "instance_id": item.instance_id,
             "domain": item.domain, "condition": item.condition, "setting": item.setting,
             "ranked_ids": ids, "scores": scores} for name, (ids, scores) in pools.items()]


def _size_rows(item: EvalItem, records: RecordStore, sizer: PromptSizer, pools: dict) -> list[dict]:
    from .retrieval import TOKENIZER_NAME

    rows = []
    for method in LLM_METHODS:
        ids = pools[RAG_RETRIEVER[method]][0][:RAG_K] if method in RAG_METHODS else None
        inp = visible_input(item, records, ids)
        rows.append({"item_id": f"{method}|{item.key}", "method": method, "instance_id": item.instance_id,
                     "domain": item.domain, "condition": item.condition, "setting": item.setting,
                     "prompt_version": PROMPT_VERSION, "prompt_tokens": sizer.tokens(method, inp, item.condition),
                     "tokenizer": TOKENIZER_NAME})
    return rows


# ---------------------------------------------------------------- built-in systems
def builtin_batch(items: Sequence[EvalItem], store, records: RecordStore, indexes, qvecs,
                  systems: Sequence[str], sizer: "PromptSizer"):
    """Outputs, candidate rows, retrieval pools and prompt sizes of a batch (no landing writes)."""
    from .systems import builtin

    sql = builtin.sql_systems(list(items), store)
    outputs, candidates, retrievals, sizes = [], [], [], []
    for item in items:
        pools = indexes[(item.domain, item.condition)].retrieve_all(item.question, item.context_ids,
                                                                    query_vector=qvecs[item.question])
        oracle, structured, cand = sql[item.key]
        for system in systems:
            if system == "oracle-sql":
                outputs.append(oracle)
            elif system == "structured-only-sql":
                outputs.append(structured)
            else:
                outputs.append(builtin.retrieval_answer(system, item, records, pools[builtin.RETRIEVER_OF[system]]))
        candidates.append(cand)
        retrievals += _retrieval_rows(item, pools)
        sizes += _size_rows(item, records, sizer, pools)
    return outputs, candidates, retrievals, sizes


def load_domain_store():
    """The annotation views of every domain x condition in a private in-memory store (the
    warehouse file is released at once)."""
    from .domains import CONDITIONS, DOMAINS
    from .sql_exec import DomainStore

    frames = {}
    with connect(read_only=True) as con:
        for domain in DOMAINS:
            for condition in CONDITIONS:
                frames[(domain, condition)] = con.sql(
                    f"select * from cipher_{domain}_view where condition = '{condition}'").to_arrow_table()
    return DomainStore.from_frames(frames)


def run_builtin(opts, items: Sequence[EvalItem], records: RecordStore, data_run: str) -> str:
    systems = _selected(opts, BUILTIN_SYSTEMS)
    config = {"scale": opts.scale, "data_run": data_run, "eval_version": EVAL_VERSION, "systems": systems,
              "settings": sorted({it.setting for it in items}), "limit": opts.limit, "run_tag": opts.run_tag,
              "prompt_version": PROMPT_VERSION}
    with open_run("cipher.eval.builtin", config, benchmark="cipher") as run:
        done = run.done_items("cipher_eval_outputs")
        done_sizes = run.done_items("cipher_eval_prompt_sizes")
        todo = [it for it in items if any(f"{s}|builtin|{it.key}" not in done for s in systems)
                or f"zero-shot|{it.key}" not in done_sizes]
        if not run.done_items("cipher_eval_prompts"):
            run.write("cipher_eval_prompts", prompt_templates())
        if not todo:
            click.echo(f"  cipher built-in systems: all {len(items)} items already evaluated ({run.run_id})")
            return run.run_id
        store = load_domain_store()
        indexes = build_indexes(records, {(it.domain, it.condition) for it in todo})
        qvecs = question_vectors(todo)
        sizer = PromptSizer(records)
        with progress_bar("cipher built-in systems", len(todo)) as advance:
            for batch in _batches(todo):
                outputs, candidates, retrievals, sizes = builtin_batch(batch, store, records, indexes, qvecs,
                                                                       systems, sizer)
                outputs = [o for o in outputs if o["item_id"] not in done]
                for _ in batch:
                    advance()
                run.write("cipher_eval_outputs", outputs)
                run.write("cipher_eval_candidates", candidates)
                run.write("cipher_eval_retrievals", retrievals)
                run.write("cipher_eval_prompt_sizes", sizes)
                run.count("items", len(batch))
        return run.run_id


# ---------------------------------------------------------------- LLM systems
def run_llm(opts, items: Sequence[EvalItem], records: RecordStore, data_run: str) -> str:
    from ..llm import LLMClient, resolve_model
    from .systems.llm_methods import blendsql_available, run_method

    methods = _selected(opts, LLM_METHODS + HYBRID_METHODS)
    if "blendsql" in methods:
        if not blendsql_available():
            click.echo("  blendsql: the optional `blendsql` package is not installed; method skipped")
        else:
            click.echo("  blendsql: not implemented in this checkout; method skipped")
        methods.remove("blendsql")
    spec = resolve_model(opts.model, base_url=opts.base_url, api_key_env=opts.api_key_env, role="subject",
                         max_tokens=8192)
    config = {"model": opts.model, "base_url": opts.base_url, "methods": methods, "data_run": data_run,
              "settings": sorted({it.setting for it in items}), "prompt_version": PROMPT_VERSION,
              "eval_version": EVAL_VERSION, "limit": opts.limit, "run_tag": opts.run_tag}
    with open_run("cipher.eval.llm", config, benchmark="cipher") as run:
        done = _not_failed_items(run, "cipher_eval_outputs")
        jobs = [(m, it) for it in items for m in methods
                if f"{m}|{spec.model_string}|{it.key}" not in done]
        if not jobs:
            click.echo(f"  cipher LLM methods: nothing left to run ({run.run_id})")
            return run.run_id
        rag = any(m in RAG_METHODS for m, _ in jobs)
        indexes = build_indexes(records, {(it.domain, it.condition) for _, it in jobs}, dense=rag) if rag else {}
        qvecs = question_vectors([it for _, it in jobs]) if rag else {}
        sizer = PromptSizer(records)
        client = LLMClient(run, concurrency=opts.concurrency)
        try:
            for batch in _batches(jobs):
                factories = [_factory(client, spec, m, it, records, sizer, indexes, qvecs, run_method)
                             for m, it in batch]
                rows = client.run_batch(factories, desc="cipher LLM methods")
                run.write("cipher_eval_outputs", rows)
                for row in rows:
                    run.count(f"status.{row['status']}")
        finally:
            client.close()
        return run.run_id


def _factory(client, spec, method, item, records, sizer, indexes, qvecs, run_method):
    retrieved = None
    if method in RAG_METHODS:
        pools = indexes[(item.domain, item.condition)].retrieve_all(item.question, item.context_ids,
                                                                    query_vector=qvecs[item.question])
        retrieved = pools[RAG_RETRIEVER[method]][0][:RAG_K]
    inp = visible_input(item, records, retrieved)
    tokens = sizer.tokens(method, inp, item.condition)
    return lambda: run_method(client, spec, method, item, inp, tokens, retrieved)


# ---------------------------------------------------------------- phases
def run(opts) -> None:
    builtin_settings = _settings(opts, SYSTEM_SETTINGS)
    items = load_items(builtin_settings, limit=opts.limit)
    if not items:
        click.echo("  cipher: no benchmark instances in the warehouse (run generate and build first); skipped")
        return
    records = load_records()
    data_run = latest_data_run()
    if not opts.methods or any(m in BUILTIN_SYSTEMS for m in opts.methods):
        run_builtin(opts, items, records, data_run)
    if opts.model:
        llm_settings = _settings(opts, LLM_DEFAULT_SETTINGS)
        llm_items = [it for it in items if it.setting in llm_settings]
        run_llm(opts, llm_items, records, data_run)


def _outputs_to_judge() -> list[dict]:
    """Latest landed row of every output (errors excluded: they have no answer yet)."""
    frame = LandingZone().read("cipher_eval_outputs", where="status <> 'error'")
    if not len(frame):
        return []
    frame = frame.sort_values("written_at").drop_duplicates(["run_id", "item_id"], keep="last")
    rows = frame[["run_id", "item_id", "model", "instance_id", "condition", "setting", "status", "answer"]].to_dict("records")
    for row in rows:
        text = row["answer"]
        row["answer"] = json.loads(text) if isinstance(text, str) else None
    return rows


def judge(opts) -> None:
    from .judge import judgment_id, rule_judgment
    from .scoring import RUBRIC_VERSION

    outputs = _outputs_to_judge()
    if not outputs:
        click.echo("  cipher: no system outputs to judge; skipped")
        return
    golds = {it.key: it for it in load_items(SYSTEM_SETTINGS)}
    pending = [(o, golds.get(f"{o['instance_id']}|{o['condition']}|{o['setting']}")) for o in outputs]
    pending = [(o, g) for o, g in pending if g is not None]
    with open_run("cipher.judge.rule", {"rubric": RUBRIC_VERSION, "run_tag": opts.run_tag}, benchmark="cipher") as run:
        done = run.done_items("cipher_eval_judgments")
        rows = [rule_judgment(o, g.question, g.gold_json, g.answer_type) for o, g in pending
                if judgment_id(o, "rule", RUBRIC_VERSION, g.gold_json) not in done]
        for batch in _batches(rows, 2000):
            run.write("cipher_eval_judgments", list(batch))
        click.echo(f"  cipher rule judge: {len(rows)} new judgments ({run.run_id})")
    if opts.judge_model:
        include_builtin = bool(opts.extra.get("judge_builtin")) if opts.extra else False
        chosen = [(o, g) for o, g in pending if include_builtin or o["model"] != "builtin"]
        if opts.limit:
            chosen = chosen[: opts.limit]
        judge_llm(opts, chosen)


def judge_llm(opts, pending: list[tuple[dict, EvalItem]]) -> str:
    from ..llm import LLMClient, resolve_model
    from .judge import LLM_JUDGE_VERSION, judgment_id, llm_judgment

    spec = resolve_model(opts.judge_model, base_url=opts.base_url, api_key_env=opts.api_key_env, role="judge")
    config = {"judge_model": opts.judge_model, "base_url": opts.base_url, "version": LLM_JUDGE_VERSION,
              "run_tag": opts.run_tag}
    with open_run("cipher.judge.llm", config, benchmark="cipher") as run:
        done = _not_failed_items(run, "cipher_eval_judgments")
        todo = [(o, g) for o, g in pending if judgment_id(o, "llm", spec.model_string, g.gold_json) not in done]
        client = LLMClient(run, concurrency=opts.concurrency)
        try:
            for batch in _batches(todo):
                factories = [(lambda o=o, g=g: llm_judgment(client, spec, o, g.question, g.gold_json, g.answer_type))
                             for o, g in batch]
                run.write("cipher_eval_judgments", client.run_batch(factories, desc="cipher LLM judge"))
        finally:
            client.close()
        click.echo(f"  cipher LLM judge: {len(todo)} judgments ({run.run_id})")
        return run.run_id
