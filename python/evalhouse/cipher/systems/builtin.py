"""Built-in CIPHER systems: no network, no model weights beyond the bundled MiniLM.

* ``oracle-sql`` executes the instance's gold SQL on the annotation view restricted to the
  context's records. It is a pipeline check: it must reproduce the reference (M3 = 100).
* ``structured-only-sql`` executes the same SQL after sqlglot drops every predicate over an
  annotation (narrative-derived) column: what structured attributes alone give.
* ``bm25-top5`` / ``dense-top5`` / ``dense-rerank-top5`` answer from the top 5 retrieved records
  without a language model: the answer shape is guessed from the question wording (never from
  the reference): a count is the number of pool records scoring at least half the best score, a
  list is the retrieved ids (or the distinct values of a structured field the question names),
  a single value is the most frequent value of that field among the top 5 (else the top id).
The structured-only run also yields the candidate set of an instance's structured predicates
(failure attribution).
"""
from __future__ import annotations

import json
import re
from collections import Counter
from functools import lru_cache
from typing import Any

from ..domains import DOMAINS
from ..eval_data import EvalItem, RecordStore
from . import BUILTIN_MODEL, FAMILY, answer_text, output_item_id

RETRIEVAL_ANSWER_K = 5
SQL_CHUNK = 16  # statements per UNION ALL batch: DuckDB plans small batches faster than large ones
RETRIEVER_OF = {"bm25-top5": "bm25", "dense-top5": "dense", "dense-rerank-top5": "dense-rerank"}
_COUNT_Q = re.compile(r"\b(how many|number of|count|total|how much|average|mean|sum|percentage|proportion)\b", re.I)
_LIST_Q = re.compile(r"\b(which|list|what are|identify|ids|records|reports|complaints|notes|all)\b", re.I)


def _row(system: str, item: EvalItem, *, answer: Any, cited: list[str], status: str = "ok",
         error: str | None = None, detail: dict | None = None) -> dict:
    return {
        "item_id": output_item_id(system, BUILTIN_MODEL, item.key),
        "system": system, "family": FAMILY[system], "model": BUILTIN_MODEL,
        "instance_id": item.instance_id, "domain": item.domain, "condition": item.condition,
        "setting": item.setting, "status": status, "answer": answer_text(answer), "cited_ids": cited,
        "raw_text": None, "error": error, "prompt_version": None, "prompt_tokens": 0,
        "request_hashes": [], "input_tokens": 0, "output_tokens": 0, "latency_ms": 0.0,
        "detail": detail or {},
    }


def _result_row(system: str, item: EvalItem, res, detail: dict) -> dict:
    if res is None or res.status == "error":
        error = res.error if res is not None else "not executed"
        return _row(system, item, answer=None, cited=[], status="invalid", error=error, detail=detail)
    return _row(system, item, answer=json.loads(res.answer_json), cited=[str(i) for i in res.support_ids],
                detail=detail)


@lru_cache(maxsize=8192)
def _structured(sql: str, domain: str) -> tuple[str, str]:
    """The structured-only SQL of an instance and the SQL of its support (parsed once per instance)."""
    from ..sql_validate import drop_narrative_predicates, support_sql

    structured = drop_narrative_predicates(sql, domain)
    return structured, support_sql(structured, domain)


def structured_sql(item: EvalItem) -> str:
    return _structured(item.sql, item.domain)[0]


