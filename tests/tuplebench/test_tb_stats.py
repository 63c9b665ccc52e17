"""Pair-clustered bootstrap."""
from __future__ import annotations

import numpy as np

from evalhouse.tuplebench import stats


def test_pair_weights_resample_pairs_and_are_seeded():
    w = stats.pair_weights(50, seed=3)
    assert w.shape == (2000, 50)
    assert (w.sum(axis=1) == 50).all()
    assert np.array_equal(w, stats.pair_weights(50, seed=3))
    assert not np.array_equal(w, stats.pair_weights(50, seed=4))


def test_paired_intervals():
    rng = np.random.default_rng(0)
    correct = rng.integers(0, 3, size=(144, 2)).astype(float)  # correct worlds per pair, two views
    correct[:, 1] = correct[:, 0]
    w = stats.pair_weights(144, seed=1)
    samples = stats.ratio_samples(w, correct, np.full(144, 2.0))
    point = correct.sum(axis=0) / 288
    lo, hi = stats.interval(samples[:, 0])
    assert lo < point[0] < hi and hi - lo < 0.2
    assert stats.interval(samples[:, 1] - samples[:, 0]) == (0.0, 0.0)  # identical views: zero-width paired difference
    assert stats.interval(np.array([np.nan, np.nan])) != stats.interval(np.array([0.5]))
