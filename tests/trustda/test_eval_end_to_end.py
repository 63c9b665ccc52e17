"""End to end on part 1's CI warehouse: built-in systems on every item, judging, marts, report,
resume; and `evalhouse run --benchmark trustda --model ...` against the loopback server with
sandboxed tool calls."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalhouse.benchmarks import JobOptions
from evalhouse.dbt_runner import dbt_build
from evalhouse.landing import LandingZone
from evalhouse.warehouse import connect, query_df
from llm_server import json_reply, text_reply, tool_calls_reply

SELECT = ("+trustda_outputs+ +trustda_reliability+ +trustda_robustness+ +trustda_operator_effects+ "
          "+trustda_failure_stages+")
LIMIT = 15  # items per track: keeps the folder's run time down; `make run` covers every item


@pytest.fixture(scope="module")
def evaluated(trustda_ci_warehouse):
    from evalhouse.trustda.evaluate import judge, run

    run(JobOptions(scale="ci", limit=LIMIT))
    judge(JobOptions(scale="ci"))
    dbt_build(select=SELECT)
    return trustda_ci_warehouse


def test_builtin_systems_answer_every_selected_item(evaluated):
    tracks = query_df("select track, count(*) as n from trustda_instances group by track union all "
                      "select 'original', count(*) from trustda_source_tasks where answer_status in ('ok', 'label')")
    n_items = int(sum(min(LIMIT, n) for n in tracks["n"]))
    per_system = query_df("select system, count(*) as n from trustda_outputs group by system order by system")
    assert dict(zip(per_system["system"], per_system["n"])) == {"evidence-gated": n_items, "path-follower": n_items}
    unjudged = query_df("select count(*) as n from trustda_outputs where track = 'reliability' and reliability_mode is null")
    unscored = query_df("select count(*) as n from trustda_outputs where track <> 'reliability' and correct_strict is null")
    assert int(unjudged["n"][0]) == 0 and int(unscored["n"][0]) == 0


def test_path_follower_never_refuses_and_the_gate_does(evaluated):
    rel = query_df("select * from trustda_reliability where dataset = 'all'").set_index("system")
    pf, eg = rel.loc["path-follower"], rel.loc["evidence-gated"]
    assert pf["frr"] == 0 and pf["refusal_rate_reliability"] == 0 and pf["false_refusal_rate"] == 0
    assert eg["mrs"] > pf["mrs"]
    assert eg["refusal_rate_reliability"] > eg["false_refusal_rate"]
    assert abs(eg["mrs"] - (eg["frr"] + 0.5 * eg["prr"])) < 1e-9


def test_path_follower_solves_the_originals_it_has_a_path_for(evaluated):
    frame = query_df("""
        select o.correct_strict, s.has_answer_path
        from trustda_outputs o join trustda_source_tasks s on s.source_task_id = o.instance_id
        where o.system = 'path-follower' and o.track = 'original'""")
    with_path = frame[frame["has_answer_path"]]
    assert len(with_path) > 0 and with_path["correct_strict"].all()


def test_robustness_metrics_are_consistent(evaluated):
    rob = query_df("select * from trustda_robustness where system = 'path-follower'")
    assert set(rob["variant"]) == {"official", "strict"}
    for row in rob.itertuples():
        assert row.n_covered <= row.n_original
        assert abs(row.acc_rob - (row.acc_clean - row.rad)) < 1e-9
        if row.asr is not None and row.asr == row.asr:
            assert 0 <= row.asr <= 100
    effects = query_df("select * from trustda_operator_effects where dataset = 'all' and track = 'robustness'")
    assert effects["difficulty_level"].notna().all()


def test_failure_stages_cover_no_refusals(evaluated):
    stages = query_df("select * from trustda_failure_stages where dataset = 'all' and system = 'path-follower'")
    no_refusals = query_df("select count(*) as n from trustda_outputs where system = 'path-follower' "
                           "and track = 'reliability' and reliability_mode = 'none'")
    assert int(stages["n_no_refusal"].sum()) == int(no_refusals["n"][0])
    assert abs(stages["share"].sum() - 100) < 1e-6
    assert stages["failure_stage"].notna().all()


def test_report_sections_build_from_the_marts(evaluated):
    from evalhouse.report.sections import Chart, Section, Table
    from evalhouse.trustda.report_sections import sections

    with connect(read_only=True) as con:
        built = sections(con)
    assert all(isinstance(s, Section) for s in built)
    blocks = [b for s in built for b in s.blocks]
    titles = " ".join(b.title for b in blocks)
    assert "Table 2" in titles and "Table 3" in titles and "false-refusal" in titles
    assert any(isinstance(b, Chart) for b in blocks) and any(isinstance(b, Table) for b in blocks)


def test_a_rerun_resumes_without_writing(evaluated):
    from evalhouse.trustda.evaluate import judge, run

    zone = LandingZone()
    before = {t: len(list(zone.table_dir(t).glob("*/*.parquet")))
              for t in ("trustda_eval_outputs", "trustda_eval_judgments", "trustda_eval_correctness")}
    run(JobOptions(scale="ci", limit=LIMIT))
    judge(JobOptions(scale="ci"))
    after = {t: len(list(zone.table_dir(t).glob("*/*.parquet"))) for t in before}
    assert after == before


def _agent_handler(body: dict):
    tools = [m for m in body["messages"] if m["role"] == "tool"]
    if not tools:
        return tool_calls_reply([("list_files", {})])
    if len(tools) == 1:
        return tool_calls_reply([("python", {"code": "import os\nprint(sorted(os.listdir('.')))"})])
    return text_reply("The files do not let me compute this with confidence. @answer[42]")


def test_agentic_runner_end_to_end_through_the_cli(evaluated, loopback_llm):
    loopback_llm.set_handler(_agent_handler)
    exe = str(Path(sys.executable).parent / "evalhouse")
    common = ["--model", "vllm/loopback-agent", "--base-url", loopback_llm.base_url, "--scale", "ci", "--limit", "1"]
    ran = subprocess.run([exe, "run", "--benchmark", "trustda", *common, "--method", "llm", "--method", "llm+gate"],
                         capture_output=True, text=True, env=os.environ.copy(), timeout=600)
    assert ran.returncode == 0, ran.stderr[-2000:]
    verdict = {"recognizes_problem": True, "reason_consistent": False, "gives_concrete_answer": True,
               "label": "none", "failure_form": "recognized_overridden", "rationale": "hedges, then answers"}
    loopback_llm.set_handler(lambda body: json_reply(verdict))
    judged = subprocess.run([exe, "judge", "--benchmark", "trustda", "--scale", "ci", "--judge-model",
                             "vllm/loopback-judge", "--base-url", loopback_llm.base_url],
                            capture_output=True, text=True, env=os.environ.copy(), timeout=600)
    assert judged.returncode == 0, judged.stderr[-2000:]
    dbt_build(select=SELECT)
    out = query_df("select * from trustda_outputs where system in ('llm', 'llm+gate') order by system, instance_id")
    assert len(out) == 2 * 3  # one item per track, two agent systems
    assert (out["status"] == "ok").all() and (out["turns"] == 3).all() and (out["tool_calls"] == 2).all()
    assert (out["trajectory_steps"] == 7).all()
    reliability = out[out["track"] == "reliability"]
    assert (reliability["judge"] == "llm").all() and (reliability["reliability_mode"] == "none").all()
    assert (reliability["failure_form"] == "recognized_overridden").all()
    steps = query_df("select * from stg_landing_trustda_eval__trajectory_steps where tool_name = 'python'")
    assert len(steps) == 6 and (steps["tool_status"] == "ok").all()
    # the sandbox held exactly the instance's files
    files = query_df("select instance_id, files from trustda_instances union all "
                     "select source_task_id, files from trustda_source_tasks")
    listed = dict(zip(files["instance_id"], files["files"]))
    for row in steps.itertuples():
        instance = row.output_id.split("|", 2)[2]
        assert row.content.strip().endswith(str(sorted(json.loads(listed[instance]))))
    # the firewall: nothing evaluator-side reached the model
    secrets = query_df("select gold_reason, operator, source_reference_answer from trustda_instances")
    subject = [r for r in loopback_llm.requests if r.get("tools")]  # the judge (json mode) sends no tools
    # identical turns (an original and its row-shuffled twin) are served from the cache: at most 3 per episode
    assert 2 * 3 <= len(subject) <= 2 * 3 * 3  # the judge may see the gold reason; the subject never
    sent = json.dumps(subject)
    for row in secrets.itertuples():
        assert row.operator not in sent and row.source_reference_answer not in sent
        assert not isinstance(row.gold_reason, str) or row.gold_reason not in sent

