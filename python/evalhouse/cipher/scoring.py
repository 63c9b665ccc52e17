"""CIPHER answer metrics: M1 (normalized token overlap), the rule judge (M2) and M3.

Everything here is pure Python over JSON answer values, so the same code scores built-in systems,
LLM outputs and the benchmark script. Definitions (also in models/cipher/marts/_cipher_eval_marts.yml):

Normalization of a text (``normalize_tokens``)
    NFKC, lower case; tokens are maximal runs of letters/digits, where digits may carry thousands
    separators and one decimal part ("1,234.50"); "$", "%" and all other punctuation separate
    tokens; the articles a/an/the are dropped; a numeric token is rewritten in canonical form
    (``canonical_number``: "05" -> "5", "12.50" -> "12.5", "1,234" -> "1234").

M1 per instance, in [0, 1] (``m1``)
    * list answers (the reference is a JSON list): set F1 between the sets of normalized items of
      the candidate and of the reference (an item is its normalized tokens joined by one space,
      after dropping a leading "id"/"record"/"row"/"no"; a candidate given as text is split on
      commas, semicolons, new lines, "|" and " and ");
    * any other answer: SQuAD-style token F1 between the multisets of normalized tokens.
    Both sides empty score 1 (an empty answer is null, [], "", 0 or a phrase such as "none" or
    "no answer"); exactly one side empty scores 0.

M2 per instance (rule judge, ``rule_judge``): 1 when the rubric accepts the candidate, else 0.

M3 per instance: 2*M1*M2/(M1+M2), 0 when either is 0; averaged over instances afterwards.
"""
from __future__ import annotations

import json
import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Any

RUBRIC_VERSION = "cipher-rubric/v1"

_ARTICLES = {"a", "an", "the"}
_TOKEN = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|[^\W\d_]+", re.UNICODE)
_ID_PREFIXES = {"id", "ids", "record", "records", "row", "rows", "no", "number", "#"}
_EMPTY_TEXTS = {
    "", "none", "null", "nil", "n a", "na", "nan", "no answer", "nothing", "no records",
    "no record", "no matching records", "no results", "not applicable", "empty", "no such records",
    "zero", "0", "unknown", "no data",
}
_RANKING_WORDS = re.compile(
    r"\b(top|highest|lowest|most|least|largest|smallest|maximum|minimum|rank|ranked|ranking|"
    r"first|earliest|latest|greatest|fewest)\b", re.I)
_YES = {"yes", "true", "y"}
_NO = {"no", "false", "n"}
_NEGATIONS = {"not", "no", "never", "none", "without", "neither", "nor"}
_STOPWORDS = _ARTICLES | {
    "of", "to", "in", "on", "for", "and", "or", "with", "by", "at", "from", "is", "was", "were",
    "are", "be", "been", "as", "that", "this", "it", "its", "their", "his", "her", "which",
}
NUMBER_TOLERANCE = 0.05  # counts within 5% are accepted
LIST_MIN_RECALL = 0.5  # "most gold ids present": at least half of them
LIST_MIN_PRECISION = 0.3  # ... without padding the list with everything in sight
STRING_MIN_F1 = 0.5


# ---------------------------------------------------------------- normalization
def canonical_number(token: str) -> str | None:
    """Canonical text of a numeric token, or None when it is not a number."""
    cleaned = token.replace(",", "")
    try:
        value = float(cleaned)
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.6f}".rstrip("0").rstrip(".")


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return " ".join(_as_text(v) for v in value)
    if isinstance(value, dict):
        return " ".join(_as_text(v) for v in value.values())
    return str(value)


def normalize_tokens(value: Any) -> list[str]:
    text = unicodedata.normalize("NFKC", _as_text(value)).lower()
    out = []
    for tok in _TOKEN.findall(text):
        if tok in _ARTICLES:
            continue
        num = canonical_number(tok) if tok[0].isdigit() else None
        out.append(num if num is not None else tok)
    return out


def normalize_item(value: Any) -> str:
    toks = normalize_tokens(value)
    while len(toks) > 1 and toks[0] in _ID_PREFIXES:
        toks = toks[1:]
    return " ".join(toks)


# ---------------------------------------------------------------- answer shapes
def parse_answer(value: Any) -> Any:
    """A candidate answer as a JSON value: JSON text is decoded, other values pass through."""
    if isinstance(value, str):
        stripped = value.strip()
        if stripped[:1] in "[{" or stripped in ("null", "true", "false"):
            try:
                return json.loads(stripped)
            except ValueError:
                return value
    return value


