"""Downstream workflows on constructed posteriors: costs, complete plans, bad cost input."""
from __future__ import annotations

import numpy as np
import pytest

from evalhouse.errors import BadInput
from evalhouse.tuplebench import ontology
from evalhouse.tuplebench.workflows import (Estimator, Release, bayes_plans, cost_model, fit_estimators,
                                            oracle_costs, plan_text, realized)

BASE = ontology.cost_profiles()[0]
CLASSES = ontology.load()["delivery"].category_names


def test_selective_routing_routes_when_sure_and_reviews_when_unsure():
    costs = cost_model("selective", "delivery", BASE)
    post = np.array([[0.9, 0.05, 0.05, 0.0], [0.25, 0.25, 0.25, 0.25]])
    plans = bayes_plans(post, costs)
    assert [plan_text(p, CLASSES) for p in plans] == [f"route:{CLASSES[0]}", "review"]
    assert realized(costs, plans, np.array([0, 0])).tolist() == [0.0, 2.0]
    assert realized(costs, plans, np.array([1, 3])).tolist() == [10.0, 2.0]
    assert oracle_costs(costs, np.array([0, 1, 2, 3])).tolist() == [0, 0, 0, 0]


def test_clarification_plan_names_the_action_for_both_check_outcomes():
    costs = cost_model("clarification", "delivery", BASE)
    plans = bayes_plans(np.array([[0.5, 0.5, 0.0, 0.0]]), costs)
    assert plan_text(plans[0], CLASSES) == f"check:{CLASSES[0]}?yes=route:{CLASSES[0]};no=route:{CLASSES[1]}"
    per_truth = costs.plan_costs(plans)[0]
    assert per_truth.tolist() == [0.4, 0.4, 10.4, 10.4]  # the check answers yes exactly when its class is true
    cheap = cost_model("clarification", "delivery", ontology.cost_profiles()[1])  # quarter-price checks
    assert cheap.check == pytest.approx(0.1)


def test_asymmetric_matrix_is_predeclared_and_scaled_by_profile():
    base = cost_model("asymmetric", "delivery", BASE)
    double = cost_model("asymmetric", "delivery", ontology.cost_profiles()[5])
    assert np.allclose(np.diag(base.matrix[:4]), 0) and len(np.unique(base.matrix[:4])) > 3
    assert np.allclose(double.matrix[:4], 2 * base.matrix[:4]) and np.allclose(double.matrix[4], base.matrix[4])


def test_incomplete_cost_profile_is_reported():
    with pytest.raises(BadInput, match="check_cost is not specified"):
        cost_model("clarification", "delivery", {**BASE, "check_cost": None})
    with pytest.raises(BadInput, match="unknown task"):
        cost_model("triage", "delivery", BASE)


def test_estimators_fit_on_released_fields_only():
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 4, 200)
    probs = np.full((200, 4), 0.1)
    probs[np.arange(200), truth] = 0.7
    rel = Release(truth.copy(), probs, np.full(200, 0.7))
    names = [e.name for e in fit_estimators(rel, truth, 0, has_probs=True)]
    assert names == ["prior", "logistic_C1", "native"]
    no_output = Release(np.full(200, -1), np.full((200, 4), np.nan), np.full(200, np.nan))
    assert [e.name for e in fit_estimators(no_output, truth, 0, has_probs=False)] == ["prior"]
    lr = fit_estimators(rel, truth, 0, has_probs=True)[1]
    assert (lr.posterior(rel).argmax(axis=1) == truth).mean() > 0.95
    assert isinstance(lr, Estimator)
