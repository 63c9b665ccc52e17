"""Instances rendered from template seeds + sampled parameters, with validation and sqlglot lineage.

A template-level human review with corrected SQL replaces the seed SQL (the audit's REWRITE path),
so editing a template or a review and re-running `dbt build` re-renders every affected instance.
"""
import json

import pyarrow as pa

from evalhouse.cipher.sql_exec import as_arrow

from evalhouse.cipher.sql_validate import SQLValidationError, analyze_template, render
from evalhouse.cipher.templates import _projects_annotation, structured_only_template, Template

_TYPES = {"question_words": pa.int64(), "is_hybrid": pa.bool_(), "projects_annotation": pa.bool_(), "ordered": pa.bool_(),
          "sql_corrected": pa.bool_()}

COLUMNS = ["instance_id", "domain", "template_id", "operation", "answer_type", "question", "question_words", "sql",
           "support_sql", "structured_only_sql", "template_sql", "support_template", "structured_only_template",
           "params_json", "structured_columns", "annotation_columns", "is_hybrid", "projects_annotation", "ordered",
           "sql_corrected", "template_error"]


def _corrections(reviews):
    out = {}
    for r in sorted(reviews, key=lambda r: str(r.get("reviewed_at") or "")):
        if r.get("scope") == "template" and r.get("decision") == "REWRITE" and (r.get("corrected_sql") or "").strip():
            out[r["target_id"]] = r["corrected_sql"].strip()
    return out


def model(dbt, session):
    dbt.config(materialized="table")
    templates = {t["template_id"]: t for t in as_arrow(dbt.ref("cipher_templates")).to_pylist()}
    corrected = _corrections(as_arrow(dbt.ref("cipher_audit_reviews")).to_pylist())
    rows = []
    for p in as_arrow(dbt.ref("stg_landing_cipher__instance_params")).to_pylist():
        params = json.loads(p["params_json"])
        t = templates.get(p["template_id"])
        row = {"instance_id": p["instance_id"], "domain": p["domain"], "template_id": p["template_id"],
               "params_json": p["params_json"], "sql_corrected": p["template_id"] in corrected}
        if t is None:
            row["template_error"] = "template not found in seed cipher_templates"
            rows.append(row)
            continue
        sql_t = corrected.get(t["template_id"], t["sql"])
        info = analyze_template(sql_t, t["domain"])
        tmpl = Template(t["template_id"], t["domain"], t["operation"], t["answer_type"], t["question"], sql_t, t["slots_sql"])
        try:
            question = render(t["question"], params, sql=False)
        except SQLValidationError as exc:
            question, row["template_error"] = None, f"parameters do not render: {exc}"
        row.update(operation=t["operation"], answer_type=t["answer_type"], question=question,
                   question_words=len(question.split()) if question else None, template_sql=sql_t, ordered=info.ordered,
                   structured_columns=json.dumps(list(info.structured)), annotation_columns=json.dumps(list(info.annotation)),
                   is_hybrid=bool(info.structured) and bool(info.annotation))
        if not info.ok or row.get("template_error"):
            row["template_error"] = row.get("template_error") or info.error
            rows.append(row)
            continue
        try:
            projects = _projects_annotation(tmpl)
            so_t = None if projects else structured_only_template(sql_t, t["domain"])
            row.update(sql=render(sql_t, params), support_template=info.support_sql, support_sql=render(info.support_sql, params),
                       structured_only_template=so_t, structured_only_sql=render(so_t, params) if so_t else None,
                       projects_annotation=projects)
        except SQLValidationError as exc:
            row["template_error"] = f"parameters do not render: {exc}"
        rows.append(row)
    schema = pa.schema([(c, _TYPES.get(c, pa.string())) for c in COLUMNS])
    return pa.Table.from_pylist([{c: r.get(c) for c in COLUMNS} for r in rows], schema=schema)
