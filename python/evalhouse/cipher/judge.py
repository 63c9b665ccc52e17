"""M2 judges: the deterministic rule judge (default) and an LLM judge (role judge).

Both apply the same rubric (``RUBRIC``): a judge sees the question, the reference and the
candidate only — never the records, SQL or system name.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, Field

from .scoring import RUBRIC_VERSION, m1, parse_answer, rule_judge

LLM_JUDGE_VERSION = "cipher-llm-judge/v1"

RUBRIC = """Accept the candidate (accept = true) when it gives the reference answer, allowing for different wording, order or formatting:
- Counts and amounts: equal to the reference, or within 5% of it.
- Lists of record ids or values: most of the reference items are present (at least half) and the list is not padded with many items that are not in the reference.
- "Highest / top / most" questions: the top-ranked entity is a reference entity.
- Empty references (null, [], 0, nothing qualifies): accept a candidate that says nothing qualifies ("NONE", "no answer", [], 0).
- Texts: accept a candidate that means the same thing as the reference even when worded differently.
Reject the candidate (accept = false) when:
- it contradicts the reference (different ids, dates, entities or a yes/no of the opposite sense);
- it asserts an answer although the reference is empty, or otherwise invents facts (hallucination);
- it does not answer the question that was asked;
- its count or amount differs from the reference by more than 5%."""

JUDGE_SYSTEM = (
    "You grade answers to analytical questions about record collections. You see the question, "
    "the reference answer and a candidate answer. Decide whether the candidate should be accepted.\n\n"
    + RUBRIC +
    "\n\nReply with one JSON object only: {\"accept\": true or false, \"reason\": \"<one sentence>\"}"
)


class JudgeVerdict(BaseModel):
    accept: bool = Field(description="true when the candidate should be accepted")
    reason: str = Field(default="", description="one sentence")


def decode_gold(gold_json: str | None) -> Any:
    """The reference answer value from its canonical JSON text."""
    return json.loads(gold_json) if gold_json else None


def gold_hash(gold_json: str) -> str:
    """md5 of the reference answer JSON text (dbt recomputes it to match judgments to gold)."""
    return hashlib.md5((gold_json or "null").encode("utf-8")).hexdigest()


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def judge_messages(question: str, gold_json: str, candidate: Any) -> list[dict[str, str]]:
    user = (f"Question: {question}\n"
            f"Reference answer: {_show(decode_gold(gold_json))}\n"
            f"Candidate answer: {_show(candidate)}")
    return [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": user}]


def rule_judgment(output: dict, question: str, gold_json: str, answer_type: str) -> dict:
    """The rule judge's row (M1 and M2) for one output row of cipher_eval_outputs."""
    gold = decode_gold(gold_json)
    base = _judgment_base(output, "rule", RUBRIC_VERSION, gold_json)
    if output["status"] != "ok":
        return {**base, "m1": 0.0, "accept": False, "reason": f"invalid output ({output['status']})",
                "status": "ok", "request_hash": None}
    candidate = parse_answer(output["answer"])
    verdict = rule_judge(question, gold, candidate, answer_type)
    return {**base, "m1": m1(candidate, gold, answer_type), "accept": verdict.accept,
            "reason": verdict.reason, "status": "ok", "request_hash": None}


def judgment_id(output: dict, judge: str, judge_model: str, gold_json: str) -> str:
    """The landing key of a judgment: output x judge x reference answer."""
    return f"{output['run_id']}|{output['item_id']}|{judge}|{judge_model}|{gold_hash(gold_json)}"


def _judgment_base(output: dict, judge: str, judge_model: str, gold_json: str) -> dict:
    g = gold_hash(gold_json)
    return {
        "item_id": judgment_id(output, judge, judge_model, gold_json),
        "output_run_id": output["run_id"], "output_item_id": output["item_id"], "judge": judge,
        "judge_model": judge_model, "rubric_version": RUBRIC_VERSION if judge == "rule" else LLM_JUDGE_VERSION,
        "gold_hash": g,
    }


async def llm_judgment(client, spec, output: dict, question: str, gold_json: str, answer_type: str) -> dict:
    """The LLM judge's row for one output; invalid outputs are rejected without a call."""
    gold = decode_gold(gold_json)
    base = _judgment_base(output, "llm", spec.model_string, gold_json)
    if output["status"] != "ok":
        return {**base, "m1": 0.0, "accept": False, "reason": f"invalid output ({output['status']})",
                "status": "ok", "request_hash": None}
    candidate = parse_answer(output["answer"])
    overlap = m1(candidate, gold, answer_type)
    result = await client.structured(spec, judge_messages(question, gold_json, candidate), JudgeVerdict,
                                     purpose="cipher.judge", max_retries=2)
    if not result.ok:
        return {**base, "m1": overlap, "accept": None, "reason": result.error, "status": "error",
                "request_hash": result.request_hash}
    return {**base, "m1": overlap, "accept": bool(result.value.accept), "reason": result.value.reason,
            "status": "ok", "request_hash": result.request_hash}
