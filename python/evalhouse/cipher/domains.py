"""The three CIPHER domains: column kinds, types and the shared record serialization.

This module is the source of truth for the hybrid-table schemas (CONTRACT.md mirrors it). It is
light (no heavy imports) because the landing-table declarations and dbt Python models use it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

CONDITIONS = ("redacted", "restored")
SETTINGS = ("support_controlled", "full_table")
OPERATIONS = ("filtering", "aggregation", "ranking", "trend", "co-occurrence")
ANSWER_TYPES = ("number", "string", "list")


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # structured | narrative | annotation
    sql_type: str  # DuckDB type
    description: str

    @property
    def landing_type(self) -> str:
        return {"INTEGER": "int", "BIGINT": "int", "DOUBLE": "float", "BOOLEAN": "bool",
                "VARCHAR[]": "json"}.get(self.sql_type, "string")


@dataclass(frozen=True)
class Domain:
    name: str
    title: str
    columns: tuple[Column, ...]
    paper_records: int
    paper_questions: int

    def of_kind(self, kind: str) -> list[str]:
        return [c.name for c in self.columns if c.kind == kind]

    @property
    def structured(self) -> list[str]:
        return self.of_kind("structured")

    @property
    def narrative(self) -> list[str]:
        return self.of_kind("narrative")

    @property
    def annotation(self) -> list[str]:
        return self.of_kind("annotation")

    @property
    def visible(self) -> list[str]:
        """Model-visible fields in serialization order."""
        return ["record_id", *self.structured, *self.narrative]

    @property
    def sql_columns(self) -> list[str]:
        """Columns of the logical SQL table (what gold SQL may read)."""
        return ["record_id", *self.structured, *self.annotation]

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        if name == "record_id":
            return Column("record_id", "id", "VARCHAR", "Record identifier, stable across conditions.")
        raise KeyError(name)

    def sql_schema(self) -> dict[str, str]:
        return {c: self.column(c).sql_type for c in self.sql_columns}


def _cols(kind: str, spec: str) -> list[Column]:
    out = []
    for line in spec.strip().splitlines():
        name, sql_type, desc = (p.strip() for p in line.split("|", 2))
        out.append(Column(name, kind, sql_type, desc))
    return out


FIR = Domain("fir", "First Information Reports (Haryana Anti-Corruption Bureau style)", tuple(
    _cols("structured", """
fir_no | INTEGER | FIR serial number within the police station and year.
fir_year | INTEGER | Year of registration.
district | VARCHAR | District of the police station.
police_station | VARCHAR | Police station where the FIR was registered.
fir_date | DATE | Date the FIR was registered.
occurrence_date_from | DATE | First day of the occurrence period.
occurrence_date_to | DATE | Last day of the occurrence period.
info_received_date | DATE | Date the information was received at the station.
acts | VARCHAR | Acts invoked (e.g. Prevention of Corruption Act, 1988).
sections | VARCHAR | Legal sections invoked, comma separated.
place_of_occurrence | VARCHAR | Place of occurrence as written in the report.
distance_from_ps_km | DOUBLE | Distance of the place of occurrence from the station, km.
direction_from_ps | VARCHAR | Direction of the place of occurrence from the station.
complainant_name | VARCHAR | Complainant's name (masked in the redacted condition).
complainant_father_name | VARCHAR | Complainant's father's or husband's name (masked when redacted).
complainant_age | INTEGER | Complainant's age in years.
complainant_gender | VARCHAR | Complainant's gender.
complainant_occupation | VARCHAR | Complainant's occupation.
complainant_address | VARCHAR | Complainant's address (masked in the redacted condition).
accused_count | INTEGER | Number of accused persons named.
accused_names | VARCHAR | Accused persons' names (masked in the redacted condition).
accused_department | VARCHAR | Government department of the accused.
io_name | VARCHAR | Investigating officer's name (masked in the redacted condition).
io_rank | VARCHAR | Investigating officer's rank.
property_value_inr | INTEGER | Value of property involved, rupees (0 when none).
delay_in_reporting | BOOLEAN | Whether the report notes a delay in reporting.
case_status | VARCHAR | Status of the case.
""") + _cols("narrative", """
statement_of_complaint | VARCHAR | The complainant's statement (main narrative).
brief_facts | VARCHAR | Brief facts of the case as recorded by the station.
delay_reasons | VARCHAR | Reasons for delay in reporting, if any.
action_taken | VARCHAR | Action taken by the police after registration.
""") + _cols("annotation", """
offence_type | VARCHAR | Offence described in the narrative (bribery, extortion, assault, theft, kidnapping, cheating, disproportionate assets).
bribe_demanded | BOOLEAN | The narrative affirms that a bribe was demanded.
bribe_amount_inr | INTEGER | Bribe amount visible in the narrative, rupees.
trap_laid | BOOLEAN | The narrative affirms a trap was laid to catch the accused.
weapon_used | VARCHAR | Weapon the narrative says was used, if any.
injury_reported | BOOLEAN | The narrative affirms someone was injured.
missing_person | BOOLEAN | The narrative affirms a person is missing.
vehicle_involved | BOOLEAN | The narrative affirms a vehicle was involved.
threat_made | BOOLEAN | The narrative affirms the accused threatened someone.
accused_arrested | BOOLEAN | The narrative affirms the accused was arrested.
""")), 322, 1571)

CFPB = Domain("cfpb", "CFPB consumer complaints", tuple(
    _cols("structured", """
