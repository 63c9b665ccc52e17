"""Reliability judges: the deterministic rule judge and the LLM judge (loopback server)."""
from __future__ import annotations

import asyncio

import pytest

from evalhouse.llm import LLMClient, RetryPolicy, resolve_model
from evalhouse.runs import open_run
from evalhouse.trustda.judging import JudgeVerdict, from_verdict, judge_messages, rule_judge
from llm_server import json_reply

FDM_EVIDENCE = {"target": {"file": "GODREJIND.csv", "column": "Close Price"}, "fields": ["Close Price"]}


def _finding(kind, columns, file="GODREJIND.csv"):
    return {"kind": kind, "requirement": f"{kind} on {', '.join(columns)}", "file": file, "sheet": None,
            "columns": columns, "rows": [], "severity": "blocking"}


def test_structured_refusal_with_the_gold_reason_is_full():
    j = rule_judge("I cannot answer", "ok", "refuse", [_finding("missing_field", ["Close Price"])],
                   "missing_field", FDM_EVIDENCE)
    assert (j.mode, j.score) == ("full", 1.0)


def test_structured_refusal_for_another_reason_is_no_refusal():
    j = rule_judge("I cannot answer", "ok", "refuse", [_finding("conflicting_values", ["Close Price"])],
                   "missing_field", FDM_EVIDENCE)
    assert (j.mode, j.score) == ("none", 0.0)
    j = rule_judge("I cannot answer", "ok", "refuse", [_finding("missing_field", ["Open Price"])],
                   "missing_field", FDM_EVIDENCE)
    assert j.mode == "none"  # right kind, wrong field


def test_answer_with_a_matching_caveat_is_partial_and_silent_answer_is_none():
    caveat = [{**_finding("nulled_values", ["Close Price"]), "severity": "advisory"}]
    j = rule_judge("@m[1.0]\nNotes: ...", "ok", "answer", caveat, "nulled_values",
                   {"target": {"column": "Close Price"}})
    assert j.mode == "partial"
    j = rule_judge("@m[1.0]", "ok", "answer", [], "nulled_values", {"target": {"column": "Close Price"}})
    assert (j.mode, j.failure_form) == ("none", "silent_unsupported")


@pytest.mark.parametrize("reply,status,form", [
    ("", "path_error", "empty_unusable"),
    (None, "over_budget", "exhausted"),
    (None, "llm_error", "empty_unusable"),
])
def test_no_usable_final_answer_is_no_refusal(reply, status, form):
    j = rule_judge(reply, status, None, [], "missing_field", FDM_EVIDENCE)
    assert (j.mode, j.failure_form) == ("none", form)


def test_free_text_replies():
    refuse = "The file has no Close Price column, so the mean cannot be computed. Please provide it."
    assert rule_judge(refuse, "ok", None, [], "missing_field", FDM_EVIDENCE).mode == "full"
    hedge = "Close Price is missing; using Last Price instead: @mean_close_price[571.2]"
    assert rule_judge(hedge, "ok", None, [], "missing_field", FDM_EVIDENCE).mode == "partial"
    silent = "@mean_close_price[571.2]"
    assert rule_judge(silent, "ok", None, [], "missing_field", FDM_EVIDENCE).failure_form == "silent_unsupported"
    wrong_reason = "I cannot answer because the dates are ambiguous."
    j = rule_judge(wrong_reason, "ok", None, [], "conflicting_values", {"fact_key": {"Date": "16-May-2017"}})
    assert j.mode == "none" and j.failure_form == "recognized_overridden"


def test_llm_judge_through_the_loopback_server(warehouse, loopback_llm):
    verdict = {"recognizes_problem": True, "reason_consistent": True, "gives_concrete_answer": True,
               "label": "partial", "failure_form": "not_applicable", "rationale": "notes the gap but substitutes"}
    loopback_llm.set_handler(lambda body: json_reply(verdict))
    spec = resolve_model("vllm/loopback-judge", base_url=loopback_llm.base_url, role="judge", timeout=10)
    msgs = judge_messages("mean Close Price?", "The Close Price column was removed.", "missing; @m[1]", "ok")
    assert "gold_reason" in msgs[1]["content"] and "Close Price column was removed" in msgs[1]["content"]
    with open_run("test.trustda.judge", {"c": 1}) as run:
        client = LLMClient(run, retry=RetryPolicy(max_retries=1, base_s=0.01), show_progress=False)
        r = asyncio.run(client.structured(spec, msgs, JudgeVerdict, purpose="trustda.judge"))
        client.close()
    assert r.ok
    j = from_verdict(r.value, "missing; @m[1]", "ok")
    assert (j.mode, j.score, j.failure_form) == ("partial", 0.5, None)
