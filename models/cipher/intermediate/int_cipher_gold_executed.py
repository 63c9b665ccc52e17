"""Gold answers: every instance's SQL executed on each condition's table inside `dbt build`.

Support ids come from executing the SQL's own row predicates (the derived support SQL). Instances
of one template run as one set-based statement for both conditions (sql_exec.execute_template_conditions).
Also executes the structured-only variant (narrative predicates dropped) for the audit rule.
"""
import json
from collections import defaultdict

import pyarrow as pa

from evalhouse.cipher.domains import DOMAINS, CONDITIONS
from evalhouse.cipher.sql_exec import as_arrow, DomainStore, execute_template_conditions

_TYPES = {"n_support": pa.int64(), "narrative_sensitive": pa.bool_()}

COLUMNS = ["instance_id", "condition", "answer_json", "support_ids", "n_support", "status", "error",
           "structured_only_answer_json", "narrative_sensitive"]


def _staged(dbt, domain):
    # dbt needs literal ref() arguments to see the dependencies
    refs = {"fir": dbt.ref("stg_landing_cipher__records_fir"), "cfpb": dbt.ref("stg_landing_cipher__records_cfpb"),
            "mimic": dbt.ref("stg_landing_cipher__records_mimic")}
    cols = ", ".join(["condition", *DOMAINS[domain].sql_columns])  # no narrative text: SQL never reads it
    return as_arrow(refs[domain].filter("condition in ('redacted', 'restored')").project(cols))


def model(dbt, session):
    dbt.config(materialized="table")
    store = DomainStore.from_staging(lambda d: _staged(dbt, d))
    instances = as_arrow(dbt.ref("int_cipher_instances_rendered")).to_pylist()
    groups = defaultdict(list)
    rows = []
    for inst in instances:
        if inst["template_error"] or not inst["sql"]:
            for cond in CONDITIONS:
                rows.append({"instance_id": inst["instance_id"], "condition": cond, "answer_json": None, "support_ids": "[]",
                             "n_support": 0, "status": "error", "error": inst["template_error"] or "no SQL",
                             "structured_only_answer_json": None, "narrative_sensitive": False})
            continue
        key = (inst["domain"], inst["template_sql"], inst["support_template"], inst["structured_only_template"],
               inst["answer_type"], bool(inst["ordered"]))
        groups[key].append(inst)
    for (domain, sql_t, sup_t, so_t, answer_type, ordered), members in groups.items():
        params = [json.loads(m["params_json"]) for m in members]
        gold = execute_template_conditions(store, sql_t, sup_t, domain, list(CONDITIONS), params, answer_type, ordered)
        alt = None
        if so_t:
            alt = execute_template_conditions(store, so_t, sup_t, domain, ["redacted"], params, answer_type, ordered,
                                              with_support=False)["redacted"]
        for i, m in enumerate(members):
            so_answer = alt[i].answer_json if alt else None
            sensitive = bool(m["projects_annotation"]) or (alt is not None and so_answer != gold["redacted"][i].answer_json)
            for cond in CONDITIONS:
                r = gold[cond][i]
                rows.append({"instance_id": m["instance_id"], "condition": cond, "answer_json": r.answer_json,
                             "support_ids": r.support_json, "n_support": len(r.support_ids), "status": r.status,
                             "error": r.error, "structured_only_answer_json": so_answer if cond == "redacted" else None,
                             "narrative_sensitive": sensitive})
    schema = pa.schema([(c, _TYPES.get(c, pa.string())) for c in COLUMNS])
    return pa.Table.from_pylist(rows, schema=schema)
