"""The decoder firewall: only declared consumer-view inputs reach a secret-recovery decoder."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalhouse.tuplebench import decoders, recovery_job

FORBIDDEN = ("world_id", "pair_id", "private_evidence", "mechanism", "mechanism_is_b", "split",
             "paired_released_probabilities", "domain", "system")


@pytest.fixture
def release_frame(tb):
    frame = recovery_job.load_release_frame()
    system = sorted(frame["system"].unique())[0]
    return frame[(frame["system"] == system) & (frame["domain"] == "equipment")
                 & frame["view"].isin(["full_native", "choice"])].reset_index(drop=True)


def test_consumer_view_copies_the_allow_list_only(release_frame):
    frame = release_frame.assign(private_evidence="secret text", mechanism="bearing_wear")
    cv = decoders.consumer_view(frame)
    assert list(cv.columns) == list(decoders.CONSUMER_COLUMNS)
    assert not set(FORBIDDEN) & set(cv.columns)
    with pytest.raises(decoders.FirewallError, match="lacks declared input"):
        decoders.consumer_view(frame.drop(columns=["hypothesis_b"]))


def test_fitting_code_refuses_undeclared_columns_and_test_labels(release_frame):
    sub = release_frame[release_frame["view"] == "full_native"].reset_index(drop=True)
    split = sub["split"].to_numpy()
    y = np.array(sub["mechanism_is_b"], dtype=float)
    groups = sub["pair_id"].to_numpy()
    leaky = decoders.consumer_view(sub).assign(private_evidence=sub["pair_id"])
    with pytest.raises(decoders.FirewallError, match="undeclared columns"):
        decoders.fit_select_score(leaky, "full_native", np.where(split == "test", np.nan, y), groups, split, 0)
    with pytest.raises(decoders.FirewallError, match="test labels"):
        decoders.fit_select_score(decoders.consumer_view(sub), "full_native", y, groups, split, 0)


def test_predictions_do_not_depend_on_forbidden_fields(release_frame):
    """Scrambling identifiers, private evidence, gold mechanisms (test labels included) and adding
    the paired world's response leaves every decoder score unchanged."""
    clean, _ = recovery_job.decode_frame(release_frame, "native", seed=1)
    rng = np.random.default_rng(0)
    dirty = release_frame.copy()
    dirty["private_evidence"] = [f"evidence {i}" for i in rng.permutation(len(dirty))]
    dirty["mechanism"] = rng.permutation(dirty["hypothesis_a"].to_numpy())
    dirty["world_id"] = "x" + dirty["world_id"]
    test = dirty["split"] == "test"
    dirty.loc[test, "mechanism_is_b"] = ~dirty.loc[test, "mechanism_is_b"].astype(bool)
    partner = dirty.groupby(["pair_id", "view"])["released_probabilities"].transform(lambda s: s.iloc[::-1].to_numpy())
    dirty["paired_released_probabilities"] = partner
    scrambled, _ = recovery_job.decode_frame(dirty, "native", seed=1)
    assert np.array_equal(clean["score"].to_numpy(), scrambled["score"].to_numpy())
    assert (clean["decoder"].to_numpy() == scrambled["decoder"].to_numpy()).all()
    flipped = scrambled["split"] == "test"
    assert (clean.loc[flipped, "correct"].to_numpy() != scrambled.loc[flipped, "correct"].to_numpy()).all()


def test_released_fields_do_reach_the_decoder(release_frame):
    """The firewall is not vacuous: changing the released fields changes scores."""
    clean, _ = recovery_job.decode_frame(release_frame, "native", seed=1)
    shifted = release_frame.copy()
    full = shifted["view"] == "full_native"
    shifted.loc[full, "released_confidence"] = 1 - shifted.loc[full, "released_confidence"].astype(float)
    shifted.loc[full, "released_probabilities"] = shifted.loc[full, "released_probabilities"].map(lambda p: np.asarray(p)[::-1])
    changed, _ = recovery_job.decode_frame(shifted, "native", seed=1)
    native = clean["view"] == "full_native"
    assert not np.array_equal(clean.loc[native, "score"].to_numpy(), changed.loc[native, "score"].to_numpy())
