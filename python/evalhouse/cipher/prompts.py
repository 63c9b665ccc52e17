"""Prompts of the CIPHER LLM methods (the project's own wording), versioned.

Firewall: every builder takes a ``VisibleInput`` only — the question, the domain's name, the
model-visible column list and the serialized model-visible records. Nothing else can reach a
prompt: no SQL, template, operation label, support ids, annotation columns or reference answer
(tests/cipher/test_eval_firewall.py renders prompts for sampled instances and checks it).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from pydantic import BaseModel, Field

PROMPT_VERSION = "cipher-prompts/v1"
METHODS = ("zero-shot", "few-shot", "cot", "pot", "ltm")
RAG_METHODS = ("rag-bm25", "rag-dense", "rag-dense-rerank")
RAG_K = 5

DOMAIN_TITLES = {
    "fir": ("First Information Reports filed with police stations", "report"),
    "cfpb": ("consumer complaints about financial products", "complaint"),
    "mimic": ("hospital discharge notes", "discharge note"),
}


@dataclass(frozen=True)
class Column:
    name: str
    kind: Literal["id", "structured", "narrative"]
    description: str = ""


@dataclass(frozen=True)
class VisibleInput:
    """Everything a system under test may see for one question."""

    domain: str
    question: str
    columns: tuple[Column, ...]
    record_ids: tuple[str, ...]
    serialized: tuple[str, ...]  # one line per record, same order as record_ids
    rows: tuple[dict, ...] = field(default=(), compare=False)  # model-visible fields (PoT's table)


# ---------------------------------------------------------------- response models
Scalar = Union[int, float, str, bool, None]
AnswerValue = Union[Scalar, list[Union[int, float, str, list[Union[int, float, str, None]], None]]]


class DirectAnswer(BaseModel):
    answer: AnswerValue = Field(description="the answer: a number, a short text, or a JSON list")
    record_ids: list[str] = Field(default_factory=list, description="ids of the records the answer rests on")


class ReasonedAnswer(BaseModel):
    reasoning: str = Field(description="step-by-step reasoning over the records")
    answer: AnswerValue
    record_ids: list[str] = Field(default_factory=list)


class DecomposedAnswer(BaseModel):
    subquestions: list[str] = Field(description="simpler questions, easiest first")
    subanswers: list[str] = Field(description="the answer to each sub-question, in order")
    answer: AnswerValue
    record_ids: list[str] = Field(default_factory=list)


class ProgramAnswer(BaseModel):
    code: str = Field(description="Python 3 program body that prints one JSON object")


RESPONSE_MODELS = {
    "zero-shot": DirectAnswer, "few-shot": DirectAnswer, "cot": ReasonedAnswer,
    "ltm": DecomposedAnswer, "pot": ProgramAnswer,
    **{m: DirectAnswer for m in RAG_METHODS},
}

# ---------------------------------------------------------------- shared text
_ROLE = (
    "You analyse a collection of {title}. Each record has structured fields and free-text "
    "narrative fields. Some narrative text is de-identified: names, places, dates or amounts "
    "may appear as placeholders such as <PERSON_000012> or as X characters. Treat a placeholder "
    "as an opaque value; do not guess what it hides."
)
_COLUMNS_HEAD = "Fields of each {unit} (record_id identifies the record):"
_ANSWER_RULES = (
    "Answer rules:\n"
    "- Use both the structured fields and the narratives; a condition stated in the question may "
    "only be checked in the narrative.\n"
    "- Give a count as a number, a single value as a short text, and several values or records "
    "as a JSON list (record ids when the question asks which records).\n"
    "- If no record qualifies, answer [] for a list, 0 for a count, or \"NONE\".\n"
    "- In record_ids list the ids of every record your answer relies on."
)
_JSON_TAIL = "Reply with one JSON object only, no text around it: {schema}"

_SCHEMAS = {
    "direct": '{"answer": <number | text | list>, "record_ids": ["<record_id>", ...]}',
    "reasoned": '{"reasoning": "<your steps>", "answer": <number | text | list>, "record_ids": [...]}',
    "decomposed": ('{"subquestions": ["..."], "subanswers": ["..."], '
                   '"answer": <number | text | list>, "record_ids": [...]}'),
    "program": '{"code": "<python program body>"}',
}

_METHOD_INSTRUCTIONS = {
    "zero-shot": "Answer the question directly from the records.",
    "few-shot": "Two solved examples show the expected reasoning and answer format. Then answer the new question.",
    "cot": ("Think step by step before answering: state which conditions the question sets, check "
            "each record against them (structured fields first, then the narrative), keep the "
            "qualifying records, then compute the answer. Put these steps in \"reasoning\"."),
    "ltm": ("Solve the question by least-to-most decomposition: first split it into simpler "
            "sub-questions (which structured filters apply, which narrative condition must hold, "
            "which records pass both, what to compute), then answer the sub-questions in order, "
            "each using the previous answers, and finally give the answer."),
    "pot": ("Write a short Python 3 program that answers the question. The records are already "
            "loaded into a pandas DataFrame named `temp` (one row per record, one column per field, "
            "`record_id` included; `pd`, `json` and `re` are imported). Narrative conditions must "
            "be tested on the narrative columns, e.g. with keyword or regular-expression matching. "
            "The program must end by printing exactly one line: "
            "print(json.dumps({\"answer\": ..., \"record_ids\": [...]})) with plain Python values. "
            "It cannot read other files or use the network."),
    "rag": ("The records below were retrieved for this question and are shown in rank order; "
            "they may be incomplete. Answer from them."),
}

_FEW_SHOT_EXAMPLES = """Example 1
Records:
[record_id: R-01, branch: North, year: 2021, narrative: The customer says the bank froze her checking account after a deposit and she could not pay rent for two weeks.]
[record_id: R-02, branch: North, year: 2021, narrative: The customer asks why a late fee was added to his card although he paid on time.]
[record_id: R-03, branch: South, year: 2021, narrative: My account was locked and the agent told me I could not withdraw anything until an investigation ended.]
[record_id: R-04, branch: North, year: 2020, narrative: They blocked online access to my savings account without notice.]
Question: How many 2021 records from the North branch describe a customer who lost access to an account?
Reasoning: The structured filters are year = 2021 and branch = North, which leave R-01 and R-02. The narrative condition is lost access to an account: R-01 (frozen checking account) qualifies, R-02 (a late fee) does not. R-03 and R-04 describe lost access but fail the structured filters.
Answer: {"answer": 1, "record_ids": ["R-01"]}

