"""The native response schema {choice, probabilities, confidence} and its validation.

Appendix E.2/E.3: an invalid response (no choice, a choice or probability key that is not a
candidate, a missing candidate probability, probabilities outside [0, 1] or not summing to 1
within tolerance, a confidence outside [0, 1]) is recorded as invalid and re-queried; it is never
repaired. A missing confidence is kept missing (never reconstructed).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

SUM_TOLERANCE = 0.01
WITHHOLD = "WITHHOLD"


@dataclass(frozen=True)
class Checked:
    valid: bool
    reason: str | None
    choice: str | None
    probabilities: dict | None
    confidence: float | None


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def parse_text(text: str | None) -> tuple[dict | None, str | None]:
    """The JSON object of a reply (a ```json fence is allowed around it), else a reason."""
    if not text or not text.strip():
        return None, "empty reply"
    body = text.strip()
    fence = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", body, flags=re.S)
    if fence:
        body = fence.group(1)
    try:
        obj = json.loads(body)
    except json.JSONDecodeError as exc:
        return None, f"not JSON ({exc.msg})"
    if not isinstance(obj, dict):
        return None, "reply is not a JSON object"
    return obj, None


def check(obj: dict | None, candidates: list[str], tolerance: float = SUM_TOLERANCE) -> Checked:
    """Validate a parsed native response against the ordered candidate ids."""
    if obj is None:
        return Checked(False, "no JSON object", None, None, None)
    choice = obj.get("choice")
    probs = obj.get("probabilities")
    conf_raw = obj.get("confidence")
    conf = None if conf_raw is None else _number(conf_raw)

    def bad(reason: str) -> Checked:
        return Checked(False, reason, choice if isinstance(choice, str) else None,
                       probs if isinstance(probs, dict) else None, conf)

    if not isinstance(choice, str) or not choice:
        return bad("missing choice")
    if choice not in candidates:
        return bad(f"unknown category '{choice}' in choice")
    if not isinstance(probs, dict):
        return bad("missing probabilities")
    unknown = [k for k in probs if k not in candidates]
    if unknown:
        return bad(f"unknown category '{unknown[0]}' in probabilities")
    missing = [c for c in candidates if c not in probs]
    if missing:
        return bad(f"missing probability for '{missing[0]}'")
    values = {c: _number(probs[c]) for c in candidates}
    if any(v is None or v < 0 or v > 1 for v in values.values()):
        return bad("a probability is not a number in [0, 1]")
    total = sum(values.values())
    if abs(total - 1.0) > tolerance:
        return bad(f"probabilities sum to {total:.4f}, not 1")
    if conf_raw is not None and (conf is None or conf < 0 or conf > 1):
        return bad("confidence is not a number in [0, 1]")
    return Checked(True, None, choice, {c: values[c] for c in candidates}, conf)
