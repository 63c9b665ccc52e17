"""Optional LLM path (role ``builder``): selector, constructor and blind validator for what rules
cannot reach — natural header synonyms for fields without a curated one.

The model proposes a strictly equivalent header with a synonym audit (selector + constructor);
the edit itself is applied by the rule operator; a blind validator that sees only the question and
the attacked headers must bind the question to the renamed field; then the rule validator runs.
Candidates land with builder = "llm" and the same three protocols.
"""
from __future__ import annotations

import shutil

from pydantic import BaseModel, Field

from .build import _construction, _fill_selection, _row, candidate_rng
from .operators import OPERATORS, Ctx, NotApplicable
from .operators.base import SYNONYMS, used_columns, used_tables, locate
from .package import commit_package, new_staging_dir, package_dir, relative_package_path
from .protocols import SelectionProtocol, SourceTask
from .validator import validate

SELECT_PROMPT = (
    "You prepare robustness tests for data-analysis questions. Given a question and the header of "
    "the table it is asked over, propose ONE replacement name for the field the question depends on. "
    "The new name must mean exactly the same thing (same concept, metric scope, granularity, time "
    "basis and unit) and could not sensibly exist as a separate column next to the old one. If no "
    "such strict synonym exists, set applicable to false.")
BLIND_PROMPT = (
    "You check a table for a data-analysis question. Looking only at the question and the column "
    "names, which single column does the question's main measure refer to? Answer with the exact "
    "column name, or an empty string if no column can be identified unambiguously.")


class SynonymProposal(BaseModel):
    applicable: bool
    field: str = Field(description="the existing column the question depends on")
    new_header: str = Field(description="the strictly equivalent replacement name")
    same_concept: bool = True
    same_metric_scope: bool = True
    same_granularity: bool = True
    same_time_basis: bool = True
    same_unit: bool = True
    can_coexist_as_distinct: bool = False
    confidence: float = 0.5
    reason: str = ""


class BlindBinding(BaseModel):
    column: str
    reason: str = ""


def _targets(task: SourceTask) -> list[tuple[str, str]]:
    return [(t, c) for t in used_tables(task) for c in used_columns(task, t) if c not in SYNONYMS]


def run_llm_builder(run, tasks: list[SourceTask], opts) -> None:
    from ..llm import LLMClient, resolve_model

    spec = resolve_model(opts.builder_model, base_url=opts.base_url, api_key_env=opts.api_key_env, role="builder")
    client = LLMClient(run, concurrency=opts.concurrency)
    done = run.done_items("trustda_candidates")
    todo = [t for t in tasks if t.gold_sql and _targets(t) and f"{t.source_task_id}~header_synonym_substitution~llm" not in done]
    todo = todo[: opts.limit or 50]
    proposals = client.run_batch([_proposal_call(client, spec, t) for t in todo], desc="trustda builder: synonyms")
    staged = [_build_llm_candidate(task, res, opts.seed) for task, res in zip(todo, proposals)]
    pending = [s for s in staged if isinstance(s, dict) is False]
    blinds = client.run_batch([_blind_call(client, spec, s) for s in pending], desc="trustda builder: blind check")
    for s, b in zip(pending, blinds):
        s.blind = b.value.column if b.ok else ""
    rows = [s if isinstance(s, dict) else s.finish() for s in staged]
    if rows:
        run.write("trustda_candidates", rows)


def _header(task: SourceTask) -> list[str]:
    from .answer_path import load_package
    from .operators.dbops import columns

    table, _ = _targets(task)[0]
    con = load_package(package_dir(task.package_path))
    try:
        return columns(con, table)
    finally:
        con.close()


def _proposal_call(client, spec, task):
    messages = [{"role": "system", "content": SELECT_PROMPT},
                {"role": "user", "content": f"Question: {task.question}\nColumns: {', '.join(_header(task))}"}]
    return lambda: client.structured(spec, messages, SynonymProposal, purpose="trustda.builder.select_construct")


