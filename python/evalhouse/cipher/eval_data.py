"""What evaluation reads from part 1's marts: instances, contexts, gold and the visible records.

``EvalItem`` holds secrets (SQL, gold, support ids) for the harness; ``visible_input`` is the only
road from an item to a system under test and copies the question and visible records only.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable

from ..warehouse import connect, table_exists
from .domains import DOMAINS
from .prompts import Column, VisibleInput

SYSTEM_SETTINGS = ("support_controlled", "full_table")


@dataclass(frozen=True)
class EvalItem:
    """One question under one condition and setting, with everything the harness needs."""

    instance_id: str
    domain: str
    template_id: str
    operation: str
    answer_type: str
    question: str
    sql: str
    support_sql: str
    condition: str
    setting: str
    context_ids: tuple[str, ...]
    gold_json: str  # reference answer regenerated on exactly the context records
    support_ids: tuple[str, ...]  # supporting records inside the context
    in_paired_eval: bool

    @property
    def key(self) -> str:
        return f"{self.instance_id}|{self.condition}|{self.setting}"


@dataclass
class RecordStore:
    """Model-visible records per (domain, condition): record_id -> serialized line and fields."""

    lines: dict[tuple[str, str], dict[str, str]]
    fields: dict[tuple[str, str], dict[str, dict]]

    def corpus(self, domain: str, condition: str) -> tuple[list[str], list[str]]:
        recs = self.lines[(domain, condition)]
        ids = sorted(recs)
        return ids, [recs[i] for i in ids]


def _json_list(text) -> list:
    if text is None:
        return []
    value = json.loads(text) if isinstance(text, str) else text
    return list(value or [])


def latest_data_run() -> str:
    """run_id of the newest finished CIPHER generation (part of every evaluation run's config)."""
    with connect(read_only=True) as con:
        if not table_exists(con, "runs"):
            return "none"
        row = con.execute(
            "select run_id from runs where kind = 'cipher.generate' and status = 'finished' "
            "order by finished_at desc, run_id limit 1").fetchone()
    return row[0] if row else "none"


def load_items(settings: Iterable[str] = SYSTEM_SETTINGS, limit: int | None = None,
               domains: Iterable[str] | None = None) -> list[EvalItem]:
    """Benchmark instances x conditions x settings, ordered by instance, condition, setting."""
    settings = list(settings)
    with connect(read_only=True) as con:
        for mart in ("cipher_instances", "cipher_contexts", "cipher_gold"):
            if not table_exists(con, mart):
                return []
        instance_filter = "i.in_benchmark"
        if limit:
            instance_filter += f" and i.instance_id in (select instance_id from cipher_instances " \
                               f"where in_benchmark order by instance_id limit {int(limit)})"
        rows = con.execute(f"""
            select i.instance_id, i.domain, i.template_id, i.operation, i.answer_type, i.question,
                   i.sql, i.support_sql, c.condition, c.setting, c.record_ids, c.context_answer_json,
                   g.support_ids, coalesce(i.in_paired_eval, false)
            from cipher_instances i
            join cipher_contexts c on c.instance_id = i.instance_id
            left join cipher_gold g on g.instance_id = i.instance_id and g.condition = c.condition
            where {instance_filter} and c.setting in (select unnest(?::varchar[]))
            order by i.instance_id, c.condition, c.setting""", [settings]).fetchall()
    wanted = set(domains) if domains else None
    items = []
    for r in rows:
        if wanted and r[1] not in wanted:
            continue
        context = tuple(str(x) for x in _json_list(r[10]))
        in_context = set(context)
        support = tuple(str(x) for x in _json_list(r[12]) if str(x) in in_context)
        items.append(EvalItem(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7] or "", r[8], r[9], context,
                              r[11] if r[11] is not None else "null", support, bool(r[13])))
    return items


def load_records(domains: Iterable[str] | None = None) -> RecordStore:
    with connect(read_only=True) as con:
        rows = con.execute(
            "select domain, condition, record_id, serialized, fields_json from cipher_records").fetchall()
    lines: dict[tuple[str, str], dict[str, str]] = {}
    fields: dict[tuple[str, str], dict[str, dict]] = {}
    wanted = set(domains) if domains else None
    for domain, condition, rid, line, fields_json in rows:
        if wanted and domain not in wanted:
            continue
        lines.setdefault((domain, condition), {})[rid] = line
        fields.setdefault((domain, condition), {})[rid] = (
            json.loads(fields_json) if isinstance(fields_json, str) else dict(fields_json or {}))
    return RecordStore(lines, fields)


def visible_columns(domain: str) -> tuple[Column, ...]:
    d = DOMAINS[domain]
    cols = [Column("record_id", "id", "record identifier")]
    cols += [Column(c, "structured", d.column(c).description) for c in d.structured]
    cols += [Column(c, "narrative", d.column(c).description) for c in d.narrative]
    return tuple(cols)


def visible_input(item: EvalItem, records: RecordStore, record_ids: Iterable[str] | None = None) -> VisibleInput:
    """The only view of an item a system under test gets: question + visible records."""
    ids = tuple(record_ids) if record_ids is not None else item.context_ids
    key = (item.domain, item.condition)
    lines = records.lines[key]
    rows = records.fields.get(key, {})
    return VisibleInput(
        domain=item.domain,
        question=item.question,
        columns=visible_columns(item.domain),
        record_ids=ids,
        serialized=tuple(lines[r] for r in ids),
        rows=tuple(rows.get(r, {"record_id": r}) for r in ids),
    )
