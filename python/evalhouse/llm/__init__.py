"""evalhouse.llm: every model call (typed outputs, cache, per-model limits, retries, ledger).

    spec = resolve_model("openai/gpt-4o-mini", role="subject")        # check_endpoint=True in the CLI
    client = LLMClient(run, concurrency=8)                             # ledger rows land under run.run_id
    r = await client.structured(spec, messages, Answer, purpose="cipher.zero_shot", max_retries=2)
    r = await client.text(spec, messages, purpose="...")
    r = await client.chat(spec, messages, tools=[...], purpose="...")
    results = client.run_batch([lambda m=m: client.text(spec, m) for m in batch], desc="...")

Providers: ``openai`` (key OPENAI_API_KEY, instructor mode tools), ``ollama`` (default
http://localhost:11434/v1, no key, mode json), ``vllm`` and ``openai-compatible`` (base_url
required, key optional via api_key_env, mode json); other instructor providers (anthropic, google,
mistral, ...) pass through to ``instructor.from_provider`` when their SDK is installed.
Generation params: temperature (0), max_tokens, mode, timeout (transport: not hashed) and any
other chat-completions parameter (top_p, seed, ...). ``epoch=k`` asks the same question afresh.

Each logical call is cached by ``request_hash`` (successful answers only, from the landing table
``llm_calls`` of every run plus this process); each attempt (HTTP retry or validation re-ask) and
each cache hit is one ledger row with tokens, latency, cost (``prices.py``) and error.
"""
from .client import LLMClient
from .prices import PRICES, cost_usd
from .result import CallResult
from .retry import RetryPolicy
from .spec import ROLES, ModelSpec, resolve_model

__all__ = ["LLMClient", "CallResult", "ModelSpec", "RetryPolicy", "resolve_model", "ROLES", "PRICES", "cost_usd"]
