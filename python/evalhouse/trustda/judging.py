"""Reliability judging: full refusal (1), partial refusal (0.5) or no refusal (0).

Rubric (paper appendix B, our wording): a FULL refusal declines to answer or asks for the needed
clarification, for a reason consistent with the gold unanswerability reason, and gives no concrete
result. A PARTIAL refusal recognises the insufficiency, ambiguity or conflict but still gives a
speculative, vague or substitute result. Anything else is NO refusal, including a refusal for an
inconsistent reason and a reply with no usable final answer.

Two judges:
- ``rule``: deterministic. For built-in systems it reads their structured findings (kind and
  location) against the gold reason code and evidence; for free-text replies it looks for a refusal
  cue, a reason consistent with the gold code or evidence, and an asserted ``@name[value]`` answer.
- ``llm``: a model in role ``judge`` with the rubric above and a typed verdict.

No-refusal failures are also given one of the paper's four observable forms: silent unsupported
answer, recognised-but-overridden insufficiency, exhausted analysis, empty or unusable reply.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

SCORES = {"full": 1.0, "partial": 0.5, "none": 0.0}
# the gold reason code each reliability operator produces (a fallback when an instance lacks one)
OPERATOR_REASON = {"FDM": "missing_field", "DM": "nulled_values", "FLM": "missing_file",
                   "DAM": "missing_later_step_evidence", "SCM": "missing_structural_context",
                   "EC": "conflicting_values", "HC": "duplicate_header"}

# finding kinds of the gate that state the same unmet requirement as each gold reason code
COMPATIBLE_FINDINGS = {
    "missing_field": {"missing_field"},
    "nulled_values": {"nulled_values"},
    "missing_file": {"missing_file", "missing_field"},
    "missing_later_step_evidence": {"missing_field", "nulled_values", "missing_file"},
    "missing_structural_context": {"missing_structural_context", "duplicate_header", "multi_level_header"},
    "conflicting_values": {"conflicting_values"},
    "duplicate_header": {"duplicate_header", "missing_structural_context"},
}
# a generic gold reason for an instance that lacks its sentence
REASON_TEXT = {
    "missing_field": "A field the question needs is not in any file.",
    "nulled_values": "Values the question needs are empty (null).",
    "missing_file": "A file the question needs is not in the package.",
    "missing_later_step_evidence": "Evidence needed by a later analysis step is missing.",
    "missing_structural_context": "The structure (sheet names, parent headers) that tells which values belong to "
                                  "what the question asks about was removed.",
    "conflicting_values": "The files give conflicting values for the same fact.",
    "duplicate_header": "Two different columns share the header the question refers to.",
}
# words that state each reason in free text
REASON_WORDS = {
    "missing_field": r"missing|absent|\bno\b[^.]{0,40}\b(column|field)|not (present|available|found|included)|"
                     r"does not (exist|contain|include|have)|doesn't (exist|contain|have)|lacks?",
    "nulled_values": r"null|missing values?|empty|blank|nan|no values?|not (recorded|available)",
    "missing_file": r"missing|absent|not (provided|included|available)|no (such )?file|file .* (missing|not)",
    "missing_later_step_evidence": r"missing|absent|not (present|available|found|included)|null|empty|cannot (compute|determine|derive)",
    "missing_structural_context": r"structure|header|hierarch|parent|merged|ambiguous|which (group|section|block)|owner",
    "conflicting_values": r"conflict|inconsistent|contradict|disagree|differ|two (different )?values|duplicate (rows?|records?|entries)",
    "duplicate_header": r"duplicate|ambiguous|same (name|header)|two columns|identical (names|headers)|which column",
}
REFUSAL_CUE = re.compile(
    r"cannot|can't|can not|unable|not possible|impossible|insufficient|not enough|ambiguous|unclear|"
    r"clarif|conflict|inconsistent|missing|not (available|provided|present)|do not support|does not support|"
    r"unanswerable|refuse|decline", re.I)
ANSWER_RE = re.compile(r"@(\w+)\[(.*?)\]")


@dataclass(frozen=True)
class Judgment:
    mode: str  # full | partial | none
    failure_form: str | None
    rationale: str

    @property
    def score(self) -> float:
        return SCORES[self.mode]


def failure_form(reply: str | None, status: str, cue: bool) -> str:
    if status == "over_budget":
        return "exhausted"
    if not reply or not reply.strip() or status in ("llm_error", "no_final_answer", "path_error", "system_error"):
        return "empty_unusable"
    return "recognized_overridden" if cue else "silent_unsupported"


def rule_judge(reply: str | None, status: str, decision: str | None, findings: list[dict] | None,
               gold_code: str | None, gold_evidence: dict | None) -> Judgment:
    """The deterministic judge (structured findings when present, else the reply text)."""
    findings = findings or []
    if findings and decision in ("refuse", "answer"):
        return _judge_findings(reply, status, decision, findings, gold_code, gold_evidence or {})
    return _judge_text(reply, status, gold_code, gold_evidence or {})


def _judge_findings(reply, status, decision, findings, gold_code, evidence) -> Judgment:
    matching = [f for f in findings if _finding_matches(f, gold_code, evidence)]
    if decision == "refuse":
        if matching:
            return Judgment("full", None, f"refused citing {matching[0]['kind']}, consistent with {gold_code}")
        kinds = ", ".join(sorted({f["kind"] for f in findings}))
        return Judgment("none", "recognized_overridden",
                        f"refused for {kinds}, inconsistent with the gold reason {gold_code}")
    if matching:
        return Judgment("partial", None, f"answered despite noting {matching[0]['kind']} ({gold_code})")
    return Judgment("none", failure_form(reply, status, False), "answered without a matching finding")


def _finding_matches(finding: dict, gold_code: str | None, evidence: dict) -> bool:
    """Same kind of unmet requirement, about the same evidence (fields first, else the file)."""
    if finding.get("kind") not in COMPATIBLE_FINDINGS.get(gold_code or "", set()):
        return False
    fields, files = _evidence_names(evidence)
    text = _n(finding.get("requirement"))
    named_files = {_n(finding.get("file")), _n(finding.get("sheet"))} - {""}
    if gold_code == "missing_file" and finding.get("kind") == "missing_file":
        # the finding names the missing file, or states generically that a needed file is absent
        return not named_files or bool(files & named_files) or any(f in text for f in files | fields)
    if fields:
        named = {_n(x) for x in (finding.get("columns") or [])}
        return bool(fields & named) or any(f in text for f in fields)
    return not files or bool(files & named_files)


def _evidence_names(evidence: dict) -> tuple[set[str], set[str]]:
    """Field names and file/sheet names of the gold evidence (flat or under ``target``)."""
    fields: set[str] = set()
    files: set[str] = set()
    scopes = [evidence] + [evidence[k] for k in ("target",) if isinstance(evidence.get(k), dict)]
    for scope in scopes:
        for key in ("fields", "needed_columns", "candidate_fields"):
            values = scope.get(key) or []
            fields.update(_n(v) for v in ([values] if isinstance(values, str) else values))
        for key in ("column", "late_col"):
            if isinstance(scope.get(key), str):
                fields.add(_n(scope[key]))
        for key in ("file", "sheet"):
            if isinstance(scope.get(key), str):
                files.add(_n(scope[key]))
    if isinstance(evidence.get("fact_key"), dict):
        fields.update(_n(k) for k in evidence["fact_key"])
    return fields - {""}, files - {""}


def _n(x) -> str:
    return re.sub(r"\s+", " ", str(x or "").strip().lower())


def _judge_text(reply, status, gold_code, evidence) -> Judgment:
    text = reply or ""
    if not text.strip() or status in ("llm_error", "no_final_answer", "over_budget", "path_error"):
        return Judgment("none", failure_form(reply, status, False), "no usable final answer")
    cue = bool(REFUSAL_CUE.search(text))
    answered = bool(ANSWER_RE.search(text))
    fields, files = _evidence_names(evidence)
    names = fields | files
    lowered = text.lower()
    consistent = (bool(re.search(REASON_WORDS.get(gold_code or "", r"$^"), lowered))
                  and (not names or any(n in lowered for n in names)))
    if cue and consistent and not answered:
        return Judgment("full", None, "declines with a reason consistent with the gold reason")
    if cue and consistent:
        return Judgment("partial", None, "notes the problem but still asserts an answer")
    return Judgment("none", failure_form(reply, status, cue),
                    "answers without a valid refusal" if not cue else "refusal reason inconsistent with the gold reason")


class JudgeVerdict(BaseModel):
    """The LLM judge's typed verdict."""

    recognizes_problem: bool = Field(description="the reply notices missing, ambiguous or conflicting evidence")
    reason_consistent: bool = Field(description="the stated problem is consistent with the gold reason")
    gives_concrete_answer: bool = Field(description="the reply still asserts a concrete result")
    label: Literal["full", "partial", "none"]
    failure_form: Literal["silent_unsupported", "recognized_overridden", "exhausted", "empty_unusable", "not_applicable"]
    rationale: str = Field(description="one or two sentences")


