"""Native-style redaction: CFPB `XXXX` / `XX/XX/XXXX`, MIMIC `___`, FIR Presidio typed placeholders.

For CFPB and MIMIC the generator knows where the private spans are (it wrote them), so masking is
the institutional de-identification applied to those spans. FIR reports are not uniformly
de-identified at the source, so FIR text is analysed by a Presidio `AnalyzerEngine` that works
offline: a no-op NLP engine (no spaCy model is installed) plus pattern recognizers (dates, Indian
phone numbers, Aadhaar) and deny-list recognizers for person names and places built from the
generator's Faker en_IN lexicon and place lists.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .textdoc import Doc

CFPB_MASKED = {"PERSON", "DATE", "ACCOUNT", "ADDRESS", "LOCATION", "AMOUNT", "PHONE"}
MIMIC_MASKED = {"PERSON", "DATE", "LOCATION", "FACILITY", "PHONE"}


@dataclass
class Span:
    start: int  # offsets in the source text
    end: int
    type: str
    text: str


@dataclass
class Replacement:
    field: str
    span_index: int
    semantic_type: str
    masked_text: str
    source_text: str
    red_start: int
    red_end: int
    surrogate: str = ""
    src_start: int = -1
    src_end: int = -1


def native_spans(domain: str, doc: Doc) -> list[Span]:
    """Spans that the domain's native de-identification masks (CFPB, MIMIC)."""
    keep = CFPB_MASKED if domain == "cfpb" else MIMIC_MASKED
    return [Span(e.start, e.end, e.type, e.text) for e in doc.entities if e.type in keep]


def native_mask(domain: str, span: Span) -> str:
    if domain == "mimic":
        return "___"
    if span.type == "DATE" and re.fullmatch(r"\d{1,2}/\d{1,2}/\d{2,4}", span.text):
        return "XX/XX/XXXX"
    return "XXXX"


def apply_masks(field: str, text: str, spans: list[Span], mask_for) -> tuple[str, list[Replacement]]:
    """Replace spans (source offsets) with masks; return the redacted text and its replacement log."""
    out, log, cursor = [], [], 0
    pos = 0
    for i, span in enumerate(sorted(spans, key=lambda s: s.start)):
        if span.start < cursor:
            continue  # overlapping detections: the first wins
        out.append(text[cursor:span.start])
        pos += span.start - cursor
        mask = mask_for(span)
        log.append(Replacement(field, len(log), span.type, mask, span.text, pos, pos + len(mask),
                               src_start=span.start, src_end=span.end))
        out.append(mask)
        pos += len(mask)
        cursor = span.end
    out.append(text[cursor:])
    return "".join(out), log


# ---------------------------------------------------------------- FIR: Presidio, offline

@lru_cache(maxsize=1)
def fir_analyzer():
    from faker.providers.person.en_IN import Provider as INPerson
    from presidio_analyzer import AnalyzerEngine, PatternRecognizer, RecognizerRegistry
    from presidio_analyzer.nlp_engine import NoOpNlpEngine
    from presidio_analyzer.predefined_recognizers import DateRecognizer, InAadhaarRecognizer, PhoneRecognizer

    from .gen.fir import DISTRICTS, VILLAGES

    names = sorted({*INPerson.first_names_male, *INPerson.first_names_female, *INPerson.last_names} - _NOT_NAMES)
    places = sorted({*VILLAGES, *DISTRICTS} | {c for c in _IN_CITIES})
    registry = RecognizerRegistry(supported_languages=["en"])
    registry.add_recognizer(PatternRecognizer(supported_entity="PERSON", deny_list=names, name="fir_name_lexicon"))
    registry.add_recognizer(PatternRecognizer(supported_entity="LOCATION", deny_list=places, name="fir_place_lexicon"))
    registry.add_recognizer(DateRecognizer())
    registry.add_recognizer(PhoneRecognizer(supported_regions=("IN",)))
    registry.add_recognizer(InAadhaarRecognizer())
    engine = NoOpNlpEngine(models=[{"lang_code": "en", "model_name": "none"}])
    return AnalyzerEngine(registry=registry, nlp_engine=engine, supported_languages=["en"])


# Words in the Faker lexicon that are also ordinary words in FIR prose.
_NOT_NAMES = {"Dev", "Lal"}
_IN_CITIES = ["Chandigarh", "Panipat", "Sonipat", "Jind", "Kaithal", "Bhiwani", "Sirsa", "Yamunanagar", "Panchkula",
              "Rewari", "Jhajjar", "Kurukshetra", "Fatehabad", "Mahendragarh", "Nuh", "Palwal", "Charkhi Dadri", "Delhi"]
FIR_TYPE_NAMES = {"PERSON": "PERSON", "LOCATION": "LOCATION", "DATE_TIME": "DATE_TIME", "PHONE_NUMBER": "PHONE_NUMBER",
                  "IN_AADHAAR": "IN_AADHAAR"}


def presidio_spans(text: str) -> list[Span]:
    results = fir_analyzer().analyze(text=text, language="en", score_threshold=0.3)
    spans = sorted((Span(r.start, r.end, r.entity_type, text[r.start:r.end]) for r in results),
                   key=lambda s: (s.start, -(s.end - s.start)))
    merged: list[Span] = []
    for s in spans:
        if merged and s.start < merged[-1].end:
            continue
        # "Ram" + " " + "Kumar" detected separately form one person.
        if merged and merged[-1].type == s.type and text[merged[-1].end:s.start].strip() == "":
            prev = merged.pop()
            s = Span(prev.start, s.end, s.type, text[prev.start:s.end])
        merged.append(s)
    return merged


class PlaceholderBook:
    """Presidio-style instance counter: the same (type, text) gets the same <TYPE_000001>."""

    def __init__(self):
        self.ids: dict[tuple[str, str], str] = {}
        self.counts: dict[str, int] = {}

    def placeholder(self, span: Span) -> str:
        key = (span.type, span.text)
        if key not in self.ids:
            self.counts[span.type] = self.counts.get(span.type, 0) + 1
            self.ids[key] = f"<{span.type}_{self.counts[span.type]:06d}>"
        return self.ids[key]
