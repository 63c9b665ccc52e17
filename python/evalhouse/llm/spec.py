"""Model specs: a ``provider/name`` string plus endpoint, key, instructor mode and generation params."""
from __future__ import annotations

import importlib.util
import os
import socket
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from ..errors import UserError

ROLES = ("subject", "judge", "builder")

# Providers spoken to through the OpenAI SDK (chat completions API): default base_url, default
# key env var (None: no key needed), whether a base_url must be given, default instructor mode.
OPENAI_COMPATIBLE = {
    "openai": ("https://api.openai.com/v1", "OPENAI_API_KEY", False, "tools"),
    "ollama": ("http://localhost:11434/v1", None, False, "json"),
    "vllm": (None, None, True, "json"),
    "openai-compatible": (None, None, True, "json"),
}
# Other providers go through instructor.from_provider with their own SDK: key env var and SDK module.
PASSTHROUGH = {
    "anthropic": ("ANTHROPIC_API_KEY", "anthropic"),
    "google": ("GOOGLE_API_KEY", "google.genai"),
    "gemini": ("GOOGLE_API_KEY", "google.genai"),
    "mistral": ("MISTRAL_API_KEY", "mistralai"),
    "cohere": ("CO_API_KEY", "cohere"),
    "groq": ("GROQ_API_KEY", "groq"),
    "together": ("TOGETHER_API_KEY", "openai"),
    "openrouter": ("OPENROUTER_API_KEY", "openai"),
    "deepseek": ("DEEPSEEK_API_KEY", "openai"),
    "xai": ("XAI_API_KEY", "xai_sdk"),
    "fireworks": ("FIREWORKS_API_KEY", "fireworks"),
    "cerebras": ("CEREBRAS_API_KEY", "cerebras"),
    "litellm": (None, "litellm"),
}
# Settings that change how a request travels, not what it asks: never part of the request hash.
TRANSPORT_PARAMS = ("timeout", "max_connections")
DEFAULT_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class ModelSpec:
    """Everything needed to call one model in one role."""

    provider: str
    name: str
    role: str = "subject"
    base_url: str | None = None
    api_key_env: str | None = None
    mode: str | None = None  # instructor mode name (tools, json, md_json, json_schema, ...)
    temperature: float | None = 0.0
    max_tokens: int | None = None
    params: dict[str, Any] = field(default_factory=dict)  # other generation params (top_p, seed, ...)
    timeout_s: float = DEFAULT_TIMEOUT_S

    def __hash__(self) -> int:  # params is a dict, so the generated hash would fail
        return hash((self.provider, self.name, self.role, self.base_url, self.api_key_env, self.mode,
                     self.temperature, self.max_tokens, tuple(sorted(map(repr, self.params.items())))))

    @property
    def model_string(self) -> str:
        return f"{self.provider}/{self.name}"

    @property
    def openai_compatible(self) -> bool:
        return self.provider in OPENAI_COMPATIBLE

    @property
    def endpoint_key(self) -> str:
        """Identifies one model at one endpoint: the unit of the concurrency limit."""
        return f"{self.model_string}@{self.base_url or ''}"

    def generation_params(self) -> dict[str, Any]:
        """Keyword arguments for the chat-completions call (also hashed into the request)."""
        out: dict[str, Any] = {}
        if self.temperature is not None:
            out["temperature"] = self.temperature
        if self.max_tokens is not None:
            key = "max_completion_tokens" if self.provider == "openai" else "max_tokens"
            out[key] = self.max_tokens
        out.update(self.params)
        return out

    def api_key(self) -> str | None:
        """The key from the environment; None when the provider needs none and none is set."""
        env = self.api_key_env
        if env:
            return os.environ.get(env) or None
        return None


