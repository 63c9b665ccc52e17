"""Landing tables of CIPHER evaluation (part 2): system outputs, judgments, retrieval rankings.

A light module (no heavy imports): `dbt build` imports it to declare the sources.
"""
from ..landing import declare

OUTPUTS = declare(
    "cipher_eval_outputs",
    {
        "system": "string",  # oracle-sql | structured-only-sql | bm25-top5 | zero-shot | pot | rag-dense ...
        "family": "string",  # builtin | prompting | retrieval | hybrid
        "model": "string",  # provider/name of the subject model; 'builtin' for non-LLM systems
        "instance_id": "string",
        "domain": "string",
        "condition": "string",  # redacted | restored
        "setting": "string",  # support_controlled | full_table
        "status": "string",  # ok | invalid (unparseable reply, failed program) | error (retried on resume)
        "answer": "json",  # the answer value the system returned
        "cited_ids": "json",  # record ids the system says it relied on
        "raw_text": "string",  # the raw model reply (kept for invalid answers)
        "error": "string",
        "prompt_version": "string",
        "prompt_tokens": "int",  # rendered prompt size, MiniLM WordPiece tokens (0 for non-LLM systems)
        "request_hashes": "json",  # ledger keys of the model calls behind this output
        "input_tokens": "int",
        "output_tokens": "int",
        "latency_ms": "float",
        "detail": "json",  # method specifics: reasoning, program, sandbox status, retrieved ids
    },
    "One row per system output: system x model x instance x condition x setting (item_id is its key).",
)

JUDGMENTS = declare(
    "cipher_eval_judgments",
    {
        "output_run_id": "string",
        "output_item_id": "string",
        "judge": "string",  # rule | llm
        "judge_model": "string",  # provider/name for the LLM judge, the rubric version for the rule judge
        "rubric_version": "string",
        "gold_hash": "string",  # md5 of the reference answer JSON the judgment was made against
        "m1": "float",  # normalized token overlap in [0, 1]
        "accept": "bool",  # M2 decision; null when the judge failed
        "reason": "string",
        "status": "string",  # ok | error
        "request_hash": "string",
    },
    "One row per judgment of one output by one judge against one reference answer.",
)

RETRIEVALS = declare(
    "cipher_eval_retrievals",
    {
        "retriever": "string",  # bm25 | dense | dense-rerank
        "instance_id": "string",
        "domain": "string",
        "condition": "string",
        "setting": "string",
        "ranked_ids": "json",  # the common pool of 10 candidates, best first
        "scores": "json",
    },
    "One row per retriever x instance x condition x setting: the ranked pool of 10 record ids.",
)

CANDIDATES = declare(
    "cipher_eval_candidates",
    {
        "instance_id": "string",
        "domain": "string",
        "condition": "string",
        "setting": "string",
        "candidate_ids": "json",  # context records satisfying the instance's structured predicates
        "structured_sql": "string",
        "status": "string",  # ok | error
        "error": "string",
    },
    "Candidate set of the structured predicates per instance x condition x setting (failure attribution).",
)

PROMPT_SIZES = declare(
    "cipher_eval_prompt_sizes",
    {
        "method": "string",
        "instance_id": "string",
        "domain": "string",
        "condition": "string",
        "setting": "string",
        "prompt_version": "string",
        "prompt_tokens": "int",
        "tokenizer": "string",
    },
    "Rendered prompt size per LLM method x instance x condition x setting, computed offline.",
)

PROMPTS = declare(
    "cipher_eval_prompts",
    {
        "method": "string",
        "prompt_version": "string",
        "system_template": "string",
        "user_template": "string",
    },
    "The versioned prompt templates of the LLM methods (item_id is '<prompt_version>').",
)

HUMAN_LABELS = declare(
    "cipher_eval_human_labels",
    {
        "output_run_id": "string",
        "output_item_id": "string",
        "annotator": "string",
        "accept": "bool",
        "note": "string",
    },
    "Human accept/reject decisions on judged outputs (for judge-vs-human agreement, Table 7).",
)
