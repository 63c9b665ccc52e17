"""The canonical request and its hash: the cache key and the ledger's grouping key."""
from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Any

from ..landing import canonical_json
from .spec import ModelSpec


def canonical_request(spec: ModelSpec, kind: str, messages: list[dict[str, Any]], *,
                      response_model: type | None = None, tools: list[dict] | None = None,
                      tool_choice: Any = None, epoch: int = 0) -> dict[str, Any]:
    """Everything that determines the answer; transport settings (timeout, key, limits) excluded."""
    return {
        "provider": spec.provider,
        "model": spec.name,
        "base_url": spec.base_url,
        "mode": spec.mode if kind == "structured" else None,
        "kind": kind,
        "messages": messages,
        "response_schema": _schema(response_model) if response_model else None,
        "tools": tools or None,
        "tool_choice": tool_choice,
        "params": spec.generation_params(),
        "epoch": epoch,
    }


def request_hash(request: dict[str, Any]) -> str:
    return hashlib.sha256(canonical_json(request).encode()).hexdigest()


@lru_cache(maxsize=256)
def _schema(response_model: type) -> dict[str, Any]:
    return response_model.model_json_schema()