def resolve_model(model: str, base_url: str | None = None, api_key_env: str | None = None,
                  role: str = "subject", check_endpoint: bool = False, **gen_params: Any) -> ModelSpec:
    """Parse and validate a model string; with ``check_endpoint`` also the key and the endpoint.

    Raises UserError with one sentence for a malformed or unknown model string, a missing API
    key, an uninstalled provider SDK or (with ``check_endpoint``) an unreachable endpoint.
    """
    provider, name = _split_model_string(model)
    if role not in ROLES:
        raise UserError(f"unknown model role '{role}' (use one of: {', '.join(ROLES)})")
    spec = _build_spec(provider, name, role, base_url, api_key_env, gen_params)
    if check_endpoint:
        check_api_key(spec)
        check_reachable(spec)
    return spec


def _split_model_string(model: str) -> tuple[str, str]:
    if not isinstance(model, str) or "/" not in model:
        raise UserError(f"malformed model string '{model}': use provider/name, e.g. openai/gpt-4o-mini or ollama/qwen2.5")
    provider, name = model.split("/", 1)
    provider = provider.strip().lower()
    if not provider or not name.strip():
        raise UserError(f"malformed model string '{model}': both provider and name must be non-empty")
    if provider not in OPENAI_COMPATIBLE and provider not in PASSTHROUGH:
        known = ", ".join(sorted({*OPENAI_COMPATIBLE, *PASSTHROUGH}))
        raise UserError(f"unknown model provider '{provider}' in '{model}' (known providers: {known})")
    return provider, name.strip()


def _build_spec(provider: str, name: str, role: str, base_url: str | None,
                api_key_env: str | None, gen_params: dict[str, Any]) -> ModelSpec:
    params = dict(gen_params)
    mode = params.pop("mode", None)
    temperature = params.pop("temperature", 0.0)
    max_tokens = params.pop("max_tokens", None)
    timeout_s = float(params.pop("timeout", None) or DEFAULT_TIMEOUT_S)
    params.pop("max_connections", None)
    if provider in OPENAI_COMPATIBLE:
        default_url, default_env, needs_url, default_mode = OPENAI_COMPATIBLE[provider]
        if needs_url and not base_url:
            raise UserError(f"model provider '{provider}' needs a base_url (e.g. --base-url http://localhost:8000/v1)")
        base_url = (base_url or default_url).rstrip("/")
        api_key_env = api_key_env or default_env
        mode = mode or default_mode
    else:
        api_key_env = api_key_env or PASSTHROUGH[provider][0]
        _require_sdk(provider)
    if mode is not None:
        mode = _mode_name(mode)
    return ModelSpec(provider=provider, name=name, role=role, base_url=base_url, api_key_env=api_key_env,
                     mode=mode, temperature=temperature, max_tokens=max_tokens, params=params,
                     timeout_s=timeout_s)


def _mode_name(mode: Any) -> str:
    """Normalise an instructor mode given as an enum, its name ('json') or its value ('json_mode')."""
    from instructor import Mode

    if isinstance(mode, Mode):
        return mode.name.lower()
    text = str(mode).strip()
    if text.upper() in Mode.__members__:
        return text.lower()
    try:
        return Mode(text).name.lower()
    except ValueError:
        raise UserError(f"unknown instructor mode '{mode}' (e.g. tools, json, md_json, json_schema)") from None


def instructor_mode(spec: ModelSpec):
    from instructor import Mode

    return Mode[spec.mode.upper()] if spec.mode else None


def _require_sdk(provider: str) -> None:
    module = PASSTHROUGH[provider][1]
    if importlib.util.find_spec(module.split(".")[0]) is None:
        raise UserError(f"model provider '{provider}' needs the Python package providing '{module}'; install it first")


def check_api_key(spec: ModelSpec) -> None:
    if spec.api_key_env and not os.environ.get(spec.api_key_env):
        raise UserError(f"the API key for {spec.model_string} is missing: set the environment variable {spec.api_key_env}")


def check_reachable(spec: ModelSpec, timeout_s: float = 3.0) -> None:
    """A quick TCP connect to the endpoint's host and port (no request, no tokens)."""
    if not spec.base_url:
        return
    url = urlparse(spec.base_url)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname, port), timeout=timeout_s):
            pass
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        raise UserError(f"the endpoint {spec.base_url} for {spec.model_string} is unreachable ({reason})") from None
