"""Landing tables shared by every benchmark: the run registry and the LLM ledger."""
from .landing import declare

RUN_EVENTS = declare(
    "run_events",
    {
        "kind": "string",
        "benchmark": "string",
        "event": "string",  # started | finished | failed
        "config": "json",
        "code_version": "string",
        "counts": "json",
        "error": "string",
    },
    "One row per lifecycle event of a run (item_id is the event id).",
)

LLM_CALLS = declare(
    "llm_calls",
    {
        "request_hash": "string",
        "attempt": "int",
        "role": "string",
        "provider": "string",
        "model": "string",
        "base_url": "string",
        "purpose": "string",
        "status": "string",  # ok | parse_error | http_error | timeout | error
        "cache_hit": "bool",
        "request": "json",
        "response_text": "string",
        "parsed": "json",
        "error": "string",
        "input_tokens": "int",
        "cached_tokens": "int",
        "output_tokens": "int",
        "reasoning_tokens": "int",
        "latency_ms": "float",
        "cost_usd": "float",
        "started_at": "timestamp",
    },
    "One row per attempt of a model call (item_id is '<request_hash>:<attempt>' or a cache-hit id).",
)
