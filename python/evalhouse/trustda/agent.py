"""The agentic runner: a ReAct loop in which a model analyses one task's files with tools.

Tools: ``list_files`` (names and sizes of this task's files; no shell), ``python`` (code run by
``evalhouse.sandbox.run_python`` on copies of this task's files only) and, for the ``llm+gate``
system, ``evidence_gate`` (the gate's findings for the task's files and question). The loop ends
when the model replies without a tool call (its final answer) or when the turn budget runs out.

What the model sees is the question, the answer format and the files: never the operator, track,
gold reason or reference answer (the firewall of DESIGN.md). Every message, tool call and tool
output is kept as the trajectory.
"""
from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TOOL_OUTPUT_CHARS = 4000
PYTHON_TIMEOUT_S = 60.0
PYTHON_MEMORY_MB = 1024

SYSTEM_PROMPT = """You analyse structured data files (CSV, Excel) to answer one question.
Work step by step: inspect the files with the tools, compute with Python, then reply.
Your final reply is a message without a tool call. Give the answer exactly in the requested
answer format (e.g. @name[value]). If the files do not support one evidence-grounded answer,
do not guess: say that the question cannot be answered from these files, state which evidence
is missing, ambiguous or conflicting, and ask for what you would need."""

LIST_FILES_TOOL = {
    "type": "function",
    "function": {
        "name": "list_files",
        "description": "List the task's data files with their sizes in bytes.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    },
}
PYTHON_TOOL = {
    "type": "function",
    "function": {
        "name": "python",
        "description": ("Run a Python 3 script (pandas, numpy, scipy, openpyxl available) in a sandbox whose "
                        "working directory holds copies of the task's files. Print what you need to see."),
        "parameters": {"type": "object", "properties": {"code": {"type": "string"}},
                       "required": ["code"], "additionalProperties": False},
    },
}
GATE_TOOL = {
    "type": "function",
    "function": {
        "name": "evidence_gate",
        "description": ("Check the files against the question before analysing: returns unmet evidence "
                        "requirements (duplicate headers, missing fields or files, nulls, conflicting values, "
                        "lost structure) and notes (marker rows, distractor columns, unit labels)."),
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    },
}


@dataclass(frozen=True)
class AgentTask:
    """What the agent may know of one task (the firewall: nothing else)."""

    question: str
    answer_format: str
    package_dir: Path
    files: tuple[str, ...]

    def user_message(self) -> str:
        listing = ", ".join(self.files)
        return (f"Question: {self.question}\n\nAnswer format: {self.answer_format}\n\n"
                f"Files: {listing}")


@dataclass
class Episode:
    final: str | None = None
    status: str = "ok"  # ok | no_final_answer | over_budget | llm_error
    error: str | None = None
    steps: list[dict] = field(default_factory=list)
    turns: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


class Agent:
    """Runs episodes for one model spec through an ``evalhouse.llm.LLMClient``."""

    def __init__(self, client, spec, *, max_turns: int = 12, with_gate: bool = False,
                 python_timeout_s: float = PYTHON_TIMEOUT_S, purpose: str = "trustda.agent"):
        self.client = client
        self.spec = spec
        self.max_turns = max_turns
        self.with_gate = with_gate
        self.python_timeout_s = python_timeout_s
        self.purpose = purpose
        self.tools = [LIST_FILES_TOOL, PYTHON_TOOL] + ([GATE_TOOL] if with_gate else [])

    async def run(self, task: AgentTask) -> Episode:
        ep = Episode()
        messages: list[dict] = [{"role": "system", "content": SYSTEM_PROMPT},
                                {"role": "user", "content": task.user_message()}]
        for m in messages:
            ep.steps.append({"role": m["role"], "content": m["content"]})
        for _ in range(self.max_turns):
            r = await self.client.chat(self.spec, messages, tools=self.tools, purpose=self.purpose)
            ep.turns += 1
            ep.input_tokens += int((r.usage or {}).get("input_tokens", 0) or 0)
            ep.output_tokens += int((r.usage or {}).get("output_tokens", 0) or 0)
            if not r.ok:
                ep.status, ep.error = "llm_error", r.error
                ep.steps.append({"role": "assistant", "content": None, "request_hash": r.request_hash,
                                 "error": r.error})
                return ep
            content = r.value if isinstance(r.value, str) else r.raw_text
            calls = list(r.tool_calls or [])
            ep.steps.append({"role": "assistant", "content": content, "request_hash": r.request_hash,
                             "tool_calls": calls})
            if not calls:
                ep.final = (content or "").strip() or None
                ep.status = "ok" if ep.final else "no_final_answer"
                return ep
            messages.append(_assistant_message(content, calls))
            for i, call in enumerate(calls):
                call_id = call.get("id") or f"call_{ep.turns}_{i}"
                output, status = await self._execute(call, task)
                ep.tool_calls += 1
                ep.tool_errors += status != "ok"
                messages.append({"role": "tool", "tool_call_id": call_id, "content": output})
                ep.steps.append({"role": "tool", "content": output, "tool_name": call.get("name"),
                                 "tool_call_id": call_id, "tool_arguments": call.get("arguments"),
                                 "tool_status": status})
        ep.status = "over_budget"
        ep.error = f"no final answer within {self.max_turns} turns"
        return ep

    async def _execute(self, call: dict, task: AgentTask) -> tuple[str, str]:
        name, args = call.get("name"), call.get("arguments")
        try:
            if name == "list_files":
                return list_files(task), "ok"
            if name == "python":
                if not isinstance(args, dict) or not isinstance(args.get("code"), str):
                    return "error: the python tool takes a JSON object {\"code\": \"...\"}", "error"
                return await asyncio.to_thread(run_python_tool, args["code"], task, self.python_timeout_s)
            if name == "evidence_gate" and self.with_gate:
                return await asyncio.to_thread(gate_tool, task), "ok"
            return f"error: unknown tool {name!r}", "error"
        except Exception as exc:  # a crashing tool is reported to the model; the run continues
            return f"error: tool {name} failed: {type(exc).__name__}: {exc}"[:TOOL_OUTPUT_CHARS], "error"


def _assistant_message(content: str | None, calls: list[dict]) -> dict:
    return {"role": "assistant", "content": content or None, "tool_calls": [
        {"id": c.get("id") or f"call_{i}", "type": "function",
         "function": {"name": c.get("name"), "arguments": c.get("arguments") if isinstance(c.get("arguments"), str)
                      else json.dumps(c.get("arguments") or {})}}
        for i, c in enumerate(calls)]}


def list_files(task: AgentTask) -> str:
    lines = []
    for name in task.files:
        path = task.package_dir / name
        size = path.stat().st_size if path.is_file() else 0
        lines.append(f"{name}\t{size} bytes")
    return "\n".join(lines) or "(no files)"


def run_python_tool(code: str, task: AgentTask, timeout_s: float) -> tuple[str, str]:
    from ..sandbox import run_python

    files = {name: task.package_dir / name for name in task.files if (task.package_dir / name).is_file()}
    result = run_python(code, files, timeout_s=timeout_s, memory_mb=PYTHON_MEMORY_MB)
    status = str(getattr(result, "status", "error"))
    parts = [f"status: {status}"]
    if status != "ok" and getattr(result, "reason", ""):
        parts.append(f"reason: {result.reason}")
    if getattr(result, "stdout", ""):
        parts.append("stdout:\n" + result.stdout)
    if getattr(result, "stderr", ""):
        parts.append("stderr:\n" + result.stderr)
    return _truncate("\n".join(parts)), status


def gate_tool(task: AgentTask) -> str:
    from .gate import check

    result = check(task.package_dir, f"{task.question}\n{task.answer_format}")
    return _truncate(json.dumps({"passed": result.passed,
                                 "findings": [f.to_dict() for f in result.findings]}, ensure_ascii=False))


def _truncate(text: str) -> str:
    if len(text) <= TOOL_OUTPUT_CHARS:
        return text
    half = TOOL_OUTPUT_CHARS // 2
    return text[:half] + f"\n... [{len(text) - TOOL_OUTPUT_CHARS} characters cut] ...\n" + text[-half:]
