"""Selection → construction → validation for one (source task, operator) candidate.

Construction happens in a staging folder; only a candidate that passes validation is committed
(renamed) into ``instances/<hash>``, so nothing half-written is ever accepted.
"""
from __future__ import annotations

import hashlib
import random
import shutil
import traceback

from .operators import OPERATORS, Ctx, NotApplicable, OperatorSpec
from .package import commit_package, new_staging_dir, package_dir, relative_package_path
from .protocols import ConstructionProtocol, RejectedAttack, SelectionProtocol, SourceTask, ValidationProtocol
from .validator import validate


def candidate_id(task: SourceTask, op: str, variant: int = 0) -> str:
    return f"{task.source_task_id}~{op}~{variant}"


def candidate_rng(seed: int, cid: str) -> random.Random:
    return random.Random(int(hashlib.sha256(f"{seed}:{cid}".encode()).hexdigest()[:16], 16))


def build_candidate(task: SourceTask, spec: OperatorSpec, seed: int, variant: int = 0) -> dict:
    cid = candidate_id(task, spec.name, variant)
    base = {"item_id": cid, "source_task_id": task.source_task_id, "dataset": task.dataset, "operator": spec.name,
            "operator_code": spec.code, "track": spec.track, "level": spec.level, "builder": "rules",
            "question": task.question}
    selection = SelectionProtocol(sample_id=task.source_task_id, attack_type=spec.name, eligible_attacks=[spec.name])
    try:
        if task.files and not any(f.lower().endswith(spec.extensions) for f in task.files):
            raise NotApplicable(f"needs a {'/'.join(spec.extensions)} file")
        target = spec.impl.select(task)
    except NotApplicable as exc:
        return _rejected(base, selection, None, "not_applicable", str(exc), spec, task)
    _fill_selection(selection, spec, task, target)
    staging = new_staging_dir()
    src = package_dir(task.package_path)
    for f in src.iterdir():
        shutil.copy2(f, staging / f.name)
    ctx = Ctx(task, src, staging, candidate_rng(seed, cid), variant)
    try:
        rec = spec.impl.construct(ctx, target)
    except NotApplicable as exc:
        shutil.rmtree(staging, ignore_errors=True)
        return _rejected(base, selection, None, "not_applicable", str(exc), spec, task)
    except Exception as exc:  # noqa: BLE001 - record and move on; the candidate is rejected
        shutil.rmtree(staging, ignore_errors=True)
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return _rejected(base, selection, None, "construction_error", detail, spec, task)
    construction = _construction(spec, task, rec, staging)
    try:
        validation = validate(task, spec, src, staging, rec, construction.new_question)
    except Exception as exc:  # noqa: BLE001
        validation = ValidationProtocol(verdict="fail", failure_category="validation_error",
                                        failure_reason="".join(traceback.format_exception_only(type(exc), exc)).strip())
    if validation.verdict != "pass":
        shutil.rmtree(staging, ignore_errors=True)
        return _row(base, selection, construction, validation, None, None, rec, spec)
    folder, digest = commit_package(staging, "instances")
    return _row(base, selection, construction, validation, relative_package_path(folder), digest, rec, spec)


def _fill_selection(sel: SelectionProtocol, spec: OperatorSpec, task: SourceTask, target: dict) -> None:
    sel.target = target
    sel.reason = f"{spec.name} applies: {spec.definition}"
    if spec.track == "reliability":
        sel.required_edit = "remove_files" if spec.name == "file_missing" else "modify_files"
        sel.candidate_fields = [c for _, c in task.fields_used]
        if spec.name == "deep_analysis_missing":
            sel.reasoning_stage = "final step"
            sel.reasoning_chain = [f"step {i + 1}" for i in range(task.steps)]
        if spec.name == "structural_context_missing":
            sel.structure_dependency = target.get("mode")
    else:
        sel.proposed_transformation = spec.definition
        sel.answer_invariance_reason = "the transformation is lossless and reversible; the evidence and answer path are kept"
        sel.risk_checks = ["lossless recovery", "answer recomputation", "operator thresholds"]


def _construction(spec: OperatorSpec, task: SourceTask, rec: dict, staging) -> ConstructionProtocol:
    files = sorted(p.name for p in staging.iterdir())
    c = ConstructionProtocol(status="constructed", attack_type=spec.name, new_question=rec.get("new_question", task.question),
                             output_files=files, input_file=files, edit_plan=[rec["edit_summary"]],
                             edit_summary=rec["edit_summary"])
    if spec.track == "reliability":
        c.expected_answer = {"behavior": "refuse", "reason": rec.get("gold_reason"), "reason_code": rec.get("gold_reason_code")}
        c.base_attack_components = [spec.code]
        c.reasoning_chain = rec.get("reasoning_chain", [])
        c.attack_evidence = {**rec.get("attack_evidence", {}), "parameters": rec.get("parameters", {})}
        c.hardness_check = rec.get("hardness_check", {})
        c.quality_check = {"original_answerable": True, "question_unchanged": c.new_question == task.question,
                           "unanswerable": True, "specific": bool(rec.get("gold_reason"))}
    else:
        c.transformation_record = {"targets": rec.get("parameters", {}).get("column"), "parameters": rec.get("parameters", {}),
                                   "semantic_contract": rec.get("semantic_contract", {})}
        c.quality_check = {"question_unchanged": True, "effective": True, "evidence_preserved": True,
                           "unique_answer_preserved": True, "file_readable": True}
    return c


def _rejected(base, selection, construction, category, reason, spec, task) -> dict:
    selection.eligible_attacks = []
    selection.rejected_attacks = [RejectedAttack(attack_type=spec.name, blocking_condition=reason)]
    construction = construction or ConstructionProtocol(status="rejected", attack_type=spec.name, new_question=task.question,
                                                        file_edit_required=False, reject_reason=reason)
    validation = ValidationProtocol(verdict="fail", attack_rule_valid=False, failure_category=category, failure_reason=reason)
    return _row(base, selection, construction, validation, None, None, {}, spec)


def _row(base, selection, construction, validation, path, digest, rec, spec) -> dict:
    accepted = validation.verdict == "pass"
    return {**base,
            "verdict": ("Reliability" if spec.track == "reliability" else "Robustness") if accepted else "Rejected",
            "failure_category": None if accepted else validation.failure_category,
            "failure_reason": None if accepted else validation.failure_reason,
            "new_question": construction.new_question,
            "files": construction.output_files if accepted else [],
            "package_path": path, "package_hash": digest,
            "gold_reason": rec.get("gold_reason") if accepted and spec.track == "reliability" else None,
            "gold_reason_code": rec.get("gold_reason_code") if accepted and spec.track == "reliability" else None,
            "gold_evidence": rec.get("attack_evidence", {}) if accepted and spec.track == "reliability" else {},
            "counterfactual_answer": validation.counterfactual_answer,
            "attacked_answer": validation.attacked_answer,
            "selection_protocol": selection.model_dump(mode="json"),
            "construction_protocol": construction.model_dump(mode="json"),
            "validation_protocol": validation.model_dump(mode="json")}


def build_task_candidates(task_json: str, seed: int, ops: list[str], skip: set[str]) -> list[dict]:
    """Worker entry point: every candidate of one task (skipping those already landed)."""
    task = SourceTask.model_validate_json(task_json)
    rows = []
    for name in ops:
        if candidate_id(task, name) in skip:
            continue
        rows.append(build_candidate(task, OPERATORS[name], seed))
    return rows
