"""FAKE LLM API for tests and benchmarks: a loopback OpenAI-compatible HTTP server.

This is NOT a model. It stands in for a paid chat-completions API so that the real openai SDK
and instructor can be exercised end to end offline: it listens on 127.0.0.1, serves
``POST /v1/chat/completions`` and ``GET /v1/models``, counts requests and the peak number of
requests in flight, keeps every request body, and answers from a script:

    server.script(json_reply({"answer": 1}))                 # next request gets this reply
    server.script(json_reply('{"answer": '), json_reply({"answer": 1}))  # broken JSON, then valid
    server.set_handler(lambda body: text_reply("ok"))        # when the script is empty
                                                             # (default: see default_reply)
    server.latency_s = 0.05                                  # injected latency for every reply

Replies: ``json_reply`` (as a forced tool call when the request forces one, else as content),
``text_reply``, ``tool_calls_reply``, ``error_reply(status, retry_after=...)``, ``hang_reply``.
"""
from __future__ import annotations

import asyncio
import collections
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from aiohttp import web


@dataclass
class Reply:
    kind: str  # json | text | tool_calls | error | hang
    payload: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    usage: dict[str, int] | None = None  # prompt/completion/cached/reasoning tokens to report
    hang_s: float = 0.0


def json_reply(obj_or_text: Any, usage: dict | None = None) -> Reply:
    """A structured answer; a str is sent verbatim (use it for deliberately broken JSON)."""
    text = obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text)
    return Reply("json", text, usage=usage)


def text_reply(text: str, usage: dict | None = None) -> Reply:
    return Reply("text", text, usage=usage)


def tool_calls_reply(calls: list[tuple[str, dict]], content: str | None = None, usage: dict | None = None) -> Reply:
    """Tool calls as (name, arguments) pairs, optionally with assistant content."""
    return Reply("tool_calls", {"calls": calls, "content": content}, usage=usage)


def error_reply(status: int, retry_after: float | None = None, message: str = "scripted failure") -> Reply:
    headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
    return Reply("error", message, status=status, headers=headers)


def hang_reply(seconds: float = 30.0) -> Reply:
    """Hold the request open (past any sane client timeout) before answering."""
    return Reply("hang", "too late", hang_s=seconds)


def default_reply(body: dict) -> Reply:
    """Unscripted requests: JSON {"ok": true} when the request asks for JSON, else the text "ok"."""
    wants_json = _forced_tool(body) or (body.get("response_format") or {}).get("type") in ("json_object", "json_schema")
    return json_reply({"ok": True}) if wants_json else text_reply("ok")


