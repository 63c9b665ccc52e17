"""HTTP retry policy: which failures are transient, and how long to wait before the next try.

Separate from instructor's validation re-asks: these retries resend the same request after a
transport failure (429, 5xx, timeout, dropped connection).
"""
from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from datetime import datetime, timezone
from typing import Any

from pydantic import ValidationError

RETRYABLE_STATUS = {408, 409, 429}


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4  # HTTP retries after the first try
    base_s: float = 0.5  # first backoff; doubles each retry
    max_s: float = 30.0  # cap on one backoff
    max_retry_after_s: float = 120.0  # cap on a server's Retry-After

    def delay(self, retry_index: int, error: BaseException) -> float:
        """Exponential backoff with jitter, or the server's Retry-After when it sends one."""
        hinted = retry_after_s(error)
        if hinted is not None:
            return min(hinted, self.max_retry_after_s)
        ceiling = min(self.max_s, self.base_s * (2 ** retry_index))
        return ceiling / 2 + random.uniform(0, ceiling / 2)


def root_cause(error: BaseException) -> BaseException:
    """The underlying SDK/transport error under instructor's wrappers."""
    seen = set()
    while id(error) not in seen:
        seen.add(id(error))
        if status_code(error) is not None or _is_timeout(error) or _is_connection(error):
            return error
        nxt = error.__cause__ or error.__context__
        if nxt is None:
            break
        error = nxt
    return error


def status_code(error: BaseException) -> int | None:
    code = getattr(error, "status_code", None)
    return code if isinstance(code, int) else None


def _is_timeout(error: BaseException) -> bool:
    return isinstance(error, (asyncio.TimeoutError, TimeoutError)) or "Timeout" in type(error).__name__


def _is_connection(error: BaseException) -> bool:
    return "Connection" in type(error).__name__ or isinstance(error, ConnectionError)


def classify(error: BaseException) -> str:
    """Ledger status of a failed attempt: timeout | http_error | parse_error | error."""
    if _is_timeout(error):
        return "timeout"
    if status_code(error) is not None or _is_connection(error):
        return "http_error"
    if isinstance(error, (ValidationError, json.JSONDecodeError)):
        return "parse_error"
    return "error"


def is_retryable(error: BaseException) -> bool:
    code = status_code(error)
    if code is not None:
        return code in RETRYABLE_STATUS or code >= 500
    return _is_timeout(error) or _is_connection(error)


def describe(error: BaseException) -> str:
    code = status_code(error)
    text = str(error).strip() or type(error).__name__
    prefix = f"HTTP {code}: " if code is not None and str(code) not in text[:12] else ""
    return f"{prefix}{type(error).__name__}: {text}"[:2000]


def retry_after_s(error: BaseException) -> float | None:
    headers = _headers(error)
    if not headers:
        return None
    try:
        if headers.get("retry-after-ms"):
            return float(headers["retry-after-ms"]) / 1000
        value = headers.get("retry-after")
        if not value:
            return None
        try:
            return max(float(value), 0.0)
        except ValueError:
            when = parsedate_to_datetime(value)
            return max((when - datetime.now(timezone.utc)).total_seconds(), 0.0)
    except (TypeError, ValueError):
        return None


def _headers(error: BaseException) -> Any:
    response = getattr(error, "response", None)
    return getattr(response, "headers", None)
