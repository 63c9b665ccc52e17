"""Native-response validation: invalid responses are named, never repaired."""
from __future__ import annotations

from evalhouse.tuplebench.native import check, parse_text

CANDS = ["late", "misrouted", "damaged", "undeliverable"]


def _probs(**kw):
    base = {"late": 0.7, "misrouted": 0.1, "damaged": 0.1, "undeliverable": 0.1}
    base.update(kw)
    return base


def test_valid_response_passes_unchanged():
    c = check({"choice": "late", "probabilities": _probs(), "confidence": 0.8}, CANDS)
    assert c.valid and c.choice == "late" and c.probabilities == _probs() and c.confidence == 0.8


def test_missing_confidence_stays_missing():
    c = check({"choice": "late", "probabilities": _probs()}, CANDS)
    assert c.valid and c.confidence is None


def test_invalid_responses_are_named():
    cases = {
        "missing choice": {"probabilities": _probs()},
        "unknown category 'lost' in choice": {"choice": "lost", "probabilities": _probs()},
        "unknown category 'lost' in probabilities": {"choice": "late", "probabilities": {**_probs(), "lost": 0.0}},
        "missing probability for 'damaged'": {"choice": "late", "probabilities": {k: v for k, v in _probs().items() if k != "damaged"}},
        "sum to 1.3000": {"choice": "late", "probabilities": _probs(late=1.0)},
        "confidence is not a number": {"choice": "late", "probabilities": _probs(), "confidence": 1.5},
    }
    for reason, obj in cases.items():
        c = check(obj, CANDS)
        assert not c.valid and reason in c.reason, (reason, c.reason)
    # the invalid probabilities are kept as given (no renormalization)
    assert check(cases["sum to 1.3000"], CANDS).probabilities["late"] == 1.0


def test_parse_text():
    assert parse_text('```json\n{"choice": "late"}\n```')[0] == {"choice": "late"}
    assert parse_text("I think late")[1].startswith("not JSON")
    assert parse_text("[1, 2]")[1] == "reply is not a JSON object"
