"""The DABench official rule, its strict variant, ASR/RAD and Spearman, on the real DABench labels."""
from __future__ import annotations

import json

import pytest
from scipy.stats import spearmanr

from evalhouse.trustda.scoring import (accuracy, extract_answers, label_answers, robustness_summary,
                                       score_dabench, spearman)


@pytest.fixture(scope="module")
def labels(shared_data):
    with open(shared_data / "dabench-dev" / "labels.jsonl") as fh:
        return {row["id"]: row["common_answers"] for row in map(json.loads, fh)}


def _reply_from(pairs) -> str:
    return " ".join(f"@{name}[{value}]" for name, value in pairs)


def test_every_label_scores_its_own_answers_correct(labels):
    verdicts = [score_dabench(_reply_from(pairs), label_answers(pairs)) for pairs in labels.values()]
    assert len(verdicts) == 133
    assert accuracy(verdicts) == 1.0


def test_labels_carry_the_regex_artefacts(labels):
    # question 734 repeats answer names: the official dict keeps the last value of each name
    names = [p[0] for p in labels[734]]
    assert len(names) > len(set(names))
    assert label_answers(labels[734]) == {"correlation_coefficient": "0.56",
                                          "correlation_significance": "non-significant"}
    # question 116's list answer was cut to the empty string by the same regex
    assert labels[116] == [["outlier_countries", ""]]


def test_repeated_names_keep_the_last_value_in_replies_too(labels):
    gold = label_answers(labels[734])
    first_only = "@correlation_coefficient[0.38] @correlation_significance[significant]"
    assert score_dabench(first_only, gold).correct is False
    full = _reply_from(labels[734])
    assert score_dabench(full, gold).correct is True
    assert score_dabench(full + " @correlation_coefficient[0.99]", gold).correct is False


def test_a_list_value_ends_at_the_first_bracket(labels):
    assert extract_answers("@outlier_countries[['Togo', 'Burundi']]") == {"outlier_countries": "['Togo', 'Burundi'"}
    gold = label_answers(labels[116])
    assert score_dabench("@outlier_countries[]", gold).correct is True
    assert score_dabench("@outlier_countries[Togo]", gold).correct is False


def test_values_cannot_span_lines():
    assert extract_answers("@mean[5.0\n]") == {}
    assert extract_answers("@a[1]\n@b[x y]") == {"a": "1", "b": "x y"}


def test_float_tolerance_and_string_equality(labels):
    gold = label_answers(labels[9])  # mean_close_price 570.68
    assert score_dabench("@mean_close_price[570.6800000001]", gold).correct is True
    assert score_dabench("@mean_close_price[570.681]", gold).correct is False
    assert score_dabench("The answer is @mean_close_price[570.68].", gold).correct is True
    assert score_dabench("@is_normal[No]", label_answers(labels[10])).correct is False  # case matters


def test_all_sub_answers_must_be_correct(labels):
    pairs = labels[14]
    gold = label_answers(pairs)
    wrong_last = _reply_from(pairs[:-1] + [[pairs[-1][0], "999"]])
    verdict = score_dabench(wrong_last, gold)
    assert verdict.correct is False
    assert sum(verdict.sub_correct.values()) == len(pairs) - 1


def test_official_drops_missing_or_empty_replies_strict_counts_them_wrong(labels):
    gold = label_answers(labels[9])
    for empty in (None, ""):
        assert score_dabench(empty, gold, "official").counted is False
        strict = score_dabench(empty, gold, "strict")
        assert strict.counted and strict.correct is False
    # the official script tests truthiness: a whitespace reply is kept and scored wrong
    assert score_dabench("  ", gold, "official").counted is True
    verdicts = [score_dabench("@mean_close_price[570.68]", gold), score_dabench("", gold)]
    assert accuracy(verdicts) == 1.0
    assert accuracy([score_dabench(r, gold, "strict") for r in ("@mean_close_price[570.68]", "")]) == 0.5


def test_asr_and_rad_follow_appendix_b():
    clean = {"q1": True, "q2": True, "q3": False, "q4": True}
    perturbed = {"q1": [True, False, False], "q2": [True], "q3": [False, True]}
    s = robustness_summary(clean, perturbed)
    # ASR over solved originals' perturbations: q1 contributes 3 (2 broken), q2 contributes 1 (0 broken)
    assert s.asr == pytest.approx(2 / 4)
    # RAD: (1/N) * [q1: 1 - 1/3] ; q2 loses nothing, q3 unsolved, q4 uncovered but in N
    assert s.rad == pytest.approx((2 / 3) / 4)
    assert s.acc_clean == pytest.approx(3 / 4)
    assert s.acc_rob == pytest.approx(3 / 4 - (2 / 3) / 4)
    assert s.coverage == pytest.approx(3 / 4)


def test_asr_is_undefined_without_solved_covered_originals():
    s = robustness_summary({"q1": False, "q2": True}, {"q1": [False, False]})
    assert s.asr is None
    assert s.rad == 0


def test_spearman_matches_scipy_with_ties():
    levels = [0, 0, 0, 0, 1, 1, 2, 2, 2, 2, 3, 3]
    asr = [1.0, 3.5, 2.0, 0.5, 6.0, 2.0, 8.0, 9.5, 3.0, 7.0, 20.0, 12.0]
    assert spearman(levels, asr) == pytest.approx(spearmanr(levels, asr).statistic)
    assert spearman([1, 1, 1], [1, 2, 3]) is None
