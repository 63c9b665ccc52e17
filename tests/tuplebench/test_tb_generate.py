"""Ontology, pair registration, world rendering and counterfactual certificates."""
from __future__ import annotations

import shutil

import pytest

from evalhouse.errors import BadInput
from evalhouse.landing import LandingZone
from evalhouse.tuplebench import generate, ontology


def test_ontology_shape_and_costs():
    domains = ontology.load()
    assert set(domains) == {"delivery", "equipment", "it_ops"}
    for dom in domains.values():
        assert len(dom.categories) == 4 and len(dom.mechanisms) == 16
        assert len(set(dom.mechanism_names)) == 16
        assert all(m.confusable_category != m.category for m in dom.mechanisms)
    base = ontology.cost_profiles()[0]
    assert (base["wrong_route_cost"], base["review_cost"], base["check_cost"]) == (10, 2, 0.4)
    assert len(ontology.cost_profiles()) == 6


def test_incomplete_seed_is_reported_with_file_and_row(tmp_path):
    for f in ontology.SEED_DIR.glob("*.csv"):
        shutil.copy(f, tmp_path / f.name)
    lines = (tmp_path / "tuplebench_ontology.csv").read_text().splitlines()
    (tmp_path / "tuplebench_ontology.csv").write_text("\n".join(lines[:-1]) + "\n")  # drop one mechanism
    with pytest.raises(BadInput, match="it_ops/application has 3 mechanisms"):
        ontology.load(tmp_path)
    shutil.copy(ontology.SEED_DIR / "tuplebench_ontology.csv", tmp_path / "tuplebench_ontology.csv")
    rows = (tmp_path / "tuplebench_asymmetric_costs.csv").read_text().splitlines()
    (tmp_path / "tuplebench_asymmetric_costs.csv").write_text("\n".join(rows[:-1]) + "\n")
    with pytest.raises(BadInput, match="not fully specified"):
        ontology.asymmetric_matrix("it_ops", tmp_path)


def test_paper_scale_registration_is_deterministic_and_split_by_pair():
    domains = ontology.load()
    reg = generate.register_pairs(domains, 10, seed=3)
    assert len(reg) == 720
    assert reg == generate.register_pairs(domains, 10, seed=3)
    assert reg != generate.register_pairs(domains, 10, seed=4)
    counts = {s: sum(r["split"] == s for r in reg) for s in ("train", "validation", "test")}
    assert counts == {"train": 432, "validation": 144, "test": 144}
    mech_cat = ontology.mechanism_category(domains)
    for r in reg:
        assert r["hypothesis_a"] != r["hypothesis_b"]
        assert mech_cat[r["hypothesis_a"]] == mech_cat[r["hypothesis_b"]] == r["coarse_category"]
        assert {r["world0_mechanism"], r["world1_mechanism"]} == {r["hypothesis_a"], r["hypothesis_b"]}


def test_pairs_share_everything_but_mechanism_and_evidence():
    domains = ontology.load()
    reg = generate.register_pairs(domains, 2, seed=5)
    discriminant_sets = set()
    for r in reg:
        w0, w1 = generate.render_pair(r, domains[r["domain"]])
        for field in ("public_context", "candidates", "recipient_contract", "check_laws", "costs", "split",
                      "coarse_category"):
            assert w0[field] == w1[field], field
        assert w0["mechanism"] != w1["mechanism"]
        assert w0["private_evidence"] != w1["private_evidence"]
        assert w0["mechanism"] not in w0["private_evidence"]
        cert = generate.certify(r, [w0, w1], domains[r["domain"]])
        assert cert["passed"], cert["failed_checks"]
        discriminant_sets.add(tuple(w0["discriminants_used"]))
    assert len(discriminant_sets) > 3  # varied event-level discriminants, not one fixed cue


def test_certificate_catches_broken_pairs():
    domains = ontology.load()
    r = generate.register_pairs(domains, 1, seed=5)[0]
    dom = domains[r["domain"]]
    w0, w1 = generate.render_pair(r, dom)
    broken = dict(w1, public_context=w1["public_context"] + " Priority raised.")
    assert "shared_public_context" in generate.certify(r, [w0, broken], dom)["failed_checks"]
    partner = next(m for m in dom.mechanisms if m.name == w0["mechanism"])
    leaky = dict(w1, private_evidence=w1["private_evidence"] + " " + generate._fill(partner.discriminants[0], __import__("random").Random(1)))
    assert "evidence_discriminates" in generate.certify(r, [w0, leaky], dom)["failed_checks"]
    same = dict(w1, mechanism=w0["mechanism"], private_evidence=w0["private_evidence"])
    failed = generate.certify(r, [w0, same], dom)["failed_checks"]
    assert {"mechanisms_distinct", "evidence_differs"} <= set(failed)


def test_generation_lands_registry_before_worlds_and_certifies_every_pair(tb):
    zone = LandingZone()
    registry = zone.read("tuplebench_pair_registry")
    worlds = zone.read("tuplebench_worlds_raw")
    certs = zone.read("tuplebench_certificates")
    assert len(registry) == 360 and len(worlds) == 720 and len(certs) == 360
    assert registry["written_at"].max() <= worlds["written_at"].min()
    assert certs["passed"].all()
    assert (worlds.groupby("pair_id")["split"].nunique() == 1).all()
