"""SDK clients for a model spec, built through ``instructor.from_provider`` (async).

OpenAI-compatible providers (openai, ollama, vllm, openai-compatible) get an AsyncOpenAI client
with the SDK's own retries switched off (evalhouse retries, so that every attempt is logged) and
the spec's timeout; other providers are passed through to instructor with their own SDK.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import UserError
from .spec import ModelSpec, check_api_key, instructor_mode


@dataclass
class Endpoint:
    instructor: Any  # instructor AsyncInstructor
    raw: Any | None  # openai.AsyncOpenAI for OpenAI-compatible providers, else None

    async def aclose(self) -> None:
        close = getattr(self.raw, "close", None)
        if close is not None:
            await close()


def build_endpoint(spec: ModelSpec) -> Endpoint:
    import instructor

    check_api_key(spec)
    key = spec.api_key()
    mode = instructor_mode(spec)
    try:
        if spec.openai_compatible:
            client = instructor.from_provider(
                f"openai/{spec.name}", async_client=True, mode=mode, api_key=key or "not-needed",
                base_url=spec.base_url, max_retries=0, timeout=spec.timeout_s)
            return Endpoint(client, client.client)
        kwargs: dict[str, Any] = {"async_client": True, "mode": mode}
        if key:
            kwargs["api_key"] = key
        if spec.base_url:
            kwargs["base_url"] = spec.base_url
        return Endpoint(instructor.from_provider(spec.model_string, **kwargs), None)
    except (ImportError, ValueError) as exc:
        raise UserError(f"cannot set up {spec.model_string}: {exc}") from None