def _flatten(value: Any) -> list[Any]:
    """Items of a list answer; rows of one column become their single value."""
    if isinstance(value, dict):
        return [v for v in value.values()]
    if not isinstance(value, (list, tuple)):
        return [value]
    items = []
    for v in value:
        if isinstance(v, (list, tuple)) and len(v) == 1:
            items.append(v[0])
        elif isinstance(v, dict) and len(v) == 1:
            items.append(next(iter(v.values())))
        else:
            items.append(v)
    return items


_SPLIT = re.compile(r"\s*(?:;|\n|\||,(?!\d{3}(?:\D|$))|\band\b)\s*")


def list_items(value: Any) -> list[str]:
    """Normalized, non-empty items of a (candidate or reference) list answer."""
    value = parse_answer(value)
    if isinstance(value, str):
        text = value.strip().strip("[]")
        raw = [p.strip().strip("\"'") for p in _SPLIT.split(text)] if text else []
    else:
        raw = _flatten(value)
    items = [normalize_item(v) for v in raw if v is not None]
    return [i for i in items if i]


def answer_kind(gold: Any, answer_type: str | None = None) -> str:
    """'list', 'number' or 'string' for a reference answer (answer_type wins when given)."""
    if answer_type in ("list", "number", "string"):
        return answer_type
    gold = parse_answer(gold)
    if isinstance(gold, (list, tuple)):
        return "list"
    if isinstance(gold, (int, float)) and not isinstance(gold, bool):
        return "number"
    if isinstance(gold, str) and canonical_number(gold.strip()) is not None:
        return "number"
    return "string"


def _scalar(value: Any) -> Any:
    """A one-item list answer as its item (for number/string references)."""
    value = parse_answer(value)
    items = _flatten(value) if isinstance(value, (list, tuple)) else None
    if items is not None and len(items) == 1:
        return items[0]
    return value


def is_empty_answer(value: Any) -> bool:
    """Null, [], "", 0, or a phrase meaning 'nothing qualifies'."""
    value = parse_answer(value)
    if value is None:
        return True
    if isinstance(value, (list, tuple, dict)):
        items = _flatten(value)
        return all(is_empty_answer(v) for v in items) if items else True
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return value == 0
    return " ".join(normalize_tokens(value)) in _EMPTY_TEXTS


# ---------------------------------------------------------------- M1
def f1(overlap: float, n_pred: int, n_gold: int) -> float:
    if n_pred == 0 and n_gold == 0:
        return 1.0
    if overlap == 0:
        return 0.0
    precision, recall = overlap / n_pred, overlap / n_gold
    return 2 * precision * recall / (precision + recall)


def token_f1(candidate: Any, gold: Any) -> float:
    pred, ref = normalize_tokens(candidate), normalize_tokens(gold)
    common = sum((Counter(pred) & Counter(ref)).values())
    return f1(common, len(pred), len(ref))


def set_f1(candidate: Any, gold: Any) -> float:
    pred, ref = set(list_items(candidate)), set(list_items(gold))
    return f1(len(pred & ref), len(pred), len(ref))


def m1(candidate: Any, gold: Any, answer_type: str | None = None) -> float:
    """Normalized token overlap of one instance, in [0, 1] (see the module docstring)."""
    if is_empty_answer(gold) and is_empty_answer(candidate):
        return 1.0  # "none", [] and 0 all say that nothing qualifies
    kind = answer_kind(gold, answer_type)
    if kind == "list":
        return set_f1(candidate, gold)
    return token_f1(_scalar(candidate), _scalar(gold))


def m3(m1_value: float, m2_value: float) -> float:
    """Per-instance harmonic mean of M1 and M2, zero when either is zero."""
    if m1_value <= 0 or m2_value <= 0:
        return 0.0
    return 2 * m1_value * m2_value / (m1_value + m2_value)


# ---------------------------------------------------------------- rule judge (M2)
@dataclass(frozen=True)
class Verdict:
    accept: bool
    reason: str


def _numbers(value: Any) -> list[float]:
    out = []
    for tok in normalize_tokens(value):
        num = canonical_number(tok) if tok[0].isdigit() else None
        if num is not None:
            out.append(float(num))
    return out


def _judge_number(question: str, gold: Any, candidate: Any) -> Verdict:
    g = float(_numbers(gold)[0])
    found = _numbers(candidate)
    in_question = set(_numbers(question))
    found = [x for x in found if x not in in_question] or found
    if not found:
        return Verdict(False, "no number in the candidate")
    tolerance = NUMBER_TOLERANCE * abs(g)
    if all(abs(x - g) <= tolerance for x in set(found)):
        return Verdict(True, f"number {found[0]:g} within 5% of {g:g}")
    return Verdict(False, f"number(s) {sorted(set(found))} differ from {g:g} by more than 5%")


