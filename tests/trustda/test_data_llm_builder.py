"""The optional LLM builder path (role builder) against the loopback OpenAI-compatible server."""
from __future__ import annotations

import pytest


@pytest.fixture
def mtcars_task(warehouse):
    from evalhouse.trustda.builtin import build_csv_packages, tasks_for_package
    from evalhouse.trustda.catalog import CSV_TABLES

    pkg = build_csv_packages([s for s in CSV_TABLES if s.name == "mtcars"])[0]
    return {t.source_task_id: t for t in tasks_for_package(pkg)[0]}["builtin:mtcars:std"]  # weight_1000lb: no curated synonym


def _handler(blind_column):
    from llm_server import json_reply  # tests/ is on sys.path once the loopback_llm fixture started

    def reply(body):
        text = " ".join(str(m.get("content")) for m in body["messages"])
        if "robustness tests" in text:
            return json_reply({"applicable": True, "field": "weight_1000lb", "new_header": "weight_thousand_lb",
                               "same_concept": True, "same_metric_scope": True, "same_granularity": True,
                               "same_time_basis": True, "same_unit": True, "can_coexist_as_distinct": False,
                               "confidence": 0.9, "reason": "thousand and 1000 name the same unit"})
        return json_reply({"column": blind_column, "reason": "the question asks for the weight"})
    return reply


@pytest.mark.parametrize("blind,verdict", [("weight_thousand_lb", "Robustness"), ("gross_horsepower", "Rejected")])
def test_llm_builder_synonym_with_blind_validation(mtcars_task, loopback_llm, monkeypatch, blind, verdict):
    from evalhouse.benchmarks import JobOptions
    from evalhouse.landing import LandingZone
    from evalhouse.runs import open_run
    from evalhouse.trustda.llm_builder import run_llm_builder
    from evalhouse.trustda.package import CsvDoc, package_dir

    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    loopback_llm.set_handler(_handler(blind))  # after the fixture put tests/ on sys.path
    opts = JobOptions(builder_model="openai/gpt-4o-mini", base_url=loopback_llm.base_url, concurrency=2)
    with open_run("trustda.generate", {"test": blind}, benchmark="trustda") as run:
        run_llm_builder(run, [mtcars_task], opts)
        rows = LandingZone().read("trustda_candidates", run_id=run.run_id)
    [row] = rows.to_dict("records")
    assert row["builder"] == "llm" and row["verdict"] == verdict
    if verdict == "Robustness":
        assert "weight_thousand_lb" in CsvDoc.read(package_dir(row["package_path"]) / "mtcars.csv").header
    else:
        assert row["failure_category"] == "blind_validator_disagrees"
    assert loopback_llm.request_count == 2
