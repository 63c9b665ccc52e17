"""The rule-based validator: integrity, real modification, operator constraints, validity contract.

It re-reads the original and perturbed packages itself. Robustness: the perturbed tables,
recovered with the recorded inverse, equal the original tables; the answer recomputed on them
equals the reference; for distractor, decoy, non-observation, re-encoding, unit and synonym
operators a plausible misuse path gives a different answer. Reliability: the answer path is
blocked (evidence absent) or the plausible readings disagree, with no recovery path.
"""
from __future__ import annotations

import math
from collections import Counter
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import duckdb

from .answer_path import AnswerResult, answers_equal, load_package, run_sql
from .operators.base import OperatorSpec
from .operators.dbops import columns, qi, tables
from .operators.reliability import recoverable_from
from .package import content_hash
from .protocols import SourceTask, ValidationProtocol

MISUSE_REQUIRED = {"semantic_distractor_column", "decoy_feature_pack_injection", "non_observation_row_injection",
                   "equivalent_value_reencoding", "unit_scale_conversion", "header_synonym_substitution"}


def failure(v: ValidationProtocol, category: str, reason: str) -> ValidationProtocol:
    v.verdict, v.failure_category, v.failure_reason = "fail", category, reason
    return v


def answer_sql(task: SourceTask) -> tuple[str, list[str]]:
    """The task's answer path, or for tasks without one (DABench) a proxy over the needed field."""
    if task.gold_sql:
        return task.gold_sql, task.answer_names
    table, col = task.fields_used[0]
    c = qi(col)
    return (f"select round(avg(try_cast({c} as double)), 6) as mean, round(stddev_samp(try_cast({c} as double)), 6) as std, "
            f"count({c}) as n from {qi(table)}", ["mean", "std", "n"])


def run_path(con, task) -> AnswerResult:
    sql, names = answer_sql(task)
    return run_sql(con, sql, names)


def _norm(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, (int, float, Decimal)):
        x = float(v)
        return None if math.isnan(x) else round(x, 6)
    if isinstance(v, (datetime, date)):
        return v.isoformat()
    return str(v).strip()


def table_bag(con, table: str, order: list[str]) -> Counter:
    sel = ", ".join(qi(c) for c in order)
    return Counter(tuple(_norm(v) for v in row) for row in con.execute(f"select {sel} from {qi(table)}").fetchall())


def same_tables(orig, pert, names: list[str]) -> tuple[bool, str]:
    have = set(tables(pert))
    for t in names:
        if t not in have:
            return False, f"table {t} missing after recovery"
        oc, pc = columns(orig, t), columns(pert, t)
        if set(oc) != set(pc):
            return False, f"table {t}: columns {sorted(set(oc) ^ set(pc))} differ after recovery"
        if table_bag(orig, t, oc) != table_bag(pert, t, oc):
            return False, f"table {t}: records differ after recovery"
    return True, "recovered tables equal the original tables record by record"


def validate(task: SourceTask, spec: OperatorSpec, src: Path, out: Path, rec: dict,
             new_question: str) -> ValidationProtocol:
    v = ValidationProtocol(verdict="fail", original_answer=task.reference_answer)
    try:
        pert = load_package(out)
    except Exception as exc:  # noqa: BLE001 - any unreadable file is an integrity failure
        return failure(v, "integrity", f"perturbed package unreadable: {exc}")
    orig = load_package(src)
    try:
        if content_hash(out) == task.package_hash or content_hash(out) == content_hash(src):
            return failure(v, "no_real_modification", "the package is byte-identical to the source")
        v.attack_effective = True
        checks = constraint_checks(spec, task, src, out, rec, orig, pert)
        v.constraint_checks = checks
        bad = [k for k, ok in checks.items() if ok is False]
        if bad:
            return failure(v, "constraint_violated", f"operator constraints failed: {', '.join(bad)}")
        v.attack_rule_valid = True
        if spec.track == "robustness":
            return _robustness(v, task, spec, src, out, rec, orig, pert)
        v.question_preservation_valid = new_question == task.question
        return _reliability(v, task, spec, src, out, rec, orig, pert)
    finally:
        orig.close()
        pert.close()


