"""The llm_usage mart, built by dbt from the ledger, agrees with what the loopback server saw."""
from __future__ import annotations

import pytest
from pydantic import BaseModel

from evalhouse.dbt_runner import dbt_build
from evalhouse.llm import LLMClient, RetryPolicy, cost_usd, resolve_model
from evalhouse.runs import open_run
from evalhouse.warehouse import query_df
from llm_server import error_reply, json_reply


class Label(BaseModel):
    label: str


def _handler(body):
    text = str(body["messages"])
    if "doomed" in text:
        return error_reply(500)
    return json_reply({"label": "spam"}, usage={"prompt": 100, "completion": 20, "cached": 40, "reasoning": 5})


def test_llm_usage_mart_matches_the_server(warehouse, loopback_llm, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    loopback_llm.set_handler(_handler)
    subject = resolve_model("openai/gpt-4o-mini", base_url=loopback_llm.base_url, role="subject")
    judge = resolve_model("vllm/judge-model", base_url=loopback_llm.base_url, role="judge")
    prompts = [f"message {i}" for i in range(5)] + ["doomed"]

    def calls(client):
        return [lambda p=p, s=s: client.structured(s, [{"role": "user", "content": p}], Label)
                for s in (subject, judge) for p in prompts]

    with open_run("test.llm_usage", {"n": 1}) as first:
        client = LLMClient(first, retry=RetryPolicy(max_retries=1, base_s=0.01), show_progress=False)
        client.run_batch(calls(client))
    sent_in_first = loopback_llm.request_count
    with open_run("test.llm_usage", {"n": 2}) as second:
        client = LLMClient(second, retry=RetryPolicy(max_retries=1, base_s=0.01), show_progress=False)
        client.run_batch(calls(client))

    dbt_build(select="+llm_usage")
    usage = query_df("select * from llm_usage order by run_id, role").set_index(["run_id", "role"])

    # first run: 5 answers + 2 attempts at the doomed prompt, per model
    for role, model in (("subject", "openai/gpt-4o-mini"), ("judge", "vllm/judge-model")):
        row = usage.loc[(first.run_id, role)]
        assert row["model"] == model
        assert (row["requests"], row["cache_hits"], row["failed_attempts"]) == (7, 0, 2)
        assert (row["input_tokens"], row["cached_tokens"], row["output_tokens"], row["reasoning_tokens"]) == (500, 200, 100, 25)
    assert usage.loc[(first.run_id, "subject"), "cost_usd"] == pytest.approx(cost_usd("openai/gpt-4o-mini", 500, 200, 100))
    assert usage.loc[(first.run_id, "judge"), "cost_usd"] == 0
    assert usage.loc[first.run_id, "requests"].sum() == sent_in_first

    # second run: answers come from the cache, the failed item is tried again (2 attempts per model)
    for role in ("subject", "judge"):
        row = usage.loc[(second.run_id, role)]
        assert (row["requests"], row["cache_hits"], row["failed_attempts"], row["input_tokens"]) == (2, 5, 2, 0)
    assert usage["requests"].sum() == loopback_llm.request_count == sent_in_first + 4
