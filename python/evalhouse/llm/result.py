"""What a call returns, and how usage, text and tool calls are read from provider responses."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

USAGE_KEYS = ("input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens")


@dataclass
class CallResult:
    """The outcome of one logical call (all its attempts, or one cache hit)."""

    ok: bool
    value: Any = None  # pydantic object (structured) | str (text, chat content) | None
    raw_text: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # [{id, name, arguments}]
    error: str | None = None
    request_hash: str = ""
    usage: dict[str, float] = field(default_factory=dict)  # tokens and cost summed over attempts
    cache_hit: bool = False
    attempts: int = 0


def field_of(obj: Any, name: str, default: Any = None) -> Any:
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def usage_of(response: Any) -> dict[str, int]:
    """Token counts of one response (OpenAI and Anthropic shapes); zeros when absent."""
    usage = field_of(response, "usage")
    if usage is None:
        return dict.fromkeys(USAGE_KEYS, 0)
    prompt_details = field_of(usage, "prompt_tokens_details")
    output_details = field_of(usage, "completion_tokens_details")
    return {
        "input_tokens": int(field_of(usage, "prompt_tokens") or field_of(usage, "input_tokens") or 0),
        "cached_tokens": int(field_of(prompt_details, "cached_tokens")
                             or field_of(usage, "cache_read_input_tokens") or 0),
        "output_tokens": int(field_of(usage, "completion_tokens") or field_of(usage, "output_tokens") or 0),
        "reasoning_tokens": int(field_of(output_details, "reasoning_tokens") or 0),
    }


def message_of(response: Any) -> Any:
    choices = field_of(response, "choices")
    return field_of(choices[0], "message") if choices else None


def text_of(response: Any) -> str | None:
    """The reply text: message content, else the first tool call's arguments (tools mode)."""
    message = message_of(response)
    if message is not None:
        content = field_of(message, "content")
        if content:
            return content
        calls = field_of(message, "tool_calls") or []
        return field_of(field_of(calls[0], "function"), "arguments") if calls else content
    blocks = field_of(response, "content")  # anthropic-style list of blocks
    if isinstance(blocks, list):
        parts = [field_of(b, "text") or json.dumps(field_of(b, "input")) for b in blocks]
        return "".join(p for p in parts if p)
    return field_of(response, "text")


def tool_calls_of(response: Any) -> list[dict[str, Any]]:
    """Tool calls as plain dicts; arguments parsed from JSON when they parse, else the raw string."""
    calls = field_of(message_of(response), "tool_calls") or []
    return [_tool_call_dict(call) for call in calls]


def _tool_call_dict(call: Any) -> dict[str, Any]:
    function = field_of(call, "function")
    arguments = field_of(function, "arguments")
    try:
        arguments = json.loads(arguments) if isinstance(arguments, str) else arguments
    except json.JSONDecodeError:
        pass
    return {"id": field_of(call, "id"), "name": field_of(function, "name"), "arguments": arguments}