def _judge_list(question: str, gold: Any, candidate: Any) -> Verdict:
    ref, pred = list_items(gold), list_items(candidate)
    ref_set, pred_set = set(ref), set(pred)
    hits = len(ref_set & pred_set)
    recall = hits / len(ref_set)
    precision = hits / len(pred_set) if pred_set else 0.0
    if hits == 0:
        return Verdict(False, "no reference item in the candidate (contradiction)")
    if _RANKING_WORDS.search(question) and pred and pred[0] not in ref_set:
        return Verdict(False, f"top-ranked item '{pred[0]}' is not in the reference")
    if recall >= LIST_MIN_RECALL and precision >= LIST_MIN_PRECISION:
        return Verdict(True, f"{hits}/{len(ref_set)} reference items present, precision {precision:.2f}")
    if recall < LIST_MIN_RECALL:
        return Verdict(False, f"only {hits}/{len(ref_set)} reference items present")
    return Verdict(False, f"candidate pads the list (precision {precision:.2f})")


def _stem(token: str) -> str:
    for suffix in ("ies", "ing", "es", "ed", "s"):
        if len(token) > len(suffix) + 2 and token.endswith(suffix):
            return token[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return token


def _content(value: Any) -> list[str]:
    return [_stem(t) for t in normalize_tokens(value) if t not in _STOPWORDS]


def _judge_string(question: str, gold: Any, candidate: Any) -> Verdict:
    ref_toks, pred_toks = normalize_tokens(gold), normalize_tokens(candidate)
    if ref_toks == pred_toks:
        return Verdict(True, "same text after normalization")
    ref_word, pred_word = " ".join(ref_toks), " ".join(pred_toks)
    if ref_word in _YES | _NO:
        first = pred_toks[0] if pred_toks else ""
        ok = (ref_word in _YES and first in _YES) or (ref_word in _NO and first in _NO)
        return Verdict(ok, "yes/no agrees" if ok else "yes/no contradicts the reference")
    ref_c, pred_c = _content(gold), _content(candidate)
    if not pred_c:
        return Verdict(False, "candidate has no content words")
    neg_ref = _NEGATIONS & set(ref_toks)
    neg_pred = _NEGATIONS & set(pred_toks)
    if bool(neg_ref) != bool(neg_pred):
        return Verdict(False, "negation contradicts the reference")
    common = sum((Counter(pred_c) & Counter(ref_c)).values())
    score = f1(common, len(pred_c), len(ref_c))
    covered = ref_c and set(ref_c) <= set(pred_c)
    if covered and len(pred_c) <= max(12, 4 * len(ref_c)):
        return Verdict(True, "candidate states every content word of the reference")
    if score >= STRING_MIN_F1:
        return Verdict(True, f"content-word F1 {score:.2f}")
    return Verdict(False, f"content-word F1 {score:.2f} below {STRING_MIN_F1}")


def rule_judge(question: str, gold: Any, candidate: Any, answer_type: str | None = None) -> Verdict:
    """The deterministic rubric: accept or reject a candidate given the question and reference."""
    gold, candidate = parse_answer(gold), parse_answer(candidate)
    gold_empty, cand_empty = is_empty_answer(gold), is_empty_answer(candidate)
    if gold_empty:
        if cand_empty:
            return Verdict(True, "reference is empty and the candidate says nothing qualifies")
        return Verdict(False, "reference is empty but the candidate asserts an answer (hallucination)")
    if cand_empty:
        return Verdict(False, "candidate says nothing qualifies but the reference has an answer")
    kind = answer_kind(gold, answer_type)
    if kind == "list":
        return _judge_list(question, gold, candidate)
    gold_s, cand_s = _scalar(gold), _scalar(candidate)
    if kind == "number" and _numbers(gold_s):
        return _judge_number(question, gold_s, cand_s)
    return _judge_string(question, gold_s, cand_s)


def score(question: str, gold: Any, candidate: Any, answer_type: str | None = None,
          valid: bool = True) -> dict:
    """M1, rule M2, M3 and the judge's reason for one output (invalid outputs score zero)."""
    if not valid:
        return {"m1": 0.0, "m2": 0, "m3": 0.0, "reason": "invalid output"}
    overlap = m1(candidate, gold, answer_type)
    verdict = rule_judge(question, gold, candidate, answer_type)
    accept = int(verdict.accept)
    return {"m1": overlap, "m2": accept, "m3": m3(overlap, accept), "reason": verdict.reason}
