"""Reference answers of the source tasks, recomputed inside `dbt build`.

Built-in tasks: the gold SQL runs on the source package (CSV read by DuckDB, .xlsx read with
openpyxl). DABench tasks keep their label. Editing a template or a package and rebuilding
regenerates every reference answer.
"""
import json

import pandas as pd

from evalhouse.trustda.answer_path import format_answer, run_answer_path
from evalhouse.trustda.package import package_dir

COLUMNS = ["source_task_id", "reference_pairs", "reference_answer", "answer_status", "answer_error"]


def model(dbt, session):
    dbt.config(materialized="table")
    tasks = dbt.ref("int_trustda_source_tasks_latest").df()
    rows = []
    for t in tasks.to_dict("records"):
        if isinstance(t["gold_sql"], str) and t["gold_sql"]:
            r = run_answer_path(t, package_dir(t["package_path"]))
            pairs = [list(p) for p in r.pairs] if r.ok else None
            rows.append([t["source_task_id"], json.dumps(pairs) if pairs else None, r.text or None,
                         "ok" if r.ok else "error", r.error])
        else:
            pairs = json.loads(t["label_pairs"])
            rows.append([t["source_task_id"], json.dumps(pairs), format_answer(pairs), "label", None])
    return pd.DataFrame(rows, columns=COLUMNS).astype(object)
