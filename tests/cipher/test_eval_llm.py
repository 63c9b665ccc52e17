"""Every LLM method (incl. sandboxed program-of-thought) and the LLM judge against the loopback
FAKE OpenAI-compatible server: prompts, parsing, invalid replies, unreachable endpoints, marts."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # eval_support.py beside this file
from eval_support import builtin_evaluated, pointed_at  # noqa: E402
from evalhouse.cipher.systems import LLM_METHODS
from llm_server import json_reply

pytestmark = pytest.mark.slow

SUBJECT, JUDGE = "openai/loopback-subject", "openai/loopback-judge"
BROKEN_MARK = "__broken__"
_ID = re.compile(r"record_id: ([A-Z]+-\d{4})")
_POT_CODE = ("hits = temp.head(2)\n"
             "print(json.dumps({'answer': int(len(temp)), 'record_ids': [str(r) for r in hits['record_id']]}))")


def _reply(body):
    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    if system.startswith("You grade answers"):
        reference = re.search(r"Reference answer: (.*)", user).group(1)
        candidate = re.search(r"Candidate answer: (.*)", user).group(1)
        return json_reply({"accept": candidate == reference, "reason": "exact match" if candidate == reference else "differs"})
    ids = _ID.findall(user)
    if BROKEN_MARK in system + user:
        return json_reply('{"answer": ')
    if "pandas DataFrame named `temp`" in system:
        return json_reply({"code": _POT_CODE})
    if "least-to-most" in system:
        return json_reply({"subquestions": ["which records qualify?"], "subanswers": [ids[0]],
                           "answer": [ids[0]], "record_ids": [ids[0]]})
    if "step by step" in system:
        return json_reply({"reasoning": "the first record qualifies", "answer": [ids[0]], "record_ids": [ids[0]]})
    return json_reply({"answer": len(ids), "record_ids": ids[:3]})


@pytest.fixture
def evaluated(cipher_ci_warehouse, tmp_path_factory, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    root = builtin_evaluated(cipher_ci_warehouse, tmp_path_factory)
    with pointed_at(root):
        yield root


def _outputs(run_model):
    from evalhouse.landing import LandingZone

    frame = LandingZone().read("cipher_eval_outputs")
    return frame[frame["model"] == run_model].sort_values("written_at").drop_duplicates(["run_id", "item_id"], keep="last")


def test_llm_methods_and_judge_end_to_end(evaluated, loopback_llm):
    from evalhouse.benchmarks import JobOptions
    from evalhouse.cipher import evaluate
    from evalhouse.dbt_runner import dbt_build
    from evalhouse.warehouse import query_df

    loopback_llm.set_handler(_reply)
    opts = JobOptions(scale="ci", model=SUBJECT, base_url=loopback_llm.base_url, limit=3, concurrency=4,
                      methods=LLM_METHODS)
    evaluate.run(opts)
    out = _outputs(SUBJECT)
    assert set(out["system"]) == set(LLM_METHODS)
    assert set(out["setting"]) == {"support_controlled"} and set(out["condition"]) == {"redacted", "restored"}
    assert (out.groupby("system").size() == 6).all()  # 3 instances x 2 conditions
    assert (out["status"] == "ok").all(), out[out["status"] != "ok"][["system", "error"]]
    assert (out["prompt_version"] == "cipher-prompts/v1").all() and (out["prompt_tokens"] > 0).all()
    assert all(json.loads(h) for h in out["request_hashes"])

    pot = out[out["system"] == "pot"]
    for row in pot.itertuples():
        detail = json.loads(row.detail)
        assert detail["sandbox_status"] == "ok" and "temp.head(2)" in detail["code"]
        # the program counted the rows of `temp`: exactly the context records
        n_context = query_df("select n_records from cipher_contexts where instance_id = ? and condition = ? "
                             "and setting = 'support_controlled'", [row.instance_id, row.condition])["n_records"][0]
        assert json.loads(row.answer) == n_context
    rag = out[out["system"] == "rag-dense"]
    assert all(len(json.loads(d)["retrieved_ids"]) == 5 for d in rag["detail"])
    sent = [r for r in loopback_llm.requests if "Retrieved records (top 5)" in r["messages"][-1]["content"]]
    assert len(sent) == 3 * 2 * 3  # three RAG methods

    judge_opts = JobOptions(scale="ci", judge_model=JUDGE, base_url=loopback_llm.base_url, concurrency=4)
    evaluate.judge(judge_opts)
    dbt_build(select="tag:cipher_eval")
    scores = query_df("select system, m1, m2, m3, m2_llm, m2_rule, prompt_tokens from cipher_scores where model = ?", [SUBJECT])
    assert len(scores) == len(LLM_METHODS) * 6 and scores["m2_llm"].notna().all()
    assert ((scores["m3"] > 0) == ((scores["m1"] > 0) & (scores["m2"] > 0))).all()
    agreement = query_df("select * from cipher_eval_judge_agreement where comparison = 'llm_vs_rule' and domain = '(all)'")
    assert agreement["n_pairs"][0] == query_df("select count(*) n from cipher_scores where m2_llm is not null")["n"][0]
    from evalhouse.landing import LandingZone

    ledger = LandingZone().read("llm_calls")
    assert {f"cipher.{m}" for m in LLM_METHODS} | {"cipher.judge"} <= set(ledger["purpose"])


def test_invalid_json_is_scored_zero_with_raw_text(evaluated, loopback_llm):
    from evalhouse.benchmarks import JobOptions
    from evalhouse.cipher import evaluate
    from evalhouse.cipher.judge import rule_judgment

    loopback_llm.set_handler(lambda body: json_reply('{"answer": '))
    opts = JobOptions(scale="ci", model="openai/loopback-broken", base_url=loopback_llm.base_url, limit=1,
                      methods=("zero-shot",))
    evaluate.run(opts)
    out = _outputs("openai/loopback-broken")
    assert len(out) == 2 and (out["status"] == "invalid").all()
    assert (out["raw_text"] == '{"answer": ').all()
    row = out.iloc[0].to_dict()
    judged = rule_judgment({**row, "answer": None}, "q", "[]", "list")
    assert judged["m1"] == 0.0 and judged["accept"] is False


def test_failing_endpoint_records_errors_and_resumes(evaluated, loopback_llm):
    from evalhouse.benchmarks import JobOptions
    from evalhouse.cipher import evaluate
    from llm_server import error_reply

    opts = JobOptions(scale="ci", model="openai/loopback-flaky", base_url=loopback_llm.base_url, limit=1,
                      methods=("few-shot",))
    loopback_llm.set_handler(lambda body: error_reply(400, message="endpoint refuses"))
    evaluate.run(opts)
    first = _outputs("openai/loopback-flaky")
    assert len(first) == 2 and (first["status"] == "error").all() and first["error"].notna().all()
    loopback_llm.set_handler(_reply)
    evaluate.run(opts)  # same config: the same run resumes and retries only the failed items
    again = _outputs("openai/loopback-flaky")
    assert set(again["run_id"]) == set(first["run_id"])
    assert (again["status"] == "ok").all()
