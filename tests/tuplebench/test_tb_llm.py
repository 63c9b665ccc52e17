"""LLM systems through the CLI against the loopback OpenAI-compatible server (a fake API)."""
from __future__ import annotations

import json
import re

from click.testing import CliRunner

from evalhouse.cli import cli
from evalhouse.warehouse import query_df

from tb_support import build


def _candidates(body: dict) -> list[str]:
    user = body["messages"][1]["content"]
    block = user.split("Candidates, in this order:\n", 1)[1]
    return re.findall(r"^- ([A-Za-z_]+):", block, flags=re.M)


def _handler_factory():
    from llm_server import json_reply

    state = {"coarse": 0}

    def handler(body: dict):
        cands = _candidates(body)
        if "WITHHOLD" in cands:
            mechs = [c for c in cands if c != "WITHHOLD"]
            probs = {m: round(0.4 / len(mechs), 6) for m in mechs}
            probs[mechs[0]] = round(probs[mechs[0]] + 0.4 - sum(probs.values()), 6)
            return json_reply({"choice": "WITHHOLD", "probabilities": {**probs, "WITHHOLD": 0.6}, "confidence": 0.6})
        state["coarse"] += 1
        retry = len(body["messages"]) > 2
        if state["coarse"] == 1 and not retry:  # the first coarse answer does not sum to 1
            return json_reply({"choice": cands[0], "probabilities": {c: 0.5 for c in cands}, "confidence": 0.9})
        probs = {c: 0.1 for c in cands}
        probs[cands[1]] = 0.7
        return json_reply({"choice": cands[1], "probabilities": probs})

    return handler


def test_run_with_model_collects_native_responses(tb_copy, loopback_llm):
    loopback_llm.set_handler(_handler_factory())
    args = ["run", "--benchmark", "tuplebench", "--model", "vllm/loopback-model",
            "--base-url", loopback_llm.base_url, "--limit", "6", "--concurrency", "2"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert loopback_llm.request_count == 6 * 2 + 1  # coarse + probe per world, one schema re-query
    again = CliRunner().invoke(cli, args)  # resumes: nothing left to ask
    assert again.exit_code == 0 and loopback_llm.request_count == 13
    build("+tuplebench_releases +tuplebench_refusal_probe")
    r = query_df("select * from tuplebench_responses where system_kind = 'llm'")
    assert len(r) == 6 and r["system"].unique().tolist() == ["vllm/loopback-model"]
    assert r["valid"].all()
    assert sorted(r["n_attempts"].tolist()) == [1, 1, 1, 1, 1, 2]
    assert r["n_invalid_attempts"].sum() == 1
    assert r["confidence"].isna().all()  # omitted confidence stays missing (never reconstructed)
    attempts = query_df("select * from stg_landing_tuplebench__responses where system_kind = 'llm' and not valid")
    assert len(attempts) == 1 and "sum to 2.0000" in attempts["invalid_reason"].iloc[0]
    assert json.loads(attempts["probabilities"].iloc[0])  # recorded as given
    probe = query_df("select * from tuplebench_refusal_probe where system = 'vllm/loopback-model' and domain = 'all'")
    assert probe["n_withheld"].iloc[0] == 6
    # too few answered worlds for cross-fitted decoders: the system is skipped, not crashed on
    from evalhouse.tuplebench.recovery_job import eligible, load_release_frame
    kept, skipped = eligible(load_release_frame())
    assert skipped == ["vllm/loopback-model"] and "vllm/loopback-model" not in set(kept["system"])
