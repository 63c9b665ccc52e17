"""Build one domain's records in the three text states (source, redacted, restored), the
replacement log, the fact mentions, and the per-condition annotation view."""
from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from importlib import import_module

from faker import Faker

from .domains import DOMAINS
from .redaction import PlaceholderBook, Replacement, apply_masks, native_mask, native_spans, presidio_spans
from .restoration import apply_style, span_seed, surrogate
from .textdoc import Doc

STATES = ("source", "redacted", "restored")
LOCALE = {"fir": "en_IN", "cfpb": "en_US", "mimic": "en_US"}
PREFIX = {"fir": "FIR", "cfpb": "CFPB", "mimic": "MIMIC"}
FIR_PII_FIELDS = ("complainant_name", "complainant_father_name", "complainant_address", "accused_names", "io_name")
NEAR_DUPLICATE_RATE = 0.1


@dataclass
class BuiltRecord:
    record_id: str
    story_seed: int
    structured: dict[str, dict]  # state -> structured values
    narratives: dict[str, dict]  # state -> field -> text
    annotation: dict[str, dict]  # state -> annotation view
    replacements: list[dict] = field(default_factory=list)
    mentions: list[dict] = field(default_factory=list)
    latent: dict = field(default_factory=dict)


class DomainBuilder:
    def __init__(self, domain: str, seed: int):
        self.domain = domain
        self.seed = seed
        self.rng = random.Random(f"{seed}:{domain}")
        self.fake = Faker(LOCALE[domain])
        self.fake.seed_instance(seed * 7 + len(domain))
        self.sur_fake = Faker(LOCALE[domain])
        self.book = PlaceholderBook()
        self.fir_surrogates: dict[str, str] = {}
        self.gen = import_module(f"{__package__}.gen.{domain}")
        self.story_seeds: list[int] = []

    def build(self, n: int) -> list[BuiltRecord]:
        return [self.build_one(i) for i in range(n)]

    def _story_seed(self, i: int) -> int:
        if i > 5 and self.rng.random() < NEAR_DUPLICATE_RATE:
            s = self.story_seeds[self.rng.randrange(len(self.story_seeds))]  # near-duplicate of an earlier record
        else:
            s = self.rng.getrandbits(32)
        self.story_seeds.append(s)
        return s

    def build_one(self, i: int) -> BuiltRecord:
        rid = f"{PREFIX[self.domain]}-{i + 1:04d}"
        story = self._story_seed(i)
        structured, docs, latent = self.gen.make_record(self.rng, self.fake, i, story)
        if self.domain == "cfpb" and i % 97 == 40:
            docs = {name: Doc() for name in docs}  # real exports contain complaints without a narrative
        rec = BuiltRecord(rid, story, {s: dict(structured) for s in STATES}, {s: {} for s in STATES}, {}, latent=latent)
        masked_keys: dict[int, dict] = {}
        for fname, doc in docs.items():
            red, rest, log = self._transform(rid, fname, doc.text, doc)
            rec.narratives["source"][fname] = doc.text
            rec.narratives["redacted"][fname] = red
            rec.narratives["restored"][fname] = rest
            rec.replacements += [_log_row(self.domain, rid, r) for r in log]
            for m_index, m in enumerate(doc.mentions):
                hit = None
                if m.key is not None:
                    ent = doc.entities[m.key]
                    hit = next((r for r in log if r.src_start < ent.end and ent.start < r.src_end), None)
                row = {"item_id": f"{rid}:{fname}:{m_index}", "domain": self.domain, "record_id": rid, "fact": m.fact,
                       "mention_index": m_index, "field": fname, "polarity": m.polarity, "value": _jsonable(m.value),
                       "visible_redacted": hit is None,
                       "value_restored": _jsonable(m.value if hit is None else _value_from_surrogate(m.fact, hit.surrogate, m.value))}
                rec.mentions.append(row)
        if self.domain == "fir":
            for fname in FIR_PII_FIELDS:
                red, rest, log = self._transform(rid, fname, structured[fname])
                rec.structured["redacted"][fname] = red
                rec.structured["restored"][fname] = rest
                rec.replacements += [_log_row(self.domain, rid, r) for r in log]
        for state in STATES:
            rec.annotation[state] = annotation_view(self.domain, rec.mentions, state)
        return rec

    def _transform(self, rid: str, fname: str, text: str, doc: Doc | None = None) -> tuple[str, str, list[Replacement]]:
        if self.domain == "fir":
            spans = presidio_spans(text) if text else []
            red, log = apply_masks(fname, text, spans, self.book.placeholder)
        else:
            spans = native_spans(self.domain, doc) if doc else []
            red, log = apply_masks(fname, text, spans, lambda s: native_mask(self.domain, s))
        for r in log:
            r.surrogate = self._surrogate(rid, fname, r, red)
        rest = apply_style(red, [asdict(r) for r in log], "restored")
        return red, rest, log

    def _surrogate(self, rid: str, fname: str, r: Replacement, red_text: str) -> str:
        if self.domain == "fir" and r.masked_text in self.fir_surrogates:
            return self.fir_surrogates[r.masked_text]  # one surrogate per placeholder, corpus-wide
        s = span_seed(self.domain, rid, fname, r.span_index, self.seed)
        self.sur_fake.seed_instance(s)
        context = red_text[max(0, r.red_start - 80):r.red_end + 80]
        value = surrogate(r.semantic_type, r.masked_text, context, self.sur_fake, random.Random(s), self.domain)
        if self.domain == "fir":
            self.fir_surrogates[r.masked_text] = value
        return value


