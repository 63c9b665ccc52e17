"""M1, the rule judge (M2) and M3 on the rubric's own cases."""
from __future__ import annotations

import pytest

from evalhouse.cipher.scoring import m1, m3, normalize_tokens, rule_judge, score


def test_normalization_canonicalizes_numbers_and_drops_articles():
    assert normalize_tokens("The total was $1,234.50 (05 items)") == ["total", "was", "1234.5", "5", "items"]
    assert normalize_tokens(12.0) == ["12"]
    assert normalize_tokens(None) == []


@pytest.mark.parametrize("candidate, gold, expected", [
    ("5", 5, 1.0),
    ("There are 5 complaints", 5, pytest.approx(2 * 0.25 * 1 / 1.25)),  # P = 1/4, R = 1
    (["CFPB-0007", "CFPB-0045"], ["CFPB-0045", "CFPB-0007"], 1.0),     # sets: order is free
    ("ID CFPB-0007, CFPB-0045", ["CFPB-0007", "CFPB-0045"], 1.0),       # text list, id prefix dropped
    (["CFPB-0007"], ["CFPB-0007", "CFPB-0045"], pytest.approx(2 / 3)),  # P = 1, R = 1/2
    ([1, 2, 283], [283, 285], pytest.approx(0.4)),                      # P = 1/3, R = 1/2
    ("NONE", [], 1.0),                                                   # both say nothing qualifies
    ([], ["CFPB-0001"], 0.0),
    ("blunt force trauma to the head", "Blunt force trauma", pytest.approx(2 * 0.6 * 1 / 1.6)),
])
def test_m1_token_and_set_f1(candidate, gold, expected):
    assert m1(candidate, gold) == expected


@pytest.mark.parametrize("question, gold, candidate, accept", [
    ("How many complaints?", 100, "104", True),            # within 5%
    ("How many complaints?", 100, "106", False),           # off by 6%
    ("How many complaints in 2019?", 3, "In 2019 there were 3", True),  # the year is the question's
    ("Which FIRs?", [283, 285], [1, 2, 283], True),        # the paper's partial-credit example
    ("Which FIRs?", [283, 285], [1, 2, 3], False),         # contradicts completely
    ("Which FIRs?", [1, 2], list(range(1, 40)), False),    # padded with everything
    ("Which FIRs?", [], "no answer", True),                # empty gold, empty candidate
    ("How many FIRs?", 0, "NONE", True),
    ("Which FIRs?", [], ["FIR-0003"], False),              # hallucination on an empty gold
    ("Which company had the most complaints?", ["Wells Fargo", "Chase"], ["Chase", "Wells Fargo"], True),
    ("Which company had the most complaints?", ["Wells Fargo"], ["Bank of America", "Wells Fargo"], False),
    ("What injury was reported?", "blunt force trauma", "Blunt-force trauma to the head", True),
    ("Was the account frozen?", "yes", "No, it was not", False),
    ("What was the outcome?", "refund issued", "refund was not issued", False),  # negation contradicts
])
def test_rule_judge_rubric(question, gold, candidate, accept):
    assert rule_judge(question, gold, candidate).accept is accept


def test_m3_is_zero_when_either_component_is_zero_and_harmonic_otherwise():
    assert m3(0.0, 1) == 0.0
    assert m3(0.9, 0) == 0.0
    assert m3(0.5, 1) == pytest.approx(2 / 3)
    assert m3(1.0, 1) == 1.0


def test_invalid_output_scores_zero_and_identical_answer_scores_one():
    assert score("How many?", 7, None, valid=False) == {"m1": 0.0, "m2": 0, "m3": 0.0, "reason": "invalid output"}
    for gold in (7, 3.25, "Wells Fargo", ["FIR-0001", "FIR-0002"], [], None, [["a", 2], ["b", 3]]):
        assert score("q", gold, gold)["m3"] == 1.0
