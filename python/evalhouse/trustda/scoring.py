"""Robustness scoring: the DABench official closed-form rule, its strict variant, ASR and RAD.

DABench's official rule (InfiAgent-DABench `eval_closed_form.py`, reimplemented):
- answers are pulled from a reply with ``@(\\w+)\\[(.*?)\\]``: a value ends at the first ``]`` and
  cannot span lines; when a name repeats, the last value wins (the same holds for the labels);
- a sub-answer is correct when reply and label strings are equal, or both parse as floats within
  1e-6; a question is correct only when every labelled sub-answer is;
- replies that are missing or the empty string are dropped from the denominators (``official``
  variant; the script keeps a response only when ``resp['response']`` is truthy).
The ``strict`` variant scores a missing or empty reply as wrong instead of dropping it.

Metric definitions (paper appendix B, settled in DESIGN.md):
- ASR = sum_i sum_j c_i (1 - a_ij) / sum_i sum_j c_i; undefined (None) when no original that has
  perturbations was solved.
- RAD = (1/N) sum_{i in S} c_i (1 - mean_j a_ij), N = all original source questions.
- Acc_rob = Acc_clean - RAD; coverage = |S| / N.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

ANSWER_PATTERN = re.compile(r"@(\w+)\[(.*?)\]")
FLOAT_TOLERANCE = 1e-6
VARIANTS = ("official", "strict")


def extract_answers(text: str | None) -> dict[str, str]:
    """Named answers in a reply; a repeated name keeps its last value (as the official dict())."""
    if not text:
        return {}
    return {name: value for name, value in ANSWER_PATTERN.findall(text)}


def label_answers(common_answers: Sequence[Sequence[str]]) -> dict[str, str]:
    """A DABench label's ``common_answers`` as the official script reads them (last name wins)."""
    return {str(pair[0]): str(pair[1]) for pair in common_answers}


def values_equal(reply_value: str | None, label_value: str) -> bool:
    if reply_value is None:
        return False
    if reply_value == label_value:
        return True
    try:
        return abs(float(reply_value) - float(label_value)) < FLOAT_TOLERANCE
    except (TypeError, ValueError):
        return False


def is_empty_reply(text: str | None) -> bool:
    """Missing or empty, as the official script's truthiness test (a whitespace reply is scored)."""
    return text is None or text == ""


@dataclass(frozen=True)
class Verdict:
    """Correctness of one reply under one variant; ``counted`` is False when the reply is dropped."""

    correct: bool | None
    counted: bool
    sub_correct: dict[str, bool]
    extracted: dict[str, str]


def score_dabench(reply: str | None, labels: Mapping[str, str], variant: str = "official") -> Verdict:
    """Score one reply against its label answers (name -> value) under the official/strict rule."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown scoring variant {variant!r} (choose from {VARIANTS})")
    if is_empty_reply(reply):
        if variant == "official":
            return Verdict(None, False, {}, {})
        return Verdict(False, True, {name: False for name in labels}, {})
    extracted = extract_answers(reply)
    subs = {name: values_equal(extracted.get(name), value) for name, value in labels.items()}
    return Verdict(all(subs.values()), True, subs, extracted)


def accuracy(verdicts: Iterable[Verdict]) -> float | None:
    """Share of counted replies that are correct (None when nothing is counted)."""
    counted = [v.correct for v in verdicts if v.counted]
    return (sum(bool(c) for c in counted) / len(counted)) if counted else None


@dataclass(frozen=True)
class RobustnessSummary:
    n_original: int
    n_covered: int
    acc_clean: float | None
    asr: float | None
    rad: float | None
    acc_rob: float | None
    coverage: float | None


def robustness_summary(clean: Mapping[str, bool], perturbed: Mapping[str, Sequence[bool]]) -> RobustnessSummary:
    """ASR/RAD from original correctness c_i (every original question, key = source id) and the
    correctness a_ij of each question's perturbations (keys absent or empty = no perturbation)."""
    n = len(clean)
    covered = {q: list(a) for q, a in perturbed.items() if a and q in clean}
    attacked = sum(len(a) for q, a in covered.items() if clean[q])
    broken = sum(sum(1 - int(x) for x in a) for q, a in covered.items() if clean[q])
    loss = sum(1 - sum(map(int, a)) / len(a) for q, a in covered.items() if clean[q])
    acc_clean = sum(map(bool, clean.values())) / n if n else None
    rad = loss / n if n else None
    return RobustnessSummary(
        n_original=n,
        n_covered=len(covered),
        acc_clean=acc_clean,
        asr=broken / attacked if attacked else None,
        rad=rad,
        acc_rob=(acc_clean - rad) if n else None,
        coverage=len(covered) / n if n else None,
    )


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's rho with average ranks for ties (None when undefined)."""
    pairs = [(x, y) for x, y in zip(xs, ys) if x is not None and y is not None]
    if len(pairs) < 2:
        return None
    rx = _average_ranks([p[0] for p in pairs])
    ry = _average_ranks([p[1] for p in pairs])
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / math.sqrt(vx * vy) if vx and vy else None


def _average_ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks
