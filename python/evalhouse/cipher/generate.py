"""`evalhouse generate -b cipher`: records (three text states), replacement log, fact mentions and
sampled template parameters, written to the landing zone as one resumable run."""
from __future__ import annotations

import time
from datetime import date, datetime

import pyarrow as pa

from ..benchmarks import JobOptions
from ..runs import open_run
from .domains import CONDITIONS, DOMAINS
from .records import STATES, BuiltRecord, DomainBuilder

SCALES = {
    "paper": {"records": {"fir": 322, "cfpb": 400, "mimic": 500}, "questions": {"fir": 1571, "cfpb": 1356, "mimic": 500}},
    "ci": {"records": {"fir": 45, "cfpb": 50, "mimic": 50}, "questions": {"fir": 40, "cfpb": 40, "mimic": 30}},
}
GENERATOR_VERSION = 2
BATCH = 500

_ARROW = {"VARCHAR": pa.string(), "INTEGER": pa.int64(), "BIGINT": pa.int64(), "DOUBLE": pa.float64(),
          "BOOLEAN": pa.bool_(), "DATE": pa.date32(), "TIMESTAMP": pa.timestamp("us"), "VARCHAR[]": pa.list_(pa.string())}


def run_config(opts: JobOptions) -> dict:
    if opts.scale not in SCALES:
        from ..errors import UserError
        raise UserError(f"unknown scale '{opts.scale}' (known: {', '.join(SCALES)})")
    return {"scale": opts.scale, "seed": opts.seed, "generator_version": GENERATOR_VERSION, "run_tag": opts.run_tag,
            **SCALES[opts.scale]}


def build_all(scale: str, seed: int, progress=None) -> dict[str, list[BuiltRecord]]:
    out = {}
    for name in DOMAINS:
        builder = DomainBuilder(name, seed)
        recs = []
        for i in range(SCALES[scale]["records"][name]):
            recs.append(builder.build_one(i))
            if progress:
                progress(name)
        out[name] = recs
    return out


def landing_rows(domain: str, rec: BuiltRecord) -> list[dict]:
    rows = []
    for state in STATES:
        row = {"item_id": f"{state}:{rec.record_id}", "condition": state, "record_id": rec.record_id,
               "source": "generated", "story_seed": rec.story_seed}
        row.update({k: _landing_value(v) for k, v in rec.structured[state].items()})
        row.update(rec.narratives[state])
        row.update(rec.annotation[state])
        rows.append(row)
    return rows


def _landing_value(v):
    if isinstance(v, datetime):
        return v.isoformat(sep=" ")
    if isinstance(v, date):
        return v.isoformat()
    return v


def sql_table(domain: str, recs: list[BuiltRecord], condition: str) -> pa.Table:
    """The logical SQL table of one condition, typed like the cipher_<domain>_view mart."""
    d = DOMAINS[domain]
    schema = pa.schema([(c, _ARROW[d.column(c).sql_type]) for c in d.sql_columns])
    rows = [{"record_id": r.record_id, **r.structured[condition], **r.annotation[condition]} for r in recs]
    return pa.Table.from_pylist([{c: row.get(c) for c in d.sql_columns} for row in rows], schema=schema)


def generate(opts: JobOptions) -> None:
    from rich.progress import Progress

    from .instantiate import Instantiator
    from .sql_exec import DomainStore
    from .templates import load_templates

    cfg = run_config(opts)
    started = time.perf_counter()
    with open_run("cipher.generate", cfg, benchmark="cipher") as run, Progress(transient=True) as bar:
        total = sum(SCALES[opts.scale]["records"].values())
        task = bar.add_task("cipher records", total=total)
        built = build_all(opts.scale, opts.seed, progress=lambda _: bar.advance(task))
        for name, recs in built.items():
            _write_domain(run, name, recs)
        store = DomainStore.from_frames({(n, c): sql_table(n, r, c) for n, r in built.items() for c in CONDITIONS})
        inst = Instantiator(store, load_templates(), opts.seed)
        done = run.done_items("cipher_instance_params")
        for name in DOMAINS:
            rows = inst.instantiate(name, SCALES[opts.scale]["questions"][name])
            rows = [r for r in rows if r["item_id"] not in done]
            for i in range(0, len(rows), BATCH):
                run.write("cipher_instance_params", rows[i:i + BATCH])
            run.count(f"{name}.instances", len(rows))
        run.count("seconds", int(time.perf_counter() - started))


def _write_domain(run, name: str, recs: list[BuiltRecord]) -> None:
    table = f"cipher_records_{name}"
    done = run.done_items(table)
    rows = [row for rec in recs for row in landing_rows(name, rec) if row["item_id"] not in done]
    for i in range(0, len(rows), BATCH):
        run.write(table, rows[i:i + BATCH])
    for extra, key in (("cipher_replacements", "replacements"), ("cipher_fact_mentions", "mentions")):
        done_x = run.done_items(extra)
        xs = [x for rec in recs for x in getattr(rec, key) if x["item_id"] not in done_x]
        for i in range(0, len(xs), 2000):
            run.write(extra, xs[i:i + 2000])
    run.count(f"{name}.records", len(recs))
