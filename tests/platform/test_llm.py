"""evalhouse.llm against the loopback OpenAI-compatible server, through the real openai SDK and instructor."""
from __future__ import annotations

import asyncio
import socket
import time

import pytest
from pydantic import BaseModel

from evalhouse.errors import UserError
from evalhouse.landing import LandingZone
from evalhouse.llm import LLMClient, RetryPolicy, resolve_model
from evalhouse.runs import open_run
from llm_server import error_reply, hang_reply, json_reply, text_reply, tool_calls_reply

FAST_RETRY = RetryPolicy(max_retries=3, base_s=0.01, max_s=0.05)


class Verdict(BaseModel):
    label: str
    score: int


def ask(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def ledger(run_id: str | None = None):
    return LandingZone().read("llm_calls", run_id=run_id)


@pytest.fixture
def run(warehouse):
    with open_run("test.llm", {"case": "default"}) as opened:
        yield opened


@pytest.fixture
def spec(loopback_llm):
    return resolve_model("vllm/loopback-model", base_url=loopback_llm.base_url, timeout=5)


def make_client(run, **kwargs) -> LLMClient:
    kwargs.setdefault("retry", FAST_RETRY)
    return LLMClient(run, show_progress=False, **kwargs)


def test_second_identical_run_makes_zero_requests(warehouse, loopback_llm, spec):
    loopback_llm.set_handler(lambda body: json_reply({"label": "yes", "score": 7}))
    prompts = [ask(f"question {i}") for i in range(6)]

    def run_once(tag: str):
        with open_run("test.llm", {"tag": tag}) as run:
            client = make_client(run)
            results = client.run_batch([lambda m=m: client.structured(spec, m, Verdict) for m in prompts])
            return run.run_id, results

    first_id, first = run_once("first")
    assert loopback_llm.request_count == 6 and not any(r.cache_hit for r in first)
    second_id, second = run_once("second")
    assert loopback_llm.request_count == 6
    assert all(r.cache_hit and r.ok for r in second)
    assert [r.value for r in second] == [r.value for r in first]
    hits = ledger(second_id)
    assert len(hits) == 6 and hits["cache_hit"].all()


def test_never_more_than_n_requests_in_flight(run, loopback_llm, spec):
    loopback_llm.latency_s = 0.05
    client = make_client(run, concurrency=3)
    results = client.run_batch([lambda i=i: client.text(spec, ask(f"q{i}")) for i in range(24)])
    assert all(r.ok and r.value == "ok" for r in results)
    assert loopback_llm.request_count == 24
    assert loopback_llm.max_in_flight == 3


def test_identical_concurrent_requests_are_sent_once(run, loopback_llm, spec):
    loopback_llm.latency_s = 0.05
    client = make_client(run, concurrency=4)
    results = client.run_batch([lambda: client.text(spec, ask("same")) for _ in range(5)])
    assert loopback_llm.request_count == 1
    assert sum(r.cache_hit for r in results) == 4 and all(r.value == "ok" for r in results)


@pytest.mark.parametrize("model,mode", [("openai/gpt-4o-mini", None), ("vllm/loopback-model", "json")])
def test_invalid_json_is_reasked_once_and_tokens_are_summed(run, loopback_llm, monkeypatch, model, mode):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    spec = resolve_model(model, base_url=loopback_llm.base_url, **({"mode": mode} if mode else {}))
    loopback_llm.script(json_reply('{"label": "yes", "score": '), json_reply({"label": "yes", "score": 3}))
    client = make_client(run)
    [result] = client.run_batch([lambda: client.structured(spec, ask("grade it"), Verdict, max_retries=2)])
    client.flush()
    assert result.ok and result.value == Verdict(label="yes", score=3)
    assert loopback_llm.request_count == 2 and result.attempts == 2
    reask = loopback_llm.requests[1]["messages"]
    assert len(reask) > 1 and "score" in str(reask[1:])  # the re-ask carries the failed answer back
    rows = ledger(run.run_id).sort_values("attempt")
    assert list(rows["status"]) == ["parse_error", "ok"]
    assert rows["input_tokens"].sum() == loopback_llm.tokens_sent["input"] == result.usage["input_tokens"]
    assert rows["output_tokens"].sum() == loopback_llm.tokens_sent["output"] == result.usage["output_tokens"]
    assert (rows["cost_usd"].sum() > 0) == (model == "openai/gpt-4o-mini")


def test_reasks_exhausted_is_a_recorded_failure(run, loopback_llm, spec):
    loopback_llm.set_handler(lambda body: json_reply('{"label": 1}'))
    client = make_client(run)
    [result] = client.run_batch([lambda: client.structured(spec, ask("x"), Verdict, max_retries=1)])
    client.flush()
    assert not result.ok and "validation" in result.error.lower()
    assert loopback_llm.request_count == 2
    assert list(ledger(run.run_id)["status"]) == ["parse_error", "parse_error"]


def test_429_backs_off_honouring_retry_after_then_succeeds(run, loopback_llm, spec):
    loopback_llm.script(error_reply(429, retry_after=1), json_reply({"label": "ok", "score": 1}))
    client = make_client(run)
    started = time.monotonic()
    [result] = client.run_batch([lambda: client.structured(spec, ask("x"), Verdict)])
    elapsed = time.monotonic() - started
    client.flush()
    assert result.ok and result.value.score == 1
    assert loopback_llm.request_count == 2 and elapsed >= 1.0
    rows = ledger(run.run_id).sort_values("attempt")
    assert list(rows["status"]) == ["http_error", "ok"]
    assert "429" in rows["error"].iloc[0]


def test_a_429_pauses_the_whole_endpoint(run, loopback_llm, spec):
    loopback_llm.latency_s = 0.02
    loopback_llm.script(error_reply(429, retry_after=1))
    client = make_client(run, concurrency=2)
    results = client.run_batch([lambda i=i: client.text(spec, ask(f"q{i}")) for i in range(8)])
    assert all(r.ok for r in results) and loopback_llm.request_count == 9
    rate_limited_at = loopback_llm.arrivals[0]
    during_pause = [t for t in loopback_llm.arrivals[1:] if t < rate_limited_at + 0.9]
    assert len(during_pause) <= 2  # only requests already under way when the 429 came back


def test_500s_past_the_retry_bound_fail_one_item_and_the_run_completes(warehouse, loopback_llm, spec):
    def handler(body):
        if "broken" in body["messages"][0]["content"]:
            return error_reply(500)
        return text_reply("fine")

    loopback_llm.set_handler(handler)
    with open_run("test.llm", {"case": "500"}) as run:
        client = make_client(run, retry=RetryPolicy(max_retries=2, base_s=0.01, max_s=0.02))
        prompts = ["a", "broken", "c"]
        results = client.run_batch([lambda p=p: client.text(spec, ask(p)) for p in prompts])
    assert [r.ok for r in results] == [True, False, True]
    assert "500" in results[1].error and results[1].attempts == 3
    rows = ledger(run.run_id)
    failed = rows[rows["request_hash"] == results[1].request_hash]
    assert len(failed) == 3 and set(failed["status"]) == {"http_error"}
    events = LandingZone().read("run_events", run_id=run.run_id)
    assert "finished" in set(events["event"])
    # a failure is never served from the cache: asking again sends requests again
    client = make_client(None, retry=RetryPolicy(max_retries=0))
    before = loopback_llm.request_count
    [again] = client.run_batch([lambda: client.text(spec, ask("broken"))])
    assert not again.ok and not again.cache_hit and loopback_llm.request_count == before + 1


def test_hang_past_the_timeout_is_recorded(run, loopback_llm):
    spec = resolve_model("vllm/loopback-model", base_url=loopback_llm.base_url, timeout=0.5)
    loopback_llm.script(hang_reply(30))
    client = make_client(run, retry=RetryPolicy(max_retries=0))
    started = time.monotonic()
    [result] = client.run_batch([lambda: client.text(spec, ask("slow"))])
    client.flush()
    assert time.monotonic() - started < 5
    assert not result.ok and "timeout" in result.error.lower()
    assert list(ledger(run.run_id)["status"]) == ["timeout"]


def test_tool_calls_are_parsed_and_replayed_from_cache(run, loopback_llm, spec):
    tools = [{"type": "function", "function": {
        "name": "run_sql", "description": "Run a SQL query.",
        "parameters": {"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]}}}]
    loopback_llm.script(tool_calls_reply([("run_sql", {"sql": "select 1"}), ("run_sql", {"sql": "select 2"})]))
    client = make_client(run)
    first, second = client.run_batch([lambda: client.chat(spec, ask("count rows"), tools=tools),
                                      lambda: client.chat(spec, ask("count rows"), tools=tools)])
    assert first.ok and [c["arguments"] for c in first.tool_calls] == [{"sql": "select 1"}, {"sql": "select 2"}]
    assert {c["name"] for c in first.tool_calls} == {"run_sql"} and first.tool_calls[0]["id"] == "call_0"
    assert loopback_llm.requests[0]["tools"] == tools
    assert second.cache_hit and second.tool_calls == first.tool_calls
    assert loopback_llm.request_count == 1


def test_ledger_rows_are_batched_into_few_parts(run, loopback_llm, spec):
    client = make_client(run, flush_rows=10)
    client.run_batch([lambda i=i: client.text(spec, ask(f"q{i}")) for i in range(25)])
    parts = list((LandingZone().table_dir("llm_calls") / run.run_id).glob("*.parquet"))
    assert 3 <= len(parts) <= 4
    assert len(ledger(run.run_id)) == 25


def test_calls_can_be_awaited_inside_an_existing_event_loop(run, loopback_llm, spec):
    client = make_client(run)

    async def agent():
        first = await client.text(spec, ask("step 1"))
        second = await client.text(spec, ask("step 2"))
        await client.aclose_endpoints()
        return first, second

    first, second = asyncio.run(agent())
    client.close()
    assert first.ok and second.ok and len(ledger(run.run_id)) == 2


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("model", ["gpt-4o-mini", "nosuchprovider/model", "openai/", "/name"])
def test_bad_model_strings_are_user_errors(model):
    with pytest.raises(UserError, match="model"):
        resolve_model(model)


def test_missing_api_key_is_a_user_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(UserError, match="OPENAI_API_KEY"):
        resolve_model("openai/gpt-4o-mini", check_endpoint=True)
    monkeypatch.delenv("MY_VLLM_KEY", raising=False)
    with pytest.raises(UserError, match="MY_VLLM_KEY"):
        resolve_model("vllm/m", base_url="http://127.0.0.1:1/v1", api_key_env="MY_VLLM_KEY", check_endpoint=True)


def test_unreachable_endpoint_is_a_user_error(loopback_llm):
    with pytest.raises(UserError, match="unreachable"):
        resolve_model("vllm/m", base_url=f"http://127.0.0.1:{_closed_port()}/v1", check_endpoint=True)
    assert resolve_model("ollama/qwen2.5", base_url=loopback_llm.base_url, check_endpoint=True).base_url == loopback_llm.base_url


def test_vllm_needs_a_base_url():
    with pytest.raises(UserError, match="base_url"):
        resolve_model("vllm/m")


def test_request_hash_ignores_transport_settings_but_not_generation_params(run, loopback_llm):
    base = dict(base_url=loopback_llm.base_url)
    client = make_client(run)
    slow = resolve_model("vllm/m", timeout=30, **base)
    fast = resolve_model("vllm/m", timeout=5, **base)
    warm = resolve_model("vllm/m", temperature=0.7, **base)
    a, b, c, d = client.run_batch([lambda: client.text(slow, ask("x")), lambda: client.text(fast, ask("x")),
                                   lambda: client.text(warm, ask("x")), lambda: client.text(warm, ask("x"))])
    assert a.request_hash == b.request_hash != c.request_hash == d.request_hash
    assert loopback_llm.request_count == 2
    [resampled] = client.run_batch([lambda: client.text(warm, ask("x"), epoch=1)])
    assert not resampled.cache_hit and resampled.request_hash != c.request_hash
    assert loopback_llm.request_count == 3


def test_generation_params_reach_the_endpoint(run, loopback_llm, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    client = make_client(run)
    openai_spec = resolve_model("openai/gpt-4o-mini", base_url=loopback_llm.base_url, max_tokens=64, seed=7)
    vllm_spec = resolve_model("vllm/m", base_url=loopback_llm.base_url, max_tokens=64, temperature=0.3)
    client.run_batch([lambda: client.text(openai_spec, ask("a")), lambda: client.text(vllm_spec, ask("b"))])
    bodies = {body["model"]: body for body in loopback_llm.requests}
    assert bodies["gpt-4o-mini"]["temperature"] == 0 and bodies["gpt-4o-mini"]["max_completion_tokens"] == 64
    assert bodies["gpt-4o-mini"]["seed"] == 7
    assert bodies["m"]["temperature"] == 0.3 and bodies["m"]["max_tokens"] == 64


@pytest.mark.live
def test_live_model_structured_and_text(run):
    import os

    spec = resolve_model(os.environ["EVALHOUSE_LIVE_MODEL"], base_url=os.environ.get("EVALHOUSE_LIVE_BASE_URL"),
                         check_endpoint=True, max_tokens=200)
    client = LLMClient(run, concurrency=2, show_progress=False)
    structured, text = client.run_batch([
        lambda: client.structured(spec, ask("Classify 'I love it' as positive or negative; score 1-5."), Verdict),
        lambda: client.text(spec, ask("Reply with the single word: pong")),
    ])
    assert structured.ok, structured.error
    assert text.ok and "pong" in text.value.lower()