Example 2
Records:
[record_id: R-11, station: Lakeside, filed: 2019-03-02, narrative: The complainant states that an officer asked for 5,000 rupees to release his tractor.]
[record_id: R-12, station: Lakeside, filed: 2019-07-19, narrative: A shopkeeper reports a theft of cash from his counter at night.]
[record_id: R-13, station: Hilltop, filed: 2019-05-11, narrative: The clerk demanded money before issuing a land record, according to the complainant.]
[record_id: R-14, station: Lakeside, filed: 2018-11-30, narrative: The complainant alleges a bribe was demanded for a licence renewal.]
Question: Which reports filed in 2019 describe a demand for a bribe?
Reasoning: Filed in 2019 keeps R-11, R-12 and R-13. A bribe demand is described in R-11 (money to release a tractor) and R-13 (money for a land record), not in R-12 (theft). R-14 is from 2018.
Answer: {"answer": ["R-11", "R-13"], "record_ids": ["R-11", "R-13"]}"""


def _title(domain: str) -> tuple[str, str]:
    return DOMAIN_TITLES.get(domain, (f"{domain} records", "record"))


def _column_lines(columns: tuple[Column, ...]) -> str:
    lines = []
    for col in columns:
        kind = {"narrative": "free text", "structured": "structured", "id": "identifier"}[col.kind]
        desc = f" — {col.description}" if col.description else ""
        lines.append(f"- {col.name} ({kind}){desc}")
    return "\n".join(lines)


def _records_block(inp: VisibleInput, ranked: bool = False) -> str:
    if ranked:
        n = len(inp.serialized)
        return "\n".join(f"Record {i} of {n} (retrieval rank {i}):\n{line}"
                         for i, line in enumerate(inp.serialized, start=1))
    return "\n".join(inp.serialized)


def system_prompt(method: str, inp: VisibleInput) -> str:
    title, unit = _title(inp.domain)
    base = "rag" if method in RAG_METHODS else method
    schema = {"cot": "reasoned", "ltm": "decomposed", "pot": "program"}.get(base, "direct")
    parts = [_ROLE.format(title=title), _COLUMNS_HEAD.format(unit=unit), _column_lines(inp.columns),
             _METHOD_INSTRUCTIONS[base], _ANSWER_RULES, _JSON_TAIL.format(schema=_SCHEMAS[schema])]
    if base == "few-shot":
        parts.insert(4, _FEW_SHOT_EXAMPLES)
    return "\n\n".join(parts)


def user_prompt(method: str, inp: VisibleInput) -> str:
    ranked = method in RAG_METHODS
    head = f"Records ({len(inp.serialized)}):" if not ranked else f"Retrieved records (top {len(inp.serialized)}):"
    return f"{head}\n{_records_block(inp, ranked)}\n\nQuestion: {inp.question}"


def render(method: str, inp: VisibleInput) -> list[dict[str, str]]:
    """Chat messages of one method for one question."""
    if method not in RESPONSE_MODELS:
        raise ValueError(f"unknown CIPHER method '{method}'")
    return [{"role": "system", "content": system_prompt(method, inp)},
            {"role": "user", "content": user_prompt(method, inp)}]


def prompt_templates() -> list[dict[str, Any]]:
    """The stored form of every method's prompt (placeholders in braces), for the prompts table."""
    probe = VisibleInput("{domain}", "{question}", (Column("{column}", "structured", "{description}"),),
                         ("{record_id}",), ("{serialized record}",))
    return [{"item_id": f"{PROMPT_VERSION}:{m}", "method": m, "prompt_version": PROMPT_VERSION,
             "system_template": system_prompt(m, probe), "user_template": user_prompt(m, probe)}
            for m in RESPONSE_MODELS]


# ---------------------------------------------------------------- program-of-thought
POT_PREAMBLE = (
    "import json, re\n"
    "import pandas as pd\n"
    "temp = pd.read_csv('temp.csv', dtype={'record_id': str})\n"
)


def pot_program(code: str) -> str:
    """The program run in the sandbox: our loader, then the model's body."""
    return POT_PREAMBLE + "\n" + code.strip() + "\n"


def parse_program_stdout(stdout: str) -> dict | None:
    """The last JSON object line printed by a program, or None."""
    for line in reversed(stdout.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict) and "answer" in value:
                return value
    return None
