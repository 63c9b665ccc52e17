"""Price table: US dollars per million tokens (input, cached input, output).

Keys are ``provider/name`` prefixes; the longest matching prefix wins, so dated snapshots
(``gpt-4o-mini-2024-07-18``) use their family's price. Unknown models (local ollama/vLLM
models included) cost 0. Reasoning tokens are billed as output tokens (they are included in
the provider's output count), so they add no separate term. Edit this table when prices change.
"""
from __future__ import annotations

from typing import NamedTuple


class Price(NamedTuple):
    input: float
    cached_input: float
    output: float


PRICES: dict[str, Price] = {
    "openai/gpt-4o-mini": Price(0.15, 0.075, 0.60),
    "openai/gpt-4o": Price(2.50, 1.25, 10.00),
    "openai/gpt-4.1": Price(2.00, 0.50, 8.00),
    "openai/gpt-4.1-mini": Price(0.40, 0.10, 1.60),
    "openai/gpt-4.1-nano": Price(0.10, 0.025, 0.40),
    "openai/gpt-5": Price(1.25, 0.125, 10.00),
    "openai/gpt-5-mini": Price(0.25, 0.025, 2.00),
    "openai/gpt-5-nano": Price(0.05, 0.005, 0.40),
    "openai/o3": Price(2.00, 0.50, 8.00),
    "openai/o3-mini": Price(1.10, 0.55, 4.40),
    "openai/o4-mini": Price(1.10, 0.275, 4.40),
    "anthropic/claude-3-5-haiku": Price(0.80, 0.08, 4.00),
    "anthropic/claude-haiku-4-5": Price(1.00, 0.10, 5.00),
    "anthropic/claude-3-5-sonnet": Price(3.00, 0.30, 15.00),
    "anthropic/claude-sonnet-4": Price(3.00, 0.30, 15.00),
    "anthropic/claude-opus-4": Price(15.00, 1.50, 75.00),
    "google/gemini-2.5-flash": Price(0.30, 0.075, 2.50),
    "google/gemini-2.5-pro": Price(1.25, 0.31, 10.00),
}


def price_for(model_string: str) -> Price | None:
    matches = [key for key in PRICES if model_string == key or model_string.startswith(key + "-")]
    return PRICES[max(matches, key=len)] if matches else None


def cost_usd(model_string: str, input_tokens: int, cached_tokens: int, output_tokens: int) -> float:
    """Dollar cost of one attempt; 0.0 for models without a price."""
    price = price_for(model_string)
    if price is None:
        return 0.0
    uncached = max(input_tokens - cached_tokens, 0)
    return (uncached * price.input + cached_tokens * price.cached_input + output_tokens * price.output) / 1e6
