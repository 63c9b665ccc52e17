"""Appendix J quality control as an LLM-judge workflow (builder role) against the loopback server."""
from __future__ import annotations

import json
import re

from evalhouse.benchmarks import JobOptions
from evalhouse.landing import LandingZone
from evalhouse.tuplebench import generate, ontology, qc


def _judge(body: dict):
    from llm_server import json_reply

    system = body["messages"][0]["content"]
    user = body["messages"][-1]["content"]
    if "blind reviewer" in system:
        # answer with the first catalog entry: right for some worlds, wrong for others
        cat = re.search(r"- category (\w+) \(.*?\): mechanisms (\w+)", user)
        return json_reply({"category": cat.group(1), "mechanism": cat.group(2), "rationale": "first entry"})
    if "counterfactual pair" in system:
        return json_reply({"checks": {c: "PASS" for c in qc.CONTRACT_CHECKS}, "unresolved_alternative": False,
                           "notes": "ok"})
    n = len(re.findall(r"^\d+\. ", user, flags=re.M))
    return json_reply({"relations": ["independent"] * n, "notes": "distinct events"})


def test_generation_with_builder_runs_three_stage_qc(warehouse, loopback_llm):
    loopback_llm.set_handler(_judge)
    opts = JobOptions(scale="ci", seed=2, builder_model="vllm/judge", base_url=loopback_llm.base_url, limit=4,
                      concurrency=4, extra={"pairs_per_mechanism_pair": 1})
    generate.generate(opts)
    rows = LandingZone().read("tuplebench_qc_results")
    assert len(rows) == 4 * 4 and set(rows["stage"]) == {"A", "B", "C", "overall"}
    assert (rows["judge_model"] == "vllm/judge").all()
    wide = rows.pivot(index="pair_id", columns="stage", values="verdict")
    assert (wide["B"] == "PASS").all() and (wide["C"] == "PASS").all()
    assert ((wide["overall"] == "PASS") == (wide["A"] == "PASS")).all()
    registry = LandingZone().read("tuplebench_pair_registry").set_index("pair_id")
    first_mech = {d: dom.mechanisms[0].name for d, dom in ontology.load().items()}
    for pair_id, verdict in wide["A"].items():
        reg = registry.loc[pair_id]
        # blind inference cannot match both worlds: they have different mechanisms
        assert verdict == "FAIL"
        details = json.loads(rows[(rows["pair_id"] == pair_id) & (rows["stage"] == "A")]["details"].iloc[0])
        assert [i["mechanism"] for i in details["inferences"]] == [first_mech[reg["domain"]]] * 2