def _log_row(domain: str, rid: str, r: Replacement) -> dict:
    return {"item_id": f"{rid}:{r.field}:{r.span_index}", "domain": domain, "record_id": rid, "field": r.field,
            "span_index": r.span_index, "semantic_type": r.semantic_type, "masked_text": r.masked_text,
            "surrogate": r.surrogate, "source_text": r.source_text, "red_start": r.red_start, "red_end": r.red_end}


def _jsonable(v):
    if isinstance(v, (date, datetime)):
        return v.isoformat()
    return v


def _value_from_surrogate(fact: str, text: str, original):
    """What a reader of the restored text takes the fact's value to be."""
    if fact == "amount_disputed_usd":
        m = re.search(r"[\d,]+(?:\.\d+)?", text)
        return round(float(m.group(0).replace(",", "")), 2) if m else None
    if fact == "discharge_disposition":
        if "Nursing" in text:
            return "snf"
        if "Rehabilitation Hospital" in text:
            return "rehab"
        if "Home Health" in text:
            return "home_with_services"
        return None
    return original


def annotation_view(domain: str, mentions: list[dict], state: str) -> dict:
    """Facts as visible in one state: a fact whose only affirming mention is masked is absent."""
    d = DOMAINS[domain]
    out = {}
    for col in d.annotation:
        sql_type = d.column(col).sql_type
        rows = [m for m in mentions if m["fact"] == col and m["polarity"] == "affirmed"
                and (state != "redacted" or m["visible_redacted"])]
        values = [m["value_restored"] if state == "restored" else m["value"] for m in rows]
        if sql_type == "BOOLEAN":
            out[col] = any(bool(v) for v in values)
        elif sql_type == "VARCHAR[]":
            out[col] = list(dict.fromkeys(v for v in values if v is not None))
        else:
            # Prefer the most specific mention: one whose value rests on an entity span.
            keyed = [m for m in rows if not m["visible_redacted"] or m["value"] != m["value_restored"]]
            pick = (keyed or rows)
            out[col] = None
            for m in pick:
                v = m["value_restored"] if state == "restored" else m["value"]
                if v is not None:
                    out[col] = v
                    break
    return out
