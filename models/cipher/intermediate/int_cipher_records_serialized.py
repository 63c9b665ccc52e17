"""Model-visible records per condition: visible fields as JSON and the shared one-line serialization."""
import json

import pyarrow as pa

from evalhouse.cipher.sql_exec import as_arrow

from evalhouse.cipher.domains import CONDITIONS, DOMAINS, serialize_record, visible_fields

SCHEMA = pa.schema([("domain", pa.string()), ("condition", pa.string()), ("record_id", pa.string()), ("fields_json", pa.string()), ("serialized", pa.string()),
                    ("narrative_words", pa.int64()), ("empty_narrative", pa.bool_())])


def _staged(dbt, domain):
    # dbt needs literal ref() arguments to see the dependencies
    refs = {"fir": dbt.ref("stg_landing_cipher__records_fir"), "cfpb": dbt.ref("stg_landing_cipher__records_cfpb"),
            "mimic": dbt.ref("stg_landing_cipher__records_mimic")}
    return as_arrow(refs[domain].filter("condition in ('redacted', 'restored')"))


def model(dbt, session):
    dbt.config(materialized="table")
    rows = []
    for name, d in DOMAINS.items():
        records = _staged(dbt, name).to_pylist()
        for r in records:
            if r["condition"] not in CONDITIONS:
                continue
            texts = [r.get(c) or "" for c in d.narrative]
            rows.append({
                "domain": name,
                "condition": r["condition"],
                "record_id": r["record_id"],
                "fields_json": json.dumps(visible_fields(name, r), ensure_ascii=False, default=str),
                "serialized": serialize_record(name, r),
                "narrative_words": sum(len(t.split()) for t in texts),
                "empty_narrative": all(not t.strip() for t in texts),
            })
    return pa.Table.from_pylist(rows, schema=SCHEMA)