def sql_systems(items: list[EvalItem], store) -> dict[str, tuple[dict, dict, dict]]:
    """oracle-sql and structured-only-sql outputs plus the candidate row of every item.

    Both queries run on the annotation view restricted to the item's context records, batched
    through ``execute_many`` exactly as the reference answers are computed. The candidate set of
    the structured predicates is the support of the structured-only query: the context records
    satisfying the row-level predicates left after the narrative ones are dropped.
    """
    from ..sql_exec import ExecRequest, execute_many

    requests, structured, sizes = [], {}, {}
    for item in items:
        key = (item.domain, item.condition)
        if key not in sizes:
            sizes[key] = store.con.execute(f"select count(*) from {item.domain}__{item.condition}").fetchone()[0]
        # a context holding the whole domain needs no restriction (and runs much faster)
        ctx = None if len(set(item.context_ids)) == sizes[key] else list(item.context_ids)
        requests.append(ExecRequest(("oracle", item.key), item.sql, item.domain, item.condition,
                                    item.answer_type, item.support_sql or None, ctx))
        try:
            structured[item.key] = structured_sql(item)
        except Exception as exc:  # a query that cannot be reduced is an invalid output
            structured[item.key] = exc
            continue
        requests.append(ExecRequest(("structured", item.key), structured[item.key], item.domain,
                                    item.condition, item.answer_type, _structured(item.sql, item.domain)[1], ctx))
    results = execute_many(store, requests, chunk=SQL_CHUNK)
    out = {}
    for item in items:
        oracle = _result_row("oracle-sql", item, results.get(("oracle", item.key)), {})
        sql = structured[item.key]
        cand = {"item_id": item.key, "instance_id": item.instance_id, "domain": item.domain,
                "condition": item.condition, "setting": item.setting, "candidate_ids": None,
                "structured_sql": None, "status": "error", "error": None}
        if isinstance(sql, Exception):
            error = f"cannot drop narrative predicates: {sql}"
            so = _row("structured-only-sql", item, answer=None, cited=[], status="invalid", error=error)
            out[item.key] = (oracle, so, {**cand, "error": error})
            continue
        res = results.get(("structured", item.key))
        so = _result_row("structured-only-sql", item, res, {"sql": sql})
        if res is None or res.status == "error":
            cand.update(structured_sql=sql, error=res.error if res is not None else "not executed")
        else:
            cand.update(candidate_ids=sorted(str(i) for i in res.support_ids), structured_sql=sql,
                        status="ok")
        out[item.key] = (oracle, so, cand)
    return out


# ---------------------------------------------------------------- retrieval-only answerers
def guess_shape(question: str) -> str:
    """number | list | string, from the question's wording alone."""
    if _COUNT_Q.search(question):
        return "number"
    if _LIST_Q.search(question):
        return "list"
    return "string"


def _named_field(question: str, domain: str) -> str | None:
    """The structured column whose words all occur in the question (longest match wins)."""
    words = set(re.findall(r"[a-z]+", question.lower()))
    words |= {w[:-1] for w in words if w.endswith("s")}
    best = None
    for col in DOMAINS[domain].structured:
        parts = [p for p in col.split("_") if p not in ("of", "to", "from", "ps")]
        if parts and all(p in words for p in parts) and (best is None or len(parts) > len(best[1])):
            best = (col, parts)
    return best[0] if best else None


def retrieval_answer(system: str, item: EvalItem, records: RecordStore,
                     ranked: tuple[list[str], list[float]]) -> dict:
    ids, scores = ranked
    top = ids[:RETRIEVAL_ANSWER_K]
    shape = guess_shape(item.question)
    field = _named_field(item.question, item.domain)
    rows = records.fields.get((item.domain, item.condition), {})
    values = [rows.get(r, {}).get(field) for r in top] if field else []
    if shape == "number":
        best = scores[0] if scores else 0.0
        answer: Any = sum(1 for s in scores if best > 0 and s >= best / 2)
    elif shape == "list":
        answer = list(dict.fromkeys(v for v in values if v is not None)) if field else top
    else:
        common = Counter(v for v in values if v is not None).most_common(1)
        answer = common[0][0] if common else (top[0] if top else None)
    detail = {"retriever": RETRIEVER_OF[system], "k": RETRIEVAL_ANSWER_K, "shape": shape, "field": field}
    return _row(system, item, answer=answer, cited=top, detail=detail)
