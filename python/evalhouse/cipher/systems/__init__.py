"""CIPHER systems under test: built-in (no network) and LLM methods.

System names (the `system` column of cipher_scores):
  builtin    oracle-sql, structured-only-sql, bm25-top5, dense-top5, dense-rerank-top5
  prompting  zero-shot, few-shot, cot, pot, ltm
  retrieval  rag-bm25, rag-dense, rag-dense-rerank (k = 5, LLM answers from the retrieved records)
  hybrid     blendsql (optional; needs the `blendsql` package, not installed here)
"""
BUILTIN_SYSTEMS = ("oracle-sql", "structured-only-sql", "bm25-top5", "dense-top5", "dense-rerank-top5")
LLM_METHODS = ("zero-shot", "few-shot", "cot", "pot", "ltm", "rag-bm25", "rag-dense", "rag-dense-rerank")
HYBRID_METHODS = ("blendsql",)

FAMILY = {
    **{s: "builtin" for s in BUILTIN_SYSTEMS},
    **{s: "prompting" for s in ("zero-shot", "few-shot", "cot", "pot", "ltm")},
    **{s: "retrieval" for s in ("rag-bm25", "rag-dense", "rag-dense-rerank")},
    "blendsql": "hybrid",
}
BUILTIN_MODEL = "builtin"


def output_item_id(system: str, model: str, item_key: str) -> str:
    """The landing key of one output: system|model|instance|condition|setting."""
    return f"{system}|{model}|{item_key}"


def answer_text(value) -> str:
    """An answer as canonical JSON text (the landing stores str values of json columns verbatim,
    so a text answer must be encoded here to stay distinguishable from a number)."""
    import json

    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