complaint_id | INTEGER | CFPB complaint identifier.
date_received | DATE | Date the CFPB received the complaint.
product | VARCHAR | Product the complaint is about.
sub_product | VARCHAR | Sub-product.
issue | VARCHAR | Issue selected by the consumer.
sub_issue | VARCHAR | Sub-issue selected by the consumer.
company_public_response | VARCHAR | Company's optional public response.
company | VARCHAR | Company the complaint is about.
state | VARCHAR | Consumer's state (two-letter code).
zip_code | VARCHAR | Consumer's ZIP code (may be partially masked, e.g. 300XX).
tags | VARCHAR | Tags such as Older American or Servicemember.
consumer_consent_provided | VARCHAR | Whether the consumer consented to publish the narrative.
submitted_via | VARCHAR | Submission channel.
date_sent_to_company | DATE | Date the complaint was sent to the company.
company_response_to_consumer | VARCHAR | How the company responded.
timely_response | BOOLEAN | Whether the company responded in time.
consumer_disputed | VARCHAR | Whether the consumer disputed the response (N/A after 2017).
received_year | INTEGER | Year of date_received.
received_month | INTEGER | Month of date_received.
received_quarter | VARCHAR | Quarter of date_received, e.g. 2022Q3.
sent_lag_days | INTEGER | Days between receipt and sending to the company.
region | VARCHAR | US Census region of the state.
has_tags | BOOLEAN | Whether any tag is set.
""") + _cols("narrative", """
consumer_complaint_narrative | VARCHAR | Consumer-authored complaint (CFPB-redacted style).
""") + _cols("annotation", """
restricted_account_access | BOOLEAN | The narrative affirms the consumer's account access was restricted or frozen.
fraud_alleged | BOOLEAN | The narrative alleges fraud or unauthorized activity.
identity_theft | BOOLEAN | The narrative affirms identity theft.
amount_disputed_usd | DOUBLE | Disputed amount visible in the narrative, USD.
resolution_outcome | VARCHAR | Outcome the narrative reports (refund, credit_correction, denied, no_response, unresolved).
contact_attempts | INTEGER | Number of times the consumer says they contacted the company.
late_fee_charged | BOOLEAN | The narrative affirms a late fee was charged.
credit_report_error | BOOLEAN | The narrative affirms an error on a credit report.
legal_action_mentioned | BOOLEAN | The narrative affirms legal action was taken or threatened.
""")), 400, 1356)

MIMIC = Domain("mimic", "MIMIC-IV style discharge summaries", tuple(
    _cols("structured", """
