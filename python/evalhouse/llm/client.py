"""LLMClient: every model call goes through here (cache, per-model limit, retries, ledger)."""
from __future__ import annotations

import asyncio
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Sequence

from pydantic import BaseModel

from ..landing import LandingZone
from .attempts import CallRecord
from .endpoints import Endpoint, build_endpoint
from .ledger import Ledger, load_cache
from .progress import progress_bar
from .request import canonical_request, request_hash
from .result import CallResult, text_of, tool_calls_of, message_of, field_of
from .retry import RetryPolicy, describe, is_retryable, root_cause, status_code
from .spec import ModelSpec


@dataclass
class _LoopState:
    """Per-event-loop objects (SDK clients and semaphores must not cross event loops)."""

    endpoints: dict[str, Endpoint] = field(default_factory=dict)
    semaphores: dict[str, asyncio.Semaphore] = field(default_factory=dict)
    inflight: dict[str, asyncio.Future] = field(default_factory=dict)
    paused_until: dict[str, float] = field(default_factory=dict)  # endpoint -> loop time (after a 429)


class LLMClient:
    """Typed, cached, rate-limited model calls whose every attempt lands in ``llm_calls``.

    ``run`` is an open ``evalhouse.runs.Run`` (ledger rows land under its run_id); None keeps the
    ledger in memory only. ``concurrency`` caps requests in flight per model endpoint.
    """

    def __init__(self, run: Any | None, concurrency: int = 8, retry: RetryPolicy | None = None,
                 use_cache: bool = True, flush_rows: int = 500, flush_seconds: float = 10.0,
                 show_progress: bool = True):
        self.run = run
        self.concurrency = max(int(concurrency), 1)
        self.retry = retry or RetryPolicy()
        self.use_cache = use_cache
        self.show_progress = show_progress
        self.ledger = Ledger(run, flush_rows=flush_rows, flush_seconds=flush_seconds)
        zone = run.zone if run is not None else LandingZone()
        self._cache: dict[str, tuple[str | None, str | None]] = load_cache(zone) if use_cache else {}
        self._states: dict[asyncio.AbstractEventLoop, _LoopState] = {}
        self.counts: Counter[str] = Counter()

    # --- public calls -----------------------------------------------------------------------
    async def structured(self, spec: ModelSpec, messages: list[dict], response_model: type[BaseModel], *,
                         purpose: str = "", max_retries: int = 2, epoch: int = 0) -> CallResult:
        """A typed answer through instructor; ``max_retries`` validation re-asks inside one call."""
        request = canonical_request(spec, "structured", messages, response_model=response_model, epoch=epoch)
        send = lambda ep, rec: self._send_structured(ep, rec, messages, response_model, max_retries)
        return await self._call(spec, "structured", request, purpose, send, response_model)

    async def text(self, spec: ModelSpec, messages: list[dict], *, purpose: str = "", epoch: int = 0) -> CallResult:
        """A raw text completion (value and raw_text are the reply text)."""
        request = canonical_request(spec, "text", messages, epoch=epoch)
        send = lambda ep, rec: self._send_raw(ep, rec, messages, None, None)
        return await self._call(spec, "text", request, purpose, send, None)

    async def chat(self, spec: ModelSpec, messages: list[dict], tools: list[dict] | None = None, *,
                   tool_choice: Any = None, purpose: str = "", epoch: int = 0) -> CallResult:
        """A chat turn with OpenAI-format tools; ``tool_calls`` lists [{id, name, arguments}]."""
        request = canonical_request(spec, "chat", messages, tools=tools, tool_choice=tool_choice, epoch=epoch)
        send = lambda ep, rec: self._send_raw(ep, rec, messages, tools, tool_choice)
        return await self._call(spec, "chat", request, purpose, send, None)

    def run_batch(self, factories: Sequence[Callable[[], Awaitable[Any]]], desc: str = "model calls") -> list[Any]:
        """Run coroutine factories with bounded concurrency and a progress bar; results in order."""
        async def batch() -> list[Any]:
            try:
                return await self.gather(factories, desc)
            finally:
                await self.aclose_endpoints()  # SDK clients belong to this loop, which ends here

        return asyncio.run(batch())

    async def gather(self, factories: Sequence[Callable[[], Awaitable[Any]]], desc: str = "model calls") -> list[Any]:
        """``run_batch`` for callers already inside an event loop."""
        gate = asyncio.Semaphore(self.concurrency * 4)  # bounds live coroutines, not requests
        results: list[Any] = [None] * len(factories)
        with progress_bar(desc, len(factories), enabled=self.show_progress) as advance:
            async def one(index: int, factory: Callable[[], Awaitable[Any]]) -> None:
                async with gate:
                    results[index] = await factory()
                advance()

            try:
                outcomes = await asyncio.gather(*(one(i, f) for i, f in enumerate(factories)),
                                                return_exceptions=True)
            finally:
                self.flush()
        errors = [o for o in outcomes if isinstance(o, BaseException)]
        if errors:
            raise errors[0]
        return results

    def flush(self) -> None:
        """Write buffered ledger rows now (also done after each batch, on close and at exit)."""
        self.ledger.flush()

    def close(self) -> None:
        self.flush()

    def __enter__(self) -> "LLMClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    async def aclose_endpoints(self) -> None:
        """Close this event loop's SDK clients (run_batch does it; call it when awaiting directly)."""
        state = self._states.pop(asyncio.get_running_loop(), None)
        for endpoint in (state.endpoints.values() if state else ()):
            await endpoint.aclose()

    # --- the call pipeline --------------------------------------------------------------------
    async def _call(self, spec: ModelSpec, kind: str, request: dict, purpose: str,
                    send: Callable, response_model: type | None) -> CallResult:
        record = CallRecord(spec, kind, request, request_hash(request), purpose)
        state = self._state()
        while record.request_hash in state.inflight:  # an identical request is running: reuse it
            await asyncio.shield(state.inflight[record.request_hash])
        cached = self._serve_cached(record, response_model)
        if cached is not None:
            return cached
        done = asyncio.get_running_loop().create_future()
        state.inflight[record.request_hash] = done
        try:
            async with self._semaphore(state, spec):
                result = await self._execute(state, record, send, response_model)
        finally:
            state.inflight.pop(record.request_hash, None)
            done.set_result(None)
            self.ledger.add(record.rows)
        return result

    async def _execute(self, state: _LoopState, record: CallRecord, send: Callable,
                       response_model: type | None) -> CallResult:
        endpoint = self._endpoint(state, record.spec)
        for retry in range(self.retry.max_retries + 1):
            await _respect_pause(state, record.spec.endpoint_key)
            rows_before = len(record.rows)
            try:
                answer = await send(endpoint, record)
                return self._succeed(record, answer, response_model)
            except Exception as exc:  # noqa: BLE001 - every failure becomes a recorded result
                cause = root_cause(exc)
                if len(record.rows) == rows_before:  # failed before any hook recorded it
                    record.on_error(cause)
                if not is_retryable(cause) or retry == self.retry.max_retries:
                    return self._fail(record, exc, cause)
                self.counts["http_retries"] += 1
                delay = self.retry.delay(retry, cause)
                if status_code(cause) == 429:  # the whole endpoint is rate limited: pause every call
                    _pause(state, record.spec.endpoint_key, delay)
                await asyncio.sleep(delay)
        raise AssertionError("unreachable")

    async def _send_structured(self, endpoint: Endpoint, record: CallRecord, messages: list[dict],
                               response_model: type[BaseModel], max_retries: int) -> BaseModel:
        from instructor.core.hooks import Hooks

        hooks = Hooks()
        hooks.on("completion:kwargs", record.begin)
        hooks.on("completion:response", record.on_response)
        hooks.on("parse:error", record.on_parse_error)
        hooks.on("completion:error", record.on_error)
        return await endpoint.instructor.create(response_model=response_model, messages=messages,
                                                max_retries=max_retries, hooks=hooks,
                                                **record.spec.generation_params())

    async def _send_raw(self, endpoint: Endpoint, record: CallRecord, messages: list[dict],
                        tools: list[dict] | None, tool_choice: Any) -> Any:
        params = record.spec.generation_params()
        if tools:
            params["tools"] = tools
        if tool_choice is not None:
            params["tool_choice"] = tool_choice
        record.begin()
        try:
            if endpoint.raw is not None:
                response = await endpoint.raw.chat.completions.create(model=record.spec.name, messages=messages, **params)
            else:
                response = await endpoint.instructor.create(response_model=None, messages=messages, **params)
        except Exception as exc:
            record.on_error(exc)
            raise
        record.on_response(response)
        return response

    # --- outcomes -----------------------------------------------------------------------------
    def _succeed(self, record: CallRecord, answer: Any, response_model: type | None) -> CallResult:
        self.counts["calls"] += 1
        self.counts["attempts"] += len(record.rows)
        raw_text = record.rows[-1]["response_text"] if record.rows else None
        if record.kind == "structured":
            record.succeed(answer.model_dump(mode="json"))
            result = record.result(True, value=_as_cached(response_model, answer, record.rows[-1]["parsed"]), raw_text=raw_text)
        elif record.kind == "chat":
            content = field_of(message_of(answer), "content")
            calls = tool_calls_of(answer)
            record.succeed({"content": content, "tool_calls": calls})
            result = record.result(True, value=content, raw_text=content, tool_calls=calls)
        else:
            text = text_of(answer)
            record.rows[-1]["response_text"] = text
            result = record.result(True, value=text, raw_text=text)
        self._cache[record.request_hash] = (record.rows[-1]["response_text"], record.rows[-1]["parsed"])
        return result

    def _fail(self, record: CallRecord, exc: BaseException, cause: BaseException) -> CallResult:
        self.counts["calls"] += 1
        self.counts["failed_calls"] += 1
        self.counts["attempts"] += len(record.rows)
        message = describe(cause if cause is not exc and _is_transport(cause) else exc)
        record.fail(message)
        raw_text = record.rows[-1]["response_text"] if record.rows else None
        return record.result(False, raw_text=raw_text, error=message)

    def _serve_cached(self, record: CallRecord, response_model: type | None) -> CallResult | None:
        entry = self._cache.get(record.request_hash) if self.use_cache else None
        if entry is None:
            return None
        text, parsed = entry
        try:
            value, calls = _value_from_cache(record.kind, text, parsed, response_model)
        except (ValueError, TypeError, KeyError):  # schema drift: the old answer no longer parses
            return None
        record.cache_hit_row(text, parsed)
        self.ledger.add(record.rows)
        self.counts["cache_hits"] += 1
        return record.result(True, value=value, raw_text=text if record.kind != "chat" else value, tool_calls=calls)

    # --- per-loop resources -------------------------------------------------------------------
    def _state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        if loop not in self._states:
            self._states[loop] = _LoopState()
        return self._states[loop]

    def _endpoint(self, state: _LoopState, spec: ModelSpec) -> Endpoint:
        key = f"{spec.endpoint_key}|{spec.mode}|{spec.timeout_s}|{spec.api_key_env}"
        if key not in state.endpoints:
            state.endpoints[key] = build_endpoint(spec)
        return state.endpoints[key]

    def _semaphore(self, state: _LoopState, spec: ModelSpec) -> asyncio.Semaphore:
        if spec.endpoint_key not in state.semaphores:
            state.semaphores[spec.endpoint_key] = asyncio.Semaphore(self.concurrency)
        return state.semaphores[spec.endpoint_key]


