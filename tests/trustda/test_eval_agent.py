"""The ReAct runner against the loopback OpenAI-compatible server, with real sandboxed tool calls."""
from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from evalhouse.llm import LLMClient, RetryPolicy, resolve_model
from evalhouse.runs import open_run
from evalhouse.trustda.agent import Agent, AgentTask, SYSTEM_PROMPT
from llm_server import error_reply, text_reply, tool_calls_reply

FAST_RETRY = RetryPolicy(max_retries=1, base_s=0.01, max_s=0.02)


@pytest.fixture
def task(shared_data, tmp_path) -> AgentTask:
    folder = tmp_path / "pkg"
    folder.mkdir()
    source = shared_data / "dabench-dev" / "tables" / "GODREJIND.csv"
    (folder / "GODREJIND.csv").write_bytes(source.read_bytes())
    return AgentTask('Calculate the mean value of the "Close Price" column.',
                     "@mean_close_price[mean_value], a float rounded to two decimals", folder, ("GODREJIND.csv",))


@pytest.fixture
def client(warehouse):
    with open_run("test.trustda.agent", {"case": "agent"}) as run:
        c = LLMClient(run, retry=FAST_RETRY, show_progress=False)
        yield c
        c.close()


@pytest.fixture
def spec(loopback_llm):
    return resolve_model("vllm/loopback-agent", base_url=loopback_llm.base_url, timeout=20)


def _tool_messages(body: dict) -> list[dict]:
    return [m for m in body["messages"] if m["role"] == "tool"]


MEAN_CODE = ("import pandas as pd\n"
             "df = pd.read_csv('GODREJIND.csv')\n"
             "print(round(df['Close Price'].mean(), 2))\n")


def test_episode_lists_files_runs_python_in_the_sandbox_and_answers(loopback_llm, client, spec, task):
    def handler(body):
        tools = _tool_messages(body)
        if not tools:
            return tool_calls_reply([("list_files", {})])
        if len(tools) == 1:
            return tool_calls_reply([("python", {"code": MEAN_CODE})])
        return text_reply(f"@mean_close_price[{tools[-1]['content'].split()[-1]}]")

    loopback_llm.set_handler(handler)
    ep = asyncio.run(Agent(client, spec, max_turns=5).run(task))
    assert ep.status == "ok" and ep.turns == 3 and ep.tool_calls == 2 and ep.tool_errors == 0
    assert ep.final == "@mean_close_price[570.68]"  # the value DABench's label holds
    first = loopback_llm.requests[0]
    assert first["messages"][0]["content"] == SYSTEM_PROMPT
    assert {t["function"]["name"] for t in first["tools"]} == {"list_files", "python"}
    listing = _tool_messages(loopback_llm.requests[1])[0]["content"]
    assert listing.startswith("GODREJIND.csv\t")
    roles = [s["role"] for s in ep.steps]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant"]
    python_step = ep.steps[5]
    assert python_step["tool_name"] == "python" and python_step["tool_status"] == "ok"
    assert "570.68" in python_step["content"]


def test_the_sandbox_holds_only_this_tasks_files(loopback_llm, client, spec, task, shared_data):
    code = "import os\nprint(sorted(os.listdir('.')))\nprint(os.path.exists('%s'))" % (shared_data / "dabench-dev")
    loopback_llm.set_handler(lambda body: text_reply("done") if _tool_messages(body)
                             else tool_calls_reply([("python", {"code": code})]))
    ep = asyncio.run(Agent(client, spec, max_turns=3).run(task))
    out = ep.steps[3]["content"]
    assert "['GODREJIND.csv']" in out and "False" in out


def test_crashing_and_timed_out_tools_are_reported_and_the_run_continues(loopback_llm, client, spec, task):
    script = [tool_calls_reply([("python", {"code": "raise ValueError('boom')"})]),
              tool_calls_reply([("python", {"code": "import time\ntime.sleep(30)"})]),
              tool_calls_reply([("python", "not json at all")]),
              tool_calls_reply([("shell", {"cmd": "ls"})]),
              text_reply("I could not compute it.")]
    loopback_llm.script(*script)
    ep = asyncio.run(Agent(client, spec, max_turns=8, python_timeout_s=2).run(task))
    statuses = [s.get("tool_status") for s in ep.steps if s["role"] == "tool"]
    assert statuses == ["error", "timeout", "error", "error"]
    assert "ValueError" in ep.steps[3]["content"]
    assert ep.tool_errors == 4 and ep.status == "ok" and ep.final == "I could not compute it."


def test_turn_budget_exhausted_leaves_no_final_answer(loopback_llm, client, spec, task):
    loopback_llm.set_handler(lambda body: tool_calls_reply([("list_files", {})]))
    ep = asyncio.run(Agent(client, spec, max_turns=3).run(task))
    assert ep.status == "over_budget" and ep.final is None and ep.turns == 3


def test_empty_reply_and_llm_errors_have_no_final_answer(loopback_llm, client, spec, task):
    loopback_llm.set_handler(lambda body: text_reply(""))
    ep = asyncio.run(Agent(client, spec, max_turns=3).run(task))
    assert ep.status == "no_final_answer" and ep.final is None
    loopback_llm.set_handler(lambda body: error_reply(500))
    ep = asyncio.run(Agent(client, spec, max_turns=3).run(task.__class__(task.question + " ", task.answer_format,
                                                                          task.package_dir, task.files)))
    assert ep.status == "llm_error" and ep.final is None and ep.error


def test_gate_tool_only_for_the_gated_agent(loopback_llm, client, spec, task):
    folder = task.package_dir
    text = (folder / "GODREJIND.csv").read_text().replace('"Close Price"', '"Closing"')
    (folder / "GODREJIND.csv").write_text(text)
    loopback_llm.set_handler(lambda body: text_reply("cannot answer") if _tool_messages(body)
                             else tool_calls_reply([("evidence_gate", {})]))
    ep = asyncio.run(Agent(client, spec, max_turns=3, with_gate=True).run(task))
    report = json.loads(ep.steps[3]["content"])
    assert report["passed"] is False and report["findings"][0]["kind"] == "missing_field"
    assert "evidence_gate" in {t["function"]["name"] for t in loopback_llm.requests[-1]["tools"]}
