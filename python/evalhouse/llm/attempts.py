"""Recording the attempts of one logical call as ledger rows (fed by instructor hooks or directly)."""
from __future__ import annotations

import time
import uuid
from typing import Any

from ..landing import canonical_json, now_utc
from .prices import cost_usd
from .result import USAGE_KEYS, CallResult, text_of, usage_of
from .retry import classify, describe, root_cause
from .spec import ModelSpec


class CallRecord:
    """One logical call: its request, and one ledger row per attempt (HTTP retry or re-ask)."""

    def __init__(self, spec: ModelSpec, kind: str, request: dict, request_hash: str, purpose: str):
        self.spec = spec
        self.kind = kind
        self.request = request
        self.request_hash = request_hash
        self.purpose = purpose
        self.call_id = uuid.uuid4().hex[:10]
        self.rows: list[dict[str, Any]] = []
        self._t0 = time.perf_counter()
        self._started_at = now_utc()

    # --- hooks (instructor calls these with the signatures of its events) -------------------
    def begin(self, *args: Any, **kwargs: Any) -> None:
        self._t0 = time.perf_counter()
        self._started_at = now_utc()

    def on_response(self, response: Any) -> None:
        self._add("ok", usage=usage_of(response), response_text=text_of(response))

    def on_parse_error(self, error: BaseException, **meta: Any) -> None:
        if self.rows:
            self.rows[-1]["status"] = "parse_error"
            self.rows[-1]["error"] = describe(error)

    def on_error(self, error: BaseException, **meta: Any) -> None:
        cause = root_cause(error)
        self._add(classify(cause), error=describe(cause))

    # --- rows ---------------------------------------------------------------------------------
    def _add(self, status: str, *, usage: dict | None = None, response_text: str | None = None,
             error: str | None = None) -> None:
        usage = usage or dict.fromkeys(USAGE_KEYS, 0)
        latency_ms = (time.perf_counter() - self._t0) * 1000
        cost = cost_usd(self.spec.model_string, usage["input_tokens"], usage["cached_tokens"], usage["output_tokens"])
        attempt = len(self.rows) + 1
        self.rows.append(self._row(f"{attempt}", attempt, status, usage, response_text, None, error, latency_ms, cost))

    def cache_hit_row(self, response_text: str | None, parsed: str | None) -> None:
        usage = dict.fromkeys(USAGE_KEYS, 0)
        self.rows.append(self._row("hit", 0, "ok", usage, response_text, parsed, None, 0.0, 0.0, cache_hit=True))

    def _row(self, suffix: str, attempt: int, status: str, usage: dict, response_text: str | None,
             parsed: str | None, error: str | None, latency_ms: float, cost: float, cache_hit: bool = False) -> dict:
        spec = self.spec
        return {
            "item_id": f"{self.request_hash}:{self.call_id}:{suffix}",
            "request_hash": self.request_hash, "attempt": attempt, "role": spec.role,
            "provider": spec.provider, "model": spec.name, "base_url": spec.base_url,
            "purpose": self.purpose, "status": status, "cache_hit": cache_hit,
            "request": self.request, "response_text": response_text, "parsed": parsed, "error": error,
            **usage, "latency_ms": latency_ms, "cost_usd": cost, "started_at": self._started_at,
        }

    # --- outcome ------------------------------------------------------------------------------
    def succeed(self, parsed: Any = None) -> None:
        """Mark the last row as the answer; ``parsed`` is what the cache will serve (JSON-able)."""
        if parsed is not None:
            self.rows[-1]["parsed"] = parsed if isinstance(parsed, str) else canonical_json(parsed)

    def fail(self, message: str) -> None:
        """A call that failed as a whole: no row of it may look like a servable answer."""
        for row in self.rows:
            if row["status"] == "ok" and not row["cache_hit"]:
                row["status"], row["error"] = "error", message

    def usage(self) -> dict[str, float]:
        total: dict[str, float] = {key: sum(int(r[key] or 0) for r in self.rows) for key in USAGE_KEYS}
        total["cost_usd"] = sum(r["cost_usd"] or 0.0 for r in self.rows)
        return total

    def result(self, ok: bool, *, value: Any = None, raw_text: str | None = None,
               tool_calls: list | None = None, error: str | None = None) -> CallResult:
        hit = bool(self.rows) and self.rows[-1]["cache_hit"]
        return CallResult(ok=ok, value=value, raw_text=raw_text, tool_calls=tool_calls or [], error=error,
                          request_hash=self.request_hash, usage=self.usage(), cache_hit=hit,
                          attempts=0 if hit else len(self.rows))
