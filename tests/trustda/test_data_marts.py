"""The generation phase end to end at scale="ci": landing → dbt build → public marts."""
from __future__ import annotations

import json

import pandas as pd

from evalhouse.trustda.answer_path import answers_equal, parse_answer, run_answer_path
from evalhouse.trustda.package import content_hash, package_dir
from evalhouse.warehouse import query_df

PROTOCOL_FIELDS = {
    "selection_protocol": {"sample_id", "eligible_attacks", "attack_type", "confidence", "reason", "target",
                           "rejected_attacks", "proposed_transformation", "answer_invariance_reason", "risk_checks"},
    "construction_protocol": {"status", "attack_type", "new_question", "file_edit_required", "output_files", "input_file",
                              "edit_plan", "edit_summary", "transformation_record", "quality_check", "reject_reason"},
    "validation_protocol": {"verdict", "original_answerable", "original_answer", "attack_rule_valid", "attack_effective",
                            "task_still_answerable", "unique_answer_preserved", "attacked_answer", "normalized_equivalent",
                            "checked_evidence", "counterfactual_answer", "failure_category", "failure_reason"},
}


def test_instances_cover_every_operator_and_both_tracks(trustda_ci_warehouse):
    df = query_df("select operator, track, count(*) n from trustda_instances group by all")
    assert set(df["operator"]) == set(query_df("select operator from trustda_operators")["operator"])
    assert set(df["track"]) == {"reliability", "robustness"}


def test_every_candidate_stores_three_protocols(trustda_ci_warehouse):
    c = query_df("select * from trustda_candidates")
    assert len(c) > len(query_df("select instance_id from trustda_instances"))
    for _, row in c.iterrows():
        for col, fields in PROTOCOL_FIELDS.items():
            assert fields <= set(json.loads(row[col])), (row["candidate_id"], col)
        if row["verdict"] == "Rejected":
            assert row["failure_category"] and row["failure_reason"]
        else:
            assert pd.isna(row["failure_category"]) and row["instance_id"] == row["candidate_id"]


def test_dbt_recomputes_reference_answers(trustda_ci_warehouse):
    marts = query_df("select source_task_id, reference_pairs, answer_status, dataset from trustda_source_tasks")
    landed = query_df("select source_task_id, label_pairs from int_trustda_source_tasks_latest")
    both = marts.merge(landed, on="source_task_id")
    assert (both["answer_status"] != "error").all()
    for _, r in both.iterrows():
        assert answers_equal(json.loads(r["reference_pairs"]), json.loads(r["label_pairs"]))
    assert {"builtin", "dabench"} >= set(marts["dataset"]) and (marts["dataset"] == "builtin").sum() >= 30


def test_packages_are_content_addressed_and_hold_only_files(trustda_ci_warehouse):
    inst = query_df("select instance_id, package_path, package_hash, files from trustda_instances")
    for _, r in inst.iterrows():
        folder = package_dir(r["package_path"])
        assert folder.name == r["package_hash"] == content_hash(folder)
        assert sorted(p.name for p in folder.iterdir()) == sorted(json.loads(r["files"]))
        assert all(p.suffix in (".csv", ".tsv", ".xlsx") for p in folder.iterdir())


def test_gold_fields_by_track(trustda_ci_warehouse):
    inst = query_df("select * from trustda_instances")
    rel, rob = inst[inst.track == "reliability"], inst[inst.track == "robustness"]
    assert rel["gold_reason"].notna().all() and rel["reference_answer"].isna().all()
    assert (rel["expected_behavior"] == "refuse").all() and (rob["expected_behavior"] == "answer").all()
    assert rob["reference_answer"].notna().all() and rob["gold_reason"].isna().all()
    assert (rob["reference_answer"] == rob["source_reference_answer"]).all()


def test_path_follower_contract_on_instances(trustda_ci_warehouse):
    """The original answer path still works under row shuffles and breaks when a field is removed."""
    tasks = query_df("select source_task_id, gold_sql, answer_names from trustda_source_tasks where gold_sql is not null")
    by_id = {r["source_task_id"]: r for r in tasks.to_dict("records")}
    inst = query_df("select * from trustda_instances where operator in ('row_order_shuffle', 'field_missing', "
                    "'column_order_shuffle') and dataset = 'builtin'")
    assert len(inst)
    for r in inst.to_dict("records"):
        res = run_answer_path(by_id[r["source_task_id"]], package_dir(r["package_path"]))
        if r["operator"] == "field_missing":
            assert not res.ok
        else:
            assert res.ok and answers_equal(res.pairs, parse_answer(r["reference_answer"]))


def test_stats_marts_match_instances(trustda_ci_warehouse):
    stats = query_df("select * from trustda_instance_stats")
    assert (stats.groupby("dataset").size() == 19).all()
    total = stats[stats.dataset == "total"]["accepted"].sum()
    assert total == len(query_df("select 1 from trustda_instances"))
    assert (stats["paper_accepted"].fillna(0) >= 0).all() and stats[stats.dataset == "total"]["paper_accepted"].sum() == 2340
    t1 = query_df("select * from trustda_dataset_stats")
    assert set(t1["track"]) == {"reliability", "robustness"}
    assert t1["instances"].sum() == total


def test_rerun_resumes_without_duplicates(trustda_ci_warehouse, shared_data):
    from evalhouse.benchmarks import JobOptions
    from evalhouse.landing import LandingZone
    from evalhouse.trustda.generate import generate

    before = len(LandingZone().read("trustda_candidates"))
    extra = {"dabench_dir": str(shared_data / "dabench-dev")} if (shared_data / "dabench-dev").is_dir() else {"dabench": False}
    generate(JobOptions(scale="ci", seed=42, extra=extra))
    assert len(LandingZone().read("trustda_candidates")) == before
