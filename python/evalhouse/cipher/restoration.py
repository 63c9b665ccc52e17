"""Surrogate restoration and the transformation styles re-applied from the replacement log.

Every masked span gets a contextually plausible surrogate (Faker; en_IN for FIR). The log
(record, field, span index, semantic type, masked text, surrogate) makes the restored text
reproducible from the redacted text, and re-applies as entity masking (`[PERSON]`), span masking
(`[MASK]`) or complete redaction (span removed).
"""
from __future__ import annotations

import hashlib
import random
import re
from typing import Iterable

STYLES = ("redacted", "restored", "entity_masking", "span_masking", "complete_redaction")

_TYPE_LABEL = {"DATE_TIME": "DATE", "PHONE_NUMBER": "PHONE", "IN_AADHAAR": "ID_NUMBER"}


def span_seed(domain: str, record_id: str, field: str, span_index: int, seed: int) -> int:
    digest = hashlib.sha256(f"{seed}|{domain}|{record_id}|{field}|{span_index}".encode()).hexdigest()
    return int(digest[:12], 16)


def surrogate(semantic_type: str, masked_text: str, context: str, fake, rng: random.Random, domain: str) -> str:
    """A plausible replacement chosen from the span's type and nearby context (never the source)."""
    t = semantic_type
    if t == "PERSON":
        return fake.last_name() if domain == "mimic" else fake.name()
    if t in ("DATE", "DATE_TIME"):
        if domain == "fir":
            return f"{rng.randint(1, 28):02d}.{rng.randint(1, 12):02d}.{rng.randint(2018, 2024)}"
        if domain == "mimic":
            return f"{rng.randint(1, 12)}/{rng.randint(1, 28)}"
        return f"{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/{rng.randint(2018, 2023)}"
    if t == "LOCATION":
        return fake.city()
    if t == "ADDRESS":
        return fake.street_address()
    if t == "ACCOUNT":
        return str(rng.randint(1000, 9999))
    if t in ("PHONE", "PHONE_NUMBER"):
        return f"9{rng.randint(100000000, 999999999)}" if domain == "fir" else fake.phone_number()
    if t == "IN_AADHAAR":
        return " ".join(str(rng.randint(1000, 9999)) for _ in range(3))
    if t == "AMOUNT":
        return f"${rng.uniform(20, 5000):,.2f}"
    if t == "FACILITY":
        if "Home With Service" in context:
            kind = "Home Health Services"
        else:
            kind = rng.choice(["Nursing and Rehabilitation Center", "Acute Rehabilitation Hospital"])
        return f"{fake.last_name()} {kind}"
    return fake.word().capitalize()


def apply_style(text: str, replacements: Iterable[dict], style: str) -> str:
    """Re-apply one field's replacement log (dicts with red_start, red_end, semantic_type, masked_text,
    surrogate) to its redacted text in the given style."""
    if style not in STYLES:
        from ..errors import UserError
        raise UserError(f"unknown transformation style '{style}' (known: {', '.join(STYLES)})")
    out, cursor = [], 0
    for r in sorted(replacements, key=lambda r: r["red_start"]):
        out.append(text[cursor:r["red_start"]])
        out.append({
            "redacted": r["masked_text"],
            "restored": r["surrogate"],
            "entity_masking": f"[{_TYPE_LABEL.get(r['semantic_type'], r['semantic_type'])}]",
            "span_masking": "[MASK]",
            "complete_redaction": "",
        }[style])
        cursor = r["red_end"]
    out.append(text[cursor:])
    result = "".join(out)
    if style == "complete_redaction":
        result = re.sub(r"[ \t]{2,}", " ", result)
    return result


def restored_offsets(replacements: list[dict]) -> list[tuple[int, int]]:
    """Where each surrogate lands in the restored text (same order as replacements sorted by start)."""
    spans, shift = [], 0
    for r in sorted(replacements, key=lambda r: r["red_start"]):
        start = r["red_start"] + shift
        spans.append((start, start + len(r["surrogate"])))
        shift += len(r["surrogate"]) - (r["red_end"] - r["red_start"])
    return spans
