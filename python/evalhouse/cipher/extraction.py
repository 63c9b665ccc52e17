"""LLM information extraction: the annotation view of imported records (role `builder`).

One Pydantic schema per domain is derived from the domain's annotation columns, so the extracted
facts have exactly the names and types the gold SQL reads. Facts the text does not support must be
null (scalars), false (flags) or [] (lists). Results land in `cipher_extractions` with the model,
the ledger request hash, the source file and review_status='unreviewed' until a person accepts them.
"""
from __future__ import annotations

import json
from typing import Optional

from pydantic import BaseModel, ConfigDict, Field, create_model

from ..benchmarks import JobOptions
from ..errors import UserError
from .domains import DOMAINS

_PY = {"BOOLEAN": (bool, False), "VARCHAR": (Optional[str], None), "INTEGER": (Optional[int], None),
       "DOUBLE": (Optional[float], None)}
SCHEMA_NAMES = {"fir": "FIRFacts", "cfpb": "CFPBFacts", "mimic": "MIMICFacts"}
DOMAIN_TEXT = {"fir": "a First Information Report (FIR) filed with an Indian police station",
               "cfpb": "a consumer complaint submitted to the US Consumer Financial Protection Bureau",
               "mimic": "a hospital discharge summary"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def schema_for(domain: str) -> type[BaseModel]:
    """The extraction schema of a domain: one field per annotation column."""
    fields = {}
    for col in DOMAINS[domain].annotation:
        c = DOMAINS[domain].column(col)
        if c.sql_type == "VARCHAR[]":
            fields[col] = (list[str], Field(default_factory=list, description=c.description))
        else:
            typ, default = _PY[c.sql_type]
            fields[col] = (typ, Field(default=default, description=c.description))
    return create_model(SCHEMA_NAMES[domain], __base__=_Strict, **fields)


def messages_for(domain: str, narrative: str) -> list[dict]:
    schema = schema_for(domain)
    lines = "\n".join(f"- {name}: {f.description}" for name, f in schema.model_fields.items())
    system = (
        f"You read {DOMAIN_TEXT[domain]} and fill in a fixed set of facts as JSON.\n"
        "Rules:\n"
        "- Use only what the text states or clearly implies; never guess.\n"
        "- A fact that is negated, only hoped for or feared, or said of somebody else does not hold.\n"
        "- When the text does not support a fact: null for a number or text field, false for a yes/no "
        "field, [] for a list.\n"
        "- Masked spans (XXXX, ___, <TYPE_000001>) carry no information.\n"
        f"Facts:\n{lines}"
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": narrative or "(empty narrative)"}]


def _imported_records(domains: set[str]) -> list[dict]:
    from ..landing import LandingZone

    frame = LandingZone().read("cipher_import_records")
    if frame.empty:
        return []
    frame = frame.sort_values("written_at").drop_duplicates(["domain", "record_id"], keep="last")
    frame = frame[frame["domain"].isin(domains)].sort_values(["domain", "record_id"])
    return frame.to_dict("records")


def extract(opts: JobOptions, domains: tuple[str, ...] = ("fir", "cfpb", "mimic")) -> dict:
    """Run extraction over every imported record not yet extracted in this run (resumable)."""
    from ..llm import LLMClient, resolve_model
    from ..runs import open_run

    if not opts.builder_model:
        raise UserError("information extraction needs a builder model (--builder-model provider/name)")
    spec = resolve_model(opts.builder_model, base_url=opts.base_url, api_key_env=opts.api_key_env, role="builder")
    records = _imported_records(set(domains))
    if opts.limit:
        records = records[:opts.limit]
    config = {"model": opts.builder_model, "domains": sorted(domains), "run_tag": opts.run_tag}
    with open_run("cipher.extract", config, benchmark="cipher") as run, LLMClient(run, concurrency=opts.concurrency) as client:
        done = run.done_items("cipher_extractions")
        todo = [r for r in records if f"{r['domain']}:{r['record_id']}" not in done]
        factories = [(lambda r=r: client.structured(spec, messages_for(r["domain"], r["narrative"]),
                                                    schema_for(r["domain"]), purpose="cipher.extract", max_retries=2))
                     for r in todo]
        results = client.run_batch(factories, desc="cipher extraction") if factories else []
        rows = [_row(r, res, opts.builder_model) for r, res in zip(todo, results)]
        for i in range(0, len(rows), 200):
            run.write("cipher_extractions", rows[i:i + 200])
        ok = sum(1 for r in rows if r["status"] == "ok")
        run.count("extracted", ok)
        run.count("failed", len(rows) - ok)
    return {"records": len(records), "extracted_now": len(rows), "ok": ok}


def _row(record: dict, res, model: str) -> dict:
    return {"item_id": f"{record['domain']}:{record['record_id']}", "domain": record["domain"],
            "record_id": record["record_id"], "source_file": record["source_file"], "model": model,
            "schema_name": SCHEMA_NAMES[record["domain"]],
            "annotation": json.loads(res.value.model_dump_json()) if res.ok and res.value is not None else None,
            "status": "ok" if res.ok else "error", "error": None if res.ok else (res.error or "no value"),
            "review_status": "unreviewed", "request_hash": res.request_hash}
