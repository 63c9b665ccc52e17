"""Importers for real records: CFPB complaint exports, MIMIC-IV discharge notes, FIR extractions.

Each importer returns an ``ImportResult`` (records + rejects). A malformed row is rejected with
file, row and reason; the rest loads. A record with an empty narrative is kept (flagged by the
marts), never dropped. `run_import` lands both in the warehouse landing zone as one run.
"""
from __future__ import annotations

import csv
import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Iterable, Iterator

from ..errors import BadInput, UserError

CFPB_CSV_COLUMNS = ["Date received", "Product", "Sub-product", "Issue", "Sub-issue", "Consumer complaint narrative",
                    "Company public response", "Company", "State", "ZIP code", "Tags", "Consumer consent provided?",
                    "Submitted via", "Date sent to company", "Company response to consumer", "Timely response?",
                    "Consumer disputed?", "Complaint ID"]
# The current public API / JSON export names the same fields in snake_case (narrative = complaint_what_happened).
CFPB_API_COLUMNS = ["date_received", "product", "sub_product", "issue", "sub_issue", "complaint_what_happened",
                    "company_public_response", "company", "state", "zip_code", "tags", "consumer_consent_provided",
                    "submitted_via", "date_sent_to_company", "company_response", "timely", "consumer_disputed",
                    "complaint_id"]
TARGET = ["date_received", "product", "sub_product", "issue", "sub_issue", "consumer_complaint_narrative",
          "company_public_response", "company", "state", "zip_code", "tags", "consumer_consent_provided",
          "submitted_via", "date_sent_to_company", "company_response_to_consumer", "timely_response",
          "consumer_disputed", "complaint_id"]
REGIONS = {"Northeast": "CT ME MA NH RI VT NJ NY PA", "Midwest": "IL IN MI OH WI IA KS MN MO NE ND SD",
           "South": "DE FL GA MD NC SC VA DC WV AL KY MS TN AR LA OK TX", "West": "AZ CO ID MT NV NM UT WY AK CA HI OR WA"}
STATE_REGION = {s: r for r, states in REGIONS.items() for s in states.split()}


@dataclass
class ImportResult:
    domain: str
    source_format: str
    source_file: str
    records: list[dict] = field(default_factory=list)  # record_id, source_row, fields, narrative
    rejects: list[dict] = field(default_factory=list)  # source_row, field, reason


class RowError(ValueError):
    def __init__(self, field_name: str, reason: str):
        super().__init__(reason)
        self.field = field_name
        self.reason = reason