def _robustness(v, task, spec, src, out, rec, orig, pert):
    impl = spec.impl
    impl.recover(pert, rec)
    aux = set(rec.get("parameters", {}).get("aux_tables_changed", []))
    ok, why = same_tables(orig, pert, [t for t in tables(orig) if t not in aux])
    v.equivalence_evidence = why
    v.checked_evidence = [f"recovered with the recorded inverse of {spec.name}", why]
    if not ok:
        return failure(v, "evidence_not_preserved", why)
    recomputed = run_path(pert, task)
    v.attacked_answer = recomputed.text or recomputed.error
    v.task_still_answerable = recomputed.ok
    if not recomputed.ok:
        return failure(v, "answer_changed", f"answer path fails on the recovered tables: {recomputed.error}")
    reference = run_path(orig, task) if not task.gold_sql else None
    expected = reference.pairs if reference else task.reference_pairs
    v.normalized_equivalent = answers_equal(recomputed.pairs, expected)
    v.unique_answer_preserved = v.normalized_equivalent
    v.reference_comparison = "DABench rule: equal strings or floats within 1e-6 per sub-answer"
    if not v.normalized_equivalent:
        return failure(v, "answer_changed", f"recomputed {recomputed.text} differs from reference {v.original_answer}")
    if spec.name in MISUSE_REQUIRED:
        misread = load_package(out)
        try:
            impl.misuse(misread, rec)
            cf = run_path(misread, task)
        finally:
            misread.close()
        v.counterfactual_answer = cf.text if cf.ok else f"error: {cf.error}"
        v.interpretation_risk_audit = {**rec.get("semantic_contract", {}).get("interpretation_risk", {}),
                                       "incorrect_outcome": v.counterfactual_answer}
        if cf.ok and answers_equal(cf.pairs, expected):
            return failure(v, "misuse_not_different", "the plausible misuse path gives the same answer")
        _audits(v, spec, rec)
    v.verdict = "pass"
    return v


def _audits(v, spec, rec):
    sc = rec.get("semantic_contract", {})
    if spec.name == "header_synonym_substitution":
        v.synonym_audit = sc.get("synonym_audit", [])
        v.field_binding_audit = sc.get("field_bindings", [])
    elif spec.name == "decoy_feature_pack_injection":
        v.decoy_feature_audit = sc.get("feature_pack", {}).get("added_features", [])
    elif spec.name == "non_observation_row_injection":
        v.non_observation_row_audit = sc.get("non_observation_rows", [])
    elif spec.name == "semantic_distractor_column":
        v.field_binding_audit = [{k: sc.get(k) for k in ("target_field", "distractor_field", "exclusion_evidence")}]


def _reliability(v, task, spec, src, out, rec, orig, pert):
    impl = spec.impl
    naive = run_path(pert, task)
    v.fabricated_answer = naive.text if naive.ok else None
    if hasattr(impl, "readings"):
        answers = []
        for label, apply in impl.readings(rec, task):
            con = load_package(out)
            try:
                apply(con)
                r = run_path(con, task)
            except duckdb.Error as exc:
                r = AnswerResult(False, error=str(exc))
            finally:
                con.close()
            answers.append((label, r))
            v.checked_evidence.append(f"reading '{label}': {r.text or r.error}")
        distinct = {tuple(r.pairs) for _, r in answers if r.ok}
        v.unique_answer_impossible = len(distinct) >= 2
        if not v.unique_answer_impossible:
            return failure(v, "still_answerable", "the plausible readings do not lead to different answers")
    else:
        if naive.ok and answers_equal(naive.pairs, _expected(task, orig)):
            return failure(v, "still_answerable", "the answer path still yields the reference answer")
        v.unique_answer_impossible = True
        twin = _recovery_path(spec, task, rec, orig, pert)
        if twin:
            return failure(v, "recovery_path_exists", twin)
        if spec.name == "deep_analysis_missing":
            try:
                pert.execute(rec["parameters"]["early_sql"]).fetchall()
            except duckdb.Error as exc:
                return failure(v, "constraint_violated", f"earlier steps no longer execute: {exc}")
            v.hardness_valid = not naive.ok
            if naive.ok:
                return failure(v, "still_answerable", "the later step still computes a value")
    v.no_alternative_answer_path = True
    v.can_answer, v.should_refuse = False, True
    v.refusal_reason = rec.get("gold_reason")
    v.matches_expected = True
    v.fabricated_answer_risk = naive.ok
    v.verdict = "pass"
    return v


def _expected(task, orig):
    if task.gold_sql:
        return task.reference_pairs
    return run_path(orig, task).pairs


def _recovery_path(spec, task, rec, orig, pert) -> str | None:
    p = rec["parameters"]
    if spec.name == "file_missing":
        have = {c for t in tables(pert) for c in columns(pert, t)}
        found = [c for c in p["needed_columns"] if c in have]
        return f"columns {found} remain in other files" if found else None
    if spec.name in ("field_missing", "data_missing"):
        table, col = p["table"], p["column"]
        values = [_f(r[0]) for r in orig.execute(f"select try_cast({qi(col)} as double) from {qi(table)}").fetchall()]
        if table not in tables(pert):
            return None
        others = {}
        for c in columns(pert, table):
            if c == col:
                continue
            others[c] = [_f(r[0]) for r in pert.execute(f"select try_cast({qi(c)} as double) from {qi(table)}").fetchall()]
        twin = recoverable_from(values, {k: x for k, x in others.items() if len(x) == len(values)})
        return f"column {twin} reproduces {col}" if twin else None
    return None


def _f(x):
    return None if x is None else float(x)


def constraint_checks(spec, task, src, out, rec, orig, pert) -> dict:
    """Operator constraints measured on the files (not taken from the construction record)."""
    from .checks import measure

    return measure(spec.name, task, src, out, rec, orig, pert)