def _pause(state: _LoopState, endpoint_key: str, delay_s: float) -> None:
    until = asyncio.get_running_loop().time() + delay_s
    state.paused_until[endpoint_key] = max(state.paused_until.get(endpoint_key, 0.0), until)


async def _respect_pause(state: _LoopState, endpoint_key: str) -> None:
    wait = state.paused_until.get(endpoint_key, 0.0) - asyncio.get_running_loop().time()
    if wait > 0:
        await asyncio.sleep(wait)


def _is_transport(error: BaseException) -> bool:
    return is_retryable(error) or getattr(error, "status_code", None) is not None


def _as_cached(response_model: type[BaseModel], answer: BaseModel, parsed_json: str) -> BaseModel:
    """The answer exactly as a cache hit will rebuild it (an instance of the caller's own class,
    not instructor's wrapper subclass carrying the raw response)."""
    try:
        return response_model.model_validate_json(parsed_json)
    except ValueError:
        return answer


def _value_from_cache(kind: str, text: str | None, parsed: str | None,
                      response_model: type | None) -> tuple[Any, list]:
    if kind == "structured":
        if parsed is None:
            raise ValueError("no parsed value")
        return response_model.model_validate_json(parsed), []
    if kind == "chat":
        payload = json.loads(parsed)
        return payload["content"], payload["tool_calls"]
    return text, []