def _open_rows(path: Path) -> tuple[list[str], Iterator[tuple[int, dict | list]]]:
    """Header and (1-based data row, row) pairs from CSV, JSON (array) or NDJSON."""
    if not path.exists():
        raise UserError(f"{path}: file not found")
    if path.suffix.lower() in (".json", ".jsonl", ".ndjson"):
        text = path.read_text(encoding="utf-8")
        try:
            data = json.loads(text) if path.suffix.lower() == ".json" else [json.loads(l) for l in text.splitlines() if l.strip()]
        except json.JSONDecodeError as exc:
            raise BadInput(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
        if isinstance(data, dict):
            data = data.get("records") or data.get("hits") or [data]
        header = sorted({k for row in data if isinstance(row, dict) for k in row})
        return header, iter(enumerate(data, 1))
    fh = open(path, newline="", encoding="utf-8-sig")
    reader = csv.reader(fh)
    try:
        header = next(reader)
    except StopIteration:
        raise BadInput(f"{path}: empty file (no header row)") from None

    def rows():
        with fh:
            for i, values in enumerate(reader, 1):
                yield i, values
    return header, rows()


def _as_dict(header: list[str], row) -> dict:
    if isinstance(row, dict):
        return row
    if len(row) != len(header):
        raise RowError("*", f"row has {len(row)} fields, expected {len(header)}")
    return dict(zip(header, row))


def _date(value, field_name: str) -> date | None:
    if value in (None, ""):
        return None
    text = str(value).strip()[:10]
    for fmt in ("%Y-%m-%d", "%m/%d/%Y", "%m/%d/%y"):
        try:
            return datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    raise RowError(field_name, f"'{value}' is not a date")


def _int(value, field_name: str, required: bool = True) -> int | None:
    if value in (None, ""):
        if required:
            raise RowError(field_name, "is missing")
        return None
    try:
        return int(str(value).strip())
    except ValueError:
        raise RowError(field_name, f"'{value}' is not an integer") from None


def _yes(value) -> bool | None:
    if value in (None, ""):
        return None
    return str(value).strip().lower() in ("yes", "true", "y", "1")


def import_cfpb(path: str | Path) -> ImportResult:
    """CFPB complaints: the 18-column CSV export or the current API/JSON (snake_case) layout."""
    path = Path(path)
    header, rows = _open_rows(path)
    if set(CFPB_CSV_COLUMNS) <= set(header):
        fmt, names = "cfpb_csv_18col", CFPB_CSV_COLUMNS
    elif set(CFPB_API_COLUMNS) - {"consumer_disputed", "tags", "company_public_response"} <= set(header):
        fmt, names = "cfpb_api", CFPB_API_COLUMNS
    else:
        missing = sorted(set(CFPB_CSV_COLUMNS) - set(header))
        raise BadInput(f"{path}: not a CFPB complaint export (missing columns: {', '.join(missing[:5])})")
    result = ImportResult("cfpb", fmt, str(path))
    seen: set[int] = set()
    for i, row in rows:
        try:
            raw = _as_dict(header, row)
            src = {t: raw.get(n) for t, n in zip(TARGET, names)}
            cid = _int(src["complaint_id"], names[-1])
            if cid in seen:
                raise RowError(names[-1], f"duplicate complaint id {cid}")
            received = _date(src["date_received"], names[0])
            if received is None:
                raise RowError(names[0], "is missing")
            sent = _date(src["date_sent_to_company"], names[13])
            fields = {k: (v.strip() if isinstance(v, str) else v) or None for k, v in src.items()
                      if k != "consumer_complaint_narrative"}
            state = fields.get("state")
            fields.update(complaint_id=cid, date_received=received.isoformat(),
                          date_sent_to_company=sent.isoformat() if sent else None,
                          timely_response=_yes(src["timely_response"]), received_year=received.year,
                          received_month=received.month, received_quarter=f"{received.year}Q{(received.month - 1) // 3 + 1}",
                          sent_lag_days=(sent - received).days if sent else None, region=STATE_REGION.get(state or ""),
                          has_tags=bool(fields.get("tags")))
            seen.add(cid)
            result.records.append({"record_id": f"CFPB-{cid}", "source_row": i, "fields": fields,
                                   "narrative": (src["consumer_complaint_narrative"] or "").strip()})
        except RowError as exc:
            result.rejects.append({"source_row": i, "field": exc.field, "reason": exc.reason})
    return result


# --------------------------------------------------------------------------------- MIMIC-IV

MIMIC_SECTIONS = {
    "chief_complaint": ["chief complaint", "cc", "reason for visit", "reason for consultation"],
    "history_of_present_illness": ["history of present illness", "hpi", "hx", "history", "subjective"],
    "brief_hospital_course": ["brief hospital course", "hospital course", "assessment", "impression",
                              "assessment and plan", "findings", "procedure", "description of procedure", "objective"],
    "discharge_medications": ["discharge medications", "medications", "current medications", "medications on discharge"],
    "discharge_diagnosis": ["discharge diagnosis", "diagnosis", "diagnoses", "final diagnosis", "postoperative diagnosis",
                            "preoperative diagnosis"],
    "discharge_instructions": ["discharge instructions", "plan", "disposition", "recommendations", "recommendation"],
}
_KNOWN = sorted({n for names in MIMIC_SECTIONS.values() for n in names}, key=len, reverse=True)
# A section header: any ALL-CAPS label, or a known label in any case, followed by ':' (MTSamples adds ',').
_HEADER = re.compile(r"(?:^|(?<=[\s,.]))((?:[A-Z][A-Z /&()-]{1,40}[A-Z)])|(?i:" + "|".join(map(re.escape, _KNOWN)) + r"))\s*:,?")


def split_sections(text: str) -> dict[str, str]:
    """Map a clinical note's headed sections onto the six MIMIC narrative columns."""
    out = {k: "" for k in MIMIC_SECTIONS}
    text = text or ""
    matches = list(_HEADER.finditer(text))
    for n, m in enumerate(matches):
        title = m.group(1).strip().lower()
        end = matches[n + 1].start() if n + 1 < len(matches) else len(text)
        body = text[m.end():end].strip(" ,\n")
        for col, names in MIMIC_SECTIONS.items():
            if title in names:
                out[col] = (out[col] + " " + body).strip()
                break
    if not any(out.values()):
        out["brief_hospital_course"] = text.strip()
    return out


def import_mimic_discharge(path: str | Path, admissions: str | Path | None = None) -> ImportResult:
    """MIMIC-IV note/discharge.csv (+ hosp/admissions.csv joined on hadm_id)."""
    path = Path(path)
    header, rows = _open_rows(path)
    needed = {"note_id", "subject_id", "hadm_id", "text"}
    if not needed <= set(header):
        raise BadInput(f"{path}: not a MIMIC-IV discharge file (missing: {', '.join(sorted(needed - set(header)))})")
    adm = _admissions(Path(admissions)) if admissions else {}
    result = ImportResult("mimic", "mimic_discharge", str(path))
    for i, row in rows:
        try:
            raw = _as_dict(header, row)
            hadm = _int(raw.get("hadm_id"), "hadm_id")
            fields = {"note_id": raw["note_id"], "subject_id": _int(raw.get("subject_id"), "subject_id"), "hadm_id": hadm,
                      "note_type": raw.get("note_type"), "note_seq": _int(raw.get("note_seq"), "note_seq", False),
                      "charttime": raw.get("charttime"), "storetime": raw.get("storetime"), **adm.get(hadm, {})}
            text = raw.get("text") or ""
            result.records.append({"record_id": f"MIMIC-{raw['note_id']}", "source_row": i, "fields": fields,
                                   "narrative": text, "sections": split_sections(text)})
        except RowError as exc:
            result.rejects.append({"source_row": i, "field": exc.field, "reason": exc.reason})
    return result


def _admissions(path: Path) -> dict[int, dict]:
    header, rows = _open_rows(path)
    keep = ["admittime", "dischtime", "admission_type", "admission_location", "discharge_location", "insurance",
            "language", "marital_status", "race", "hospital_expire_flag"]
    out = {}
    for _i, row in rows:
        raw = _as_dict(header, row)
        if raw.get("hadm_id"):
            out[int(raw["hadm_id"])] = {k: raw.get(k) for k in keep}
    return out


def import_mtsamples(path: str | Path) -> ImportResult:
    """MTSamples transcriptions, a public clinical stand-in for MIMIC discharge notes."""
    path = Path(path)
    header, rows = _open_rows(path)
    if not {"transcription", "medical_specialty"} <= set(header):
        raise BadInput(f"{path}: not an MTSamples file (needs transcription and medical_specialty columns)")
    result = ImportResult("mimic", "mtsamples", str(path))
    for i, row in rows:
        try:
            raw = _as_dict(header, row)
            text = (raw.get("transcription") or "").strip()
            rid = raw.get("row_index") or str(i)
            fields = {"note_id": f"MTS-{rid}", "note_type": "transcription", "service": (raw.get("medical_specialty") or "").strip(),
                      "description": (raw.get("description") or "").strip(), "sample_name": (raw.get("sample_name") or "").strip()}
            result.records.append({"record_id": f"MTS-{rid}", "source_row": i, "fields": fields, "narrative": text,
                                   "sections": split_sections(text)})
        except RowError as exc:
            result.rejects.append({"source_row": i, "field": exc.field, "reason": exc.reason})
    return result


# --------------------------------------------------------------------------------- FIR

FIR_REQUIRED = ("fir_no", "police_station", "fir_date")
FIR_TEXT_FIELDS = ("statement_of_complaint", "statement", "complaint_statement", "text")


def import_fir(path: str | Path) -> ImportResult:
    """FIR records as JSON/CSV of extracted fields plus the complaint statement text."""
    path = Path(path)
    header, rows = _open_rows(path)
    result = ImportResult("fir", "fir_json" if path.suffix.lower().startswith(".json") else "fir_csv", str(path))
    for i, row in rows:
        try:
            raw = _as_dict(header, row)
            if not isinstance(raw, dict):
                raise RowError("*", "row is not an object")
            for f in FIR_REQUIRED:
                if raw.get(f) in (None, ""):
                    raise RowError(f, "is missing")
            fir_no = _int(raw["fir_no"], "fir_no")
            fir_date = _date(raw["fir_date"], "fir_date")
            text_field = next((f for f in FIR_TEXT_FIELDS if f in raw), None)
            fields = {k: v for k, v in raw.items() if k not in FIR_TEXT_FIELDS}
            fields.update(fir_no=fir_no, fir_date=fir_date.isoformat(), fir_year=fir_date.year)
            rid = f"FIR-{raw['police_station']}-{fir_date.year}-{fir_no}".replace(" ", "_")
            result.records.append({"record_id": rid, "source_row": i, "fields": fields,
                                   "narrative": (raw.get(text_field) or "").strip() if text_field else ""})
        except RowError as exc:
            result.rejects.append({"source_row": i, "field": exc.field, "reason": exc.reason})
    return result


IMPORTERS = {"cfpb": import_cfpb, "mimic": import_mimic_discharge, "mtsamples": import_mtsamples, "fir": import_fir}


def run_import(kind: str, path: str | Path, admissions: str | Path | None = None) -> ImportResult:
    """Import one file and land records and rejects as a `cipher.import` run (resumable)."""
    from ..runs import open_run

    if kind not in IMPORTERS:
        raise UserError(f"unknown CIPHER import kind '{kind}' (known: {', '.join(IMPORTERS)})")
    path = Path(path)
    result = import_mimic_discharge(path, admissions) if kind == "mimic" else IMPORTERS[kind](path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    with open_run("cipher.import", {"kind": kind, "file": str(path.resolve()), "sha": digest}, benchmark="cipher") as run:
        done = run.done_items("cipher_import_records")
        recs = [{"item_id": r["record_id"], "domain": result.domain, "source_format": result.source_format,
                 "source_file": str(path), "source_row": r["source_row"], "record_id": r["record_id"],
                 "fields": {**r["fields"], **({"sections": r["sections"]} if "sections" in r else {})},
                 "narrative": r["narrative"]} for r in result.records if r["record_id"] not in done]
        for i in range(0, len(recs), 500):
            run.write("cipher_import_records", recs[i:i + 500])
        if not run.done_items("cipher_import_rejects"):
            rej = [{"item_id": f"row-{r['source_row']}", "domain": result.domain, "source_file": str(path),
                    "source_row": r["source_row"], "field": r["field"], "reason": r["reason"]} for r in result.rejects]
            if rej:
                run.write("cipher_import_rejects", rej)
        run.count("records", len(result.records))
        run.count("rejects", len(result.rejects))
    return result