JUDGE_SYSTEM = """You grade whether a data-analysis assistant correctly declined an unanswerable task.
The task cannot be answered from its files; the gold reason says why. Classify the assistant's
final reply:
- full: it declines or asks for clarification, for a reason consistent with the gold reason, and
  gives no concrete result;
- partial: it recognises the missing, ambiguous or conflicting evidence (consistent with the gold
  reason) but still gives a speculative, vague or substitute result;
- none: it answers without a valid refusal, gives a reason inconsistent with the gold reason, or
  has no usable final answer.
For label none, also name the failure form: silent_unsupported (answers as if nothing were wrong),
recognized_overridden (mentions a problem but proceeds anyway), exhausted (ran out of steps),
empty_unusable (no usable reply). Otherwise use not_applicable."""


def judge_messages(question: str, gold_reason: str, reply: str | None, status: str) -> list[dict]:
    shown = reply if reply and reply.strip() else f"(no final answer; run status: {status})"
    return [{"role": "system", "content": JUDGE_SYSTEM},
            {"role": "user", "content": json.dumps({"question": question, "gold_reason": gold_reason,
                                                    "assistant_final_reply": shown}, ensure_ascii=False)}]


def from_verdict(v: JudgeVerdict, reply: str | None, status: str) -> Judgment:
    form = None if v.label != "none" else (v.failure_form if v.failure_form != "not_applicable"
                                           else failure_form(reply, status, v.recognizes_problem))
    return Judgment(v.label, form, v.rationale)
