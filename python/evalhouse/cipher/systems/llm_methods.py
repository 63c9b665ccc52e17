"""LLM methods (role subject, temperature 0): prompting, program-of-thought and RAG.

Each output row keeps the prompt version, the ledger request hashes and, for invalid replies,
the raw text. Statuses: ok; invalid (no valid JSON after re-asks, or a program that crashed,
looped, escaped or printed no answer — scored M1 = M2 = 0); error (no reply: unreachable endpoint
or transport failure — not landed as done, so a resumed run retries it).
"""
from __future__ import annotations

import asyncio
import csv
import tempfile
from pathlib import Path
from typing import Any

from ..eval_data import EvalItem
from ..prompts import PROMPT_VERSION, RESPONSE_MODELS, VisibleInput, parse_program_stdout, pot_program, render
from . import FAMILY, answer_text, output_item_id

POT_TIMEOUT_S = 20
POT_MEMORY_MB = 512


def _base_row(method: str, model: str, item: EvalItem, prompt_tokens: int) -> dict:
    return {
        "item_id": output_item_id(method, model, item.key),
        "system": method, "family": FAMILY[method], "model": model,
        "instance_id": item.instance_id, "domain": item.domain, "condition": item.condition,
        "setting": item.setting, "prompt_version": PROMPT_VERSION, "prompt_tokens": prompt_tokens,
        "answer": answer_text(None), "cited_ids": [], "raw_text": None, "error": None, "detail": {},
    }


def _usage(results: list) -> dict:
    return {
        "request_hashes": [r.request_hash for r in results],
        "input_tokens": int(sum(r.usage.get("input_tokens", 0) for r in results)),
        "output_tokens": int(sum(r.usage.get("output_tokens", 0) for r in results)),
        "latency_ms": float(sum(r.usage.get("latency_ms", 0.0) for r in results)),
    }


def _ids(values: Any) -> list[str]:
    if not isinstance(values, list):
        return []
    return [str(v) for v in values if v is not None]


def write_temp_csv(inp: VisibleInput, directory: Path) -> Path:
    """The PoT table `temp`: the context records' visible fields only, one row per record."""
    path = directory / "temp.csv"
    columns = [c.name for c in inp.columns]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        for row in inp.rows:
            writer.writerow({c: ("" if row.get(c) is None else row.get(c)) for c in columns})
    return path


def run_program(code: str, inp: VisibleInput) -> tuple[str, dict | None, dict]:
    """Run a PoT program in the sandbox over `temp`; (status, parsed answer, detail)."""
    from ...sandbox import run_python

    with tempfile.TemporaryDirectory(prefix="cipher-pot-") as tmp:
        table = write_temp_csv(inp, Path(tmp))
        result = run_python(pot_program(code), files={"temp.csv": table},
                            timeout_s=POT_TIMEOUT_S, memory_mb=POT_MEMORY_MB)
    detail = {"sandbox_status": result.status, "returncode": result.returncode,
              "stdout": (result.stdout or "")[-2000:], "stderr": (result.stderr or "")[-2000:]}
    if result.status != "ok":
        return "invalid", None, detail
    parsed = parse_program_stdout(result.stdout or "")
    if parsed is None:
        detail["error"] = "the program printed no JSON object with an 'answer' key"
        return "invalid", None, detail
    return "ok", parsed, detail


async def run_method(client, spec, method: str, item: EvalItem, inp: VisibleInput,
                     prompt_tokens: int, retrieved: list[str] | None = None) -> dict:
    """One LLM output row for one method on one item (inp is already the visible view)."""
    row = _base_row(method, spec.model_string, item, prompt_tokens)
    messages = render(method, inp)
    result = await client.structured(spec, messages, RESPONSE_MODELS[method],
                                     purpose=f"cipher.{method}", max_retries=2)
    row.update(_usage([result]))
    if retrieved is not None:
        row["detail"]["retrieved_ids"] = retrieved
    if not result.ok:
        row["status"] = "invalid" if result.raw_text is not None else "error"
        row["raw_text"], row["error"] = result.raw_text, result.error
        return row
    value = result.value
    row["raw_text"] = result.raw_text
    if method == "pot":
        status, parsed, detail = await asyncio.to_thread(run_program, value.code, inp)
        row["detail"].update(detail, code=value.code)
        row["status"] = status
        if parsed is not None:
            row["answer"], row["cited_ids"] = answer_text(parsed.get("answer")), _ids(parsed.get("record_ids"))
        else:
            row["error"] = detail.get("error") or f"program {detail['sandbox_status']}"
        return row
    row["status"] = "ok"
    row["answer"], row["cited_ids"] = answer_text(value.answer), _ids(value.record_ids)
    if method == "cot":
        row["detail"]["reasoning"] = value.reasoning
    elif method == "ltm":
        row["detail"].update(subquestions=value.subquestions, subanswers=value.subanswers)
    return row


def blendsql_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("blendsql") is not None


def run_blendsql(*_args, **_kwargs):
    """BlendSQL hybrid method: not implemented in this checkout (the optional `blendsql` package
    is not installed). Selecting it raises a clear error instead of silently skipping."""
    raise NotImplementedError(
        "the BlendSQL hybrid method is not implemented: install the optional `blendsql` package "
        "and implement evalhouse.cipher.systems.llm_methods.run_blendsql")