note_id | VARCHAR | Discharge note identifier.
subject_id | INTEGER | Patient identifier.
hadm_id | INTEGER | Hospital admission identifier.
note_type | VARCHAR | Note type (DS = discharge summary).
note_seq | INTEGER | Sequence number of the note for the patient.
charttime | TIMESTAMP | Time the note was charted.
storetime | TIMESTAMP | Time the note was stored.
admittime | TIMESTAMP | Admission time.
dischtime | TIMESTAMP | Discharge time.
admission_type | VARCHAR | Admission type.
admission_location | VARCHAR | Where the patient was admitted from.
discharge_location | VARCHAR | Discharge location recorded in admissions.
insurance | VARCHAR | Insurance.
language | VARCHAR | Preferred language.
marital_status | VARCHAR | Marital status.
race | VARCHAR | Race.
hospital_expire_flag | INTEGER | 1 when the patient died in hospital.
service | VARCHAR | Discharging service.
""") + _cols("narrative", """
chief_complaint | VARCHAR | Chief complaint section.
history_of_present_illness | VARCHAR | History of present illness section.
brief_hospital_course | VARCHAR | Brief hospital course section.
discharge_medications | VARCHAR | Discharge medications section.
discharge_diagnosis | VARCHAR | Discharge diagnosis section.
discharge_instructions | VARCHAR | Discharge instructions section.
""") + _cols("annotation", """
primary_diagnosis | VARCHAR | Primary discharge diagnosis.
diagnoses | VARCHAR[] | All affirmed diagnoses (primary included).
procedures | VARCHAR[] | Procedures the narrative affirms were performed.
discharge_meds | VARCHAR[] | Medications the narrative lists at discharge.
complications | VARCHAR[] | Complications the narrative affirms occurred.
discharge_disposition | VARCHAR | Disposition the narrative reports (home, home_with_services, snf, rehab, expired).
icu_transfer | BOOLEAN | The narrative affirms a transfer to the ICU.
current_smoker | BOOLEAN | The narrative affirms the patient currently smokes.
""")), 500, 500)

DOMAINS: dict[str, Domain] = {d.name: d for d in (FIR, CFPB, MIMIC)}

# Paper Table 1 (percentages) for the benchmark-stats mart and the instantiation mix.
PAPER_TABLE1 = {
    "fir": {"questions": 1571, "avg_question_length": 13.7, "structured_columns": 27, "narrative_columns": 4,
            "avg_narrative_words": 630,
            "operation": {"aggregation": 25.5, "trend": 15.8, "ranking": 11.2, "co-occurrence": 20.4, "filtering": 27.1},
            "answer_type": {"number": 41.7, "string": 15.0, "list": 43.3}},
    "cfpb": {"questions": 1356, "avg_question_length": 24.4, "structured_columns": 23, "narrative_columns": 1,
             "avg_narrative_words": 813,
             "operation": {"aggregation": 25.0, "trend": 16.3, "ranking": 17.8, "co-occurrence": 9.7, "filtering": 31.2},
             "answer_type": {"number": 30.5, "string": 25.6, "list": 44.0}},
    "mimic": {"questions": 500, "avg_question_length": 20.0, "structured_columns": 18, "narrative_columns": 6,
              "avg_narrative_words": 1018,
              "operation": {"aggregation": 20.2, "trend": 18.2, "ranking": 14.6, "co-occurrence": 25.2, "filtering": 21.8},
              "answer_type": {"number": 54.6, "string": 42.8, "list": 2.6}},
}


def domain(name: str) -> Domain:
    if name not in DOMAINS:
        from ..errors import UserError
        raise UserError(f"unknown CIPHER domain '{name}' (known: {', '.join(DOMAINS)})")
    return DOMAINS[name]


def _render_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return "; ".join(_render_value(v) for v in value)
    return " ".join(str(value).split())


def serialize_record(domain_name: str, fields: dict[str, Any]) -> str:
    """One line `[field: value, ...]` over the model-visible fields, in the domain's order."""
    order = DOMAINS[domain_name].visible
    return "[" + ", ".join(f"{name}: {_render_value(fields.get(name))}" for name in order) + "]"


def visible_fields(domain_name: str, row: dict[str, Any]) -> dict[str, Any]:
    """The model-visible subset of a record row, JSON-ready, in visible order."""
    out = {}
    for name in DOMAINS[domain_name].visible:
        value = row.get(name)
        if isinstance(value, (date, datetime)):
            value = _render_value(value)
        out[name] = value
    return out


def to_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
