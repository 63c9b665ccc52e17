"""Generated records: latent facts rendered as text, native redaction, restoration, condition views."""
from __future__ import annotations

import re
from dataclasses import asdict

import pytest

from evalhouse.cipher.domains import DOMAINS, serialize_record
from evalhouse.cipher.records import DomainBuilder, annotation_view
from evalhouse.cipher.restoration import apply_style


@pytest.fixture(scope="module")
def built():
    return {d: DomainBuilder(d, 7).build(20) for d in DOMAINS}


def test_source_text_states_every_latent_fact(built):
    # The annotation view read back from the rendered mentions equals the facts the generator drew.
    for domain, recs in built.items():
        for rec in recs:
            if not any(rec.narratives["source"].values()):
                continue
            assert rec.annotation["source"] == {k: rec.latent[k] for k in DOMAINS[domain].annotation}, rec.record_id


def test_narratives_mix_negations_hedges_and_non_satisfying_mentions(built):
    polarities = {m["polarity"] for recs in built.values() for r in recs for m in r.mentions}
    assert {"affirmed", "negated", "hedged", "non_satisfying"} <= polarities
    # a negated mention never turns a fact on
    for domain, recs in built.items():
        for r in recs:
            for m in r.mentions:
                if m["polarity"] != "affirmed" and DOMAINS[domain].column(m["fact"]).sql_type == "BOOLEAN":
                    affirmed = any(x["fact"] == m["fact"] and x["polarity"] == "affirmed" for x in r.mentions)
                    assert r.annotation["source"][m["fact"]] == affirmed


def test_native_redaction_styles(built):
    cfpb = " ".join(r.narratives["redacted"]["consumer_complaint_narrative"] for r in built["cfpb"])
    assert "XXXX" in cfpb and "XX/XX/XXXX" in cfpb
    mimic = " ".join(" ".join(r.narratives["redacted"].values()) for r in built["mimic"])
    assert "___" in mimic
    for r in built["fir"]:
        red = r.narratives["redacted"]["statement_of_complaint"]
        assert re.search(r"<PERSON_\d{6}>", red)
        assert r.structured["source"]["complainant_name"] not in red
        assert re.fullmatch(r"(<PERSON_\d{6}>[ ,]*)+", r.structured["redacted"]["accused_names"])


def test_replacement_log_reproduces_restored_text_and_other_styles(built):
    for domain, recs in built.items():
        for r in recs[:10]:
            for field, red in r.narratives["redacted"].items():
                log = [x for x in r.replacements if x["field"] == field]
                assert apply_style(red, log, "restored") == r.narratives["restored"][field]
                assert apply_style(red, log, "redacted") == red
                if log:
                    assert "[MASK]" in apply_style(red, log, "span_masking")
                    assert re.search(r"\[[A-Z_]+\]", apply_style(red, log, "entity_masking"))
                    removed = apply_style(red, log, "complete_redaction")
                    assert all(x["masked_text"] not in removed for x in log if x["masked_text"].startswith("<"))


def test_fir_surrogates_are_consistent_per_placeholder(built):
    seen = {}
    for r in built["fir"]:
        for x in r.replacements:
            assert seen.setdefault(x["masked_text"], x["surrogate"]) == x["surrogate"]


def test_a_fact_whose_only_mention_is_masked_is_absent_when_redacted(built):
    hidden = [(r, m) for r in built["cfpb"] + built["mimic"] for m in r.mentions if not m["visible_redacted"]]
    assert hidden, "the generator must mask some fact-bearing spans"
    for r, m in hidden:
        others = [x for x in r.mentions if x["fact"] == m["fact"] and x["polarity"] == "affirmed" and x["visible_redacted"]]
        if m["fact"] == "amount_disputed_usd" and not others:
            assert r.annotation["redacted"]["amount_disputed_usd"] is None
            assert r.annotation["source"]["amount_disputed_usd"] == m["value"]
            assert r.annotation["restored"]["amount_disputed_usd"] == m["value_restored"]


def test_generation_is_deterministic_and_has_near_duplicates():
    a = DomainBuilder("cfpb", 11).build(25)
    b = DomainBuilder("cfpb", 11).build(25)
    assert [asdict(x)["narratives"] for x in a] == [asdict(x)["narratives"] for x in b]
    assert len({x.story_seed for x in a}) < len(a)  # some records share their story (near-duplicates)


def test_serialization_shows_only_model_visible_fields(built):
    r = built["cfpb"][0]
    line = serialize_record("cfpb", {"record_id": r.record_id, **r.structured["redacted"], **r.narratives["redacted"],
                                     **r.annotation["redacted"]})
    assert line.startswith("[record_id: CFPB-0001, complaint_id: ") and line.endswith("]")
    assert "\n" not in line
    for col in DOMAINS["cfpb"].annotation:
        assert f"{col}:" not in line


def test_annotation_view_of_an_empty_mention_list_is_all_absent():
    view = annotation_view("mimic", [], "redacted")
    assert view["diagnoses"] == [] and view["icu_transfer"] is False and view["primary_diagnosis"] is None
