"""Importing human judgments (for judge-vs-human kappa): good rows land, bad ones name row and field."""
from __future__ import annotations

import pytest

from evalhouse.cipher.eval_commands import import_human_labels
from evalhouse.errors import BadInput
from evalhouse.landing import LandingZone


def _csv(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_labels_land_with_their_decisions(warehouse, tmp_path):
    path = _csv(tmp_path / "labels.csv",
                "output_run_id,output_id,annotator,accept,note\n"
                "run-1,zero-shot|m|cfpb-C01-0001|redacted|support_controlled,ann1,yes,\n"
                "run-1,zero-shot|m|cfpb-C01-0001|redacted|support_controlled,ann2,0,too vague\n")
    assert import_human_labels(path) == 2
    landed = LandingZone().read("cipher_eval_human_labels").sort_values("annotator")
    assert list(landed["accept"]) == [True, False]
    assert list(landed["note"].fillna("")) == ["", "too vague"]


@pytest.mark.parametrize("text, message", [
    ("output_run_id,output_id,accept\nr,o,yes\n", "missing column(s) annotator"),
    ("output_run_id,output_id,annotator,accept\nr,o,a,maybe\n", "row 2: field accept"),
    ("output_run_id,output_id,annotator,accept\nr,,a,yes\n", "row 2: field output_id is empty"),
])
def test_bad_rows_are_named(warehouse, tmp_path, text, message):
    with pytest.raises(BadInput, match=message.replace("(", r"\(").replace(")", r"\)")):
        import_human_labels(_csv(tmp_path / "bad.csv", text))
    assert LandingZone().read("cipher_eval_human_labels").empty