class LoopbackLLM:
    """The fake server. ``start()`` binds a free port; ``base_url`` is ready for the openai SDK."""

    def __init__(self, latency_s: float = 0.0):
        self.latency_s = latency_s
        self.requests: list[dict] = []
        self.arrivals: list[float] = []  # time.monotonic() of each request, in arrival order
        self.request_count = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.tokens_sent = collections.Counter()  # usage the server reported, summed
        self._script: collections.deque[Reply] = collections.deque()
        self._handler: Callable[[dict], Reply] = default_reply
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._stopping: asyncio.Event | None = None
        self.port = 0

    # --- control --------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *replies: Reply) -> "LoopbackLLM":
        self._script.extend(replies)
        return self

    def set_handler(self, handler: Callable[[dict], Reply]) -> "LoopbackLLM":
        self._handler = handler
        return self

    def reset_counts(self) -> None:
        self.requests.clear()
        self.arrivals.clear()
        self.request_count = 0
        self.max_in_flight = 0
        self.tokens_sent.clear()

    def start(self) -> "LoopbackLLM":
        ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(ready,), name="loopback-llm", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("loopback LLM server did not start")
        return self

    def stop(self) -> None:
        if self._loop is None:
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(10)
        self._thread.join(10)
        self._loop = None

    def __enter__(self) -> "LoopbackLLM":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # --- server -----------------------------------------------------------------------------
    def _serve(self, ready: threading.Event) -> None:
        self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._startup())
        ready.set()
        self._loop.run_forever()
        self._loop.close()

    async def _startup(self) -> None:
        self._stopping = asyncio.Event()
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._completions)
        app.router.add_get("/v1/models", self._models)
        app.router.add_get("/loopback/stats", self._stats)
        app.router.add_post("/loopback/reset", self._reset)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0, backlog=512)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]

    async def _shutdown(self) -> None:
        self._stopping.set()
        await self._runner.cleanup()
        asyncio.get_running_loop().call_soon(asyncio.get_running_loop().stop)

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "loopback", "object": "model"}]})

    async def _stats(self, request: web.Request) -> web.Response:
        return web.json_response({"request_count": self.request_count, "max_in_flight": self.max_in_flight,
                                  "tokens_sent": dict(self.tokens_sent)})

    async def _reset(self, request: web.Request) -> web.Response:
        self.reset_counts()
        return web.json_response({"reset": True})

    async def _completions(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append(body)
        self.arrivals.append(time.monotonic())
        self.request_count += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            reply = self._script.popleft() if self._script else self._handler(body)
            if self.latency_s:
                await asyncio.sleep(self.latency_s)
            return await self._respond(reply, body)
        finally:
            self.in_flight -= 1

    async def _respond(self, reply: Reply, body: dict) -> web.Response:
        if reply.kind == "hang":
            try:
                await asyncio.wait_for(self._stopping.wait(), reply.hang_s)
            except asyncio.TimeoutError:
                pass
        if reply.kind == "error":
            error = {"error": {"message": reply.payload, "type": "loopback_error", "code": str(reply.status)}}
            return web.json_response(error, status=reply.status, headers=reply.headers)
        message, finish = _message_for(reply, body)
        usage = self._usage(reply, body, message)
        return web.json_response({
            "id": f"chatcmpl-loopback-{self.request_count}", "object": "chat.completion",
            "created": int(time.time()), "model": body.get("model", "loopback"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage,
        })

    def _usage(self, reply: Reply, body: dict, message: dict) -> dict:
        """Scripted usage, else a deterministic count from the sizes of prompt and reply."""
        given = reply.usage or {}
        prompt = given.get("prompt", len(json.dumps(body.get("messages", []))) // 4 + 1)
        completion = given.get("completion", len(json.dumps(message)) // 4 + 1)
        cached = given.get("cached", 0)
        reasoning = given.get("reasoning", 0)
        self.tokens_sent.update(input=prompt, output=completion, cached=cached, reasoning=reasoning)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
                "prompt_tokens_details": {"cached_tokens": cached},
                "completion_tokens_details": {"reasoning_tokens": reasoning}}


def _forced_tool(body: dict) -> str | None:
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        return (choice.get("function") or {}).get("name")
    return None


def _message_for(reply: Reply, body: dict) -> tuple[dict, str]:
    if reply.kind == "tool_calls":
        calls = [_tool_call(i, name, json.dumps(args)) for i, (name, args) in enumerate(reply.payload["calls"])]
        return {"role": "assistant", "content": reply.payload["content"], "tool_calls": calls}, "tool_calls"
    tool = _forced_tool(body) if reply.kind == "json" else None
    if tool:
        return {"role": "assistant", "content": None, "tool_calls": [_tool_call(0, tool, reply.payload)]}, "tool_calls"
    return {"role": "assistant", "content": reply.payload}, "stop"


def _tool_call(index: int, name: str, arguments: str) -> dict:
    return {"id": f"call_{index}", "type": "function", "function": {"name": name, "arguments": arguments}}


def main() -> None:
    """Serve from a separate process (benchmarks): prints the base_url, runs until killed."""
    import argparse
    import signal

    parser = argparse.ArgumentParser(description="FAKE OpenAI-compatible server for tests/benchmarks")
    parser.add_argument("--latency", type=float, default=0.0, help="injected latency per reply, seconds")
    args = parser.parse_args()
    stop_signals = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop_signals)
    server = LoopbackLLM(latency_s=args.latency).start()
    print(server.base_url, flush=True)
    signal.sigwait(stop_signals)
    server.stop()


if __name__ == "__main__":
    main()
