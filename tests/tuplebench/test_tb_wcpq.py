"""Strict WCPQ on constructed cases: every workflow's plan and cost is preserved while payloads
change; a response whose signature no codeword has falls back to the native response."""
from __future__ import annotations

import numpy as np

from evalhouse.tuplebench import ontology, wcpq
from evalhouse.tuplebench.workflows import TASKS, Estimator, Policy, Release, cost_model, plans_for

PRIOR = np.full(4, 0.25)


def frozen_workflows() -> list[Policy]:
    """18 workflows (3 tasks x 6 profiles) consuming the native probability vector."""
    native = Estimator("native", PRIOR)
    return [Policy("s", "delivery", "full_native", task, prof["profile"], native, cost_model(task, "delivery", prof))
            for task in TASKS for prof in ontology.cost_profiles()]


def responses() -> Release:
    probs = np.array([[0.83, 0.07, 0.05, 0.05],
                      [0.81, 0.09, 0.05, 0.05],   # same signature as the first: same canonical output
                      [0.52, 0.40, 0.05, 0.03],
                      [0.05, 0.78, 0.12, 0.05],
                      [0.33, 0.27, 0.21, 0.19]])
    return Release(np.array([0, 0, 0, 1, 0]), probs, np.array([0.83, 0.81, 0.52, 0.78, 0.33]))


def training() -> Release:
    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.ones(4) * 0.7, size=40)
    return Release(p.argmax(axis=1), p, p.max(axis=1))


def test_strict_wcpq_preserves_every_plan_and_cost_while_changing_payloads():
    policies = frozen_workflows()
    rel = responses()
    book = wcpq.PreparedCodebooks(wcpq.build_codebooks(training(), has_confidence=True), policies)
    m = wcpq.strict_map(rel, book)
    assert m.covered.all()
    truth = np.array([0, 1, 1, 2, 3])
    check = wcpq.verify(rel, m.released, policies, truth)
    assert check == {"comparisons": 5 * 18, "plans_preserved": 90, "costs_preserved": 90, "realized_costs_preserved": 90}
    assert wcpq.payload_changed(rel, m.released).all()
    assert (m.released.choice == rel.choice).all()  # each codeword keeps the selected category
    assert np.allclose(m.released.probs.sum(axis=1), 1)
    assert np.array_equal(m.released.probs[0], m.released.probs[1]) and m.released.conf[0] == m.released.conf[1]
    for before, after in zip(plans_for(rel, policies), plans_for(m.released, policies)):
        assert np.array_equal(before, after)


def test_signature_mismatch_falls_back_to_the_native_response():
    policies = frozen_workflows()
    rel = responses()
    books = wcpq.build_codebooks(training(), has_confidence=True)
    tiny = {c: wcpq.Codebook(c, b.probs[:1], b.conf[:1]) for c, b in books.items()}  # one codeword per choice
    m = wcpq.strict_map(rel, wcpq.PreparedCodebooks(tiny, policies))
    assert not m.covered.all()
    fallback = ~m.covered
    assert (m.codeword_index[fallback] == -1).all()
    assert np.array_equal(m.released.probs[fallback], rel.probs[fallback])
    assert np.array_equal(m.released.conf[fallback], rel.conf[fallback])
    assert not wcpq.payload_changed(rel, m.released)[fallback].any()
    # a response without a confidence field never matches codewords that have one
    no_conf = Release(rel.choice, rel.probs, np.full(5, np.nan))
    assert not wcpq.strict_map(no_conf, wcpq.PreparedCodebooks(books, policies)).covered.any()


def test_bounded_extension_never_exceeds_the_budget():
    policies = frozen_workflows()
    rel = responses()
    book = wcpq.PreparedCodebooks(wcpq.build_codebooks(training(), has_confidence=True), policies)
    native = wcpq.cost_tensor(rel, policies)
    for alpha in (0.0, 0.04, 0.20):
        m = wcpq.bounded_map(rel, book, alpha)
        assert m.covered.all()
        assert (wcpq.cost_tensor(m.released, policies) <= native + alpha + 1e-9).all()


def test_probability_grid():
    grid = wcpq.probability_grid()
    assert grid.shape == (286, 4) and np.allclose(grid.sum(axis=1), 1)
    assert np.array_equal(grid[0], [1, 0, 0, 0])