class Staged:
    """A candidate that passed construction and awaits the blind validator."""

    def __init__(self, base, sel, construction, validation, rec, op, staging, target, proposal, task):
        self.base, self.sel, self.construction, self.validation = base, sel, construction, validation
        self.rec, self.op, self.staging, self.target, self.proposal, self.task = rec, op, staging, target, proposal, task
        self.blind = ""

    def finish(self) -> dict:
        v = self.validation
        v.validator = "rules+llm_blind"
        v.field_binding_audit = [{"blind_bound_column": self.blind, "expected": self.proposal.new_header}]
        if v.verdict == "pass" and self.blind != self.proposal.new_header:
            v.verdict, v.failure_category = "fail", "blind_validator_disagrees"
            v.failure_reason = f"blind validator bound the question to {self.blind!r}"
        if v.verdict != "pass":
            shutil.rmtree(self.staging, ignore_errors=True)
            return _row(self.base, self.sel, self.construction, v, None, None, self.rec, self.op)
        folder, digest = commit_package(self.staging, "instances")
        return _row(self.base, self.sel, self.construction, v, relative_package_path(folder), digest, self.rec, self.op)


def _build_llm_candidate(task: SourceTask, res, seed: int):
    op = OPERATORS["header_synonym_substitution"]
    cid = f"{task.source_task_id}~header_synonym_substitution~llm"
    base = {"item_id": cid, "source_task_id": task.source_task_id, "dataset": task.dataset, "operator": op.name,
            "operator_code": op.code, "track": op.track, "level": op.level, "builder": "llm", "question": task.question}
    sel = SelectionProtocol(sample_id=task.source_task_id, attack_type=op.name)
    p = res.value if res.ok else None
    audit_ok = bool(p and p.applicable and p.same_concept and p.same_metric_scope and p.same_granularity
                    and p.same_time_basis and p.same_unit and not p.can_coexist_as_distinct)
    table_col = next(((t, c) for t, c in _targets(task) if p and c == p.field), None)
    if not audit_ok or table_col is None:
        reason = res.error if not res.ok else "no strict synonym proposed (or the audit fails)"
        from .build import _rejected

        return {**_rejected(base, sel, None, "not_applicable", reason, op, task), "builder": "llm"}
    file, sheet = locate(task, table_col[0])
    target = {"table": table_col[0], "file": file, "sheet": sheet, "column": p.field, "synonym": p.new_header}
    _fill_selection(sel, op, task, target)
    sel.confidence, sel.reason = p.confidence, p.reason or sel.reason
    staging = new_staging_dir()
    src = package_dir(task.package_path)
    for f in src.iterdir():
        shutil.copy2(f, staging / f.name)
    try:
        rec = op.impl.construct(Ctx(task, src, staging, candidate_rng(seed, cid)), target)
    except NotApplicable as exc:
        shutil.rmtree(staging, ignore_errors=True)
        from .build import _rejected

        return {**_rejected(base, sel, None, "not_applicable", str(exc), op, task), "builder": "llm"}
    rec["semantic_contract"]["synonym_audit"][0].update({k: getattr(p, k) for k in (
        "same_concept", "same_metric_scope", "same_granularity", "same_time_basis", "same_unit", "can_coexist_as_distinct")})
    rec["semantic_contract"]["synonym_audit"][0]["evidence"] = p.reason or "builder model audit"
    construction = _construction(op, task, rec, staging)
    validation = validate(task, op, src, staging, rec, construction.new_question)
    return Staged(base, sel, construction, validation, rec, op, staging, target, p, task)


def _blind_call(client, spec, staged: Staged):
    from .answer_path import load_package
    from .operators.dbops import columns

    con = load_package(staged.staging)
    try:
        cols = columns(con, staged.target["table"])
    finally:
        con.close()
    messages = [{"role": "system", "content": BLIND_PROMPT},
                {"role": "user", "content": f"Question: {staged.task.question}\nColumns: {', '.join(cols)}"}]
    return lambda: client.structured(spec, messages, BlindBinding, purpose="trustda.builder.blind_validate")
